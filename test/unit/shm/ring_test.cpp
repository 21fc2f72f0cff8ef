// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "shm/layout.hpp"
#include "shm/ring.hpp"

using namespace ch4lite;
using namespace ch4lite::shm;

namespace {

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 31 + seed * 7) & 0xff);
    return v;
}

// One ring (s=0 -> r=0) in private memory, laid out as in a segment.
struct test_ring {
    geometry g;
    std::unique_ptr<std::byte[]> mem;
    std::byte* base;
    tx_ring tx;
    rx_ring rx;

    test_ring(uint32_t cells, uint64_t data) {
        g.nlocal = 1;
        g.cells = cells;
        g.data_bytes = data;
        mem.reset(new std::byte[g.total_bytes() + page]());
        base = reinterpret_cast<std::byte*>(
            (reinterpret_cast<uintptr_t>(mem.get()) + page - 1) & ~uintptr_t{page - 1});
        tx.v = g.ring(base, 0, 0);
        rx.v = tx.v;
    }
    status send(uint8_t handler, const void* hdr, std::size_t hlen, const void* p, std::size_t n) {
        const nm::iov iov{p, n};
        return tx_send(tx, handler, hdr, hlen, &iov, n ? 1 : 0, n);
    }
    // Adaptive stores from `min` bytes on, timed from `time_min` (every 8th
    // below), `nt` streamed copies after two slow ones; at `rate` bytes per
    // ns no copy is fast enough, so every timed one counts as slow.
    void adaptive(std::size_t min, std::size_t time_min, uint32_t nt, double rate = 1e12) {
        tx.stream_min = 1024;
        tx.adapt_min = min;
        tx.adapt_time_min = time_min;
        tx.adapt_nt = nt;
        tx.adapt_rate = rate;
    }
    // Sends n pattern bytes and checks that they arrive intact.
    void round_trip(std::size_t n, unsigned seed) {
        const uint8_t hdr = 4;
        const auto p = pattern(n, seed);
        ASSERT_EQ(send(4, &hdr, 1, p.data(), p.size()), status::ok);
        uint8_t h;
        std::vector<std::byte> gh, gp;
        ASSERT_TRUE(recv(h, gh, gp));
        ASSERT_EQ(gp, p) << "seed " << seed;
    }
    // Takes one message; false if none.
    bool recv(uint8_t& handler, std::vector<std::byte>& hdr, std::vector<std::byte>& payload) {
        const cell* c = rx_peek(rx);
        if (!c) return false;
        uint64_t end = 0;
        const std::byte* p = rx_payload(rx, *c, end);
        handler = c->handler;
        hdr.assign(c->bytes, c->bytes + c->hlen);
        payload.assign(p, p + c->plen);
        rx_pop(rx, end);
        return true;
    }
};

}  // namespace

TEST(ShmRing, EmptyRingHasNothing) {
    test_ring r(8, 16384);
    EXPECT_EQ(rx_peek(r.rx), nullptr);
}

TEST(ShmRing, InlineAndDataMessagesRoundTrip) {
    test_ring r(8, 16384);
    const uint32_t hdr = 0xabcd1234;
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{8}, cell::inline_bytes - 4,
                          cell::inline_bytes - 3, std::size_t{1000}, std::size_t{8192}}) {
        const auto p = pattern(n, static_cast<unsigned>(n));
        ASSERT_EQ(r.send(7, &hdr, sizeof hdr, p.data(), n), status::ok) << n;
        uint8_t h = 0;
        std::vector<std::byte> gh, gp;
        ASSERT_TRUE(r.recv(h, gh, gp)) << n;
        EXPECT_EQ(h, 7);
        ASSERT_EQ(gh.size(), sizeof hdr);
        EXPECT_EQ(std::memcmp(gh.data(), &hdr, sizeof hdr), 0);
        EXPECT_EQ(gp, p) << n;
        EXPECT_EQ(rx_peek(r.rx), nullptr);
    }
}

TEST(ShmRing, FullCellsAnswerAgainUntilConsumed) {
    test_ring r(4, 16384);
    const uint8_t hdr = 1;
    for (int i = 0; i < 4; ++i) ASSERT_EQ(r.send(1, &hdr, 1, nullptr, 0), status::ok);
    EXPECT_EQ(r.send(1, &hdr, 1, nullptr, 0), status::again);
    uint8_t h;
    std::vector<std::byte> gh, gp;
    ASSERT_TRUE(r.recv(h, gh, gp));
    EXPECT_EQ(r.send(1, &hdr, 1, nullptr, 0), status::ok);
    EXPECT_EQ(r.send(1, &hdr, 1, nullptr, 0), status::again);
}

TEST(ShmRing, FullDataRingAnswersAgainUntilConsumed) {
    test_ring r(64, 16384);
    const uint8_t hdr = 1;
    const auto p = pattern(4000, 1);
    int sent = 0;
    while (r.send(2, &hdr, 1, p.data(), p.size()) == status::ok) ++sent;
    EXPECT_EQ(sent, 4);  // 4 x 4032 bytes fill 16 KiB
    uint8_t h;
    std::vector<std::byte> gh, gp;
    ASSERT_TRUE(r.recv(h, gh, gp));
    EXPECT_EQ(gp, p);
    EXPECT_EQ(r.send(2, &hdr, 1, p.data(), p.size()), status::ok);
}

TEST(ShmRing, PayloadAboveHalfTheRingIsInvalid) {
    test_ring r(8, 16384);
    const uint8_t hdr = 1;
    const auto big = pattern(max_payload(16384) + 1, 3);
    EXPECT_EQ(r.send(1, &hdr, 1, big.data(), big.size()), status::invalid);
    const auto ok = pattern(max_payload(16384), 3);
    EXPECT_EQ(r.send(1, &hdr, 1, ok.data(), ok.size()), status::ok);
}

// The largest payload always fits once the ring drained, wherever the data
// counters stand (place() may skip the tail of the ring).
TEST(ShmRing, MaxPayloadFitsAtEveryOffset) {
    test_ring r(8, 16384);
    const uint8_t hdr = 1;
    const auto big = pattern(max_payload(16384), 9);
    for (std::size_t lead = 54; lead < 8192; lead += 331) {
        const auto small = pattern(lead, 1);
        ASSERT_EQ(r.send(1, &hdr, 1, small.data(), small.size()), status::ok);
        uint8_t h;
        std::vector<std::byte> gh, gp;
        ASSERT_TRUE(r.recv(h, gh, gp));
        ASSERT_EQ(r.send(1, &hdr, 1, big.data(), big.size()), status::ok) << lead;
        ASSERT_TRUE(r.recv(h, gh, gp));
        ASSERT_EQ(gp, big);
    }
}

// Adaptive stores for large payloads (tx_send_large): cached copies timed
// slower than adapt_rate twice in a row switch the next adapt_nt copies to
// streamed stores, then cached ones are tried again; the bytes arrive intact
// either way, across wraps of the data ring.
TEST(ShmRing, AdaptiveStoresSwitchAfterTwoSlowCopiesAndBack) {
    test_ring r(16, 65536);
    r.adaptive(8192, 0, 3);  // every cached copy timed, and slow
    // Below adapt_min: streamed as before, no trial.
    r.round_trip(4096, 1);
    EXPECT_EQ(r.tx.slow_seen, 0u);
    EXPECT_EQ(r.tx.nt_left, 0u);
    // Two slow cached copies in a row: the next 3 go streamed.
    r.round_trip(9000, 2);
    EXPECT_EQ(r.tx.slow_seen, 1u);
    EXPECT_EQ(r.tx.nt_left, 0u);
    r.round_trip(9000, 3);
    EXPECT_EQ(r.tx.slow_seen, 0u);
    EXPECT_EQ(r.tx.nt_left, 3u);
    for (unsigned i = 0; i < 3; ++i) r.round_trip(12000 + i * 100, 4 + i);
    EXPECT_EQ(r.tx.nt_left, 0u);
    // Fast again: a cached copy clears the count of slow ones.
    r.round_trip(9000, 9);
    EXPECT_EQ(r.tx.slow_seen, 1u);
    r.tx.adapt_rate = 0;  // every copy fast enough
    for (unsigned i = 0; i < 20; ++i) r.round_trip(8192 + i * 777, 10 + i);  // wraps the ring
    EXPECT_EQ(r.tx.slow_seen, 0u);
    EXPECT_EQ(r.tx.nt_left, 0u);
}

// Payloads below adapt_time_min are timed every 8th copy only (the clock
// costs about as much as copying a few hundred bytes), except right after a
// slow copy or a streamed stretch.
TEST(ShmRing, AdaptiveStoresTimeEveryEighthSmallCopy) {
    test_ring r(16, 65536);
    r.adaptive(1024, 16384, 4);
    for (unsigned i = 1; i <= 8; ++i) {
        r.round_trip(2000 + i, i);
        EXPECT_EQ(r.tx.slow_seen, i < 8 ? 0u : 1u) << i;  // the 8th is timed
    }
    // The 8th was slow, so the 9th is timed at once: two slow in a row.
    r.round_trip(2009, 9);
    EXPECT_EQ(r.tx.nt_left, 4u);
    EXPECT_EQ(r.tx.slow_seen, 0u);
    // After the streamed stretch the first cached copy is timed again.
    for (unsigned i = 0; i < 4; ++i) r.round_trip(3000, 50 + i);
    EXPECT_EQ(r.tx.nt_left, 0u);
    EXPECT_EQ(r.tx.slow_seen, 0u);
    r.round_trip(3000, 60);
    EXPECT_EQ(r.tx.slow_seen, 1u);
    // Fast copies: sampled again, and a large one is always timed.
    r.tx.adapt_rate = 0;
    for (unsigned i = 0; i < 3; ++i) r.round_trip(3000, 61 + i);
    EXPECT_EQ(r.tx.slow_seen, 0u);
    EXPECT_EQ(r.tx.untimed, 2u);  // the first fast one was timed, two since
    r.tx.adapt_rate = 1e12;
    r.round_trip(20000, 99);
    EXPECT_EQ(r.tx.slow_seen, 1u);
}

// A fill that computes its payload (DAME packing) is judged by its own
// timed fill, which times the stores alone, and sampled every 8th copy
// whatever its size: a payload that is slow to compute but quick to store
// never starts a streamed stretch.
TEST(ShmRing, AdaptiveStoresJudgeTheTimedFillAlone) {
    test_ring r(16, 65536);
    r.adaptive(1024, 16384, 4);  // no copy is fast enough for copy_ran_slow
    const uint8_t hdr = 3;
    const auto p = pattern(20000, 7);
    int plain = 0, timed = 0;
    bool stores_slow = false;
    const auto send = [&] {
        return tx_send_large(
            r.tx, 3, &hdr, 1, p.size(),
            [&](std::byte* dst, bool streamed) noexcept {
                EXPECT_FALSE(streamed);
                std::memcpy(dst, p.data(), p.size());
                ++plain;
            },
            [&](std::byte* dst) noexcept {
                std::memcpy(dst, p.data(), p.size());
                ++timed;
                return stores_slow;
            },
            true);
    };
    for (int i = 1; i <= 16; ++i) {
        ASSERT_EQ(send(), status::ok);
        uint8_t h;
        std::vector<std::byte> gh, gp;
        ASSERT_TRUE(r.recv(h, gh, gp));
        ASSERT_EQ(gp, p) << i;
    }
    EXPECT_EQ(plain, 14);  // above adapt_time_min, yet 7 of 8 untimed
    EXPECT_EQ(timed, 2);
    EXPECT_EQ(r.tx.slow_seen, 0u);
    EXPECT_EQ(r.tx.nt_left, 0u);
    // Slow stores do count: two timed in a row start a streamed stretch.
    stores_slow = true;
    for (int i = 0; i < 9; ++i) {
        ASSERT_EQ(send(), status::ok);
        uint8_t h;
        std::vector<std::byte> gh, gp;
        ASSERT_TRUE(r.recv(h, gh, gp));
    }
    EXPECT_EQ(timed, 4);  // the 8th, then the next at once
    EXPECT_EQ(r.tx.nt_left, 4u);
}

// A ring that is full answers `again` without counting a copy.
TEST(ShmRing, AdaptiveStoresDoNotCountRefusedSends) {
    test_ring r(64, 16384);
    r.adaptive(4000, 0, 5);
    const uint8_t hdr = 1;
    const auto p = pattern(4000, 1);
    ASSERT_EQ(r.send(2, &hdr, 1, p.data(), p.size()), status::ok);
    ASSERT_EQ(r.send(2, &hdr, 1, p.data(), p.size()), status::ok);
    ASSERT_EQ(r.tx.nt_left, 5u);
    while (r.send(2, &hdr, 1, p.data(), p.size()) == status::ok) {
    }
    EXPECT_EQ(r.tx.nt_left, 3u);  // 4 x 4032 bytes fill 16 KiB: two more went, then `again`
}

// A cell left from the previous lap, and stale data bytes, are never taken
// for a new message: the receiver waits for seq == position + 1.
TEST(ShmRing, StaleCellsAreNotReceivedAgain) {
    test_ring r(4, 16384);
    const uint8_t hdr = 1;
    uint8_t h;
    std::vector<std::byte> gh, gp;
    for (int lap = 0; lap < 3; ++lap) {
        for (int i = 0; i < 4; ++i) ASSERT_EQ(r.send(1, &hdr, 1, &i, sizeof i), status::ok);
        for (int i = 0; i < 4; ++i) ASSERT_TRUE(r.recv(h, gh, gp));
        EXPECT_EQ(rx_peek(r.rx), nullptr) << "lap " << lap;
    }
}

TEST(ShmRing, GatherFromSeveralSegments) {
    test_ring r(8, 16384);
    const uint32_t hdr = 5;
    const auto a = pattern(10, 1), b = pattern(3000, 2), c = pattern(7, 3);
    const nm::iov iov[3] = {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}};
    ASSERT_EQ(tx_send(r.tx, 3, &hdr, sizeof hdr, iov, 3, a.size() + b.size() + c.size()),
              status::ok);
    uint8_t h;
    std::vector<std::byte> gh, gp;
    ASSERT_TRUE(r.recv(h, gh, gp));
    std::vector<std::byte> want(a);
    want.insert(want.end(), b.begin(), b.end());
    want.insert(want.end(), c.begin(), c.end());
    EXPECT_EQ(gp, want);
}

// Producer and consumer threads: a million messages of varying sizes arrive
// complete and in order, with the ring full most of the time.
TEST(ShmRing, ProducerConsumerThreadsKeepOrderAndContent) {
    test_ring r(16, 16384);
    constexpr int count = 300000;
    std::thread producer([&] {
        std::mt19937 rng(42);
        std::vector<std::byte> buf(8192);
        for (int i = 0; i < count; ++i) {
            const std::size_t n = rng() % 5 == 0 ? rng() % 8192 : rng() % 48;
            for (std::size_t k = 0; k < n; ++k) buf[k] = static_cast<std::byte>((i + k) & 0xff);
            const uint32_t hdr = static_cast<uint32_t>(i);
            const nm::iov iov{buf.data(), n};
            while (tx_send(r.tx, static_cast<uint8_t>(i & 0xff), &hdr, sizeof hdr, &iov, 1, n) ==
                   status::again)
                std::this_thread::yield();
        }
    });
    int bad = 0;
    for (int i = 0; i < count && bad < 5;) {
        uint8_t h;
        std::vector<std::byte> gh, gp;
        if (!r.recv(h, gh, gp)) {
            std::this_thread::yield();
            continue;
        }
        uint32_t got = 0;
        std::memcpy(&got, gh.data(), sizeof got);
        bool ok = got == static_cast<uint32_t>(i) && h == static_cast<uint8_t>(i & 0xff);
        for (std::size_t k = 0; ok && k < gp.size(); ++k)
            ok = gp[k] == static_cast<std::byte>((i + k) & 0xff);
        if (!ok) ++bad;
        EXPECT_TRUE(ok) << "message " << i;
        ++i;
    }
    producer.join();
}

TEST(ShmLayout, RingsDoNotOverlapAndStayAligned) {
    geometry g;
    g.nlocal = 3;
    g.cells = 128;
    g.data_bytes = 65536;
    ASSERT_TRUE(g.valid());
    std::byte* base = nullptr;
    std::vector<std::pair<uintptr_t, uintptr_t>> spans;
    for (uint32_t s = 0; s < 3; ++s)
        for (uint32_t d = 0; d < 3; ++d) {
            const ring_view v = g.ring(base + page, s, d);
            const auto start = reinterpret_cast<uintptr_t>(v.ctrl);
            EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data) % page, 0u);
            EXPECT_EQ(reinterpret_cast<uintptr_t>(v.cells) % line, 0u);
            EXPECT_GE(reinterpret_cast<uintptr_t>(v.data),
                      reinterpret_cast<uintptr_t>(v.cells + g.cells));
            spans.emplace_back(start, reinterpret_cast<uintptr_t>(v.data) + g.data_bytes);
        }
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first);
    EXPECT_LE(spans.back().second, reinterpret_cast<uintptr_t>(base + page) + g.total_bytes());
    EXPECT_GE(spans.front().first, reinterpret_cast<uintptr_t>(base + page) + g.header_bytes());
}

TEST(ShmLayout, GeometryValidation) {
    geometry g;
    g.nlocal = 2;
    g.cells = 100;  // not a power of two
    g.data_bytes = 65536;
    EXPECT_FALSE(g.valid());
    g.cells = 128;
    g.data_bytes = 65536 + 4096;
    EXPECT_FALSE(g.valid());
    g.data_bytes = 65536;
    EXPECT_TRUE(g.valid());
}
