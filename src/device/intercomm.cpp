// SPDX-License-Identifier: MIT
#include "device/intercomm.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#include "coll/coll.hpp"
#include "dame/type.hpp"
#include "device/comm_create.hpp"
#include "device/context_id.hpp"
#include "device/group_comm.hpp"

namespace ch4lite::dev {

inter_state::~inter_state() {
    if (local) {
        context_id_release(local->context_id);
        delete local;
    }
}

void inter_deleter::operator()(inter_state* s) const noexcept { delete s; }

group comm_remote_group(const comm& ic) { return group(ic.map, g_world.rank); }

namespace {

// Tags of the constructors' messages between the two leaders on an
// intercommunicator's collective context: below the schedules' (>= 64) and
// apart from the blocking algorithms' (coll/p2p.hpp).
constexpr int tag_inter = 48;

// How a group's leader reaches the other group's leader: rank `peer` of c
// on context ctx with tag.
struct channel {
    comm* c;
    uint32_t ctx;
    int peer;
    int tag;
    status sendrecv(const void* s, std::size_t sn, void* r, std::size_t rn) const noexcept {
        return sendrecv_on(ctx, *c, peer, tag, s, sn, r, rn);
    }
};

channel over(comm& ic) noexcept { return {&ic, ic.ctx_coll(), 0, tag_inter}; }

coll::reduction band_u64() noexcept {
    coll::reduction band;
    band.id = op_id::band;
    band.t = dame::predefined_type(reinterpret_cast<uintptr_t>(MPI_UINT64_T));
    band.dt = MPI_UINT64_T;
    band.elem = sizeof(uint64_t);
    return band;
}

// n context ids free on every member of both groups (see intercomm.hpp).
// Collective over `local`; its rank `leader` talks through ch.
status agree_ids(comm& local, int leader, const channel& ch, uint32_t* ids, int n,
                 bool offer) noexcept {
    const coll::reduction band = band_u64();
    uint64_t mine[context_mask_words + 1], theirs[context_mask_words + 1];
    offer_scope busy(local.context_id, n);
    for (int words : {8, context_mask_words}) {
        // The turn word (context_id.hpp) goes through the AND, the leaders'
        // exchange and the broadcast with the mask.
        const std::size_t bytes = static_cast<std::size_t>(words + 1) * sizeof(uint64_t);
        const auto attempt = [&]() -> status {
            busy.fill(mine, words, offer);
            if (const status s = coll::allreduce(nullptr, mine, words + 1, band, local); s != status::ok)
                return s;
            if (local.rank == leader) {
                if (const status s = ch.sendrecv(mine, bytes, theirs, bytes); s != status::ok) return s;
                for (int w = 0; w <= words; ++w) mine[w] &= theirs[w];
            }
            return coll::bcast(mine, bytes, leader, local);
        };
        for (;;) {
            const status s = attempt();
            const bool done = busy.final(mine, words);
            if (s != status::ok) return s;
            if (done) break;
        }
        if (context_id_take(mine, words, ids, n)) return status::ok;
    }
    return offer ? status::exhausted : status::no_mem;
}

// The leaders swap int lists of any length; the leader then broadcasts the
// other group's list over `local`. Collective over local. A leader whose
// channel has no peer (ch.peer < 0) makes its whole group fail with range.
status swap_lists(comm& local, int leader, const channel& ch, const std::vector<int>& mine,
                  std::vector<int>& theirs) noexcept {
    int n = -1;
    if (local.rank == leader) {
        const int m = static_cast<int>(mine.size());
        if (ch.peer < 0)
            n = -2;  // the leader has no peer to talk to: its group fails with it
        else if (const status s = ch.sendrecv(&m, sizeof m, &n, sizeof n); s != status::ok)
            return s;
    }
    if (const status s = coll::bcast(&n, sizeof n, leader, local); s != status::ok) return s;
    if (n < 0) return status::range;
    try {
        theirs.resize(static_cast<std::size_t>(n));
    } catch (const std::bad_alloc&) {
        return status::no_mem;  // the others wait for this member: see docs/pools.md, "Out of memory"
    }
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(int);
    if (local.rank == leader)
        if (const status s = ch.sendrecv(mine.data(), mine.size() * sizeof(int), theirs.data(), bytes);
            s != status::ok)
            return s;
    return coll::bcast(theirs.data(), bytes, leader, local);
}

std::vector<int> lpids_of(const rank_map& m) {
    std::vector<int> l(static_cast<std::size_t>(m.size()));
    for (int r = 0; r < m.size(); ++r) l[static_cast<std::size_t>(r)] = m.lpid(r);
    return l;
}

int min_lpid(const rank_map& m) noexcept {
    int x = INT32_MAX;
    for (int r = 0; r < m.size(); ++r) x = std::min(x, m.lpid(r));
    return x;
}

// The objects of a new intercommunicator, made before the agreement (so a
// member that cannot make them offers no id) and committed after it.
struct pending_inter {
    comm* ic = nullptr;
    std::unique_ptr<inter_state> st;

    // remote: the remote group's map; local: mine, with my rank in it.
    bool make(MPI_Errhandler eh, const rank_map& remote, const rank_map& local, int my_rank,
              bool low) noexcept {
        st.reset(new (std::nothrow) inter_state);
        if (!st) return false;
        st->local = new (std::nothrow) comm;
        if (!st->local) return false;
        if (comm_make(eh, ic) != status::ok) return false;
        ic->rank = my_rank;
        ic->size = remote.size();
        ic->map = remote;
        st->local->rank = my_rank;
        st->local->size = local.size();
        st->local->map = local;
        st->local->owner = ic;
        st->low = low;
        return true;
    }
    void commit(const uint32_t* ids, comm*& out) noexcept {
        st->local->context_id = ids[1];
        ic->inter.reset(st.release());
        comm_commit(ic, ids[0]);
        out = ic;
        ic = nullptr;
    }
    ~pending_inter() {
        if (ic) comm_discard(ic);  // st (and its local comm, no id yet) goes by itself
        if (st && st->local) {
            delete st->local;
            st->local = nullptr;
        }
    }
};

// After an agreement that gave ids to a process with no part in the result.
void give_back(const uint32_t* ids, int n) noexcept {
    for (int i = 0; i < n; ++i) context_id_release(ids[i]);
}

}  // namespace

status intercomm_create(comm& local, int local_leader, const leader_link& link, MPI_Errhandler eh,
                        comm*& out) noexcept {
    out = nullptr;
    const channel ch = link.peer ? channel{link.peer, link.peer->ctx_p2p(), link.remote_rank, link.tag}
                                 : channel{&bridge(), link.ctx, link.remote_lpid, link.tag};
    std::vector<int> mine, theirs;
    // 1. The leaders swap their groups; every member checks for an overlap
    //    (both groups see the same lists, so both fail alike).
    bool overlap = false;
    try {
        if (local.rank == local_leader) mine = lpids_of(local.map);
    } catch (const std::bad_alloc&) {
        return status::no_mem;
    }
    if (const status s = swap_lists(local, local_leader, ch, mine, theirs); s != status::ok) return s;
    for (int l : theirs)
        if (local.map.rank_of(l) >= 0) overlap = true;
    if (theirs.empty()) overlap = true;  // cannot happen with valid groups; never build it
    if (overlap) return status::invalid;
    // 2. The objects, then the ids.
    pending_inter p;
    bool offer = false;
    try {
        const rank_map remote = rank_map::detect(theirs.data(), static_cast<int>(theirs.size()));
        const int a = min_lpid(local.map), b = min_lpid(remote);
        offer = p.make(eh, remote, local.map, local.rank, a < b);
    } catch (const std::bad_alloc&) {
    }
    uint32_t ids[2];
    if (const status s = agree_ids(local, local_leader, ch, ids, 2, offer); s != status::ok) return s;
    p.commit(ids, out);
    return status::ok;
}

status intercomm_merge(comm& ic, bool high, comm*& out) noexcept {
    out = nullptr;
    comm& local = *ic.inter->local;
    const channel ch = over(ic);
    int mine = high ? 1 : 0, theirs = 0;
    if (local.rank == 0)
        if (const status s = ch.sendrecv(&mine, sizeof mine, &theirs, sizeof theirs); s != status::ok)
            return s;
    if (const status s = coll::bcast(&theirs, sizeof theirs, 0, local); s != status::ok) return s;
    const bool first = mine != theirs ? !high : ic.inter->low;
    comm* c = nullptr;
    bool offer = false;
    try {
        std::vector<int> l;
        l.reserve(static_cast<std::size_t>(local.size + ic.size));
        const rank_map& a = first ? local.map : ic.map;
        const rank_map& b = first ? ic.map : local.map;
        for (int r = 0; r < a.size(); ++r) l.push_back(a.lpid(r));
        for (int r = 0; r < b.size(); ++r) l.push_back(b.lpid(r));
        rank_map m = rank_map::detect(l.data(), static_cast<int>(l.size()));
        if (comm_make(ic.errhandler, c) == status::ok) {
            c->rank = first ? local.rank : ic.size + local.rank;
            c->size = local.size + ic.size;
            c->map = std::move(m);
            offer = true;
        }
    } catch (const std::bad_alloc&) {
    }
    uint32_t id = 0;
    if (const status s = agree_ids(local, 0, ch, &id, 1, offer); s != status::ok) {
        if (c) comm_discard(c);
        return s;
    }
    comm_commit(c, id);
    out = c;
    return status::ok;
}

status intercomm_dup(comm& ic, comm*& out, bool offer) noexcept {
    out = nullptr;
    comm& local = *ic.inter->local;
    pending_inter p;
    if (offer) offer = p.make(ic.errhandler, ic.map, local.map, local.rank, ic.inter->low);
    uint32_t ids[2];
    if (const status s = agree_ids(local, 0, over(ic), ids, 2, offer); s != status::ok) return s;
    p.commit(ids, out);
    return status::ok;
}

namespace {

// The members of one side with color `color`, ordered by (key, rank):
// colors/keys indexed by that side's ranks, m its map.
std::vector<int> side_of(const rank_map& m, const int* ck, int color) {
    std::vector<std::pair<int, int>> v;  // (key, rank)
    for (int r = 0; r < m.size(); ++r)
        if (ck[2 * r] == color) v.emplace_back(ck[2 * r + 1], r);
    std::stable_sort(v.begin(), v.end());
    std::vector<int> l;
    l.reserve(v.size());
    for (const auto& [k, r] : v) l.push_back(m.lpid(r));
    return l;
}

// Builds the new intercommunicator of a split/create from the lpids of its
// two sides (I am in `mine` unless it is empty) and agrees on ids over ic.
status finish_sub(comm& ic, const std::vector<int>* mine, const std::vector<int>* theirs,
                  bool ok, comm*& out) noexcept {
    out = nullptr;
    comm& local = *ic.inter->local;
    pending_inter p;
    const bool member = ok && mine && theirs && !mine->empty() && !theirs->empty();
    bool offer = ok;
    if (member) {
        offer = false;
        try {
            const rank_map lm = rank_map::detect(mine->data(), static_cast<int>(mine->size()));
            const rank_map rm = rank_map::detect(theirs->data(), static_cast<int>(theirs->size()));
            offer = p.make(ic.errhandler, rm, lm, lm.find(g_world.rank), ic.inter->low);
        } catch (const std::bad_alloc&) {
        }
    }
    uint32_t ids[2];
    if (const status s = agree_ids(local, 0, over(ic), ids, 2, offer); s != status::ok) return s;
    if (!member) {
        give_back(ids, 2);
        return status::ok;
    }
    p.commit(ids, out);
    return status::ok;
}

}  // namespace

status intercomm_split(comm& ic, int color, int key, comm*& out) noexcept {
    out = nullptr;
    comm& local = *ic.inter->local;
    std::vector<int> ck, rck;
    try {
        ck.resize(2 * static_cast<std::size_t>(local.size));
    } catch (const std::bad_alloc&) {
        return status::no_mem;  // cannot take part in the exchange
    }
    ck[2 * static_cast<std::size_t>(local.rank)] = color;
    ck[2 * static_cast<std::size_t>(local.rank) + 1] = key;
    if (const status s = coll::allgather(ck.data(), 2 * sizeof(int), local); s != status::ok) return s;
    if (const status s = swap_lists(local, 0, over(ic), ck, rck); s != status::ok) return s;
    if (color == MPI_UNDEFINED) return finish_sub(ic, nullptr, nullptr, true, out);
    try {
        const std::vector<int> mine = side_of(local.map, ck.data(), color);
        const std::vector<int> theirs = side_of(ic.map, rck.data(), color);
        return finish_sub(ic, &mine, &theirs, true, out);
    } catch (const std::bad_alloc&) {
        return finish_sub(ic, nullptr, nullptr, false, out);
    }
}

status intercomm_create_sub(comm& ic, const group& g, comm*& out) noexcept {
    out = nullptr;
    comm& local = *ic.inter->local;
    std::vector<int> mine, theirs;
    try {
        mine = lpids_of(g.map());
    } catch (const std::bad_alloc&) {
        return status::no_mem;
    }
    if (const status s = swap_lists(local, 0, over(ic), mine, theirs); s != status::ok) return s;
    if (g.my_rank() < 0) return finish_sub(ic, nullptr, nullptr, true, out);
    return finish_sub(ic, &mine, &theirs, true, out);
}

}  // namespace ch4lite::dev
