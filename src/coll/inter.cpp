// SPDX-License-Identifier: MIT
// Intercommunicator schedule builders (build_inter.hpp).
#include <mpi.h>

#include "coll/build.hpp"
#include "coll/build_inter.hpp"

namespace ch4lite::coll {

namespace {

// Steps between the groups, added with ic as the current communicator.
template <class F>
void across(sched& s, comm& ic, F&& f) noexcept {
    s.use_comm(ic);
    f();
    s.use_comm(s.owner());
}

std::size_t times(std::size_t n, int k) noexcept { return n * static_cast<std::size_t>(k); }

// A send stream never null for the intracommunicator builders, where null
// means MPI_IN_PLACE (an empty user buffer may be NULL).
const std::byte* input(sched& s, const std::byte* p) noexcept { return p ? p : s.scratch(0); }

}  // namespace

void add_inter_barrier(sched& s, comm& ic) noexcept {
    const comm& l = s.owner();
    std::byte* tok = s.scratch(2);
    if (!tok) return;
    add_barrier(s);
    s.fence();
    if (l.rank == 0)
        across(s, ic, [&] {
            s.recv(tok + 1, 1, 0);
            s.send(tok, 1, 0);
        });
    s.fence();
    add_bcast(s, tok, 1, 0);
}

void add_inter_bcast(sched& s, comm& ic, std::byte* buf, std::size_t n, int root) noexcept {
    if (root == MPI_PROC_NULL) return;
    if (root == MPI_ROOT) return across(s, ic, [&] { s.send(buf, n, 0); });
    if (s.owner().rank == 0) {
        across(s, ic, [&] { s.recv(buf, n, root); });
        s.fence();
    }
    add_bcast(s, buf, n, 0);
}

void add_inter_gather(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn, std::byte* rbuf,
                      std::size_t rn, int root) noexcept {
    if (root == MPI_PROC_NULL) return;
    if (root == MPI_ROOT) return across(s, ic, [&] { s.recv(rbuf, times(rn, ic.size), 0); });
    const comm& l = s.owner();
    std::byte* all = l.rank == 0 ? s.scratch(times(sn, l.size)) : nullptr;
    if (l.rank == 0 && !all) return;
    add_gather(s, input(s, sbuf), all, sn, 0);
    if (l.rank == 0) {
        s.fence();
        across(s, ic, [&] { s.send(all, times(sn, l.size), root); });
    }
}

void add_inter_gatherv(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn,
                       const block* rblocks, int root) noexcept {
    if (root == MPI_PROC_NULL) return;
    across(s, ic, [&] {
        if (root == MPI_ROOT)
            for (int r = 0; r < ic.size; ++r) s.recv(rblocks[r].p, rblocks[r].n, r);
        else
            s.send(sbuf, sn, root);
    });
}

void add_inter_scatter(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn, std::byte* rbuf,
                       std::size_t rn, int root) noexcept {
    if (root == MPI_PROC_NULL) return;
    if (root == MPI_ROOT) return across(s, ic, [&] { s.send(sbuf, times(sn, ic.size), 0); });
    const comm& l = s.owner();
    std::byte* all = l.rank == 0 ? s.scratch(times(rn, l.size)) : nullptr;
    if (l.rank == 0) {
        if (!all) return;
        across(s, ic, [&] { s.recv(all, times(rn, l.size), root); });
        s.fence();
    }
    add_scatter(s, all, rbuf, rn, 0);
}

void add_inter_scatterv(sched& s, comm& ic, const cblock* sblocks, std::byte* rbuf, std::size_t rn,
                        int root) noexcept {
    if (root == MPI_PROC_NULL) return;
    across(s, ic, [&] {
        if (root == MPI_ROOT)
            for (int r = 0; r < ic.size; ++r) s.send(sblocks[r].p, sblocks[r].n, r);
        else
            s.recv(rbuf, rn, root);
    });
}

void add_inter_allgather(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn, std::byte* rbuf,
                         std::size_t rn) noexcept {
    const comm& l = s.owner();
    std::byte* all = l.rank == 0 ? s.scratch(times(sn, l.size)) : nullptr;
    if (l.rank == 0 && !all) return;
    add_gather(s, input(s, sbuf), all, sn, 0);
    s.fence();
    if (l.rank == 0)
        across(s, ic, [&] {
            s.recv(rbuf, times(rn, ic.size), 0);
            s.send(all, times(sn, l.size), 0);
        });
    s.fence();
    add_bcast(s, rbuf, times(rn, ic.size), 0);
}

void add_inter_allgatherv(sched& s, comm& ic, const std::byte* sbuf, std::size_t sn,
                          const block* rblocks) noexcept {
    across(s, ic, [&] {
        for (int r = 0; r < ic.size; ++r) s.recv(rblocks[r].p, rblocks[r].n, r);
        for (int r = 0; r < ic.size; ++r) s.send(sbuf, sn, r);
    });
}

void add_inter_alltoallv(sched& s, comm& ic, const cblock* sblocks, const block* rblocks) noexcept {
    across(s, ic, [&] {
        for (int r = 0; r < ic.size; ++r) s.recv(rblocks[r].p, rblocks[r].n, r);
        for (int r = 0; r < ic.size; ++r) s.send(sblocks[r].p, sblocks[r].n, r);
    });
}

void add_inter_reduce(sched& s, comm& ic, const std::byte* sbuf, std::byte* rbuf, int64_t count,
                      std::size_t bytes, int root) noexcept {
    if (root == MPI_PROC_NULL) return;
    if (root == MPI_ROOT) return across(s, ic, [&] { s.recv(rbuf, bytes, 0); });
    const comm& l = s.owner();
    std::byte* acc = l.rank == 0 ? s.scratch(bytes) : nullptr;
    if (l.rank == 0 && !acc) return;
    add_reduce(s, input(s, sbuf), acc, count, 0);
    if (l.rank == 0) {
        s.fence();
        across(s, ic, [&] { s.send(acc, bytes, root); });
    }
}

void add_inter_allreduce(sched& s, comm& ic, const std::byte* sbuf, std::byte* rbuf, int64_t count,
                         std::size_t bytes) noexcept {
    const comm& l = s.owner();
    std::byte* acc = l.rank == 0 ? s.scratch(bytes) : nullptr;
    if (l.rank == 0 && !acc) return;
    add_reduce(s, input(s, sbuf), acc, count, 0);
    s.fence();
    if (l.rank == 0)
        across(s, ic, [&] {
            s.recv(rbuf, bytes, 0);
            s.send(acc, bytes, 0);
        });
    s.fence();
    add_bcast(s, rbuf, bytes, 0);
}

void add_inter_reduce_scatter(sched& s, comm& ic, const std::byte* sbuf, std::byte* rbuf,
                              const int64_t* counts, std::size_t elem) noexcept {
    const comm& l = s.owner();
    int64_t total = 0;
    for (int i = 0; i < l.size; ++i) total += counts[i];
    const std::size_t bytes = static_cast<std::size_t>(total) * elem;
    std::byte* acc = nullptr;
    std::byte* res = nullptr;
    cblock* blocks = nullptr;
    if (l.rank == 0) {
        acc = s.scratch(bytes);
        res = s.scratch(bytes);
        blocks = reinterpret_cast<cblock*>(s.scratch(static_cast<std::size_t>(l.size) * sizeof(cblock)));
        if (!acc || !res || !blocks) return;
        std::size_t off = 0;
        for (int i = 0; i < l.size; ++i) {
            const std::size_t n = static_cast<std::size_t>(counts[i]) * elem;
            blocks[i] = {res + off, n};
            off += n;
        }
    }
    add_reduce(s, input(s, sbuf), acc, total, 0);
    s.fence();
    if (l.rank == 0)
        across(s, ic, [&] {
            s.recv(res, bytes, 0);
            s.send(acc, bytes, 0);
        });
    s.fence();
    add_scatterv(s, blocks, rbuf, static_cast<std::size_t>(counts[l.rank]) * elem, 0);
}

}  // namespace ch4lite::coll
