// SPDX-License-Identifier: MIT
// A window (device view): the memory it exposes, what every member exposes
// (exchanged at creation), and the state of fence epochs on both sides.
//
// Epochs: `epoch` counts the fences this rank has completed. Operations
// issued now belong to `epoch` and travel with that number; a message of a
// later epoch (its origin already left a fence this rank is still in) waits
// in `future` until this rank gets there. A fence is complete when
//   - every peer's final for this epoch arrived (finals == peers - 1) and
//     every message they announced was applied (received == expected),
//   - every reply this rank waits for arrived (pending_resp == 0),
//   - every message this rank sent left (inflight == 0).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device/request.hpp"
#include "rma/sendq.hpp"
#include "shm/segment.hpp"
#include "util/ilist.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {
class comm;
}
namespace ch4lite::dame {
class type;
}

namespace ch4lite::rma {

enum class flavor : uint8_t { create, allocate, shared, dynamic };

// What window creation exchanges about every member (allgather).
struct peer_info {
    uint64_t base;   // address in its process
    uint64_t size;   // bytes
    int64_t disp_unit;
    int32_t pid;
    int32_t shm_off; // Win_allocate in a node segment: page index in it; -1 = none
    uint64_t rkey;   // native RMA (native.hpp): the key of its registered memory
    uint64_t raddr;  // and what its puts / gets add the byte offset to
    uint32_t native; // 1: registered
    uint32_t failed; // 1: its Win_allocate memory could not be had (creation fails everywhere)
};

// A node segment's per-member slot (one cache line): the epoch the member
// is in (published when it leaves a fence: peers may then access its
// memory directly for that epoch), the lock that makes accumulates into
// its memory atomic, whoever applies them, and the fence words its node
// peers add their arrival to (docs/rma.md, "Fence through the segment"):
// sync[g & 1] for the g-th synchronizing fence, see win_internal.hpp.
// Win_create only (win_remap.cpp): `want`, a node peer's request (epoch + 1
// of the fence it was made in) that the member move its memory onto a
// memfd, and `memfd1`, the outcome: 0 not yet, fd + 1, or -1 refused.
// `lockw`: the member's passive-target lock (docs/rma-passive.md): bit
// lock_excl held exclusively, else the number of shared holders; node peers
// take it with atomics, the member itself for off-node origins.
struct node_slot {
    uint32_t epoch;
    uint32_t lock;
    uint64_t sync[2];
    uint32_t want;
    int32_t memfd1;
    uint64_t lockw;
    // Win_create memory moved in a passive epoch (win_remap.cpp, remap_now):
    // `hold` while the member copies it, `inflight` node peers' CMA
    // accesses to it under way (cma_pass).
    uint32_t hold;
    uint32_t inflight;
    uint8_t pad[16];
};
static_assert(sizeof(node_slot) == 64);

// Origin side, per target: the messages of the current epoch, in order.
struct target_q {
    util::ilist<out_msg, &out_msg::link> msgs;
    buffer cur;             // records not yet cut into a message
    uint32_t nrec = 0;      // records in `cur`
    uint32_t counted = 0;   // counted messages cut this epoch
    bool active = false;    // listed in win::active
    bool direct = false;    // direct (shared-memory) accesses wait for its enter
    uint32_t native = 0;    // native puts / gets to it not yet complete (its final waits)
    std::size_t limit = 0;  // payload room of one message to it (set at creation)
};

// A native put or get of this epoch (native.hpp), issued in the fence.
struct native_op {
    int target;
    uint8_t state = 0;      // 0 recorded, 1 issued, 2 done
    bool write = false;
    void* local = nullptr;
    uint64_t len = 0;
    uint64_t raddr = 0;
    dev::request* req = nullptr;
};

// A reply slot (pool object): where a get's, get_accumulate's or CAS's
// result goes at the origin.
struct op : util::pool_object {
    win* w = nullptr;
    void* buf = nullptr;
    int64_t count = 0;
    const dame::type* t = nullptr;  // retained until complete
    uint64_t expect = 0;            // result bytes
    uint64_t got = 0;
    // rk_pull: on rsf_pull the origin writes `count` bytes from `buf` to
    // this address of rank pull_rank itself.
    uint64_t pull_to = 0;
    int pull_rank = -1;
    int target = -1;                // whose reply (win::tsync[target].replies)
    dev::request* req = nullptr;    // MPI_Rget / Rget_accumulate: completed with the slot
};

// A message of a later epoch, kept until this rank reaches it (also: a
// passive-target message waiting for its origin's lock, win::from).
struct future_msg {
    int src;
    uint8_t handler;
    std::vector<std::byte> hdr, payload;
};

// Passive-target lock types (MPI_LOCK_SHARED / EXCLUSIVE) and the lock word.
enum lock_type : uint8_t { lk_none = 0, lk_shared = 1, lk_excl = 2 };
inline constexpr uint64_t lock_excl = uint64_t{1} << 62;

// Origin side of passive-target and PSCW epochs, per target
// (docs/rma-passive.md).
struct target_sync {
    uint8_t lock = lk_none;   // the lock this epoch holds (or will) on it
    bool nocheck = false;     // MPI_MODE_NOCHECK: no lock is taken
    bool held = false;        // node peer or self: we hold its lock word now
    bool lock_sent = false;   // by message: the request went with our first message
    bool started = false;     // PSCW: in the group of the open MPI_Win_start
    bool touched = false;     // listed in win::touched
    bool granted = false;     // by message: the target answered bf_grant
    bool grant_asked = false; // ... we asked it to (native RMA waits for the grant)
    bool sent = false;        // a message went to it in this epoch
    bool need_ack = false;    // records without a reply went to it since its last bf_ack
    // Puts and gets to it by message or native since its last flush or
    // unlock, and whether the last such window held at most one (the
    // put-or-get-then-flush pattern: origin_async.cpp, native_small).
    uint32_t window_ops = 0;
    bool lone = true;
    uint32_t acks = 0;        // bf_ack messages not answered yet
    uint32_t replies = 0;     // reply slots waiting for its answer
    uint32_t posts = 0;       // PSCW: its posts naming us, not yet used by a start
};

// Target side, per origin: what it holds on our memory, and its messages
// waiting for our lock.
struct origin_sync {
    uint8_t lock = lk_none;   // granted to it
    bool waiting = false;     // its lock request waits: its messages go to `stash`
    uint32_t refused = 0;     // its records we refused since its last ack
    uint32_t completes = 0;   // PSCW: its bf_complete not yet used by a wait
    std::vector<future_msg> stash;
};

// A region attached to a dynamic window (addresses in this process).
struct dyn_region {
    uint64_t lo, hi;
};

class win {
  public:
    uintptr_t handle = 0;
    dev::comm* comm = nullptr;  // private dup; its context id names the window on the wire
    std::byte* base = nullptr;
    uint64_t size = 0;
    int64_t disp_unit = 1;
    flavor fl = flavor::create;
    std::vector<peer_info> peers;
    std::vector<std::byte*> direct_base;  // mapped base of each peer (node segment), or null
    std::vector<node_slot*> slot_of;      // each peer's slot in the node segment, or null
    std::vector<uint8_t> cma_ok;          // Win_create: peer in my segment, CMA works for it
    std::vector<int> node_peers;          // comm ranks in my segment, without me (capacity: all)
    std::vector<std::byte> node_scratch;  // node_segment's exchange, until it has run
    node_slot* my_slot = nullptr;
    bool all_node = false;                // every member is in my segment
    shm::segment seg;                     // this node's shared segment (slots [+ Win_allocate memory])
    void* heap = nullptr;                 // Win_allocate without a segment
    // Win_create memory remapped onto a memfd (win_remap.cpp): the fd of
    // the whole pages holding [base, + size), which node peers take with
    // pidfd_getfd (slot memfd1); -1: not remapped.
    int remap_fd = -1;
    std::vector<std::byte*> views;        // my mapping of each node peer's remapped memory, or null
    std::vector<uint8_t> view_tried;      // tried to map it (once)
    // Per node peer: bytes (and records, 1 KiB each) moved to it by CMA or
    // message, the credit that decides when to ask it to remap.
    std::vector<uint64_t> remap_credit;

    // ---- epochs
    uint32_t epoch = 0;
    bool access = false;       // inside an access epoch (a fence without NOSUCCEED)
    uint32_t ops = 0;          // operations issued in this epoch (any target)
    uint32_t gen = 0;          // synchronizing fences completed (not MPI_MODE_NOPRECEDE)
    // Epoch in which every node peer is known to have applied everything of
    // the previous one (nobody sent a message in it): direct accesses need
    // not look at the target's slot. ~0: unknown.
    uint32_t ready = ~0u;

    // ---- origin side
    std::vector<target_q> tq;  // by communicator rank
    std::vector<int> active;   // targets with something this epoch
    uint32_t pending_resp = 0;
    uint32_t pulls = 0;          // split puts whose target has not answered yet (origin.cpp)
    // Split puts per peer (origin.cpp, "split_ok"): the epoch + 1 in which we
    // last split a put to it and in which it last asked us to pull, and the
    // first epoch in which we split to it again after both happened in one.
    struct split_state {
        uint32_t split = 0, pulled = 0, hold_until = 0;
    };
    std::vector<split_state> splits;
    uint32_t inflight = 0;     // out_msgs of this window not yet gone
    std::vector<native_op> nat;  // native puts / gets of this epoch
    uint32_t nat_left = 0;       // of them, not yet complete
    nm::mem_region mr;           // my registered window memory (native RMA)

    // ---- target side
    uint32_t received = 0, expected = 0, finals = 0;
    // Per origin: the last epoch whose closing fence it entered (its final
    // or bf_arrive came): it left the fence before, native.hpp.
    std::vector<uint32_t> entered;
    std::vector<future_msg> future;
    std::vector<buffer> replies;   // per origin rank: replies being gathered
    std::vector<uint32_t> reply_recs;
    // First failure seen this epoch, reported by the closing fence: a peer
    // accessed outside this window, or a target refused one of our records.
    status error = status::ok;
    std::string error_text;
    std::string report;  // the text of the error the last fence returned

    // ---- passive target and PSCW (docs/rma-passive.md)
    // Access epoch other than a fence: async_lock (Win_lock / lock_all) or
    // async_start (Win_start); operations then go by target (tsync[t]).
    uint8_t async = 0;
    bool lock_all = false;       // Win_lock_all: every target may be accessed
    uint8_t lock_all_type = lk_none;
    bool lock_all_nocheck = false;
    uint32_t nlocked = 0;        // targets locked with Win_lock
    bool saved_access = false;   // the fence state before the async epoch
    uint32_t saved_ops = 0;
    std::vector<target_sync> tsync;  // by target rank
    std::vector<int> touched;        // targets with tsync state to close
    std::vector<origin_sync> from;   // by origin rank
    std::vector<int> lock_waiters;   // origins whose lock request waits, in order
    uint64_t local_lockw = 0;        // my lock word without a node slot
    uint32_t refused = 0;            // records refused (target.cpp), for the acks
    uint32_t async_error = 0;        // refusals reported by acks / replies this epoch
    // PSCW exposure (Win_post): the origins of the open exposure epoch.
    bool exposed = false;
    int post_assert = 0;
    std::vector<int> post_group;
    std::vector<int> start_group;    // the open Win_start's targets
    int start_assert = 0;
    // Dynamic windows: attached regions, sorted by address.
    std::vector<dyn_region> regions;
    // The request of MPI_Rput & co. being issued: its operations complete it.
    dev::request* req = nullptr;
    // Hints (MPI_Win_set_info; docs/parameters.md, "Info hints").
    bool hint_no_locks = false;
    bool hint_acc_unordered = false;   // accumulate_ordering=none
    // accumulate_ordering as the user gave it (valid: "none", or a list of
    // rar, raw, war, waw), reported by MPI_Win_get_info; empty: the default.
    // Only "none" relaxes anything: a partial list is kept fully ordered.
    std::string hint_acc_order;
    // same_size / same_disp_unit (MPI-4.1 §12.2.1): accepted and reported,
    // not used. 0 unset, 1 false, 2 true.
    uint8_t hint_same_size = 0, hint_same_disp = 0;
    bool hint_same_op = false;         // accumulate_ops=same_op (else same_op_no_op)
    bool hint_noncontig = false;       // alloc_shared_noncontig
    int fence_assert = 0;              // the assert of the fence that opened this epoch

    // ---- API state
    MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
    std::string name;
    // Attribute values handed out by pointer (MPI_Win_get_attr).
    void* attr_base = nullptr;
    MPI_Aint attr_size = 0;
    int attr_disp_unit = 0;
    int attr_flavor = 0;
    int attr_model = 0;

    int comm_rank = 0, comm_size = 0;  // comm->rank, comm->size (the hot paths' copy)

    // Target t may be accessed in the open access epoch (any kind).
    bool may_access(int t) const noexcept {
        if (!async) return access;
        const target_sync& s = tsync[static_cast<std::size_t>(t)];
        return lock_all || s.lock != lk_none || s.started;
    }

    int rank() const noexcept { return comm_rank; }
    int nranks() const noexcept { return comm_size; }
    int lpid(int r) const noexcept;
};

}  // namespace ch4lite::rma
