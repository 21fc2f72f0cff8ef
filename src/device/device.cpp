// SPDX-License-Identifier: MIT
#include "device/device.hpp"

#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "dame/stream.hpp"
#include "util/api_lock.hpp"
#include "device/async_progress.hpp"
#include "device/comm.hpp"
#include "device/match_queue.hpp"
#include "device/pool_gc.hpp"
#include "device/reach_check.hpp"
#include "device/progress.hpp"
#include "device/request.hpp"
#include "device/typed.hpp"
#include "util/env.hpp"
#include "util/log.hpp"
#include "util/pool_buffer.hpp"

namespace ch4lite::dev {

device_state g_dev;
bool g_active = false;

namespace {

// Cores this process may run on: cores of the hwloc topology that intersect
// our CPU affinity mask (falls back to the mask's CPU count).
int count_usable_cores() {
    cpu_set_t mask;
    int cpus = 1;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) cpus = std::max(1, CPU_COUNT(&mask));
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return cpus;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    int cores = cpus;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
            const int n = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE);
            if (n > 0) cores = n;
        }
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
    return cores;
}

status init_pools() {
    using util::pool_config_from_env;
    status s = request_pool().init(pool_config_from_env({"REQUEST", 256, 256, 1u << 20}));
    if (s != status::ok) return s;
    return unexpected_pool().init(pool_config_from_env({"UNEXPECTED", 64, 256, 1u << 20}));
}

void init_locality() {
    const auto& nodes = g_dev.boot.node_of();
    const int me = nodes.empty() ? 0 : nodes[static_cast<std::size_t>(g_dev.world_rank)];
    g_dev.local_ranks = static_cast<int>(std::count(nodes.begin(), nodes.end(), me));
    if (g_dev.local_ranks < 1) g_dev.local_ranks = 1;
    g_dev.usable_cores = count_usable_cores();
    // The job's ranks on this host: the node's, or more when the launcher
    // maps several nodes onto one host (our mpiexec -ppn) and says how many
    // it started here (CH4LITE_HOST_RANKS). They all share its cores.
    g_dev.host_ranks = static_cast<int>(std::clamp<int64_t>(
        util::env_int("CH4LITE_HOST_RANKS", 0), g_dev.local_ranks, int64_t{1} << 30));
    // CH4LITE_YIELD: 1 always give the core away when idle, 0 never, auto
    // (default): when oversubscribed or preempted (idle.hpp).
    const char* y = util::env_str("CH4LITE_YIELD", "auto");
    if (std::strcmp(y, "auto") == 0)
        g_dev.oversubscribed = g_dev.host_ranks > g_dev.usable_cores;
    else
        g_dev.oversubscribed = util::env_bool("CH4LITE_YIELD", false);
    idle_init(g_dev.idle, g_dev.oversubscribed);
}

void init_protocol_limits() {
    const auto& caps = active_netmod::caps;
    const int64_t eager = util::env_int("CH4LITE_EAGER_MAX", 16 * 1024);
    g_dev.eager_max = std::min<std::size_t>(static_cast<std::size_t>(std::max<int64_t>(eager, 0)),
                                            caps.am_payload_max);
    const int64_t chunk = util::env_int("CH4LITE_RNDV_CHUNK", static_cast<int64_t>(caps.am_payload_max));
    g_dev.rndv_chunk = std::clamp<std::size_t>(static_cast<std::size_t>(std::max<int64_t>(chunk, 1)),
                                               1, caps.am_payload_max);
    g_dev.rndv_window = static_cast<std::size_t>(
        std::clamp<int64_t>(util::env_int("CH4LITE_RNDV_WINDOW", 8), 1, 1024));
    // A noncontiguous message packed whole goes through one staging buffer
    // (a pack buffer up to 64 KiB, else the heap); a receiver's bounce holds
    // up to tagged_rndv_min bytes, so the RTS threshold is at least the
    // packing one.
    g_dev.ddt_pack_max = static_cast<std::size_t>(std::clamp<int64_t>(
        util::env_int("CH4LITE_DDT_PACK_MAX", 4 * 1024 * 1024), 0, int64_t{1} << 40));
    g_dev.tagged_rndv_min = static_cast<std::size_t>(std::clamp<int64_t>(
        util::env_int("CH4LITE_TAGGED_RNDV_MIN", 4 * 1024 * 1024),
        static_cast<int64_t>(g_dev.ddt_pack_max), int64_t{1} << 40));
    g_dev.tdata_chunk = static_cast<std::size_t>(std::clamp<int64_t>(
        util::env_int("CH4LITE_DDT_TDATA_CHUNK", 1024 * 1024), 0, int64_t{1} << 30));
    g_dev.tdata_window = static_cast<std::size_t>(
        std::clamp<int64_t>(util::env_int("CH4LITE_DDT_TDATA_WINDOW", 2), 1, 64));
    g_dev.ddt_cma_seg_min = static_cast<std::size_t>(
        std::max<int64_t>(util::env_int("CH4LITE_DDT_CMA_SEG_MIN", 512), 1));
    // Split single copies need the sender on a core of its own: none when
    // oversubscribed (the receiver would wait for a descheduled sender).
    g_dev.cma_split_min = static_cast<std::size_t>(std::clamp<int64_t>(
        util::env_int("CH4LITE_SHM_CMA_SPLIT", g_dev.oversubscribed ? 0 : 64 * 1024), 0,
        int64_t{1} << 50));
    g_dev.cma_write = util::env_bool("CH4LITE_SHM_CMA_WRITE", true);
    g_dev.print_stats = util::env_bool("CH4LITE_STATS", false);
    // Up to just below the split single copy, which streams better
    // (docs/shm-protocols.md, "Ring or single copy"); so none when oversubscribed
    // (no split there, and the pipelined ring copy needs both ranks running).
    g_dev.shm_ring_rndv_max = static_cast<std::size_t>(std::clamp<int64_t>(
        util::env_int("CH4LITE_SHM_RING_RNDV_MAX",
                      g_dev.cma_split_min > 0 ? static_cast<int64_t>(g_dev.cma_split_min) - 1 : 0),
        0, int64_t{1} << 50));
}

// Who matches point-to-point messages (device_state::device_matching). The
// decision must be the same on every rank: it depends only on CH4LITE_SHM
// (one value per job) and the node map, never on whether this node's
// segment came up (without it, local peers go through netmod AMs) — and on
// whether the netmod's provider can be trusted with tagged messages
// (tagged_usable(): the same provider, hence the same answer, everywhere).
void init_p2p_mode() {
    const bool shared_nodes = g_dev.boot.num_nodes() < g_dev.world_size;
    g_dev.device_matching = !native_tagged || !nm::opt::tagged_usable(g_dev.nm) ||
                            (shm::transport::enabled() && shared_nodes);
    g_dev.nm_quiet = !g_dev.nm_open ||
                     (g_dev.device_matching && g_dev.shm.local_ranks() == g_dev.world_size);
}

}  // namespace

status init(int required, int& provided, std::string& error) {
    status s = g_dev.boot.init(error);
    if (s != status::ok) return s;
    g_dev.world_rank = g_dev.boot.rank();
    g_dev.world_size = g_dev.boot.size();
    util::set_log_rank(g_dev.world_rank);
    // Every level is provided; MULTIPLE by one lock around every MPI call
    // (util/api_lock.hpp, taken from MPI_Init_thread on): the device itself
    // is entered by one thread at a time at every level.
    provided = required;
    // The progress thread enters the device as a second thread would: the
    // device runs as under MULTIPLE whatever the application asked for.
    g_dev.async_progress = async_progress_wanted();
    util::g_thread_multiple = provided == MPI_THREAD_MULTIPLE || g_dev.async_progress;
    g_dev.thread_level = provided;
    init_locality();
    s = init_pools();
    if (s != status::ok) {
        error = "cannot allocate the request pools";
        return s;
    }
    init_protocol_limits();
    comms_init(g_dev.world_rank, g_dev.world_size);
    register_pool_gc_hooks();
    publish_host_name();
    s = g_dev.shm.init(g_dev.boot, error);
    if (s != status::ok) return s;
    // Every rank of the job in this node's segment: the segment's ranks all
    // agreed that it is up (shm::transport::init), so every rank decides
    // alike and none publishes a netmod address.
    g_dev.nm_open = g_dev.shm.local_ranks() != g_dev.world_size ||
                    util::env_bool("CH4LITE_NETMOD_ALWAYS", false);
    if (g_dev.nm_open) {
        s = g_dev.nm.init(g_dev.boot);
        if (s != status::ok) {
            // Appended, not a chain of operator+: with the standard headers
            // precompiled, GCC 12 reports its -Warray-bounds false positive
            // on such chains from inside libstdc++.
            error = "netmod '";
            error.append(active_netmod::name).append("' failed to initialize (").append(to_string(s)).append(")");
            return s;
        }
    }
    init_p2p_mode();
    s = check_reach(error);
    if (s != status::ok) return s;
    {
        const auto& b = g_dev.boot.stats();
        util::verbose("bootstrap: %s: %llu put(s), %llu fence(s), %llu get(s), %llu round trip(s) "
                      "to the launcher in MPI_Init",
                      g_dev.boot.pmi(), static_cast<unsigned long long>(b.puts),
                      static_cast<unsigned long long>(b.fences), static_cast<unsigned long long>(b.gets),
                      static_cast<unsigned long long>(b.round_trips));
    }
    util::verbose("rank %d of %d: %s; %d rank(s) on this node, %d on this host, %d usable "
                  "core(s)%s",
                  g_dev.world_rank, g_dev.world_size, library_version().c_str(),
                  g_dev.local_ranks, g_dev.host_ranks, g_dev.usable_cores,
                  g_dev.oversubscribed ? ", oversubscribed: idle waits yield"
                  : g_dev.idle.m == idle_policy::mode::never ? ", idle waits spin (CH4LITE_YIELD=0)"
                  : g_dev.idle.yield_every ? ", idle waits yield now and then when preempted"
                                           : ", idle waits spin (they yield with more ranks than cores)");
    g_dev.initialized = true;
    g_active = true;
    return status::ok;
}

status finalize() {
    // Operations queued by back-pressure must leave before we stop.
    progress_until([] { return deferred_empty(); });
    // Everyone has completed its receives when it reaches this barrier, so
    // no message in flight can be lost when the endpoints close.
    status s = g_dev.boot.barrier();
    if (g_dev.print_stats)
        std::fprintf(stderr,
                     "ch4lite: stats rank %d: rendezvous received by single copy %" PRIu64
                     " (split %" PRIu64 "), in chunks %" PRIu64 "\n",
                     g_dev.world_rank, g_dev.stats.rndv_cma, g_dev.stats.rndv_split,
                     g_dev.stats.rndv_chunks);
    if (g_dev.print_stats && g_dev.stats.rma_cma_puts)
        std::fprintf(stderr, "ch4lite: stats rank %d: RMA puts by single copy %" PRIu64 " (split %" PRIu64 ")\n",
                     g_dev.world_rank, g_dev.stats.rma_cma_puts, g_dev.stats.rma_split_puts);
    if (g_dev.print_stats && g_dev.stats.rma_remapped)
        std::fprintf(stderr, "ch4lite: stats rank %d: Win_create windows remapped %" PRIu64 "\n",
                     g_dev.world_rank, g_dev.stats.rma_remapped);
    if (g_dev.print_stats && (g_dev.idle.preemptions || g_dev.idle.sleeps))
        std::fprintf(stderr, "ch4lite: stats rank %d: waits preempted %" PRIu64 ", sleeps %" PRIu64 "\n",
                     g_dev.world_rank, g_dev.idle.preemptions, g_dev.idle.sleeps);
    if (g_dev.print_stats) print_pool_stats();
    if (g_dev.print_stats && dame::stream_moves())
        std::fprintf(stderr, "ch4lite: stats rank %d: datatype moves streamed %" PRId64 "\n",
                     g_dev.world_rank, dame::stream_moves());
    if (g_dev.nm_open) {
        const status n = g_dev.nm.finalize();
        if (s == status::ok) s = n;
    }
    const status m = g_dev.shm.finalize();
    if (s == status::ok) s = m;
    queues().clear();
    comms_finalize();
    stage_cache_release();
    const status b = g_dev.boot.finalize();
    if (s == status::ok) s = b;
    g_dev.finalized = true;
    g_active = false;
    return s;
}

void abort_job(int code, const char* message) noexcept { g_dev.boot.abort(code, message); }

std::string library_version() {
    char buf[512];
    // "<x> path" names the library build (tests check it); when a native
    // build matches in the device at run time (shm on), it says so too.
    const bool dm = native_tagged && g_dev.initialized && g_dev.device_matching;
    const char* provider = g_dev.nm.provider()[0] ? g_dev.nm.provider()
                           : g_dev.initialized && !g_dev.nm_open
                               ? "not opened (every rank in this node's shared memory)"
                               : "none";
    std::snprintf(buf, sizeof buf,
                  "ch4lite %s (MPI %d.%d standard ABI; netmod %s, provider %s, %s path%s; shm %s; "
                  "launcher %s, %s)",
                  CH4LITE_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION, active_netmod::name,
                  provider,
                  native_tagged ? "native tagged" : "active-message",
                  dm ? ", point-to-point matched in the device" : "",
                  g_dev.shm.describe().c_str(), g_dev.boot.launcher(), g_dev.boot.pmi());
    return buf;
}

}  // namespace ch4lite::dev
