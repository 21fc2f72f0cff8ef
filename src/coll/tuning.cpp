// SPDX-License-Identifier: MIT
// Collective algorithm switch points from the environment (read once, at
// MPI_Init): CH4LITE_COLL_BCAST_LONG, _BCAST_FLAT, _BCAST_STAGE, _ALLREDUCE_LONG, _ALLREDUCE_DIRECT,
// _ALLREDUCE_STAGE, _REDUCE_LONG, _ALLGATHER_LONG, _ALLTOALL_LONG, _ALLTOALL_STAGE, _ALLTOALL_STAGE_MAX
// (bytes, K/M suffixes, or "never"), CH4LITE_COLL_ALLTOALL_WINDOW (peers) and
// CH4LITE_COLL_STAGE_FILL (auto, plain, stream) and CH4LITE_COLL_STAGE_SLOW
// (GB/s). docs/collectives.md explains them.
#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "coll/coll.hpp"
#include "device/device.hpp"
#include "util/env.hpp"

namespace ch4lite::coll {

using namespace ch4lite::dev;

tuning g_tuning;

namespace {
// Bytes, or "never" (also any negative value): the algorithm is not used.
std::size_t bytes_param(const char* name, std::size_t dflt) {
    const char* s = util::env_str(name, "");
    if (strcasecmp(s, "never") == 0) return SIZE_MAX;
    const int64_t v = util::env_int(name, dflt == SIZE_MAX ? -1 : static_cast<int64_t>(dflt));
    return v < 0 ? SIZE_MAX : static_cast<std::size_t>(v);
}
}  // namespace

void init() noexcept {
    tuning d;
    // Oversubscribed nodes (more ranks than cores, device.hpp): a rank waits
    // for a core at every message step, and the receiver-driven single copy
    // of shm rendezvous needs only the reader running. Measured on 2 cores
    // with 3 and 4 ranks (docs/collectives.md, "Why these choices"): the binomial Bcast and the
    // all-posted Alltoall beat scatter+allgather and pairwise exchange at
    // every size up to 1 MiB, so they are the defaults there.
    // There a large Bcast among ranks of one node also goes from the root
    // to every rank at once (bcast_flat): each receiver reads the root's
    // buffer by single copy as soon as it runs, none waits for a parent.
    // Better still, through the communicator's staging segment
    // (bcast_stage, coll/stage.hpp): plain copies instead of the kernel's
    // single copy; 3 and 4 ranks on 2 cores, 256 KiB: 28-32 -> 13 us and
    // 53-55 -> 21 us; 1 MiB: 102-105 -> 53-75 and 184-187 -> 76 us. On 2
    // ranks with a core each it lost (32 KiB 2.1 -> 3.7 us), so only here.
    // Alltoall of blocks below 64 KiB too (staged exchange: one fill, one
    // wait for the last member, no pairwise step): 3 and 4 ranks on 2
    // cores, 8 B-32 KiB 0.75-0.96x the scattered exchange's time, two A/B
    // pairs each; from 256 KiB on it lost (1.1-1.35x).
    // And Allreduce from 64 KiB (staged exchange: two rounds, each member
    // folds 1/p): 256 KiB 97-155 vs 237-249 us on 3 ranks, 109-142 vs
    // 281-369 on 4; 1 MiB 358-577 vs 809 and 396-550 vs 986-1295 (two
    // A/B pairs each); at 32 KiB a tie within the noise.
    // With a core per rank, the staged Allreduce and Alltoall from 128 KiB,
    // with timed plain fills and reads that hand the communicator back to
    // the point-to-point algorithms while the vCPUs sit far apart
    // (coll/stage.cpp; docs/collectives-staged.md, "Staged exchange"). 2 ranks,
    // fast placement: Allreduce 256 KiB 56-72 -> 39-48 us, 1 MiB 140-162 ->
    // 110-132; Alltoall 256 KiB 27-30 -> 22-25; at 32 KiB both lost.
    // And the one-step Allreduce up to 4 KiB (not 256 B): one message
    // round instead of log2 p, each of which waits for partners to get a
    // core. 4 ranks on 2 cores, 512 B: MPI_Allreduce 5.4 -> 3.7 us,
    // MPI_Iallreduce 13.3 -> 7.3 (12.3 -> 9.6 in a second pair); 3 ranks
    // 512 B 3.9 -> 2.4, 4 KiB 4.4 -> 3.8. 16 KiB lost (32 KiB Iallreduce
    // 29 -> 65 us).
    d.allreduce_stage = 128 * 1024;
    d.alltoall_stage = 128 * 1024;
    if (g_dev.oversubscribed) {
        d.allreduce_direct = 4096;
        d.allreduce_stage = 64 * 1024;
        d.alltoall_stage = 0;
        d.alltoall_stage_max = 64 * 1024;
        d.bcast_stage = 32 * 1024;
        d.bcast_flat = 32 * 1024;
        d.bcast_long = std::numeric_limits<std::size_t>::max();
        d.alltoall_long = std::numeric_limits<std::size_t>::max();
    }
    g_tuning.bcast_long = bytes_param("CH4LITE_COLL_BCAST_LONG", d.bcast_long);
    g_tuning.bcast_flat = bytes_param("CH4LITE_COLL_BCAST_FLAT", d.bcast_flat);
    g_tuning.bcast_stage = bytes_param("CH4LITE_COLL_BCAST_STAGE", d.bcast_stage);
    g_tuning.allreduce_long = bytes_param("CH4LITE_COLL_ALLREDUCE_LONG", d.allreduce_long);
    g_tuning.allreduce_stage = bytes_param("CH4LITE_COLL_ALLREDUCE_STAGE", d.allreduce_stage);
    g_tuning.allreduce_direct = bytes_param("CH4LITE_COLL_ALLREDUCE_DIRECT", d.allreduce_direct);
    g_tuning.reduce_long = bytes_param("CH4LITE_COLL_REDUCE_LONG", d.reduce_long);
    g_tuning.allgather_long = bytes_param("CH4LITE_COLL_ALLGATHER_LONG", d.allgather_long);
    g_tuning.alltoall_long = bytes_param("CH4LITE_COLL_ALLTOALL_LONG", d.alltoall_long);
    g_tuning.alltoall_stage = bytes_param("CH4LITE_COLL_ALLTOALL_STAGE", d.alltoall_stage);
    g_tuning.alltoall_stage_max = bytes_param("CH4LITE_COLL_ALLTOALL_STAGE_MAX", d.alltoall_stage_max);
    const char* f = util::env_str("CH4LITE_COLL_STAGE_FILL", "auto");
    if (strcasecmp(f, "plain") == 0)
        g_tuning.stage_fill = tuning::fill::plain;
    else if (strcasecmp(f, "stream") == 0)
        g_tuning.stage_fill = tuning::fill::streamed;
    else if (strcasecmp(f, "auto") != 0)
        std::fprintf(stderr, "ch4lite: ignoring CH4LITE_COLL_STAGE_FILL=%s: not auto, plain or stream\n", f);
    {
        const char* v = util::env_str("CH4LITE_COLL_STAGE_SLOW", "");
        char* end = nullptr;
        const double gbps = *v ? std::strtod(v, &end) : 5.0;
        if (*v && (end == v || *end || !(gbps > 0)))
            std::fprintf(stderr, "ch4lite: ignoring CH4LITE_COLL_STAGE_SLOW=%s: not a positive number\n", v);
        else
            g_tuning.stage_slow_gbps = gbps;
    }
    {
        const char* b = util::env_str("CH4LITE_COLL_BLOCKING", "direct");
        if (strcasecmp(b, "sched") == 0)
            g_tuning.blocking_sched = true;
        else if (strcasecmp(b, "direct") != 0)
            std::fprintf(stderr, "ch4lite: ignoring CH4LITE_COLL_BLOCKING=%s: not direct or sched\n", b);
    }
    g_tuning.alltoall_window = static_cast<int>(
        std::clamp<int64_t>(util::env_int("CH4LITE_COLL_ALLTOALL_WINDOW", d.alltoall_window), 1, 32));
}

}  // namespace ch4lite::coll
