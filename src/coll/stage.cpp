// SPDX-License-Identifier: MIT
#include "coll/stage.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "coll/build.hpp"
#include "coll/coll.hpp"
#include "coll/p2p.hpp"
#include "coll/sched.hpp"
#include "device/device.hpp"
#include "device/progress.hpp"
#include "shm/ring.hpp"
#include "shm/segment.hpp"
#include "util/log.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

namespace {

constexpr std::size_t slots = 8;
constexpr std::size_t chunk = 128 * 1024;
constexpr std::size_t page = 4096;

struct slot_hdr {
    alignas(64) uint64_t seq;
    uint64_t bytes;  // the root's message size (every chunk of it)
    alignas(64) uint64_t done;
};
// How the root fills the broadcast chunks, after the slots. Plain copies
// are fastest when the vCPUs share a cache, but when the VM places them
// far apart (docs/shm-protocols.md, "The eager limit and the vCPU placement") a plain
// fill into lines the readers of the last lap still hold moves ~2.6 GB/s,
// where non-temporal stores move 25-34 GB/s (the readers then read memory,
// which costs them in the good placement). So the root times its plain
// fills of at least `timed_min` bytes; two slower than `slow_bytes_per_ns`
// in a row make every root stream the next `stream_lap` chunks, after which
// plain fills are tried again.
struct fill_ctl {
    alignas(64) uint64_t stream_until;  // chunks numbered below this are streamed
};
constexpr uint64_t stream_lap = 256;
constexpr std::size_t timed_min = 32 * 1024;
constexpr double slow_bytes_per_ns = 5;  // 5 GB/s
constexpr std::size_t hdr_bytes =
    (slots * sizeof(slot_hdr) + sizeof(fill_ctl) + page - 1) / page * page;
constexpr std::size_t bcast_bytes = slots * chunk;

// Staged exchange rounds (Alltoall, Allreduce): per member, the last round
// it filled its box in (`filled`, with the byte count of the call in its
// first round, `bytes`) and the last round it finished reading (`used`).
struct xline {
    alignas(64) uint64_t filled;
    // Per half, like slow[]: the call's byte count published with round g's
    // fill goes to bytes[g & 1]. One word for both halves let a member that
    // already filled round g + 1 (it waits for used >= g - 1 only) overwrite
    // the count a slower member was still comparing for round g: a spurious
    // "sizes differ" when a call of another size followed at once.
    uint64_t bytes[2];
    // Per half (round g in slow[g & 1]): g when the member reports slow
    // copies in round g (timed fills, below). A half's word is written
    // again only two rounds later, after every member read this round's:
    // all of them see the same flags.
    uint64_t slow[2];
    alignas(64) uint64_t used;
};

// Timed fills (the host is not oversubscribed): plain copies, which are the
// fastest when the vCPUs share caches but ~5x slower than the pairwise
// single copy when they sit far apart (docs/collectives-staged.md,
// "Staged exchange"). So each member times its fills and reads of at least
// timed_min bytes; two fills or two reads in a row below
// CH4LITE_COLL_STAGE_SLOW (5 GB/s) make every member (all read the same
// flags after the round, xline::slow) take the
// point-to-point algorithms for the next `slow_calls` calls, then try the
// staged exchange again.
constexpr uint64_t slow_calls = 256;

std::size_t round_up(std::size_t n) { return (n + page - 1) / page * page; }

// Box bytes per member and half: 2 MiB / p, at least 64 KiB, at most 512 KiB
// (so 4 MiB of boxes for 4..32 members); none unless a staged exchange is
// switched on (the pages are reserved at creation).
std::size_t box_for(int p) {
    if (g_tuning.allreduce_stage == SIZE_MAX && g_tuning.alltoall_stage == SIZE_MAX) return 0;
    const std::size_t b = (std::size_t{2} << 20) / static_cast<std::size_t>(p);
    return std::clamp<std::size_t>(b / page * page, 64 * 1024, 512 * 1024);
}

struct layout {
    std::size_t xctl, bcast, boxes, total;
    explicit layout(int p) {
        xctl = hdr_bytes;
        bcast = xctl + round_up(static_cast<std::size_t>(p) * sizeof(xline));
        boxes = bcast + bcast_bytes;
        total = boxes + 2 * static_cast<std::size_t>(p) * box_for(p);
    }
};

}  // namespace

struct stage_seg {
    shm::segment seg;
    slot_hdr* hdr = nullptr;
    fill_ctl* fill = nullptr;
    std::byte* data = nullptr;
    uint64_t next = 0;  // number of the next chunk (every member counts alike)
    uint32_t slow_fills = 0;  // as root: timed plain fills in a row that were slow
    xline* x = nullptr;
    std::byte* boxes = nullptr;
    std::size_t box = 0;  // bytes per member and half
    uint64_t round = 0;   // the last exchange round (every member counts alike)
    uint64_t calls = 0;       // staged-exchange calls asked for (every member alike)
    uint64_t slow_until = 0;  // no staged exchange before call number slow_until
    bool saw_slow = false;    // a member reported slow copies in this call
    bool slow_copy = false;   // my timed copies ran slow twice in a row, not yet published
    uint32_t x_slow_fills = 0;  // staged exchange: my timed fills that ran slow in a row
    uint32_t x_slow_reads = 0;  // ... and reads

    std::byte* box_of(uint64_t g, int r) const noexcept {
        return boxes + ((g & 1) * static_cast<std::size_t>(p) + static_cast<std::size_t>(r)) * box;
    }
    int p = 0;
};

void stage_deleter::operator()(stage_seg* s) const noexcept { delete s; }

bool all_local(comm& c) noexcept {
    if (__builtin_expect(c.all_local < 0, 0)) {
        c.all_local = 1;
        for (int r = 0; r < c.size; ++r)
            if (!g_dev.shm.local(c.lpid(r))) {
                c.all_local = 0;
                break;
            }
    }
    return c.all_local != 0;
}

std::size_t stage_box_bytes(const comm& c) noexcept { return c.stage ? c.stage->box : 0; }

namespace {

// The segment's pointers, once every member attached; then it is c's.
void stage_ready(comm& c, std::unique_ptr<stage_seg, stage_deleter> st) noexcept {
    const layout l(c.size);
    st->hdr = reinterpret_cast<slot_hdr*>(st->seg.base());
    st->fill = reinterpret_cast<fill_ctl*>(st->hdr + slots);
    st->data = st->seg.base() + l.bcast;
    st->x = reinterpret_cast<xline*>(st->seg.base() + l.xctl);
    st->boxes = st->seg.base() + l.boxes;
    st->box = box_for(c.size);
    st->p = c.size;
    // Map every box page now (each process faults the shared pages in on
    // its own), so the first exchange's timed copies do not count faults.
    for (std::size_t o = 0; o < 2 * static_cast<std::size_t>(c.size) * st->box; o += page)
        (void)std::atomic_ref<std::byte>(st->boxes[o]).load(std::memory_order_relaxed);
    c.stage = std::move(st);
}

constexpr std::size_t name_bytes = 60;

// Rank 0: a new segment for c, its name in `name` (empty on failure).
status stage_create(comm& c, stage_seg* st, char (&name)[name_bytes], std::string& why) noexcept {
    name[0] = 0;
    if (!st) return status::no_mem;
    const status s = shm::segment::create_unique(g_dev.boot.job_key(), 'c', layout(c.size).total, st->seg, why);
    if (s == status::ok) std::snprintf(name, name_bytes, "%s", st->seg.name().c_str());
    return s;
}

status stage_attach(comm& c, stage_seg* st, const char* name, std::string& why) noexcept {
    if (!st) return status::no_mem;
    if (!name[0]) {
        why = "rank 0 could not make it";
        return status::io;
    }
    return shm::segment::attach(name, layout(c.size).total, st->seg, why);
}

}  // namespace

bool stage_usable(comm& c) noexcept {
    // A schedule is setting it up (add_bcast_any): every member ran or
    // will run that schedule, so its outcome comes with progress.
    if (c.stage_pending) progress_until([&] { return !c.stage_pending; });
    if (c.stage_tried) return c.stage != nullptr;
    c.stage_tried = true;
    struct info {
        int32_t ok;
        char name[name_bytes];
    };
    std::vector<info> v(static_cast<std::size_t>(c.size));
    info& mine = v[static_cast<std::size_t>(c.rank)];
    mine = {};
    std::unique_ptr<stage_seg, stage_deleter> st(new (std::nothrow) stage_seg);
    std::string why = "out of memory";
    status s = st ? status::again : status::no_mem;
    // Round 1: rank 0 creates the segment and tells its name.
    if (c.rank == 0) s = stage_create(c, st.get(), mine.name, why);
    if (allgather(v.data(), sizeof(info), c) != status::ok) return false;
    if (c.rank != 0) s = stage_attach(c, st.get(), v[0].name, why);
    // Round 2: did everybody attach?
    mine.ok = s == status::ok;
    if (allgather(v.data(), sizeof(info), c) != status::ok) return false;
    if (c.rank == 0 && st) st->seg.unlink();
    bool all = true;
    for (const info& i : v) all = all && i.ok;
    if (!all) {
        if (s != status::ok) util::verbose("coll: no staging segment: %s", why.c_str());
        return false;
    }
    stage_ready(c, std::move(st));
    return true;
}

bool bcast_advance(comm& c, bcast_cursor& k) noexcept {
    stage_seg& s = *c.stage;
    const auto readers = static_cast<uint64_t>(c.size - 1);
    // The chunks are the root's: at least one (an empty message too), each
    // carrying the root's size, so a reader that expects another size still
    // takes exactly the root's chunks (and the counters stay in step) and
    // reports the mismatch instead of leaving bytes behind.
    if (k.chunks == 0) k.total = c.rank == k.root ? k.n : SIZE_MAX;
    while (k.chunks == 0 || k.off < k.total) {
        const uint64_t g = s.next;
        slot_hdr& h = s.hdr[g % slots];
        std::byte* d = s.data + (g % slots) * chunk;
        if (c.rank == k.root) {
            const std::size_t len = std::min(chunk, k.n - k.off);
            const uint64_t need = (g / slots) * readers;  // its previous lap read by all
            if (std::atomic_ref<uint64_t>(h.done).load(std::memory_order_acquire) < need) return false;
            std::atomic_ref<uint64_t> until(s.fill->stream_until);
            const auto mode = g_tuning.stage_fill;
            const bool automatic = mode == tuning::fill::automatic;
            std::byte* src = k.buf + k.off;
            if (mode == tuning::fill::streamed ||
                (automatic && g < until.load(std::memory_order_relaxed))) {
                if (shm::copy_for_reader(d, src, len, g_dev.shm.stream_min()))
                    shm::stream_fence();  // before the release store
            } else if (automatic && len >= timed_min) {
                const bool slow = shm::copy_ran_slow(len, slow_bytes_per_ns, [&] { std::memcpy(d, src, len); });
                if (shm::second_slow_in_a_row(s.slow_fills, slow))
                    until.store(g + 1 + stream_lap, std::memory_order_relaxed);
            } else {
                std::memcpy(d, src, len);
            }
            std::atomic_ref<uint64_t>(h.bytes).store(k.n, std::memory_order_relaxed);
            std::atomic_ref<uint64_t>(h.seq).store(g + 1, std::memory_order_release);
            k.off += len;
        } else {
            if (std::atomic_ref<uint64_t>(h.seq).load(std::memory_order_acquire) != g + 1) return false;
            if (k.chunks == 0) k.total = std::atomic_ref<uint64_t>(h.bytes).load(std::memory_order_relaxed);
            const std::size_t len = std::min(chunk, k.total - k.off);
            if (k.off < k.n) std::memcpy(k.buf + k.off, d, std::min(len, k.n - k.off));
            std::atomic_ref<uint64_t>(h.done).fetch_add(1, std::memory_order_release);
            k.off += len;
        }
        ++s.next;
        ++k.chunks;
    }
    return true;
}

status bcast_staged(std::byte* buf, std::size_t n, int root, comm& c) noexcept {
    const auto cw = crowd(c);
    // Our turn among the slots' users (a scheduled broadcast issued before
    // this call may still run).
    const uint64_t t = c.stage_turns.take();
    if (!c.stage_turns.mine(t)) progress_until([&] { return c.stage_turns.mine(t); });
    bcast_cursor k{buf, n, root};
    if (!bcast_advance(c, k)) progress_until([&] { return bcast_advance(c, k); });
    c.stage_turns.pass(t);
    if (k.total != n) coll::note_mismatch();
    return status::ok;
}

namespace {

// Fills are timed plain copies unless the host is oversubscribed (there
// every member shares the cores, the placement question does not arise).
inline bool timed_fills() noexcept { return !g_dev.oversubscribed; }

// A fill. Oversubscribed: from CH4LITE_SHM_STREAM_MIN bytes on with
// non-temporal stores, so the readers take the bytes from memory, not from
// this core's cache: a plain copy read by another core moves ~2 GB/s when
// the two vCPUs sit far apart (docs/shm-protocols.md, "The eager limit and the
// vCPU placement"). Else plain, timed (exchange_round).
inline void box_copy(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
    if (timed_fills())
        std::memcpy(dst, src, n);
    else
        (void)shm::copy_for_reader(dst, src, n, g_dev.shm.stream_min());  // exchange_round fences
}

// The end of a staged call: slow copies reported in it send the next
// slow_calls calls to the point-to-point algorithms.
void end_call(stage_seg& s) noexcept {
    if (s.saw_slow) {
        s.slow_until = s.calls + slow_calls;
        util::verbose("coll: a member's staged exchange copy ran slow: point-to-point for the next %d "
                      "calls", static_cast<int>(slow_calls));
    }
    s.saw_slow = false;
}

// Waits until member r's word at `field` (filled or used) reaches g.
template <class Field>
void wait_all(stage_seg& s, Field field, uint64_t g) noexcept {
    const auto cw = crowd(s.p);
    for (int r = 0; r < s.p; ++r) {
        std::atomic_ref<uint64_t> w(s.x[r].*field);
        if (w.load(std::memory_order_acquire) < g)
            progress_until([&] { return w.load(std::memory_order_acquire) >= g; });
    }
}

// One staged exchange round: fill(my box); once every member filled its
// box, consume(box_of) reads the others'. Boxes alternate between two
// halves, so a member refills a half only after everybody finished reading
// it two rounds ago. `bytes` (first round of a call only, else 0): the
// byte count of the call, published with the fill; returns false when the
// members disagree on it (every member then sees the same disagreement,
// and all stop after this round).
template <class Fill, class Consume>
bool exchange_round(stage_seg& s, int me, uint64_t bytes, Fill&& fill, Consume&& consume,
                    std::size_t fill_bytes = 0, std::size_t read_bytes = 0) noexcept {
    const uint64_t g = ++s.round;
    if (g > 2) wait_all(s, &xline::used, g - 2);
    if (timed_fills() && fill_bytes >= timed_min) {
        if (shm::second_slow_in_a_row(
                s.x_slow_fills,
                shm::copy_ran_slow(fill_bytes, g_tuning.stage_slow_gbps, [&] { fill(s.box_of(g, me)); })))
            s.slow_copy = true;
    } else {
        fill(s.box_of(g, me));
    }
    // A slow fill of this round, or a slow read of an earlier one (seen
    // after that round's flags were out), goes out with this round's fill.
    if (s.slow_copy) {
        std::atomic_ref<uint64_t>(s.x[me].slow[g & 1]).store(g, std::memory_order_relaxed);
        s.slow_copy = false;
    }
    shm::stream_fence();  // streamed fills before the release store
    if (bytes) std::atomic_ref<uint64_t>(s.x[me].bytes[g & 1]).store(bytes, std::memory_order_relaxed);
    std::atomic_ref<uint64_t>(s.x[me].filled).store(g, std::memory_order_release);
    wait_all(s, &xline::filled, g);
    for (int r = 0; r < s.p; ++r)
        if (std::atomic_ref<uint64_t>(s.x[r].slow[g & 1]).load(std::memory_order_relaxed) == g) s.saw_slow = true;
    bool same = true;
    if (bytes)
        for (int r = 0; r < s.p; ++r)
            same = same && std::atomic_ref<uint64_t>(s.x[r].bytes[g & 1]).load(std::memory_order_relaxed) == bytes;
    const auto read = [&] { consume([&](int r) -> const std::byte* { return s.box_of(g, r); }); };
    if (same && timed_fills() && read_bytes >= timed_min) {
        if (shm::second_slow_in_a_row(s.x_slow_reads, shm::copy_ran_slow(read_bytes, g_tuning.stage_slow_gbps, read)))
            s.slow_copy = true;
    } else if (same) {
        read();
    }
    std::atomic_ref<uint64_t>(s.x[me].used).store(g, std::memory_order_release);
    return same;
}

}  // namespace

bool stage_exchange_now(comm& c) noexcept {
    stage_seg& s = *c.stage;
    return ++s.calls >= s.slow_until;
}

status alltoall_staged(const std::byte* sbuf, std::byte* rbuf, std::size_t n, comm& c) noexcept {
    stage_seg& s = *c.stage;
    const int p = c.size, me = c.rank;
    const std::size_t me_off = static_cast<std::size_t>(me) * n;
    std::memmove(rbuf + me_off, sbuf + me_off, n);
    // Each box holds one piece per destination: `piece` bytes of its block.
    const std::size_t piece = s.box / static_cast<std::size_t>(p) / 64 * 64;
    std::size_t off = 0;
    do {
        const std::size_t len = std::min(piece, n - off);
        const bool same = exchange_round(
            s, me, off == 0 ? n + 1 : 0,
            [&](std::byte* box) {
                for (int d = 0; d < p; ++d)
                    if (d != me)
                        box_copy(box + static_cast<std::size_t>(d) * piece,
                                 sbuf + static_cast<std::size_t>(d) * n + off, len);
            },
            [&](auto box_of) {
                for (int i = 1; i < p; ++i) {
                    const int r = (me + i) % p;
                    std::memcpy(rbuf + static_cast<std::size_t>(r) * n + off,
                                box_of(r) + static_cast<std::size_t>(me) * piece, len);
                }
            },
            static_cast<std::size_t>(p - 1) * len, static_cast<std::size_t>(p - 1) * len);
        if (!same) {
            coll::note_mismatch();
            end_call(s);
            return status::ok;
        }
        off += len;
    } while (off < n);
    end_call(s);
    return status::ok;
}

status allreduce_staged(std::byte* rbuf, int64_t count, const reduction& op, comm& c) noexcept {
    stage_seg& s = *c.stage;
    const int p = c.size, me = c.rank;
    const std::size_t elem = op.elem;
    const auto at = [elem](auto* b, int64_t e) { return b + static_cast<std::size_t>(e) * elem; };
    // A piece of the vector fills a box; member r folds part r of it.
    const int64_t per = static_cast<int64_t>(s.box / elem);
    const auto part = [p](int64_t k, int r) { return k * r / p; };  // first element of part r
    status res = status::ok;
    int64_t e0 = 0;
    do {
        const int64_t k = std::min(per, count - e0);
        std::byte* piece = at(rbuf, e0);
        const int64_t lo = part(k, me), hi = part(k, me + 1);
        // Round 1: everybody's piece. Fold part `me` in rank order (the same
        // order, hence the same bits, on every member), straight into my box
        // of round 2: that half was last read in the round before this one,
        // which every member finished before it filled this one.
        const uint64_t g = s.round + 1;
        const bool same = exchange_round(
            s, me, e0 == 0 ? static_cast<uint64_t>(count) * elem + 1 : 0,
            [&](std::byte* box) { box_copy(box, piece, static_cast<std::size_t>(k) * elem); },
            [&](auto box_of) {
                if (hi == lo) return;
                std::byte* acc = at(s.box_of(g + 1, me), lo);
                std::memcpy(acc, at(box_of(p - 1), lo), static_cast<std::size_t>(hi - lo) * elem);
                for (int r = p - 2; r >= 0; --r)
                    if (const status a = op.apply(at(box_of(r), lo), acc, hi - lo); a != status::ok)
                        res = a;
            },
            static_cast<std::size_t>(k) * elem, static_cast<std::size_t>(p) * static_cast<std::size_t>(hi - lo) * elem);
        if (!same) {
            coll::note_mismatch();
            end_call(s);
            return status::ok;
        }
        // Round 2: every part's result to everybody.
        exchange_round(
            s, me, 0, [](std::byte*) {},
            [&](auto box_of) {
                for (int i = 0; i < p; ++i) {
                    const int r = (me + i) % p;
                    const int64_t rlo = part(k, r), rhi = part(k, r + 1);
                    std::memcpy(at(piece, rlo), at(box_of(r), rlo), static_cast<std::size_t>(rhi - rlo) * elem);
                }
            },
            0, static_cast<std::size_t>(k) * elem);
        e0 += k;
    } while (e0 < count);
    end_call(s);
    return res;
}

// ---- Scheduled broadcast (MPI_Ibcast, MPI_Bcast_init)
//
// Steps: [set-up, the first time], W, fence, P. W is a watch step that waits
// for the schedule's turn among the slots' users (its ticket, taken when the
// schedule starts, i.e. in collective order), then moves the chunks as the
// slots and the root's fills allow, never waiting; when done it skips P.
// P are the point-to-point steps of add_bcast, run instead when the
// communicator has no segment (W then only passes its turn on). Every
// member takes the same branch: the segment's existence is the same
// everywhere once its set-up ended, and W waits for that.

namespace {

struct nb_setup;

struct nb_bcast {
    comm* c;
    bcast_cursor k;
    uint64_t ticket;
    bool turn_held;     // this run's ticket not yet passed on
    step p0, p1;        // the point-to-point branch
    nb_setup* setup;    // the set-up in this schedule, or null
};

void setup_begin(nb_setup& o) noexcept;

status nb_bcast_start(sched&, void* arg) noexcept {
    auto& o = *static_cast<nb_bcast*>(arg);
    if (o.setup) setup_begin(*o.setup);  // a nonblocking schedule: one run
    o.ticket = o.c->stage_turns.take();
    o.turn_held = true;
    o.k = bcast_cursor{o.k.buf, o.k.n, o.k.root};
    return status::ok;
}

void pass(nb_bcast& o) noexcept {
    o.turn_held = false;
    o.c->stage_turns.pass(o.ticket);
}

status nb_bcast_step(sched& s, void* arg) noexcept {
    auto& o = *static_cast<nb_bcast*>(arg);
    comm& c = *o.c;
    if (c.stage_pending || !c.stage_turns.mine(o.ticket)) return status::again;
    if (!c.stage) {  // no segment: the point-to-point steps follow
        pass(o);
        return status::ok;
    }
    if (!bcast_advance(c, o.k)) return status::again;
    pass(o);
    s.skip(o.p0, o.p1);
    if (o.k.total != o.k.n) s.note_mismatch();
    return status::ok;
}

// Setting the segment up inside a schedule, the blocking stage_usable()'s
// two rounds as steps: rank 0 makes it (when the schedule starts,
// setup_begin) and sends its name to every member; each attaches and reports to rank 0,
// which sends the verdict back; then every member keeps the segment or
// drops it. Until then c.stage_pending holds off every other user.
struct nb_setup {
    comm* c;
    stage_seg* st;  // ours until the end step hands it to c
    int32_t ok;
    int32_t verdict;
    bool ended;
    char name[name_bytes];
    // Rank 0: what each member reported (p words after the struct).
    int32_t* oks() noexcept { return reinterpret_cast<int32_t*>(this + 1); }
};

status nb_setup_attach(sched&, void* arg) noexcept {
    auto& o = *static_cast<nb_setup*>(arg);
    if (o.c->rank == 0) return status::ok;
    std::string why;
    o.ok = stage_attach(*o.c, o.st, o.name, why) == status::ok;
    if (!o.ok) util::verbose("coll: no staging segment: %s", why.c_str());
    return status::ok;
}

status nb_setup_verdict(sched&, void* arg) noexcept {
    auto& o = *static_cast<nb_setup*>(arg);
    if (o.c->rank != 0) return status::ok;  // it comes from rank 0
    o.verdict = o.ok;
    for (int r = 1; r < o.c->size; ++r) o.verdict = o.verdict && o.oks()[r];
    return status::ok;
}

status nb_setup_end(sched&, void* arg) noexcept {
    auto& o = *static_cast<nb_setup*>(arg);
    comm& c = *o.c;
    std::unique_ptr<stage_seg, stage_deleter> st(o.st);
    o.st = nullptr;
    o.ended = true;
    if (c.rank == 0 && st) st->seg.unlink();
    if (o.verdict && st) stage_ready(c, std::move(st));
    c.stage_pending = false;
    return status::ok;
}

// The end of every run (sched::on_end): a schedule that failed before its
// set-up or its broadcast step ran still ends the set-up (no segment here;
// the failure is this rank's MPI error) and gives its turn up, so that no
// later collective on the communicator waits for them.
status nb_bcast_end(sched& s, void* arg) noexcept {
    auto& o = *static_cast<nb_bcast*>(arg);
    if (o.setup && !o.setup->ended) {
        o.setup->verdict = 0;
        (void)nb_setup_end(s, o.setup);
    }
    if (o.turn_held) pass(o);
    return status::ok;
}

// When the schedule starts (inside the MPI_Ibcast call, so before any
// later collective on c is built): from now on c's segment is pending, and
// rank 0 makes it.
void setup_begin(nb_setup& o) noexcept {
    comm& c = *o.c;
    c.stage_tried = true;
    c.stage_pending = true;
    o.st = new (std::nothrow) stage_seg;
    if (c.rank == 0) {
        std::string why = "out of memory";
        o.ok = stage_create(c, o.st, o.name, why) == status::ok;
        if (!o.ok) util::verbose("coll: no staging segment: %s", why.c_str());
    }
}

nb_setup* add_setup(sched& s, comm& c) noexcept {
    auto* o = reinterpret_cast<nb_setup*>(
        s.scratch(sizeof(nb_setup) + static_cast<std::size_t>(c.size) * sizeof(int32_t)));
    if (!o) return nullptr;
    o->c = &c;
    o->st = nullptr;
    o->ok = 1;
    o->verdict = 0;
    o->ended = false;
    o->name[0] = 0;
    const std::size_t word = sizeof(int32_t);
    const bool zero = c.rank == 0;
    if (zero)
        for (int r = 1; r < c.size; ++r) s.send(o->name, name_bytes, r);
    else
        s.recv(o->name, name_bytes, 0);
    s.fence();
    s.call(nb_setup_attach, o);
    s.fence();
    if (zero)
        for (int r = 1; r < c.size; ++r) s.recv(&o->oks()[r], word, r);
    else
        s.send(&o->ok, word, 0);
    s.fence();
    s.call(nb_setup_verdict, o);
    s.fence();
    if (zero)
        for (int r = 1; r < c.size; ++r) s.send(&o->verdict, word, r);
    else
        s.recv(&o->verdict, word, 0);
    s.fence();
    s.call(nb_setup_end, o);
    s.fence();
    return o;
}

}  // namespace

void add_bcast_any(sched& s, std::byte* buf, std::size_t n, int root, bool may_setup) noexcept {
    comm& c = s.owner();
    const bool eligible = c.size > 1 && n >= g_tuning.bcast_stage && !c.is_inter() && all_local(c) &&
                          (c.stage_tried ? c.stage_pending || c.stage != nullptr : may_setup);
    if (!eligible) return add_bcast(s, buf, n, root);
    auto* o = reinterpret_cast<nb_bcast*>(s.scratch(sizeof(nb_bcast)));
    if (!o) return;
    *o = nb_bcast{&c, bcast_cursor{buf, n, root}, 0, false, 0, 0, nullptr};
    if (!c.stage_tried) o->setup = add_setup(s, c);
    s.on_start(nb_bcast_start, o);
    s.on_end(nb_bcast_end, o);
    s.watch(nb_bcast_step, o);
    s.fence();
    o->p0 = static_cast<step>(s.steps());
    if (!c.stage) add_bcast(s, buf, n, root);  // a segment, once made, stays: W never takes P
    o->p1 = static_cast<step>(s.steps());
}

}  // namespace ch4lite::coll
