// SPDX-License-Identifier: MIT
// MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate (and their _c forms),
// MPI_Fetch_and_op, MPI_Compare_and_swap. Every check the origin can make
// happens here, before anything is queued: the window, the epoch, counts,
// datatypes, the target rank, and the target range against the size the
// target exchanged at window creation (MPI_ERR_RMA_RANGE). The target checks
// again when it applies (rma/target.cpp); CH4LITE_RMA_CHECK_ORIGIN=0 skips
// the origin's range check so tests can reach the target's.
#include <cinttypes>
#include <cstdint>

#include "api/dt.hpp"
#include "api/op_handles.hpp"
#include "api/win_common.hpp"
#include "device/request.hpp"
#include "rma/sync.hpp"
#include "dame/type.hpp"
#include "device/op.hpp"
#include "util/env.hpp"

using namespace ch4lite;

namespace {

// CH4LITE_RMA_CHECK_ORIGIN, read once when the library is loaded.
const bool g_origin_checks = util::env_bool("CH4LITE_RMA_CHECK_ORIGIN", true);
bool origin_checks() noexcept { return g_origin_checks; }

struct args {
    rma::win* w = nullptr;
    rma::target_spec t{};
    bool proc_null = false;
};

int check_type(const char* func, MPI_Win win, MPI_Datatype dt, int64_t count, const char* what,
               const dame::type*& out) {
    if (count < 0)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_COUNT, "invalid %s count %" PRId64 ": must be >= 0", what, count);
    out = api::lookup_type(dt);
    if (!out) CH4_FAIL_WIN_IN(func, win, MPI_ERR_TYPE, "invalid %s datatype", what);
    if (!out->committed())
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_TYPE, "%s datatype is not committed", what);
    return MPI_SUCCESS;
}

// Why rank t may not be accessed now (MPI_ERR_RMA_SYNC).
[[gnu::cold]] int no_epoch(const char* func, MPI_Win win, const rma::win& w, int rank) {
    if (w.async & rma::async_lock)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                        "target rank %d is not locked (the passive-target epoch locks other ranks)", rank);
    if (w.async & rma::async_start)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                        "target rank %d is not in the group of MPI_Win_start", rank);
    CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                    "no access epoch is open: call MPI_Win_fence first (and not with "
                    "MPI_MODE_NOSUCCEED), or MPI_Win_lock, MPI_Win_lock_all or MPI_Win_start");
}

// The window, the target (type, rank, displacement), the epoch, the range.
// The arguments come first: a bad rank is MPI_ERR_RANK in any epoch state.
// `request`: MPI_Rput & co., which only passive-target epochs allow.
int check_target(const char* func, MPI_Win win, int rank, MPI_Aint disp, int64_t count,
                 MPI_Datatype dt, args& a, bool request = false) {
    a.w = api::lookup_win(win);
    if (!a.w) CH4_FAIL_WIN_IN(func, win, MPI_ERR_WIN, "invalid window");
    rma::win& w = *a.w;
    if (int rc = check_type(func, win, dt, count, "target", a.t.t)) return rc;
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w.nranks()))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RANK, "invalid target rank %d: must be in [0, %d) or MPI_PROC_NULL",
                        rank, w.nranks());
    if (rank != MPI_PROC_NULL && disp < 0)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_DISP, "invalid target_disp %ld: must be >= 0",
                        static_cast<long>(disp));
    // A no-op, but only inside an epoch. MPI_Win_lock(MPI_PROC_NULL) is a
    // no-op too and opens none, so a request-based call to MPI_PROC_NULL
    // (its request complete at once) is accepted in any state, as MPICH
    // does (its test rma/rmanull locks MPI_PROC_NULL, then MPI_Rput to it).
    if (rank == MPI_PROC_NULL) {
        if (!request && !w.access && !w.async) return no_epoch(func, win, w, rank);
        a.proc_null = true;
        return MPI_SUCCESS;
    }
    if (request && !(w.async & rma::async_lock))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_SYNC,
                        "request-based RMA needs a passive-target epoch (MPI_Win_lock or "
                        "MPI_Win_lock_all)");
    if (!w.may_access(rank)) return no_epoch(func, win, w, rank);
    const rma::peer_info& p = w.peers[static_cast<std::size_t>(rank)];
    __int128 bytes = static_cast<__int128>(disp) * p.disp_unit;
    if (bytes >> 62)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_RANGE, "target_disp %ld x disp_unit %" PRId64
                        " is beyond any window", static_cast<long>(disp), p.disp_unit);
    a.t = {rank, static_cast<uint64_t>(bytes), count, a.t.t};
    // A dynamic window's displacements are addresses the target checks.
    if (count == 0 || !origin_checks() || w.fl == rma::flavor::dynamic) return MPI_SUCCESS;
    const __int128 span = static_cast<__int128>(count - 1) * a.t.t->extent();
    const __int128 lo = bytes + a.t.t->true_lb() + (span < 0 ? span : 0);
    const __int128 hi = bytes + a.t.t->true_ub() + (span > 0 ? span : 0);
    if (lo < 0 || hi > static_cast<__int128>(p.size))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_RMA_RANGE,
                        "target rank %d: bytes [%lld, %lld) are outside its window of %" PRIu64
                        " bytes (target_disp %ld x disp_unit %" PRId64 ")",
                        rank, static_cast<long long>(lo), static_cast<long long>(hi), p.size,
                        static_cast<long>(disp), p.disp_unit);
    return MPI_SUCCESS;
}

int check_origin(const char* func, MPI_Win win, const void* buf, int64_t count, MPI_Datatype dt,
                 const char* what, rma::buf_spec& o) {
    if (int rc = check_type(func, win, dt, count, what, o.t)) return rc;
    // NULL is MPI_BOTTOM, valid with a datatype of absolute addresses
    // (MPICH rma/put_bottom): only a NULL buffer at offset 0 is an error.
    if (!buf && count > 0 && o.t->size() > 0 && o.t->true_lb() == 0)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_BUFFER, "%s buffer is NULL", what);
    o.buf = buf;
    o.count = count;
    return MPI_SUCCESS;
}

int same_size(const char* func, MPI_Win win, const rma::buf_spec& o, const args& a, const char* what) {
    const __int128 ob = static_cast<__int128>(o.count) * o.t->size();
    const __int128 tb = static_cast<__int128>(a.t.count) * a.t.t->size();
    if (ob != tb)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_TYPE,
                        "%s data (%lld bytes) and target data (%lld bytes) differ in size", what,
                        static_cast<long long>(ob), static_cast<long long>(tb));
    return MPI_SUCCESS;
}

int done(const char* func, MPI_Win win, status s) {
    if (s == status::ok) return MPI_SUCCESS;
    CH4_FAIL_WIN_IN(func, win, api::class_of(s), "cannot queue the operation");
}

// MPI_Rput & co.: the request the operation's parts complete (win::req).
// begin() makes it (holding one completion of its own), end() drops that
// hold once the operation is issued and sent on its way, and hands it out.
struct req_scope {
    MPI_Request* out;
    dev::request* r = nullptr;
    rma::win* w = nullptr;

    int begin(const char* func, MPI_Win win, rma::win* wp) {
        if (!out) return MPI_SUCCESS;
        r = dev::request_alloc(dev::req_kind::rma, 1);
        if (!r) CH4_FAIL_WIN_IN(func, win, MPI_ERR_NO_MEM, "out of requests");
        w = wp;
        w->req = r;
        return MPI_SUCCESS;
    }
    // A request-based call to MPI_PROC_NULL: a request that is complete.
    int null_request(const char* func, MPI_Win win) {
        if (!out) return MPI_SUCCESS;
        dev::request* q = dev::request_alloc(dev::req_kind::rma, 0);
        if (!q) CH4_FAIL_WIN_IN(func, win, MPI_ERR_NO_MEM, "out of requests");
        *out = reinterpret_cast<MPI_Request>(dev::request_handle(q));
        return MPI_SUCCESS;
    }
    int end(const char* func, MPI_Win win, status s, int rank) {
        if (!r) return done(func, win, s);
        w->req = nullptr;
        if (s == status::ok) s = rma::request_issued(*w, rank);
        if (s != status::ok) {  // its parts may still finish: freed after them
            dev::request_release(r);
            dev::request_complete(r);
            return done(func, win, s);
        }
        *out = reinterpret_cast<MPI_Request>(dev::request_handle(r));
        dev::request_complete(r);
        return MPI_SUCCESS;
    }
};

// The op of an accumulate and its element kind, checked against the types.
// `empty`: the target data has no bytes (count 0 or a type of size 0):
// nothing is combined, so only the op itself is checked.
int check_acc(const char* func, MPI_Win win, MPI_Op op, const dame::type* origin,
              const dame::type* target, dev::op_id& id, bool empty = false) {
    if (!dev::predefined_op(op, id))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_OP,
                        "invalid op: accumulate takes a predefined operation (user-defined ops "
                        "are not allowed in RMA)");
    if (empty) return MPI_SUCCESS;
    const dame::basic_kind k = target->basic();
    if (k == dame::basic_kind::none || k == dame::basic_kind::mixed)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_TYPE,
                        "the target datatype must be built from one predefined type");
    if (origin && id != dev::op_id::no_op && origin->basic() != k && origin->size() > 0)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_TYPE,
                        "origin elements (%s) and target elements (%s) differ",
                        dame::to_string(origin->basic()), dame::to_string(k));
    if (!dev::op_applies(id, k))
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_OP, "%s is not defined on %s elements", dev::op_name(id),
                        dame::to_string(k));
    return MPI_SUCCESS;
}

// Put and get: every check above, in that order, then the layer's call.
// Out of line: the fast path below (xfer_impl) stays small.
template <bool is_get>
[[gnu::noinline, gnu::cold]] int xfer_checked(const char* func, const void* obuf, int64_t ocount, MPI_Datatype otype, int rank,
                 MPI_Aint disp, int64_t tcount, MPI_Datatype ttype, MPI_Win win,
                 MPI_Request* req = nullptr) {
    CH4_REQUIRE_INIT_IN(func);
    args a;
    rma::buf_spec o;
    req_scope rq{req};
    if (int rc = check_target(func, win, rank, disp, tcount, ttype, a, req != nullptr)) return rc;
    if (int rc = check_origin(func, win, obuf, ocount, otype, "origin", o)) return rc;
    if (a.proc_null) return rq.null_request(func, win);
    if (int rc = same_size(func, win, o, a, "origin")) return rc;
    if (int rc = rq.begin(func, win, a.w)) return rc;
    if constexpr (is_get) return rq.end(func, win, rma::get(*a.w, o, a.t), rank);
    else return rq.end(func, win, rma::put(*a.w, o, a.t), rank);
}

// The same decisions as check_target / check_origin / same_size for the
// common case, in 64-bit arithmetic without building an error text: true
// when the operation is valid and goes to a real target. Anything else
// (bad input, MPI_PROC_NULL, a product that would overflow 64 bits) is
// decided again by the full checks, which raise the error.
[[gnu::always_inline]] inline bool xfer_ok(const void* obuf, int64_t ocount, MPI_Datatype otype,
                                           int rank, MPI_Aint disp, int64_t tcount, MPI_Datatype ttype,
                                           MPI_Win win, rma::win*& w, rma::buf_spec& o,
                                           rma::target_spec& t) {
    if (!api::is_initialized()) return false;
    w = api::lookup_win(win);
    if (!w) return false;
    const dame::type* tt = api::lookup_type(ttype);
    const dame::type* ot = api::lookup_type(otype);
    if (!tt || !ot || !tt->committed() || !ot->committed() || (tcount | ocount) < 0) return false;
    if (static_cast<unsigned>(rank) >= static_cast<unsigned>(w->nranks()) || disp < 0) return false;
    // A fence epoch (one test), else the passive-target or PSCW epoch's rule.
    if (__builtin_expect(!w->access, 0) && !w->may_access(rank)) return false;
    const rma::peer_info& p = w->peers[static_cast<std::size_t>(rank)];
    int64_t bytes, ob, tb;
    if (__builtin_mul_overflow(disp, p.disp_unit, &bytes) || (bytes >> 62) ||
        __builtin_mul_overflow(ocount, ot->size(), &ob) || __builtin_mul_overflow(tcount, tt->size(), &tb) ||
        ob != tb || (!obuf && ob > 0))
        return false;
    t = {rank, static_cast<uint64_t>(bytes), tcount, tt};
    o = {obuf, ocount, ot};
    if (tcount == 0 || !origin_checks()) return true;
    int64_t span, lo, hi;  // as check_target, without __int128
    if (tt->contiguous()) {  // size == extent == true extent (dame::type::commit): span >= 0
        if (__builtin_add_overflow(bytes, tt->true_lb(), &lo) || __builtin_add_overflow(lo, tb, &hi))
            return false;
    } else if (__builtin_mul_overflow(tcount - 1, tt->extent(), &span) ||
               __builtin_add_overflow(bytes, tt->true_lb(), &lo) ||
               __builtin_add_overflow(lo, span < 0 ? span : 0, &lo) ||
               __builtin_add_overflow(bytes, tt->true_ub(), &hi) ||
               __builtin_add_overflow(hi, span > 0 ? span : 0, &hi)) {
        return false;
    }
    t.in_range = lo >= 0 && static_cast<uint64_t>(hi) <= p.size;
    return t.in_range;
}

// The result of the layer's call, with the error path out of line.
[[gnu::always_inline]] inline int finish_fast(const char* func, MPI_Win win, status s) {
    if (__builtin_expect(s == status::ok, 1)) return MPI_SUCCESS;
    return done(func, win, s);
}

template <bool is_get>
[[gnu::always_inline]] inline int xfer_impl(const char* func, const void* obuf, int64_t ocount, MPI_Datatype otype, int rank,
              MPI_Aint disp, int64_t tcount, MPI_Datatype ttype, MPI_Win win) {
    rma::win* w;
    rma::buf_spec o;
    rma::target_spec t;
    if (__builtin_expect(!xfer_ok(obuf, ocount, otype, rank, disp, tcount, ttype, win, w, o, t), 0))
        return xfer_checked<is_get>(func, obuf, ocount, otype, rank, disp, tcount, ttype, win);
    return finish_fast(func, win, is_get ? rma::get(*w, o, t) : rma::put(*w, o, t));
}

// Accumulate: every check above, then the layer's call (out of line, as
// xfer_checked).
[[gnu::noinline, gnu::cold]] int acc_checked(const char* func, const void* obuf, int64_t ocount,
                                             MPI_Datatype otype, int rank, MPI_Aint disp,
                                             int64_t tcount, MPI_Datatype ttype, MPI_Op op,
                                             MPI_Win win, MPI_Request* req = nullptr) {
    CH4_REQUIRE_INIT_IN(func);
    args a;
    rma::buf_spec o;
    dev::op_id id;
    req_scope rq{req};
    if (int rc = check_target(func, win, rank, disp, tcount, ttype, a, req != nullptr)) return rc;
    if (int rc = check_origin(func, win, obuf, ocount, otype, "origin", o)) return rc;
    const bool empty = tcount == 0 || a.t.t->size() == 0;
    if (int rc = check_acc(func, win, op, o.t, a.t.t, id, empty)) return rc;
    if (a.proc_null) return rq.null_request(func, win);
    if (int rc = same_size(func, win, o, a, "origin")) return rc;
    if (int rc = rq.begin(func, win, a.w)) return rc;
    return rq.end(func, win, rma::accumulate(*a.w, o, a.t, id), rank);
}

// check_acc's decision without the error text: a predefined op defined on
// the target's elements, which the origin's match.
[[gnu::always_inline]] inline bool acc_op_ok(MPI_Op op, const dame::type* origin,
                                             const dame::type* target, dev::op_id& id) {
    if (!dev::predefined_op(op, id)) return false;
    const dame::basic_kind k = target->basic();
    return k != dame::basic_kind::none && k != dame::basic_kind::mixed &&
           (id == dev::op_id::no_op || origin->basic() == k || origin->size() == 0) &&
           dev::op_applies(id, k);
}

// What an accumulate's fast path has decided: the window, origin, target
// and op, all valid (xfer_ok plus acc_op_ok).
struct acc_args {
    rma::win* w;
    rma::buf_spec o;
    rma::target_spec t;
    dev::op_id id;
    [[gnu::always_inline]] bool ok(const void* obuf, int64_t ocount, MPI_Datatype otype, int rank,
                                   MPI_Aint disp, int64_t tcount, MPI_Datatype ttype, MPI_Op op,
                                   MPI_Win win) {
        return xfer_ok(obuf, ocount, otype, rank, disp, tcount, ttype, win, w, o, t) &&
               acc_op_ok(op, o.t, t.t, id);
    }
};

// The put/get fast path plus the op's check; anything it does not accept is
// decided again by acc_checked.
[[gnu::always_inline]] inline int acc_impl(const char* func, const void* obuf, int64_t ocount,
                                           MPI_Datatype otype, int rank, MPI_Aint disp,
                                           int64_t tcount, MPI_Datatype ttype, MPI_Op op,
                                           MPI_Win win) {
    acc_args a;
    if (__builtin_expect(!a.ok(obuf, ocount, otype, rank, disp, tcount, ttype, op, win), 0))
        return acc_checked(func, obuf, ocount, otype, rank, disp, tcount, ttype, op, win);
    return finish_fast(func, win, rma::accumulate(*a.w, a.o, a.t, a.id));
}

[[gnu::noinline, gnu::cold]] int getacc_checked(const char* func, const void* obuf, int64_t ocount,
                                                MPI_Datatype otype, void* rbuf, int64_t rcount,
                                                MPI_Datatype rtype, int rank, MPI_Aint disp,
                                                int64_t tcount, MPI_Datatype ttype, MPI_Op op,
                                                MPI_Win win, MPI_Request* req = nullptr) {
    CH4_REQUIRE_INIT_IN(func);
    args a;
    rma::buf_spec o{}, r{};
    dev::op_id id;
    req_scope rq{req};
    if (int rc = check_target(func, win, rank, disp, tcount, ttype, a, req != nullptr)) return rc;
    const bool noop = op == MPI_NO_OP;  // origin arguments are ignored then
    if (!noop)
        if (int rc = check_origin(func, win, obuf, ocount, otype, "origin", o)) return rc;
    if (int rc = check_origin(func, win, rbuf, rcount, rtype, "result", r)) return rc;
    const bool empty = tcount == 0 || a.t.t->size() == 0;
    if (int rc = check_acc(func, win, op, noop ? nullptr : o.t, a.t.t, id, empty)) return rc;
    if (!empty && r.t->basic() != a.t.t->basic() && r.t->size() > 0)
        CH4_FAIL_WIN_IN(func, win, MPI_ERR_TYPE, "result elements (%s) and target elements (%s) differ",
                        dame::to_string(r.t->basic()), dame::to_string(a.t.t->basic()));
    if (a.proc_null) return rq.null_request(func, win);
    if (!noop)
        if (int rc = same_size(func, win, o, a, "origin")) return rc;
    if (int rc = same_size(func, win, r, a, "result")) return rc;
    if (int rc = rq.begin(func, win, a.w)) return rc;
    return rq.end(func, win, rma::get_accumulate(*a.w, o, r, a.t, id), rank);
}

// Get_accumulate (and Fetch_and_op): the accumulate fast path plus the
// result buffer's checks; MPI_NO_OP (origin ignored) and anything refused
// take getacc_checked.
[[gnu::always_inline]] inline int getacc_impl(const char* func, const void* obuf, int64_t ocount,
                                              MPI_Datatype otype, void* rbuf, int64_t rcount,
                                              MPI_Datatype rtype, int rank, MPI_Aint disp,
                                              int64_t tcount, MPI_Datatype ttype, MPI_Op op,
                                              MPI_Win win) {
    acc_args a;
    const dame::type* rt;
    int64_t rb;
    if (__builtin_expect(
            op == MPI_NO_OP || !a.ok(obuf, ocount, otype, rank, disp, tcount, ttype, op, win) ||
                !(rt = api::lookup_type(rtype)) || !rt->committed() || rcount < 0 ||
                __builtin_mul_overflow(rcount, rt->size(), &rb) || rb != tcount * a.t.t->size() ||
                (!rbuf && rb > 0) || (rt->basic() != a.t.t->basic() && rt->size() > 0),
            0))
        return getacc_checked(func, obuf, ocount, otype, rbuf, rcount, rtype, rank, disp, tcount,
                              ttype, op, win);
    return finish_fast(func, win,
                       rma::get_accumulate(*a.w, a.o, rma::buf_spec{rbuf, rcount, rt}, a.t, a.id));
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Put)
int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    CH4_API_LOCK();
    return xfer_impl<false>(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
}
CH4_PMPI(MPI_Put_c)
int MPI_Put_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win) {
    CH4_API_LOCK();
    return xfer_impl<false>(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
}
CH4_PMPI(MPI_Get)
int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    CH4_API_LOCK();
    return xfer_impl<true>(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
}
CH4_PMPI(MPI_Get_c)
int MPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win) {
    CH4_API_LOCK();
    return xfer_impl<true>(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win);
}
CH4_PMPI(MPI_Accumulate)
int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    CH4_API_LOCK();
    return acc_impl(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win);
}
CH4_PMPI(MPI_Accumulate_c)
int MPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    CH4_API_LOCK();
    return acc_impl(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, op, win);
}
CH4_PMPI(MPI_Get_accumulate)
int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void* result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    CH4_API_LOCK();
    return getacc_impl(__func__, origin_addr, origin_count, origin_datatype, result_addr,
                       result_count, result_datatype, target_rank, target_disp, target_count,
                       target_datatype, op, win);
}
CH4_PMPI(MPI_Get_accumulate_c)
int MPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win) {
    CH4_API_LOCK();
    return getacc_impl(__func__, origin_addr, origin_count, origin_datatype, result_addr,
                       result_count, result_datatype, target_rank, target_disp, target_count,
                       target_datatype, op, win);
}

CH4_PMPI(MPI_Fetch_and_op)
int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
    CH4_API_LOCK();
    const dame::type* t = api::lookup_type(datatype);
    if (t && !t->predefined_for_mpi())
        CH4_FAIL_WIN(win, MPI_ERR_TYPE, "datatype must be a predefined type");
    return getacc_impl(__func__, origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                       target_disp, 1, datatype, op, win);
}

// ---- request-based operations (passive-target epochs only): the request
// completes as MPI says for each: MPI_Rput and MPI_Raccumulate when the
// origin buffer may be reused, MPI_Rget and MPI_Rget_accumulate when the
// data arrived (docs/rma-passive.md, "Request-based operations").
#define CH4_REQ_CHECK(request) \
    if (!(request)) CH4_FAIL_WIN(win, MPI_ERR_ARG, "request (output) is NULL")

CH4_PMPI(MPI_Rput)
int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return xfer_checked<false>(__func__, origin_addr, origin_count, origin_datatype, target_rank,
                               target_disp, target_count, target_datatype, win, request);
}
CH4_PMPI(MPI_Rput_c)
int MPI_Rput_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return xfer_checked<false>(__func__, origin_addr, origin_count, origin_datatype, target_rank,
                               target_disp, target_count, target_datatype, win, request);
}
CH4_PMPI(MPI_Rget)
int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return xfer_checked<true>(__func__, origin_addr, origin_count, origin_datatype, target_rank,
                              target_disp, target_count, target_datatype, win, request);
}
CH4_PMPI(MPI_Rget_c)
int MPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return xfer_checked<true>(__func__, origin_addr, origin_count, origin_datatype, target_rank,
                              target_disp, target_count, target_datatype, win, request);
}
CH4_PMPI(MPI_Raccumulate)
int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return acc_checked(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, op, win, request);
}
CH4_PMPI(MPI_Raccumulate_c)
int MPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return acc_checked(__func__, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, op, win, request);
}
CH4_PMPI(MPI_Rget_accumulate)
int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return getacc_checked(__func__, origin_addr, origin_count, origin_datatype, result_addr,
                          result_count, result_datatype, target_rank, target_disp, target_count,
                          target_datatype, op, win, request);
}
CH4_PMPI(MPI_Rget_accumulate_c)
int MPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void* result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request* request) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    CH4_REQ_CHECK(request);
    return getacc_checked(__func__, origin_addr, origin_count, origin_datatype, result_addr,
                          result_count, result_datatype, target_rank, target_disp, target_count,
                          target_datatype, op, win, request);
}

CH4_PMPI(MPI_Compare_and_swap)
int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    args a;
    if (int rc = check_target(__func__, win, target_rank, target_disp, 1, datatype, a)) return rc;
    const dame::type* t = a.t.t;
    const dame::basic_kind k = t->basic();
    // C/Fortran integers, logicals, MPI_BYTE (MPI 12.3.4): what BAND or LAND
    // takes; and MPI_CHAR, as MPICH and Open MPI accept it (extension,
    // docs/collectives.md).
    if (!t->predefined_for_mpi() || t->elements() != 1 ||
        !(dev::op_applies(dev::op_id::band, k) || dev::op_applies(dev::op_id::land, k) ||
          k == dame::basic_kind::char_))
        CH4_FAIL_WIN(win, MPI_ERR_TYPE,
                     "MPI_Compare_and_swap takes one predefined integer, logical, byte or char type, not %s",
                     dame::to_string(k));
    if (!origin_addr || !compare_addr || !result_addr)
        CH4_FAIL_WIN(win, MPI_ERR_BUFFER, "origin_addr, compare_addr or result_addr is NULL");
    if (a.proc_null) return MPI_SUCCESS;
    return done(__func__, win,
                rma::compare_and_swap(*a.w, origin_addr, compare_addr, result_addr, t, a.t.rank,
                                      a.t.disp));
}

}  // extern "C"
