// SPDX-License-Identifier: MIT
// Bringing up the node's segment (docs/shm-segment.md, "Segment"):
//   1. the lowest world rank of the node (the creator) creates the segment
//      (a memfd; with CH4LITE_SHM_NAMED=1 under a fresh name), initializes
//      the header and publishes {descriptor or name, size, geometry, cookie}
//      through the bootstrap; fence;
//   2. the others attach (ownership/mode/size/cookie checked), every rank
//      fills its slot (pid, CMA probe address) and publishes whether it
//      attached; fence;
//   3. the creator closes its memfd / unlinks the name (everyone attached
//      or gave up), and
//      each rank probes CMA to every local peer.
// If any local rank failed, the node's ranks all use the netmod instead.
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "device/bootstrap.hpp"
#include "shm/layout.hpp"
#include "shm/shm.hpp"
#include "util/env.hpp"
#include "util/log.hpp"
#include "util/pool_buffer.hpp"
#include "util/random.hpp"

namespace ch4lite::shm {

namespace {

// What the creator publishes under "ch4lite_shm".
struct published {
    uint8_t ok;
    uint8_t pad[3];
    uint32_t cells;
    uint64_t data_bytes;
    uint64_t bytes;
    uint64_t cookie;
    char name[96];
};

uint64_t pow2_floor(uint64_t v) { return v ? uint64_t{1} << (63 - __builtin_clzll(v)) : 1; }

// Ring geometry for n local ranks: 128 cells per ring, and data rings of
// 1 MiB while n*n rings fit in 64 MiB, smaller beyond (at least 16 KiB).
geometry choose_geometry(uint32_t n) {
    geometry g;
    g.nlocal = n;
    const int64_t cells = std::clamp<int64_t>(util::env_int("CH4LITE_SHM_CELLS", 128), 4, 1 << 16);
    g.cells = static_cast<uint32_t>(pow2_floor(static_cast<uint64_t>(cells)));
    const uint64_t fit = pow2_floor((64ull << 20) / (uint64_t{n} * n));
    const int64_t data = util::env_int("CH4LITE_SHM_RING_BYTES",
                                       static_cast<int64_t>(std::clamp<uint64_t>(fit, 16384, 1 << 20)));
    g.data_bytes = pow2_floor(static_cast<uint64_t>(std::clamp<int64_t>(data, 16384, 1ll << 30)));
    return g;
}

std::string segment_name(uint64_t job_key, int creator, int attempt) {
    char buf[96];
    // ch4lite-<uid>-<job key>-*: mpiexec removes what a killed job left.
    // The first attempt is named after the creator's rank; every retry after
    // EEXIST gets a fresh random suffix.
    if (attempt == 0)
        std::snprintf(buf, sizeof buf, "/ch4lite-%u-%016" PRIx64 "-%d", static_cast<unsigned>(::getuid()),
                      job_key, creator);
    else
        std::snprintf(buf, sizeof buf, "/ch4lite-%u-%016" PRIx64 "-%016" PRIx64,
                      static_cast<unsigned>(::getuid()), job_key, util::random64());
    return buf;
}

}  // namespace

bool transport::enabled() noexcept {
    static const bool on = util::env_bool("CH4LITE_SHM", true);
    return on;
}

status transport::init(dev::bootstrap& bs, std::string& error) {
    inited_ = true;
    world_rank_ = bs.rank();
    local_idx_.assign(static_cast<std::size_t>(bs.size()), -1);
    if (!enabled()) {
        note_ = "off";
        return status::ok;
    }
    // A job of one rank keeps a segment of its own: its messages to itself
    // then need no netmod, which is not opened (docs/netmod-ofi.md,
    // "LOADING LIBFABRIC"). Otherwise nothing is shared when every rank is
    // alone on its node; this is known to all ranks alike, so they all skip
    // the fences below together.
    if (bs.size() == 1) return create_or_attach(bs, {world_rank_}, error);
    if (bs.num_nodes() >= bs.size()) {
        note_ = "on (no local peer)";
        return status::ok;
    }
    const auto& nodes = bs.node_of();
    std::vector<int> locals;
    for (int r = 0; r < bs.size(); ++r)
        if (nodes[static_cast<std::size_t>(r)] == nodes[static_cast<std::size_t>(world_rank_)])
            locals.push_back(r);
    return create_or_attach(bs, locals, error);
}

status transport::create_or_attach(dev::bootstrap& bs, const std::vector<int>& locals,
                                   std::string& error) {
    const uint32_t n = static_cast<uint32_t>(locals.size());
    const bool creator = locals.front() == world_rank_;
    // A segment for this node's ranks when there are several, or when this
    // rank is the whole job (a ring to itself).
    const bool wanted = n > 1 || bs.size() == 1;
    me_ = static_cast<uint32_t>(std::find(locals.begin(), locals.end(), world_rank_) - locals.begin());
    const bool cma_wanted = util::env_bool("CH4LITE_SHM_CMA", true);
    published pub{};
    std::string why;
    geometry g;
    if (wanted && creator) {
        g = choose_geometry(n);
        cookie_ = util::random64();
        status s = status::again;
        if (!segment::named_backend()) s = segment::create_memfd(g.total_bytes(), seg_, why);
        for (int attempt = 0; attempt < 16 && s == status::again; ++attempt) {
            const std::string name = segment_name(bs.job_key(), world_rank_, attempt);
            s = segment::create(name, g.total_bytes(), seg_, why);
            if (s == status::again) util::verbose("shm: %s: choosing another name", why.c_str());
        }
        if (s == status::ok) {
            auto* h = reinterpret_cast<segment_header*>(seg_.base());
            h->version = segment_version;
            h->nlocal = n;
            h->cookie = cookie_;
            h->total_bytes = g.total_bytes();
            h->cells = g.cells;
            h->data_bytes = g.data_bytes;
            h->magic = segment_magic;
            pub.ok = 1;
            pub.cells = g.cells;
            pub.data_bytes = g.data_bytes;
            pub.bytes = g.total_bytes();
            pub.cookie = cookie_;
            std::snprintf(pub.name, sizeof pub.name, "%s", seg_.name().c_str());
        } else {
            util::warn("shm: cannot create the node's segment (%s); local peers use the netmod",
                       why.c_str());
        }
        if (status s2 = bs.put("ch4lite_shm", &pub, sizeof pub); failed(s2)) {
            error = "cannot publish the shared-memory segment name";
            return s2;
        }
    }
    if (status s = bs.fence(); failed(s)) {
        error = "bootstrap fence failed while setting up shared memory";
        return s;
    }
    bool ok = false;
    if (wanted) {
        if (creator) {
            ok = pub.ok != 0;
        } else {
            std::vector<std::byte> v;
            if (bs.get(locals.front(), "ch4lite_shm", v) == status::ok && v.size() == sizeof pub) {
                std::memcpy(&pub, v.data(), sizeof pub);
                pub.name[sizeof pub.name - 1] = '\0';
                g.nlocal = n;
                g.cells = pub.cells;
                g.data_bytes = pub.data_bytes;
            }
            if (pub.ok && g.valid() && g.total_bytes() == pub.bytes &&
                segment::attach(pub.name, pub.bytes, seg_, why) == status::ok) {
                const auto* h = reinterpret_cast<const segment_header*>(seg_.base());
                ok = h->magic == segment_magic && h->version == segment_version && h->nlocal == n &&
                     h->cookie == pub.cookie && h->cells == g.cells &&
                     h->data_bytes == g.data_bytes && h->total_bytes == pub.bytes;
                if (!ok) why = std::string(pub.name) + " does not hold our job's header";
                cookie_ = pub.cookie;
            } else if (pub.ok && why.empty()) {
                why = "bad segment description from the creator";
            }
            if (!ok && pub.ok) util::warn("shm: cannot attach: %s", why.c_str());
        }
        if (ok) {
            probe_word_ = cookie_ ^ static_cast<uint64_t>(world_rank_);
            rank_slot& mine = rank_slots(reinterpret_cast<segment_header*>(seg_.base()))[me_];
            mine.world_rank = world_rank_;
            mine.pid = static_cast<int32_t>(::getpid());
            mine.probe_addr = reinterpret_cast<uintptr_t>(&probe_word_);
            if (cma_wanted) cma::allow_peers();  // before the fence: peers probe us after it
        }
        const uint8_t flag = ok ? 1 : 0;
        if (status s = bs.put("ch4lite_shma", &flag, 1); failed(s)) {
            error = "cannot publish the shared-memory attach status";
            return s;
        }
    }
    if (status s = bs.fence(); failed(s)) {
        error = "bootstrap fence failed while setting up shared memory";
        return s;
    }
    if (!wanted) {
        note_ = "on (no local peer)";
        return status::ok;
    }
    // Everyone attached or gave up: the name has served its purpose.
    seg_.unlink();
    bool all = ok;
    for (uint32_t i = 0; i < n && all; ++i) {
        if (i == me_) continue;
        std::vector<std::byte> v;
        all = bs.get(locals[i], "ch4lite_shma", v) == status::ok && v.size() == 1 &&
              v[0] == std::byte{1};
    }
    if (!all) {
        seg_.reset();
        note_ = "on (segment failed: local peers use the netmod)";
        return status::ok;
    }
    nlocal_ = n;
    world_of_ = locals;
    for (uint32_t i = 0; i < n; ++i) local_idx_[static_cast<std::size_t>(locals[i])] = static_cast<int32_t>(i);
    setup_rings();
    cma_send_ = cma_wanted;
    cma_offers_.assign(n, 0);
    if (cma_wanted) probe_cma();
    else cma_ok_.assign(n, 0);
    util::verbose("shm: segment %s, %zu bytes, %u local ranks, %u cells and %" PRIu64
                  " data bytes per ring; %s", seg_.name().c_str(), seg_.size(), n, g.cells,
                  g.data_bytes, describe().c_str());
    return status::ok;
}

void transport::setup_rings() {
    const auto* h = reinterpret_cast<const segment_header*>(seg_.base());
    geometry g;
    g.nlocal = nlocal_;
    g.cells = h->cells;
    g.data_bytes = h->data_bytes;
    tx_.assign(nlocal_, tx_ring{});
    {  // CH4LITE_SHM_STREAM_MIN: bytes (0: never)
        const int64_t sm = util::env_int("CH4LITE_SHM_STREAM_MIN", 4096);
        for (auto& t : tx_) t.stream_min = sm <= 0 ? SIZE_MAX : static_cast<std::size_t>(sm);
    }
    rx_.assign(nlocal_, rx_ring{});
    pid_of_.assign(nlocal_, 0);
    const rank_slot* slots = rank_slots(const_cast<segment_header*>(h));
    for (uint32_t i = 0; i < nlocal_; ++i) {
        tx_[i].v = g.ring(seg_.base(), me_, i);
        rx_[i].v = g.ring(seg_.base(), i, me_);
        pid_of_[i] = slots[i].pid;
    }
    payload_max_ = max_payload(g.data_bytes);
    // Pipelined chunks of 64 KiB (a quarter of smaller rings): with cached
    // stores, a ring four times the chunk is slower than one sixteen times
    // it (docs/shm-protocols.md, "Cached or streamed stores").
    chunk_ = static_cast<std::size_t>(std::min<uint64_t>(g.data_bytes / 4, 65536));
    if (util::env_bool("CH4LITE_SHM_STORE_ADAPT", true))
        for (auto& t : tx_) t.adapt_min = t.stream_min;
    const int64_t eager = util::env_int("CH4LITE_SHM_EAGER_MAX", 32 * 1024);
    eager_max_ = std::min<std::size_t>(static_cast<std::size_t>(std::max<int64_t>(eager, 0)), chunk_);
}

void transport::probe_cma() {
    const auto* h = reinterpret_cast<const segment_header*>(seg_.base());
    const rank_slot* slots = rank_slots(const_cast<segment_header*>(h));
    cma_ok_.assign(nlocal_, 0);
    for (uint32_t i = 0; i < nlocal_; ++i) {
        if (i == me_) {
            cma_ok_[i] = 1;  // ourselves: a plain memcpy
            continue;
        }
        const uint64_t expect = cookie_ ^ static_cast<uint64_t>(world_of_[i]);
        cma_ok_[i] = cma::probe(pid_of_[i], slots[i].probe_addr, expect) ? 1 : 0;
        if (!cma_ok_[i])
            util::verbose("shm: cannot read rank %d's memory (process_vm_readv): large messages "
                          "from it use the pipelined copy", world_of_[i]);
    }
}

status transport::cma_read(int peer, void* dst, uint64_t src, std::size_t n) const noexcept {
    const auto i = static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)]);
    if (i == me_) {
        std::memcpy(dst, reinterpret_cast<const void*>(src), n);
        return status::ok;
    }
    return cma::read(pid_of_[i], dst, src, n);
}

status transport::cma_write(int peer, uint64_t dst, const void* src, std::size_t n) const noexcept {
    const auto i = static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)]);
    if (i == me_) {
        std::memcpy(reinterpret_cast<void*>(dst), src, n);
        return status::ok;
    }
    return cma::write(pid_of_[i], dst, src, n);
}

status transport::cma_readv(int peer, const nm::iov* dst, int niov, uint64_t src,
                            std::size_t n) const noexcept {
    const auto i = static_cast<std::size_t>(local_idx_[static_cast<std::size_t>(peer)]);
    if (i == me_) {
        const auto* s = reinterpret_cast<const std::byte*>(src);
        for (int k = 0; k < niov; ++k) {
            std::memcpy(const_cast<void*>(dst[k].base), s, dst[k].len);
            s += dst[k].len;
        }
        return status::ok;
    }
    return cma::readv(pid_of_[i], dst, niov, src, n);
}

namespace {
// A staged typed payload (ring.hpp, typed_stage_min..typed_stage_max):
// packed on the stack, copied into the ring chunk dst backward. Out of
// line, so the 4 KiB buffer stays out of its callers' frames.
[[gnu::noinline]] void pack_staged(std::byte* dst, const dame::type& t, const void* buf,
                                   int64_t count, int64_t offset, std::size_t len) noexcept {
    alignas(64) std::byte tmp[typed_stage_max];  // len <= typed_stage_max
    (void)dame::pack_range(t, buf, count, offset, static_cast<int64_t>(len), tmp);
    util::backward_copy(dst, tmp, len);
}
}  // namespace

status transport::am_send_packed_staged(tx_ring& tx, uint8_t handler, const void* hdr,
                                        std::size_t hlen, const dame::type& t, const void* buf,
                                        int64_t count, int64_t offset, std::size_t len) noexcept {
    return tx_send_fill(tx, handler, hdr, hlen, len, [&](std::byte* dst) noexcept {
        pack_staged(dst, t, buf, count, offset, len);
    });
}

void unpack_from_ring(const dame::type& t, void* buf, int64_t count, const void* payload,
                      std::size_t n) noexcept {
    if (n >= typed_unstage_min && n < util::backward_rx_max) {
        alignas(64) std::byte tmp[util::backward_rx_max];
        util::backward_copy(tmp, static_cast<const std::byte*>(payload), n);
        (void)dame::unpack_range(t, buf, count, 0, static_cast<int64_t>(n), tmp);
        return;
    }
    (void)dame::unpack_range(t, buf, count, 0, static_cast<int64_t>(n), payload);
}

status transport::am_send_packed_large(tx_ring& tx, uint8_t handler, const void* hdr,
                                       std::size_t hlen, const dame::type& t, const void* buf,
                                       int64_t count, int64_t offset, std::size_t len) noexcept {
    // Packed only once the ring has room (fill runs then), so a full ring
    // costs no packing; without staging memory, straight into the ring.
    // The timed copies that decide between cached and streamed stores time
    // the stores alone: packed in cache first, then copied into the ring.
    // Timing the packing itself would count a type that packs slower than
    // the threshold (4-byte blocks gathered at random: ~4 GB/s) as slow
    // stores and stream every one of its messages, which the receiver then
    // reads from memory (SPECFEM3D_oc, 7588 bytes: 3.4 -> 2.4 us per
    // one-way message, fast placement; docs/ddt-wire.md, "Direct paths and staging on the node").
    // One copy in time_every is timed, whatever its size.
    util::scratch tmp;
    const auto pack_to = [&](std::byte* to) noexcept {
        (void)dame::pack_range(t, buf, count, offset, static_cast<int64_t>(len), to);
    };
    return tx_send_large(
        tx, handler, hdr, hlen, len,
        [&](std::byte* dst, bool streamed) noexcept {
            // Cached stores of a staged size: as am_send_packed_staged.
            if (!streamed && len >= typed_stage_min && len <= typed_stage_max)
                return pack_staged(dst, t, buf, count, offset, len);
            std::byte* s = streamed ? tmp.get(len) : nullptr;
            pack_to(s ? s : dst);
            if (!s) return;
            const nm::iov v{s, len};
            copy_iov(dst, &v, 1, 0);
        },
        [&](std::byte* dst) noexcept {
            std::byte* s = tmp.get(len);
            if (!s) {  // no staging memory: time the packing, as before
                return copy_ran_slow(len, tx.adapt_rate, [&] { pack_to(dst); });
            }
            pack_to(s);
            const nm::iov v{s, len};
            return copy_ran_slow(len, tx.adapt_rate, [&] { copy_iov(dst, &v, 1); });
        },
        true);
}

std::string transport::describe() const {
    if (!inited_) return enabled() ? "on" : "off";
    if (nlocal_ == 0) return note_;
    if (nlocal_ == 1) return "on (1 rank)";
    const auto ok = static_cast<uint32_t>(std::count(cma_ok_.begin(), cma_ok_.end(), uint8_t{1}));
    char buf[96];
    std::snprintf(buf, sizeof buf, "on (%u local ranks, %s)", nlocal_,
                  !cma_send_   ? "cma off"
                  : ok == nlocal_ ? "cma"
                                  : "cma partly");
    return buf;
}

status transport::finalize() {
    note_ = describe();  // MPI_Get_library_version may still be asked
    seg_.reset();
    tx_.clear();
    rx_.clear();
    nlocal_ = 0;
    return status::ok;
}

}  // namespace ch4lite::shm
