// SPDX-License-Identifier: MIT
#include "device/coll_stage.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "device/coll.hpp"
#include "device/device.hpp"
#include "device/progress.hpp"
#include "shm/segment.hpp"
#include "util/log.hpp"

namespace ch4lite::dev {

namespace {

constexpr std::size_t slots = 8;
constexpr std::size_t chunk = 128 * 1024;
constexpr std::size_t page = 4096;

struct slot_hdr {
    alignas(64) uint64_t seq;
    alignas(64) uint64_t done;
};
constexpr std::size_t hdr_bytes = (slots * sizeof(slot_hdr) + page - 1) / page * page;
constexpr std::size_t seg_bytes = hdr_bytes + slots * chunk;

}  // namespace

struct coll_stage {
    shm::segment seg;
    slot_hdr* hdr = nullptr;
    std::byte* data = nullptr;
    uint64_t next = 0;  // number of the next chunk (every member counts alike)
};

void coll_stage_deleter::operator()(coll_stage* s) const noexcept { delete s; }

bool stage_usable(comm& c) noexcept {
    if (c.stage_tried) return c.stage != nullptr;
    c.stage_tried = true;
    struct info {
        int32_t ok;
        char name[60];
    };
    std::vector<info> v(static_cast<std::size_t>(c.size));
    info& mine = v[static_cast<std::size_t>(c.rank)];
    mine = {};
    std::unique_ptr<coll_stage, coll_stage_deleter> st(new (std::nothrow) coll_stage);
    std::string why = "out of memory";
    status s = st ? status::again : status::no_mem;
    // Round 1: rank 0 creates the segment and tells its name.
    if (c.rank == 0 && st) {
        s = shm::segment::create_unique(g_dev.boot.job_key(), 'c', seg_bytes, st->seg, why);
        if (s == status::ok) std::snprintf(mine.name, sizeof mine.name, "%s", st->seg.name().c_str());
    }
    if (coll_allgather(v.data(), sizeof(info), c) != status::ok) return false;
    if (c.rank != 0 && st)
        s = v[0].name[0] ? shm::segment::attach(v[0].name, seg_bytes, st->seg, why) : status::io;
    // Round 2: did everybody attach?
    mine.ok = s == status::ok;
    if (coll_allgather(v.data(), sizeof(info), c) != status::ok) return false;
    if (c.rank == 0 && st) st->seg.unlink();
    bool all = true;
    for (const info& i : v) all = all && i.ok;
    if (!all) {
        if (s != status::ok) util::verbose("coll: no staging segment: %s", why.c_str());
        return false;
    }
    st->hdr = reinterpret_cast<slot_hdr*>(st->seg.base());
    st->data = st->seg.base() + hdr_bytes;
    c.stage = std::move(st);
    return true;
}

status bcast_staged(std::byte* buf, std::size_t n, int root, comm& c) noexcept {
    coll_stage& s = *c.stage;
    const auto readers = static_cast<uint64_t>(c.size - 1);
    for (std::size_t off = 0; off < n; off += chunk) {
        const std::size_t len = std::min(chunk, n - off);
        const uint64_t g = s.next++;
        slot_hdr& h = s.hdr[g % slots];
        std::byte* d = s.data + (g % slots) * chunk;
        if (c.rank == root) {
            std::atomic_ref<uint64_t> done(h.done);
            const uint64_t need = (g / slots) * readers;  // its previous lap read by all
            if (done.load(std::memory_order_acquire) < need)
                progress_until([&] { return done.load(std::memory_order_acquire) >= need; });
            std::memcpy(d, buf + off, len);
            std::atomic_ref<uint64_t>(h.seq).store(g + 1, std::memory_order_release);
        } else {
            std::atomic_ref<uint64_t> seq(h.seq);
            if (seq.load(std::memory_order_acquire) != g + 1)
                progress_until([&] { return seq.load(std::memory_order_acquire) == g + 1; });
            std::memcpy(buf + off, d, len);
            std::atomic_ref<uint64_t>(h.done).fetch_add(1, std::memory_order_release);
        }
    }
    return status::ok;
}

}  // namespace ch4lite::dev
