// SPDX-License-Identifier: MIT
// How a rank waits when a poll finds nothing (docs/architecture.md,
// "Waiting"): spin while the host has a core for us, give the core away
// when it does not.
//
// A waiting rank that spins keeps its core: on a host with spare cores that
// is the fastest way to see the next message (~0.1 us). When other work
// competes for the cores -- more ranks than cores, other programs, a second
// job -- the rank it waits for may be the one that cannot run, and the
// spinner holds the core it needs (a 64 B ping-pong took 49 us spinning
// against 8 us yielding under outside load). So with CH4LITE_YIELD=auto a
// rank decides from what it sees:
//   - busy: the host's ranks outnumber the usable cores (init), or the wait
//     loop was preempted recently: two clock readings a few polls apart
//     that lie more than CH4LITE_YIELD_GAP apart mean the kernel ran
//     something else meanwhile; the host counts as busy for
//     CH4LITE_YIELD_HOLD after each such gap;
//   - not busy: spin (with `pause` after the first polls), as before.
// A busy wait spins for CH4LITE_YIELD_SPIN first (a message on its way
// arrives within microseconds). Then, with more ranks than cores, it yields
// the core after every poll, and after CH4LITE_YIELD_SLEEP of waiting
// sleeps in growing steps (up to CH4LITE_YIELD_SLEEP_MAX), which frees the
// core entirely for the rank that has work. Preempted by outside work but
// with a core per rank, it keeps spinning, as MPICH and Open MPI do (with
// CH4LITE_YIELD_EVERY=N it yields every N polls): a yield or a sleep hands
// the core to the outside work for a whole time slice, after which the
// rank we waited for waits for us (bench/p2p/busy.c, two CPU hogs: 2.07x
// the better peer with yields and sleeps, 0.85x spinning; a PSCW ping-pong
// on a loaded machine took ~4 ms per epoch with them). A yield's own time
// is never taken for a preemption. CH4LITE_YIELD=1: always busy and
// oversubscribed; 0: always spin.
#pragma once
#include <cstdint>

namespace ch4lite::dev {

struct idle_policy {
    enum class mode : uint8_t { adaptive, always, never };
    mode m = mode::adaptive;
    bool oversubscribed = false;  // host_ranks > usable_cores (auto) or YIELD=1
    int64_t gap_ns = 200'000;     // a longer gap between two readings: preempted
    int64_t hold_ns = 100'000'000;
    int64_t spin_ns = 10'000;     // busy: spin this long before yielding
    int64_t sleep_after_ns = 50'000;  // busy: yield this long before sleeping
    uint32_t sleep_max_ns = 64'000;   // busy: longest sleep step
    uint32_t yield_every = 0;         // preempted, not oversubscribed: polls between yields (0: none)
    // Waits of a collective whose members outnumber the cores, with more
    // ranks than cores on the host (crowd_wait below): they yield at once,
    // without spinning CH4LITE_YIELD_SPIN first. Nesting depth.
    uint32_t no_spin = 0;
    // State of the current streak of idle polls and of the host.
    int64_t busy_until = 0;       // CLOCK_MONOTONIC ns
    int64_t streak_start = 0;
    int64_t last = 0;
    uint32_t sleep_ns = 0;
    bool giving = false;          // this streak yields or sleeps
    uint64_t preemptions = 0;     // gaps seen (CH4LITE_STATS)
    uint64_t sleeps = 0;
};

// Reads CH4LITE_YIELD* (device init); `oversubscribed` from the locality.
void idle_init(idle_policy& p, bool oversubscribed) noexcept;

// While one lives, the waits of a collective over `members` processes skip
// the spin before yielding when the host has more ranks than cores and the
// collective more members than `cores` (the usable cores): then some member
// it needs cannot be running while we spin, and the spin only keeps it off
// the core longer. A point-to-point wait keeps the spin: its one partner
// may well be running on another core (bench/shm/oversub.c). Measured on
// 4 ranks over 2 cores (bench/coll/nbc.c): MPI_Allreduce of 8 B 13.6 ->
// 4.1 us, MPI_Ialltoall of 8 B 13.8 -> 4.4 us (docs/results/collectives.md).
class crowd_wait {
  public:
    crowd_wait(idle_policy& p, int members, int cores) noexcept
        : p_(p.oversubscribed && members > cores ? &p : nullptr) {
        if (p_) ++p_->no_spin;
    }
    ~crowd_wait() {
        if (p_) --p_->no_spin;
    }
    crowd_wait(const crowd_wait&) = delete;
    crowd_wait& operator=(const crowd_wait&) = delete;

  private:
    idle_policy* p_;
};

}  // namespace ch4lite::dev
