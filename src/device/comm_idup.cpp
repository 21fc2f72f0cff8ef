// SPDX-License-Identifier: MIT
#include "device/comm_idup.hpp"

#include <new>

#include "coll/build.hpp"
#include "dame/type.hpp"
#include "device/comm_create.hpp"
#include "device/context_id.hpp"
#include "device/intercomm.hpp"

namespace ch4lite::dev {

namespace {

constexpr int words = context_mask_words;
constexpr std::size_t mask_bytes = sizeof(uint64_t) * words;

// Lives in the schedule's scratch memory (trivially destructible).
struct idup_state {
    uint64_t mask[words];
    uint64_t theirs[words];
    uint64_t vote;
    uint64_t their_vote;
    uint32_t ids[2];
    int nids;              // 1 (intracommunicator) or 2 (intercommunicator and its local one)
    bool offer;            // this member made its communicator
    bool reserved;         // ids[] are reserved here
    coll::step first;      // the prepare step: where a retry rewinds to
    comm* out;             // the new communicator (null when !offer)
    inter_state* st;       // intercommunicator: its state until committed
};

status prepare(coll::sched&, void* arg) noexcept {
    auto& x = *static_cast<idup_state*>(arg);
    context_id_mask(x.mask, words, x.offer);
    x.vote = 1;
    x.reserved = false;
    return status::ok;
}

status and_masks(coll::sched&, void* arg) noexcept {
    auto& x = *static_cast<idup_state*>(arg);
    for (int w = 0; w < words; ++w) x.mask[w] &= x.theirs[w];
    return status::ok;
}

status and_votes(coll::sched&, void* arg) noexcept {
    auto& x = *static_cast<idup_state*>(arg);
    x.vote &= x.their_vote;
    return status::ok;
}

void drop(idup_state& x) noexcept {
    delete x.st;
    x.st = nullptr;
    if (x.out) comm_discard(x.out);
    x.out = nullptr;
}

status pick(coll::sched&, void* arg) noexcept {
    auto& x = *static_cast<idup_state*>(arg);
    int found = 0;
    for (int w = 0; w < words && found < x.nids; ++w)
        for (uint64_t m = x.mask[w]; m && found < x.nids; m &= m - 1)
            x.ids[found++] = static_cast<uint32_t>(w * 64 + __builtin_ctzll(m));
    if (found < x.nids) {  // no id free everywhere (or a member offered none)
        const bool mine = !x.offer;
        drop(x);
        return mine ? status::no_mem : status::exhausted;
    }
    x.vote = 0;
    if (context_id_offers_pending()) return status::ok;  // retry after that agreement
    int got = 0;
    while (got < x.nids && context_id_reserve(x.ids[got])) ++got;
    if (got < x.nids) {
        for (int i = 0; i < got; ++i) context_id_release(x.ids[i]);
        return status::ok;
    }
    x.reserved = true;
    x.vote = 1;
    return status::ok;
}

status decide(coll::sched& s, void* arg) noexcept {
    auto& x = *static_cast<idup_state*>(arg);
    if (x.vote != 1) {
        if (x.reserved)
            for (int i = 0; i < x.nids; ++i) context_id_release(x.ids[i]);
        s.rewind(x.first);
        return status::ok;
    }
    if (x.st) {
        x.st->local->context_id = x.ids[1];
        x.out->inter.reset(x.st);
        x.st = nullptr;
    }
    comm_commit(x.out, x.ids[0]);
    x.out = nullptr;
    return status::ok;
}

coll::reduction band_u64() noexcept {
    coll::reduction band;
    band.id = op_id::band;
    band.t = dame::predefined_type(reinterpret_cast<uintptr_t>(MPI_UINT64_T));
    band.dt = MPI_UINT64_T;
    band.elem = sizeof(uint64_t);
    return band;
}

// An AND over every member: the local allreduce (s's owner), and for an
// intercommunicator the leaders' exchange (then `merge` ANDs) and the
// leader's broadcast.
void add_and(coll::sched& s, comm* ic, uint64_t* mine, uint64_t* theirs, int n,
             coll::sched::call_fn merge, idup_state* x) noexcept {
    const std::size_t bytes = sizeof(uint64_t) * static_cast<std::size_t>(n);
    coll::add_allreduce(s, nullptr, reinterpret_cast<std::byte*>(mine), n);
    s.fence();
    if (!ic) return;
    if (s.owner().rank == 0) {
        s.use_comm(*ic);
        s.recv(theirs, bytes, 0);
        s.send(mine, bytes, 0);
        s.use_comm(s.owner());
        s.fence();
        s.call(merge, x);
        s.fence();
    }
    coll::add_bcast(s, reinterpret_cast<std::byte*>(mine), bytes, 0);
    s.fence();
}

}  // namespace

void comm_idup(comm& parent, coll::sched& s, comm*& out) noexcept {
    out = nullptr;
    void* mem = s.scratch(sizeof(idup_state));
    if (!mem) return;  // the schedule remembers it: the call fails (no_mem) before anything is sent
    auto* x = new (mem) idup_state{};
    comm* ic = parent.is_inter() ? &parent : nullptr;
    x->nids = ic ? 2 : 1;
    x->offer = comm_make(parent.errhandler, x->out) == status::ok;
    if (x->offer) {
        comm& c = *x->out;
        c.rank = parent.rank;
        c.size = parent.size;
        c.map = parent.map;  // shared
        c.topo = parent.topo;
        if (ic) {
            const comm& l = *ic->inter->local;
            x->st = new (std::nothrow) inter_state;
            if (x->st) x->st->local = new (std::nothrow) comm;
            if (!x->st || !x->st->local) {
                delete x->st;
                x->st = nullptr;
                comm_discard(x->out);
                x->out = nullptr;
                x->offer = false;
            } else {
                x->st->local->rank = l.rank;
                x->st->local->size = l.size;
                x->st->local->map = l.map;
                x->st->local->owner = x->out;
                x->st->low = ic->inter->low;
            }
        }
    }
    s.set_op(band_u64());
    x->first = s.call(prepare, x);
    s.fence();
    add_and(s, ic, x->mask, x->theirs, words, and_masks, x);
    s.call(pick, x);
    s.fence();
    add_and(s, ic, &x->vote, &x->their_vote, 1, and_votes, x);
    s.call(decide, x);
    out = x->out;
}

}  // namespace ch4lite::dev
