// SPDX-License-Identifier: MIT
// Netmod conformance suite (STYLE.md #10): the same cases for every netmod,
// run by two processes under mpiexec. A case needing a capability the netmod
// does not declare is skipped, visibly, naming the capability.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>

#include "device/bootstrap.hpp"
#include "upcalls.hpp"

// One netmod per binary (CMake builds one per netmod and variant): each
// instance publishes its address under the same bootstrap key.
#if defined(CONFORMANCE_OFI)
#include "netmod/ofi/ofi_netmod.hpp"
using tested_netmod = ch4lite::nm::ofi::netmod;
#elif defined(CONFORMANCE_UCX)
#include "netmod/ucx/ucx_netmod.hpp"
using tested_netmod = ch4lite::nm::ucx::netmod;
#elif defined(CONFORMANCE_STUB)
#include "netmod/stub/stub_netmod.hpp"
using tested_netmod = ch4lite::nm::stub::netmod;
#else
#error "define CONFORMANCE_OFI, CONFORMANCE_UCX or CONFORMANCE_STUB"
#endif

using namespace ch4lite;
using conformance::rec;

namespace conformance {
recorder& rec() {
    static recorder r;
    return r;
}
}  // namespace conformance

void ch4lite::dev::am_dispatch(int src, uint8_t handler, const void* hdr, std::size_t hlen,
                               const void* payload, std::size_t plen) noexcept {
    if (handler == 70 && hlen == sizeof(uint64_t)) {  // handler_placed (below): copy into place
        uint64_t off;
        std::memcpy(&off, hdr, sizeof off);
        auto& buf = rec().landing;
        if (off <= buf.size() && plen <= buf.size() - off && plen) std::memcpy(buf.data() + off, payload, plen);
    }
    conformance::am_event e{src, handler, {}, {}};
    e.hdr.assign(static_cast<const std::byte*>(hdr), static_cast<const std::byte*>(hdr) + hlen);
    e.payload.assign(static_cast<const std::byte*>(payload),
                     static_cast<const std::byte*>(payload) + plen);
    rec().ams.push_back(std::move(e));
}

// Handler 70: a payload with a place in the "device" (the recorder's
// landing buffer, at the byte offset its 8-byte header names), as a
// rendezvous chunk has. A netmod that receives it in two steps
// (am_payload_dest) puts it there itself; one that delivers it whole
// through am_dispatch has it copied there (above).
constexpr uint8_t handler_placed = 70;

void* ch4lite::dev::am_payload_dest(int, uint8_t handler, const void* hdr, std::size_t hlen,
                                    std::size_t plen) noexcept {
    uint64_t off = 0;
    if (handler != handler_placed || hlen != sizeof off) return nullptr;
    std::memcpy(&off, hdr, sizeof off);
    auto& buf = rec().landing;
    if (off > buf.size() || plen > buf.size() - off) return nullptr;
    return buf.data() + off;
}

void ch4lite::dev::am_payload_landed(int src, uint8_t handler, const void*, std::size_t,
                                     std::size_t plen, status result) noexcept {
    rec().landed.push_back({src, handler, plen, result});
}

// The netmod's out-of-line parts call these; instantiate them here.
template void ch4lite::dev::nm_send_done<tested_netmod::request_state>(
    tested_netmod::request_state*, status) noexcept;
template void ch4lite::dev::nm_recv_done<tested_netmod::request_state>(
    tested_netmod::request_state*, const nm::recv_info&, status) noexcept;

namespace {

dev::bootstrap& boot() {
    static dev::bootstrap b;
    static bool done = false;
    if (!done) {
        std::string err;
        if (b.init(err) != status::ok) {
            std::fprintf(stderr, "bootstrap: %s\n", err.c_str());
            std::abort();
        }
        done = true;
    }
    return b;
}

// One netmod instance per type per process (address exchange happens once).
template <class NM>
struct instance {
    static NM& get(status& init_status) {
        static std::unique_ptr<NM> nm;
        static status st = status::intern;
        if (!nm) {
            nm = std::make_unique<NM>();
            st = nm->init(boot());
        }
        init_status = st;
        return *nm;
    }
};

std::byte pattern(std::size_t i, int seed) { return static_cast<std::byte>((i * 31 + seed * 7) & 0xff); }

template <class NM>
class Netmod : public ::testing::Test {
  protected:
    void SetUp() override {
        status s;
        nm_ = &instance<NM>::get(s);
        // Only the template may fail to start: it carries nothing, so each
        // case is skipped saying so. A real netmod that cannot start fails.
        if (s != status::ok && std::string_view(NM::name) == "stub")
            GTEST_SKIP() << NM::name << ": init() returned '" << to_string(s)
                         << "' (the template netmod carries no messages)";
        ASSERT_EQ(s, status::ok) << NM::name << ": init() failed";
        if (boot().size() < 2) GTEST_SKIP() << "needs 2 processes (run under mpiexec -n 2)";
        me_ = boot().rank();
        peer_ = 1 - me_;
        ASSERT_EQ(boot().barrier(), status::ok);
        rec().clear();
        pending_ = 0;
    }
    void TearDown() override {
        if (nm_ && boot().size() >= 2 && !IsSkipped()) {
            drain();
            (void)boot().barrier();
        }
    }
    // Progress until pred() or a generous bound.
    template <class P>
    bool until(P pred) {
        for (long i = 0; i < 200000000L && !pred(); ++i)
            if (nm_->progress() == 0 && (i & 0xfff) == 0) sched_yield();
        return pred();
    }
    // Progress until every tracked send of this case completed (a netmod
    // may need progress to push queued sends out: UCX over shared memory
    // with a full FIFO), then a little more.
    void drain() {
        (void)until([&] { return static_cast<int>(rec().sends_done.size()) >= pending_; });
        for (int i = 0; i < 10000; ++i) nm_->progress();
    }
    // A tagged send (or RTS) whose completion drain() waits for.
    template <class... A>
    status tsend(A... a) {
        status s;
        while ((s = nm_->isend(a...)) == status::again) nm_->progress();
        pending_ += s == status::in_progress;
        return s;
    }
    template <class... A>
    status tsend_rts(A... a) {
        status s;
        while ((s = nm_->isend_rts(a...)) == status::again) nm_->progress();
        pending_ += s == status::in_progress;
        return s;
    }
    int pending_ = 0;
    // Sends one AM, retrying while the netmod says `again`.
    status send_am(uint8_t handler, const void* hdr, std::size_t hlen, const nm::iov* iov, int n,
                   typename NM::request_state* st) {
        status s;
        while ((s = nm_->am_send(peer_, handler, hdr, hlen, iov, n, st)) == status::again)
            nm_->progress();
        return s;
    }
    NM* nm_ = nullptr;
    int me_ = 0, peer_ = 1;
};

using netmods = ::testing::Types<tested_netmod>;
TYPED_TEST_SUITE(Netmod, netmods);

TYPED_TEST(Netmod, ProviderIsNamed) {
    EXPECT_NE(std::string(this->nm_->provider()), "");
    EXPECT_TRUE(TypeParam::caps.am_ordered) << "the device requires ordered active messages";
}

// Header sizes 0..am_header_max and payloads up to am_payload_max arrive intact.
TYPED_TEST(Netmod, ActiveMessagesArriveIntact) {
    using st_t = typename TypeParam::request_state;
    const std::size_t sizes[] = {0, 1, 63, 64, 65, 1000, 4096, TypeParam::caps.am_payload_max};
    const std::size_t hmax = TypeParam::caps.am_header_max;
    std::vector<std::byte> buf(TypeParam::caps.am_payload_max);
    std::vector<std::byte> hdr(hmax);
    std::vector<st_t> states(std::size(sizes));
    int n = 0;
    if (this->me_ == 0) {
        for (std::size_t k = 0; k < std::size(sizes); ++k) {
            for (std::size_t i = 0; i < sizes[k]; ++i) buf[i] = pattern(i, static_cast<int>(k));
            const std::size_t hl = k % (hmax + 1);
            for (std::size_t i = 0; i < hl; ++i) hdr[i] = pattern(i, 100 + static_cast<int>(k));
            const nm::iov iov{buf.data(), sizes[k]};
            const status s = this->send_am(static_cast<uint8_t>(10 + k), hdr.data(), hl, &iov,
                                           sizes[k] ? 1 : 0, &states[k]);
            ASSERT_TRUE(s == status::ok || s == status::in_progress) << to_string(s);
            if (s == status::in_progress) ASSERT_TRUE(this->until([&] { return conformance::send_done(&states[k]); }));
        }
        EXPECT_EQ(rec().send_failures, 0);
    } else {
        ASSERT_TRUE(this->until([&] { return rec().ams.size() == std::size(sizes); }));
        for (const auto& e : rec().ams) {
            const std::size_t k = e.handler - 10u;
            ASSERT_LT(k, std::size(sizes));
            EXPECT_EQ(e.src, 0);
            EXPECT_EQ(e.payload.size(), sizes[k]) << "payload " << k;
            EXPECT_EQ(e.hdr.size(), k % (hmax + 1)) << "header " << k;
            for (std::size_t i = 0; i < e.payload.size(); ++i)
                if (e.payload[i] != pattern(i, static_cast<int>(k))) { ++n; break; }
            for (std::size_t i = 0; i < e.hdr.size(); ++i)
                if (e.hdr[i] != pattern(i, 100 + static_cast<int>(k))) { ++n; break; }
        }
        EXPECT_EQ(n, 0) << "corrupted headers or payloads";
    }
}

// Thousands of AMs, sent as fast as the netmod takes them (back-pressure
// answered with `again`), arrive complete and in order.
TYPED_TEST(Netmod, ActiveMessagesKeepOrderUnderBackPressure) {
    using st_t = typename TypeParam::request_state;
    constexpr int count = 20000;
    if (this->me_ == 0) {
        std::vector<st_t> states(count);
        std::vector<uint32_t> seq(count);
        std::iota(seq.begin(), seq.end(), 0u);
        int pending = 0;
        for (int i = 0; i < count; ++i) {
            const nm::iov iov{&seq[i], sizeof(uint32_t)};
            // every 7th message is larger than any inject size: tracked completion
            static std::vector<std::byte> big(8192);
            const nm::iov biov{big.data(), big.size()};
            const status s = this->send_am(20, &seq[i], sizeof(uint32_t), i % 7 ? &iov : &biov, 1, &states[i]);
            ASSERT_TRUE(s == status::ok || s == status::in_progress) << to_string(s);
            pending += s == status::in_progress;
        }
        ASSERT_TRUE(this->until([&] { return static_cast<int>(rec().sends_done.size()) == pending; }));
    } else {
        ASSERT_TRUE(this->until([&] { return rec().ams.size() == count; }));
        for (int i = 0; i < count; ++i) {
            uint32_t v;
            std::memcpy(&v, rec().ams[i].hdr.data(), sizeof v);
            ASSERT_EQ(v, static_cast<uint32_t>(i)) << "active messages out of order";
        }
    }
}

// Large payloads (at the netmod's maximum, so a netmod with a rendezvous
// uses it) mixed with small and empty ones: every message arrives intact
// and in the order sent, whatever path its payload took.
TYPED_TEST(Netmod, LargeAndSmallActiveMessagesKeepOrder) {
    using st_t = typename TypeParam::request_state;
    constexpr int count = 24;
    const std::size_t big = TypeParam::caps.am_payload_max;
    const std::size_t sizes[] = {big, 8, big / 2 + 3, 0, 100};
    std::vector<std::byte> buf(big);
    for (std::size_t i = 0; i < big; ++i) buf[i] = pattern(i, 5);
    if (this->me_ == 0) {
        std::vector<st_t> st(count);
        int pending = 0;
        for (int i = 0; i < count; ++i) {
            const uint32_t seq = static_cast<uint32_t>(i);
            const std::size_t n = sizes[i % std::size(sizes)];
            const nm::iov iov{buf.data(), n};
            const status s = this->send_am(21, &seq, sizeof seq, &iov, n ? 1 : 0, &st[i]);
            ASSERT_TRUE(s == status::ok || s == status::in_progress) << to_string(s);
            pending += s == status::in_progress;
        }
        ASSERT_TRUE(this->until([&] { return static_cast<int>(rec().sends_done.size()) == pending; }));
        EXPECT_EQ(rec().send_failures, 0);
    } else {
        ASSERT_TRUE(this->until([&] { return rec().ams.size() == count; }));
        for (int i = 0; i < count; ++i) {
            const auto& e = rec().ams[i];
            uint32_t seq;
            ASSERT_EQ(e.hdr.size(), sizeof seq);
            std::memcpy(&seq, e.hdr.data(), sizeof seq);
            ASSERT_EQ(seq, static_cast<uint32_t>(i)) << "active messages out of order";
            ASSERT_EQ(e.payload.size(), sizes[i % std::size(sizes)]);
            EXPECT_TRUE(std::equal(e.payload.begin(), e.payload.end(), buf.begin())) << "message " << i;
        }
    }
}

// A payload the device has a place for (a rendezvous chunk: handler 70,
// conformance.cpp) ends there, through am_payload_dest/am_payload_landed
// or through am_dispatch, exactly once.
TYPED_TEST(Netmod, PlacedPayloadLandsInDeviceMemory) {
    typename TypeParam::request_state st;
    const std::size_t n = TypeParam::caps.am_payload_max;
    const uint64_t off = 4096 + 8;
    rec().landing.assign(off + n + 64, std::byte{0});
    if (this->me_ == 0) {
        std::vector<std::byte> buf(n);
        for (std::size_t i = 0; i < n; ++i) buf[i] = pattern(i, 9);
        const nm::iov iov{buf.data(), n};
        const status s = this->send_am(70, &off, sizeof off, &iov, 1, &st);
        ASSERT_TRUE(s == status::ok || s == status::in_progress) << to_string(s);
        if (s == status::in_progress)
            ASSERT_TRUE(this->until([&] { return conformance::send_done(&st); }));
        EXPECT_EQ(rec().send_failures, 0);
    } else {
        ASSERT_TRUE(this->until([&] { return rec().landed.size() + rec().ams.size() == 1; }));
        this->drain();
        EXPECT_EQ(rec().landed.size() + rec().ams.size(), 1u) << "delivered twice";
        std::printf("[     INFO ] %s: the %zu-byte payload was %s\n", TypeParam::name, n,
                    rec().landed.empty() ? "delivered whole (am_dispatch)"
                                         : "placed by the netmod (am_payload_dest)");
        if (!rec().landed.empty()) {
            EXPECT_EQ(rec().landed[0].len, n);
            EXPECT_EQ(rec().landed[0].result, status::ok);
            EXPECT_EQ(rec().landed[0].src, 0);
        }
        std::size_t bad = 0;
        for (std::size_t i = 0; i < rec().landing.size(); ++i) {
            const bool in = i >= off && i < off + n;
            bad += rec().landing[i] != (in ? pattern(i - off, 9) : std::byte{0});
        }
        EXPECT_EQ(bad, 0u) << "wrong bytes in place, or bytes outside the place";
    }
    rec().landing.clear();
}

// `ok` from am_send means the buffers are free at once: overwriting them
// right away does not change what arrives. Also for untracked sends
// (request_state nullptr), which must never answer in_progress.
TYPED_TEST(Netmod, ActiveMessageOkMeansBuffersAreFree) {
    typename TypeParam::request_state st;
    constexpr int count = 64;
    if (this->me_ == 0) {
        int pending = 0;
        for (int i = 0; i < count; ++i) {
            uint32_t hdr = static_cast<uint32_t>(i), val = static_cast<uint32_t>(i) * 3;
            const nm::iov iov{&val, sizeof val};
            status s;
            const bool tracked = i % 2;
            while ((s = this->nm_->am_send(this->peer_, 22, &hdr, sizeof hdr, &iov, 1,
                                           tracked ? &st : nullptr)) == status::again)
                this->nm_->progress();
            if (!tracked) ASSERT_EQ(s, status::ok) << "an untracked send must complete at once";
            ASSERT_TRUE(s == status::ok || s == status::in_progress) << to_string(s);
            hdr = val = 0xdeadbeef;  // reusable now if ok
            if (s == status::in_progress) {
                ++pending;
                ASSERT_TRUE(this->until([&] { return static_cast<int>(rec().sends_done.size()) == pending; }));
            }
        }
    } else {
        ASSERT_TRUE(this->until([&] { return rec().ams.size() == count; }));
        for (int i = 0; i < count; ++i) {
            uint32_t hdr, val;
            std::memcpy(&hdr, rec().ams[i].hdr.data(), sizeof hdr);
            std::memcpy(&val, rec().ams[i].payload.data(), sizeof val);
            EXPECT_EQ(hdr, static_cast<uint32_t>(i));
            EXPECT_EQ(val, static_cast<uint32_t>(i) * 3);
        }
    }
}

TYPED_TEST(Netmod, ActiveMessagePayloadIov) {
    if constexpr (!TypeParam::caps.am_payload_iov) {
        GTEST_SKIP() << TypeParam::name << " does not declare am_payload_iov";
    } else {
        typename TypeParam::request_state st;
        std::vector<std::byte> a(100), b(5000), c(7);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = pattern(i, 1);
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = pattern(i, 2);
        for (std::size_t i = 0; i < c.size(); ++i) c[i] = pattern(i, 3);
        if (this->me_ == 0) {
            const nm::iov iov[3] = {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}};
            const int n = static_cast<int>(std::min<std::size_t>(3, TypeParam::caps.iov_limit));
            const status s = this->send_am(30, nullptr, 0, iov, n, &st);
            ASSERT_TRUE(s == status::ok || s == status::in_progress);
            if (s == status::in_progress) ASSERT_TRUE(this->until([&] { return conformance::send_done(&st); }));
        } else {
            ASSERT_TRUE(this->until([&] { return rec().ams.size() == 1; }));
            std::vector<std::byte> want(a);
            want.insert(want.end(), b.begin(), b.end());
            if (TypeParam::caps.iov_limit >= 3) want.insert(want.end(), c.begin(), c.end());
            EXPECT_EQ(rec().ams[0].payload, want);
        }
    }
}

// ---- native tagged messaging ------------------------------------------

#define REQUIRE_TAGGED()                                                              \
    if constexpr (!TypeParam::caps.native_tagged) {                                    \
        GTEST_SKIP() << TypeParam::name << " does not declare native_tagged (the device " \
                        "matches over active messages)";                               \
    } else if (!this->nm_->tagged_usable()) {                                          \
        GTEST_SKIP() << TypeParam::name << " declines native tagged messaging with "    \
                     << "provider " << this->nm_->provider();                         \
    } else

TYPED_TEST(Netmod, TaggedSendRecvWithWildcardsAndOrder) {
    REQUIRE_TAGGED() {
        using st_t = typename TypeParam::request_state;
        constexpr int count = 300;
        std::vector<st_t> st(count);
        std::vector<int> vals(count);
        if (this->me_ == 0) {
            for (int i = 0; i < count; ++i) {
                vals[i] = i;
                const status s = this->tsend(1, nm::match{4, 0, 7 + i % 3}, &vals[i], sizeof(int),
                                                  nm::send_default, &st[i]);
                ASSERT_TRUE(s == status::ok || s == status::in_progress);
            }
            this->drain();
        } else {
            // exact, any-tag and any-source receives: each sees its messages in order
            for (int i = 0; i < count; ++i) {
                const nm::match m{4, i % 2 ? nm::any : 0, i % 3 == 0 ? nm::any : 7 + i % 3};
                vals[i] = -1;
                ASSERT_EQ(this->nm_->irecv(i % 2 ? nm::any : 0, m, &vals[i], sizeof(int), &st[i]),
                          status::in_progress);
            }
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == count; }));
            for (int i = 0; i < count; ++i) {
                EXPECT_EQ(vals[i], i) << "receive " << i;
                const auto& info = rec().recv_infos[conformance::recv_done_index(&st[i])];
                EXPECT_EQ(info.rank, 0);
                EXPECT_EQ(info.tag, 7 + i % 3);
                EXPECT_EQ(info.bytes, sizeof(int));
            }
        }
    }
}

// A stream of same-match messages of known lengths (the device's tagged
// chunks): receives posted a few at a time, each sized for the message it
// must meet, get them in order (no truncation, no short one early).
TYPED_TEST(Netmod, TaggedSameMatchStreamMeetsReceivesInOrder) {
    REQUIRE_TAGGED() {
        using st_t = typename TypeParam::request_state;
        constexpr int rounds = 4, per = 240, window = 3, total = rounds * per;
        auto len_of = [](int k) { return static_cast<std::size_t>(k % per == per - 1 ? 152 : 3000); };
        std::vector<std::byte> src(3000);
        for (std::size_t i = 0; i < src.size(); ++i) src[i] = pattern(i, 4);
        if (this->me_ == 0) {
            // At most `window` sends in flight, the next issued from the
            // completion upcall of one (as the device's pump does): a send
            // the netmod's library queued (receiver slow, FIFO full) must
            // not be overtaken by one issued while it waits.
            std::vector<st_t> st(total);
            int next = 0, inflight = 0, failed = 0;
            auto issue = [&] {
                while (next < total && inflight < window) {
                    const status s = this->nm_->isend(1, nm::match{9, 0, 3}, src.data(),
                                                      len_of(next), 0, &st[next]);
                    if (s == status::again) return;  // retried after progress
                    failed += s != status::ok && s != status::in_progress;
                    inflight += s == status::in_progress;
                    ++next;
                }
            };
            rec().after_send = [&](const void*) {
                --inflight;
                issue();
            };
            issue();
            ASSERT_TRUE(this->until([&] {
                issue();
                return next == total && inflight == 0;
            }));
            rec().after_send = nullptr;
            EXPECT_EQ(failed, 0);
        } else {
            // `window` receive states, each reused for the next receive once
            // its receive completed; every completion posts the next receive
            // from inside the upcall, after some work: as the device's
            // tagged chunks do (typed.cpp, tchunk_recv_pump).
            st_t st[window];
            std::vector<std::vector<std::byte>> dst(total);
            int which[window];  // the receive each state carries
            int posted = 0, done = 0, bad = 0;
            auto post = [&](int slot) {
                dst[posted].assign(len_of(posted), std::byte{0});
                which[slot] = posted;
                st[slot] = st_t{};
                ASSERT_EQ(this->nm_->irecv(0, nm::match{9, 0, 3}, dst[posted].data(), len_of(posted),
                                           &st[slot]),
                          status::in_progress);
                ++posted;
            };
            rec().after_recv = [&](const void* p) {
                const int slot = static_cast<int>(static_cast<const st_t*>(p) - st);
                const int k = which[slot];
                const std::size_t i = rec().recv_infos.size() - 1;
                bad += rec().recv_results[i] != status::ok || rec().recv_infos[i].bytes != len_of(k) ||
                       !std::equal(dst[k].begin(), dst[k].end(), src.begin());
                ++done;
                volatile double x = 1;  // the device unpacking the chunk
                for (int j = 0; j < 2000; ++j) x = x * 1.0000001;
                if (posted < total) post(slot);
            };
            for (int k = 0; k < window; ++k) post(k);
            ASSERT_TRUE(this->until([&] { return done == total; })) << done << " of " << total;
            rec().after_recv = nullptr;
            EXPECT_EQ(bad, 0) << "messages met receives out of order";
        }
    }
}

TYPED_TEST(Netmod, TaggedTruncationLeavesPeerUsable) {
    REQUIRE_TAGGED() {
        typename TypeParam::request_state st1, st2;
        char big[100] = {1}, small[10];
        int after = 0;
        if (this->me_ == 0) {
            ASSERT_NE(this->tsend(1, nm::match{5, 0, 1}, big, sizeof big, 0, &st1), status::io);
            after = 42;
            ASSERT_NE(this->tsend(1, nm::match{5, 0, 2}, &after, sizeof after, 0, &st2), status::io);
            this->drain();
        } else {
            ASSERT_EQ(this->nm_->irecv(0, nm::match{5, 0, 1}, small, sizeof small, &st1), status::in_progress);
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == 1; }));
            EXPECT_TRUE(rec().recv_infos[0].truncated);
            EXPECT_EQ(rec().recv_results[0], status::truncated);
            ASSERT_EQ(this->nm_->irecv(0, nm::match{5, 0, 2}, &after, sizeof after, &st2), status::in_progress);
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == 2; }));
            EXPECT_EQ(after, 42) << "the connection did not survive the truncation";
        }
    }
}

TYPED_TEST(Netmod, TaggedSyncSendWaitsForMatch) {
    REQUIRE_TAGGED() {
        typename TypeParam::request_state st, go_st;
        int v = 5, go = 0;
        if (this->me_ == 0) {
            const status s = this->nm_->isend(1, nm::match{6, 0, 3}, &v, sizeof v, nm::send_sync, &st);
            ASSERT_EQ(s, status::in_progress);
            for (int i = 0; i < 100000; ++i) this->nm_->progress();
            EXPECT_FALSE(conformance::send_done(&st)) << "synchronous send completed before the match";
            go = 1;  // now let the receiver post
            ASSERT_NE(this->tsend(1, nm::match{6, 0, 4}, &go, sizeof go, 0, &go_st), status::io);
            ASSERT_TRUE(this->until([&] { return conformance::send_done(&st); }));
        } else {
            ASSERT_EQ(this->nm_->irecv(0, nm::match{6, 0, 4}, &go, sizeof go, &go_st), status::in_progress);
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == 1; }));
            v = 0;
            ASSERT_EQ(this->nm_->irecv(0, nm::match{6, 0, 3}, &v, sizeof v, &st), status::in_progress);
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == 2; }));
            EXPECT_EQ(v, 5);
        }
    }
}

TYPED_TEST(Netmod, TaggedProbeAndCancel) {
    REQUIRE_TAGGED() {
        typename TypeParam::request_state st, st2;
        int v = 9;
        if (this->me_ == 0) {
            ASSERT_NE(this->tsend(1, nm::match{7, 0, 11}, &v, sizeof v, 0, &st), status::io);
            this->drain();
        } else {
            nm::recv_info info{};
            EXPECT_FALSE(this->nm_->iprobe(nm::any, nm::match{7, nm::any, 12}, info));
            ASSERT_TRUE(this->until([&] { return this->nm_->iprobe(nm::any, nm::match{7, nm::any, nm::any}, info); }));
            EXPECT_EQ(info.rank, 0);
            EXPECT_EQ(info.tag, 11);
            EXPECT_EQ(info.bytes, sizeof v);
            // a receive nobody will match is cancelled
            int never = 0;
            ASSERT_EQ(this->nm_->irecv(0, nm::match{7, 0, 99}, &never, sizeof never, &st2), status::in_progress);
            EXPECT_TRUE(this->nm_->cancel_recv(&st2));
            // the probed message is still there
            v = 0;
            ASSERT_EQ(this->nm_->irecv(0, nm::match{7, 0, 11}, &v, sizeof v, &st), status::in_progress);
            ASSERT_TRUE(this->until([&] { return conformance::recv_done_index(&st) >= 0; }));
            EXPECT_EQ(v, 9);
            EXPECT_LT(conformance::recv_done_index(&st2), 0) << "a cancelled receive completed";
        }
    }
}

TYPED_TEST(Netmod, TaggedRtsMatchesLikeAMessage) {
    REQUIRE_TAGGED() {
        typename TypeParam::request_state st, st2, st3;
        const uint64_t data = 0xfedcba9876543210ull;
        int v = 3, small = 0;
        if (this->me_ == 0) {
            // an RTS between two ordinary messages of the same (context, rank, tag)
            ASSERT_NE(this->tsend(1, nm::match{8, 0, 5}, &v, sizeof v, 0, &st), status::io);
            ASSERT_NE(this->tsend_rts(1, nm::match{8, 0, 5}, data, &st2), status::io);
            v = 4;
            ASSERT_NE(this->tsend(1, nm::match{8, 0, 5}, &v, sizeof v, 0, &st3), status::io);
            this->drain();
        } else {
            nm::recv_info info{};
            ASSERT_TRUE(this->until([&] { return this->nm_->iprobe(0, nm::match{8, 0, 5}, info); }));
            EXPECT_FALSE(info.rts);
            ASSERT_EQ(this->nm_->irecv(0, nm::match{8, 0, 5}, &small, sizeof small, &st), status::in_progress);
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == 1; }));
            EXPECT_EQ(small, 3);
            // the probe sees the RTS with its value; a wildcard receive of
            // 0 bytes takes it without truncation
            ASSERT_TRUE(this->until([&] { return this->nm_->iprobe(nm::any, nm::match{8, nm::any, nm::any}, info); }));
            EXPECT_TRUE(info.rts);
            EXPECT_EQ(info.data, data);
            ASSERT_EQ(this->nm_->irecv(nm::any, nm::match{8, nm::any, nm::any}, nullptr, 0, &st2),
                      status::in_progress);
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == 2; }));
            EXPECT_TRUE(rec().recv_infos[1].rts);
            EXPECT_EQ(rec().recv_infos[1].data, data);
            EXPECT_EQ(rec().recv_infos[1].tag, 5);
            EXPECT_EQ(rec().recv_results[1], status::ok);
            ASSERT_EQ(this->nm_->irecv(0, nm::match{8, 0, 5}, &small, sizeof small, &st3), status::in_progress);
            ASSERT_TRUE(this->until([&] { return rec().recvs_done.size() == 3; }));
            EXPECT_FALSE(rec().recv_infos[2].rts);
            EXPECT_EQ(small, 4) << "the message after the RTS overtook it or was lost";
        }
    }
}

// ---- native RMA ---------------------------------------------------------

// Rank 0 puts into and gets from memory rank 1 registered; a put completes
// only once its bytes are in the target's memory (the AM sent after it
// finds them there); the target's other bytes stay untouched.
TYPED_TEST(Netmod, RmaPutGetIntoRegisteredMemory) {
    if constexpr (!TypeParam::caps.native_rma) {
        GTEST_SKIP() << TypeParam::name << " does not declare native_rma (RMA goes over active messages)";
    } else if (!this->nm_->rma_usable()) {
        GTEST_SKIP() << TypeParam::name << " declines native RMA with provider " << this->nm_->provider();
    } else {
        constexpr std::size_t n = 1 << 20, off = 4096 + 8, len = 300000, goff = 600000;
        std::vector<std::byte> mem(n), buf(len), got(len);
        for (std::size_t i = 0; i < n; ++i) mem[i] = pattern(i, 10 + this->me_);
        nm::mem_region mr;
        ASSERT_EQ(this->nm_->mr_register(mem.data(), n, mr), status::ok);
        // exchange (key, addr) through the bootstrap
        const uint64_t mine[2] = {mr.key, mr.addr};
        ASSERT_EQ(boot().put("rmamr", mine, sizeof mine), status::ok);
        ASSERT_EQ(boot().fence(), status::ok);
        std::vector<std::byte> theirs;
        ASSERT_EQ(boot().get(this->peer_, "rmamr", theirs), status::ok);
        ASSERT_EQ(theirs.size(), sizeof mine);
        uint64_t rk[2];
        std::memcpy(rk, theirs.data(), sizeof rk);
        typename TypeParam::request_state pst, gst, ast;
        if (this->me_ == 0) {
            for (std::size_t i = 0; i < len; ++i) buf[i] = pattern(i, 20);
            status s;
            while ((s = this->nm_->put(1, buf.data(), len, rk[1] + off, rk[0], &pst)) == status::again)
                this->nm_->progress();
            ASSERT_TRUE(s == status::ok || s == status::in_progress) << to_string(s);
            if (s == status::in_progress) ASSERT_TRUE(this->until([&] { return conformance::send_done(&pst); }));
            while ((s = this->nm_->get(1, got.data(), len, rk[1] + goff, rk[0], &gst)) == status::again)
                this->nm_->progress();
            ASSERT_TRUE(s == status::ok || s == status::in_progress) << to_string(s);
            if (s == status::in_progress) ASSERT_TRUE(this->until([&] { return conformance::send_done(&gst); }));
            EXPECT_EQ(rec().send_failures, 0);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < len; ++i) bad += got[i] != pattern(goff + i, 11);
            EXPECT_EQ(bad, 0u) << "get returned wrong bytes";
            const int done = 1;
            const nm::iov iov{&done, sizeof done};
            s = this->send_am(40, nullptr, 0, &iov, 1, &ast);
            ASSERT_TRUE(s == status::ok || s == status::in_progress);
            if (s == status::in_progress) ASSERT_TRUE(this->until([&] { return conformance::send_done(&ast); }));
        } else {
            ASSERT_TRUE(this->until([&] { return rec().ams.size() == 1; }));
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const bool in = i >= off && i < off + len;
                bad += mem[i] != (in ? pattern(i - off, 20) : pattern(i, 11));
            }
            EXPECT_EQ(bad, 0u) << "the put's bytes are wrong or it wrote outside its range";
        }
        ASSERT_EQ(boot().barrier(), status::ok);
        this->nm_->mr_release(mr);
        EXPECT_EQ(mr.handle, nullptr);
    }
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    (void)boot();
    const int rc = RUN_ALL_TESTS();
    (void)boot().barrier();
    (void)boot().finalize();
    return rc;
}
