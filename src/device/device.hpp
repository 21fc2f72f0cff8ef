// SPDX-License-Identifier: MIT
// Process-wide device state: the netmod and shm instances, the bootstrap,
// world facts, and init/finalize. One instance per process (MPI_THREAD_SERIALIZED
// at most: no locks).
#pragma once
#include <string>

#include "active_netmod.hpp"
#include "netmod/optional.hpp"
#include "device/bootstrap.hpp"
#include "device/idle.hpp"
#include "shm/shm.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

struct device_state {
    active_netmod nm;
    shm::transport shm;  // local peers (shm.local(peer)); docs/shm.md
    bootstrap boot;
    int world_rank = 0;
    int world_size = 1;
    int local_ranks = 1;      // ranks on my node
    int host_ranks = 1;       // ranks on my host (>= local_ranks; init_locality)
    int usable_cores = 1;     // cores in my affinity mask (hwloc)
    bool oversubscribed = false;
    idle_policy idle;         // how waits behave (idle.hpp, CH4LITE_YIELD)
    bool initialized = false;
    bool finalized = false;
    int thread_level = 0;     // MPI_THREAD_* provided
    bool async_progress = false;  // CH4LITE_ASYNC_PROGRESS (async_progress.hpp)
    std::size_t eager_max = 0;     // AM path: largest eager payload
    std::size_t rndv_chunk = 0;    // AM path: rendezvous chunk size
    std::size_t rndv_window = 0;   // AM path: chunks in flight per message
    // Native tagged path (docs/ddt-wire.md): noncontiguous messages up to
    // ddt_pack_max are packed and sent as one tagged message; larger ones,
    // and contiguous ones above tagged_rndv_min, announce themselves with a
    // tagged RTS and move as tagged data (typed.hpp). The same on every rank.
    std::size_t ddt_pack_max = 0;
    std::size_t tagged_rndv_min = 0;
    // ... and when either buffer is noncontiguous, the data after that RTS
    // moves as tagged messages of tdata_chunk bytes (0: as AM chunks), at
    // most tdata_window of them in flight per message (docs/ddt-wire.md).
    std::size_t tdata_chunk = 0;
    std::size_t tdata_window = 0;
    // AM path, shm single copy into a typed receive buffer: only when its
    // segments average at least this many bytes (else pipelined chunks).
    std::size_t ddt_cma_seg_min = 0;
    // Shm single copy of a contiguous message of at least this many bytes:
    // split between receiver (reads the first half) and sender (writes the
    // second half), so both cores copy. 0: never.
    std::size_t cma_split_min = 0;
    // Contiguous rendezvous messages to a local peer of at most this many
    // bytes go through the rings (no single-copy offer) while the ring to
    // that peer runs cached stores at speed (shm::ring_runs_fast). 0: never.
    std::size_t shm_ring_rndv_max = 0;
    bool cma_write = true;  // CH4LITE_SHM_CMA_WRITE=0: answer SPLIT with "not written"
    // Split single copies whose sender may still be writing into our
    // memory (SPLIT sent, SPLIT_DONE not yet here): src/rma does not remap
    // window memory meanwhile.
    uint32_t splits_pending = 0;
    // How this rank's AM-path rendezvous receives moved their data, printed
    // at MPI_Finalize with CH4LITE_STATS=1 (docs/shm.md, "Counters"): by the
    // receiver's single copy (of which split with the sender), or in chunks
    // after a CTS (rings or netmod).
    struct {
        uint64_t rndv_cma = 0, rndv_split = 0, rndv_chunks = 0;
        uint64_t rma_cma_puts = 0, rma_split_puts = 0;  // Win_create puts by single copy (src/rma)
        uint64_t rma_remapped = 0;  // Win_create windows whose memory went onto a memfd (src/rma)
    } stats;
    bool print_stats = false;
    // Point-to-point is matched by the device (AM path) instead of the
    // netmod. Always so without native tagged messaging; with it, whenever
    // shm is on and some node holds several ranks, so that one matching
    // engine sees shm and netmod senders alike (MPI_ANY_SOURCE, probes;
    // docs/shm.md). The same on every rank; fixed at init.
    bool device_matching = true;
    // The netmod carries nothing (every peer is local): only idle waits
    // poll it, now and then (its idle poll may be a system call).
    bool nm_quiet = false;
    // The netmod was initialized. It is not when every rank of the job
    // shares this node's segment (CH4LITE_NETMOD_ALWAYS=1: it always is):
    // then nm_quiet holds too, and nothing calls the netmod. Loading and
    // opening libfabric is most of a process's start-up (docs/netmod-ofi.md,
    // "LOADING LIBFABRIC"). The same on every rank; fixed at init.
    bool nm_open = false;
    // Operations waiting in the deferred FIFOs (device/deferred.hpp); read
    // inline on every send and poll.
    uint32_t deferred_sends = 0;
    uint32_t deferred_recvs = 0;
    // Collective schedules running (coll/sched.hpp): polled by progress()
    // while nonzero. Next to the deferred counters, so one test covers all.
    uint32_t sched_active = 0;
    // src/rma has work only polling finds (rma::hook: passive-target lock
    // requests waiting for a node peer's release, RMA messages queued or in
    // flight): nonzero makes every progress() call it.
    uint32_t rma_poll = 0;
};

extern device_state g_dev;
// initialized && !finalized, as one flag every MPI call reads inline
// (api/errors.hpp).
extern bool g_active;

// Brings up bootstrap, netmod and communicators. `error` explains a failure.
status init(int required, int& provided, std::string& error);
// Barrier, netmod shutdown, PMI finalize.
status finalize();
// Kills the job through the launcher (MPI_Abort, fatal errors). Never returns.
[[noreturn]] void abort_job(int code, const char* message) noexcept;

// Largest MPI tag (24 bits: what the native match bits carry; the AM path
// uses the same bound so both builds behave alike).
inline constexpr int tag_ub = 0xffffff;

// Whether this build matches point-to-point in the netmod.
inline constexpr bool native_tagged = active_netmod::caps.native_tagged && !CH4LITE_FORCE_AM;

// "ch4lite 0.1.0 (...; netmod ofi, provider tcp;ofi_rxm, native tagged path;
// shm on (4 local ranks, cma); ...)" etc.
std::string library_version();

}  // namespace ch4lite::dev
