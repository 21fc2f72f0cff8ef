// SPDX-License-Identifier: MIT
// The schedule engine (docs/collectives-schedules.md, "Schedules"): the role of
// MPICH's transport-based scheduler and Open MPI's libnbc. A collective is a
// small DAG of steps — send, receive, local reduction, copy, pack, unpack —
// built once, then run by the device's progress engine: every dev::progress()
// (MPI_Test, MPI_Wait on any request, any blocking call that waits) polls the
// active schedules, issues the steps whose dependencies are done and notes
// the ones that finished. A schedule is started with a request of kind
// `coll`, which completes when the last step is done.
//
//   nonblocking  MPI_I<coll>: build, launch() (the request owns the schedule)
//   persistent   MPI_<coll>_init: build and commit once; every MPI_Start
//                calls start() again with a fresh request (the persistent
//                recipe owns the schedule, api/coll_sched.hpp)
//   blocking     MPI_<coll>: the direct algorithms of coll.hpp where they are
//                faster; run() (build, start, wait) where there is none
//                (MPI_Alltoallw) or with CH4LITE_COLL_BLOCKING=sched
//
// Steps and dependencies. Every builder call returns the step's id; `d`
// lists steps it must wait for (ids returned earlier: a schedule is built in
// an order that is already topological). fence() is the round separator:
// every step added after it waits for every step added before it. Steps
// with no dependency between them run in any order or at once.
//
// Messages. Every send and receive of a schedule uses the collective context
// of its communicator (comm::ctx_coll(), never user traffic) and the one tag
// the schedule got from next_tag() when it was created. Tags of schedules
// are >= sched_tag_min, those of the blocking algorithms (p2p.hpp) below,
// so a blocking collective never takes a message of an outstanding
// nonblocking one. Every process creates the schedules of a communicator in
// the same order (MPI orders collective calls, persistent inits included),
// so they agree on the tag of each. Rule for builders: two receives of one
// schedule from the same peer must be ordered by dependencies in the order
// in which that peer adds the matching sends (messages between two
// processes with the same context and tag match in order).
//
// Peers. A step's peer is a rank of the communicator the step runs on: the
// schedule's (constructor) unless use_comm() switched later steps to
// another. On an intercommunicator a rank names a process of the remote
// group (dev::comm::lpid maps it), so sends and receives go across; the
// steps of a phase inside the local group go to its local communicator
// (use_comm(local) ... use_comm(inter)), which must be private to the
// intercommunicator's collectives (it shares the schedule's tag).
//
// Buffers. Step addresses are fixed when the step is added: user memory
// (MPI requires it to stay put until completion, and for a persistent
// collective until it is freed) or scratch() memory owned by the schedule.
// user_stream()/user_store() give the packed stream of a (buf, count,
// datatype) buffer: the user memory when the type is contiguous, else
// schedule scratch filled by a pack step / emptied by an unpack step, so a
// persistent schedule packs anew at every start.
//
// Errors. Builder calls never fail: running out of memory is remembered and
// commit() reports it. While running, a receive of another size than
// expected (a peer passed other counts) is noted and the schedule runs on;
// it then completes with status::truncated. Any other failure stops issuing
// new steps; the schedule completes with it once the steps in flight ended.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <vector>

#include "coll/coll.hpp"
#include "dame/type.hpp"
#include "device/comm.hpp"
#include "device/request.hpp"
#include "util/status.hpp"

namespace ch4lite::coll {

using step = int32_t;
using deps = std::initializer_list<step>;

// Tags of schedules: [sched_tag_min, dev::tag_ub].
inline constexpr int sched_tag_min = 64;
// The tag for the next schedule created on c (every process calls it for
// the same collectives in the same order). Wraps after ~16 M schedules.
int next_tag(comm& c) noexcept;

class sched : public dev::request_ext {
  public:
    sched(comm& c, int tag) noexcept;
    ~sched() override;
    // Allocated from a small free list (new (std::nothrow) sched(...) only).
    static void* operator new(std::size_t n, const std::nothrow_t&) noexcept;
    static void operator delete(void* p) noexcept;
    // Steps, dependencies and small scratch memory live in a `store` that a
    // deleted schedule hands to the next one (sched.cpp): a nonblocking
    // collective then allocates nothing once a few have run.
    struct store;
    sched(const sched&) = delete;
    sched& operator=(const sched&) = delete;

    // ---- building (before commit)
    // A send or receive with peer MPI_PROC_NULL is done at once (no message).
    step send(const void* buf, std::size_t n, int peer, deps d = {}) noexcept;
    // Expects exactly n bytes (else the mismatch is noted: truncated).
    step recv(void* buf, std::size_t n, int peer, deps d = {}) noexcept;
    // inout = in (op) inout over `count` instances (the op of set_op; `in`
    // holds the lower ranks' contribution for non-commutative ops).
    step reduce(const void* in, void* inout, int64_t count, deps d = {}) noexcept;
    step copy(const void* src, void* dst, std::size_t n, deps d = {}) noexcept;
    // count instances of t at `user` <-> their packed stream.
    step pack(const void* user, int64_t count, const dame::type& t, void* stream, deps d = {}) noexcept;
    step unpack(const void* stream, void* user, int64_t count, const dame::type& t,
                deps d = {}) noexcept;
    // Waits for its dependencies only (joins branches of the DAG).
    step nop(deps d = {}) noexcept;
    // A local decision between rounds (MPICH's schedule callbacks): fn(s,
    // arg) runs once when the dependencies are done, inside a poll, never
    // re-entrantly. ok: the step is done; another status: the schedule
    // fails with it (as a failed send would).
    using call_fn = status (*)(sched& s, void* arg) noexcept;
    step call(call_fn fn, void* arg, deps d = {}) noexcept;
    // Only from inside a call step's fn: steps [first, that call step] run
    // again (they must all be done: put a fence before the call); the call
    // step itself counts as not done, so it runs again after them. The
    // messages of the repeated steps use the same tag, so every process
    // must repeat alike (decide from data all of them have).
    void rewind(step first) noexcept;
    // A call step that is polled until it is done (a local state machine,
    // e.g. a staged broadcast through a shared segment: coll/stage.cpp):
    // fn returns status::again while not done, and runs again at every poll
    // of the schedule (never re-entrantly); ok: done; another status: the
    // schedule fails with it. It is polled to its end even after another
    // step failed (it may hold a place in a queue others wait on).
    step watch(call_fn fn, void* arg, deps d = {}) noexcept;
    // Only from inside a call or watch step's fn: steps [first, last) are
    // done without running (a branch not taken). They must not have started
    // (they wait for the calling step, e.g. behind a fence after it).
    void skip(step first, step last) noexcept;
    // From a call or watch step's fn: the peers' counts differed (the
    // schedule runs on and completes with status::truncated).
    void note_mismatch() noexcept { mismatch_ = true; }
    // fn(s, arg) runs at every start(), before any step is issued (where
    // a start takes its place among the collectives of its communicator;
    // one per schedule).
    void on_start(call_fn fn, void* arg) noexcept {
        start_fn_ = fn;
        start_arg_ = arg;
    }
    // fn(s, arg) runs when a run of the schedule ends, done or failed,
    // before its request completes (where a step that never ran because
    // another failed hands back what it held; one per schedule).
    void on_end(call_fn fn, void* arg) noexcept {
        end_fn_ = fn;
        end_arg_ = arg;
    }
    // The round separator (see above); returns its id.
    step fence() noexcept;

    // The reduction of every reduce step (copied: the caller's may go away;
    // a user op's functions are copied too, MPI_Op_free may come first).
    void set_op(const reduction& op) noexcept;
    const reduction& op() const noexcept { return op_; }
    // n bytes owned by the schedule, 16-byte aligned, at a fixed address
    // until it is deleted (nullptr, and commit() fails, when out of memory;
    // n == 0: a valid non-null pointer).
    std::byte* scratch(std::size_t n) noexcept;
    // Later send/recv steps run on c (an intercommunicator's local
    // communicator, and back).
    void use_comm(comm& c) noexcept { cur_ = &c; }
    // The packed stream of user buffer (buf, count, t): the user memory
    // itself for a contiguous type; otherwise scratch, which a pack step
    // added here fills when `load` is true.
    std::byte* user_stream(const void* buf, int64_t count, const dame::type& t, bool load) noexcept;
    // After the algorithm: moves a stream from user_stream() back into the
    // user buffer (an unpack step, after a fence; nothing when contiguous).
    void user_store(const std::byte* stream, void* buf, int64_t count, const dame::type& t) noexcept;

    // Ends building: status::no_mem if any builder call ran out of memory.
    status commit() noexcept;

    // ---- running (after commit)
    // Runs the schedule once, completing r (a coll request with cc == 1:
    // coll_request()) when done; r->result is the schedule's result. The
    // schedule must not be running. May complete r before returning.
    void start(dev::request* r) noexcept;
    bool running() const noexcept { return req_ != nullptr; }

    comm& owner() const noexcept { return c_; }
    int tag() const noexcept { return tag_; }
    std::size_t steps() const noexcept { return steps_.size(); }

  private:
    friend int sched_progress() noexcept;
    enum class kind : uint8_t { send, recv, reduce, copy, pack, unpack, nop, call, watch, fence };
    // polling: a small receive from a peer on this node, taken from the
    // unexpected queue when it arrives, without a request (sched.cpp);
    // calling: a watch step whose fn said "again".
    enum : uint8_t { waiting, running_, polling, calling, done };
    struct rec {
        kind k;
        uint8_t state;
        uint16_t ndeps;   // explicit dependencies: deps_[dep0, dep0 + ndeps)
        int32_t dep0;
        int32_t after;    // the fence before it (every step waits for it), or -1
        comm* c;
        const void* src;  // send buf, reduce in, copy src, pack user, unpack stream
        void* dst;        // recv buf, reduce inout, copy dst, pack stream, unpack user
        int64_t n;        // bytes (send, recv, copy) or instances (reduce, pack, unpack)
        int peer;
        int32_t ring;     // a receive taken without a request: the peer's shm ring, else -1
        const dame::type* t;
        dev::request* req;
        call_fn fn;       // call steps (arg in dst)
    };
    step add(kind k, const void* src, void* dst, int64_t n, int peer, const dame::type* t,
             deps d) noexcept;
    // One pass over the steps: finishes the ones whose requests completed,
    // issues those now ready. Returns how many changed state.
    int poll(bool issue) noexcept;
    bool issue(rec& s) noexcept;   // false: could not start (failure noted)
    void finish(rec& s) noexcept;  // s's request completed
    bool take(rec& s) noexcept;    // a polling receive: true when done or posted
    bool call_again(rec& s) noexcept;  // a calling watch step: true when it finished
    static int32_t lazy_ring(const comm& c, int peer, std::size_t n) noexcept;
    bool over() const noexcept;    // every step done, or failed and nothing in flight
    void complete() noexcept;      // completes req_ with the result
    void reset() noexcept;         // every step waiting again

    comm& c_;
    comm* cur_;
    int tag_;
    bool oom_ = false;
    bool committed_ = false;
    store* st_;
    std::vector<rec>& steps_;
    std::vector<step>& deps_;
    step fence_ = -1;   // the last fence
    step since_ = 0;    // first step after it
    reduction op_;
    user_op uop_;       // op_.user points here for a user op
    // run state
    dev::request* req_ = nullptr;  // the request completed at the end (while running)
    std::size_t lo_ = 0;           // steps below lo_ are all done
    std::size_t hi_ = 0;           // steps from hi_ on were never issued in this run
    status result_ = status::ok;   // first failure
    bool mismatch_ = false;
    bool stop_ = false;            // a failure: issue nothing more
    step in_call_ = -1;            // the call step whose fn runs now
    bool rewound_ = false;         // rewind() ran: the next poll issues (not only checks)
    step rewind_of_ = -1;          // the call step that rewound
    call_fn start_fn_ = nullptr;   // on_start()
    void* start_arg_ = nullptr;
    call_fn end_fn_ = nullptr;     // on_end()
    void* end_arg_ = nullptr;
    sched* prev_ = nullptr;        // in the list of running schedules
    sched* next_ = nullptr;
};

// Polls every running schedule (dev::progress() calls it when
// g_dev.sched_active != 0). Returns how many steps changed state.
int sched_progress() noexcept;

// Waits for coll request r (dev::wait, with the running schedules polled
// before the transports; MPI_Wait* on a coll request).
void wait(dev::request* r) noexcept;

// A new coll request on c (cc == 1), for start(); nullptr when the request
// pool is exhausted.
dev::request* coll_request(comm& c) noexcept;

// Nonblocking form: commits s and starts it with a new request that owns it
// (deleted when the request is freed). ok and *out set, or the failure (s
// deleted).
status launch(std::unique_ptr<sched> s, dev::request*& out) noexcept;
// Blocking form: commits s, starts it and waits until it is done.
status run(sched& s) noexcept;

}  // namespace ch4lite::coll
