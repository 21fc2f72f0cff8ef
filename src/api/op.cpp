// SPDX-License-Identifier: MIT
// MPI_Op_create(_c) / Op_free / Op_commutative / Op_toint / Op_fromint and
// MPI_Reduce_local(_c): user ops in a handle table, predefined ops decoded
// from their ABI values (device/op.hpp).
#include <new>

#include "api/coll_args.hpp"
#include "api/datatype_handles.hpp"
#include "api/op_handles.hpp"
#include "util/handle_table.hpp"

using namespace ch4lite;

namespace ch4lite::api {

namespace {
util::handle_table<dev::user_op, util::handle_kind::op> g_ops;

int create(const char* fn, MPI_User_function* f, MPI_User_function_c* fc, int commute,
           MPI_Op* op) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    if (!f && !fc) return raise_self(error_code(MPI_ERR_ARG, fn, "user_fn is NULL"));
    if (!op) return raise_self(error_code(MPI_ERR_ARG, fn, "op (output) is NULL"));
    auto* u = new (std::nothrow) dev::user_op;
    if (!u) return raise_self(error_code(MPI_ERR_NO_MEM, fn, "out of memory"));
    u->fn = f;
    u->fn_c = fc;
    u->commutative = commute != 0;
    const uintptr_t h = g_ops.insert(u);
    if (!h) {
        delete u;
        return raise_self(error_code(MPI_ERR_NO_MEM, fn, "out of memory or too many user ops"));
    }
    *op = reinterpret_cast<MPI_Op>(h);
    return MPI_SUCCESS;
}

template <class C>
int reduce_local(const char* fn, const void* in, void* inout, C count, MPI_Datatype dt,
                 MPI_Op op) noexcept {
    const MPI_Comm comm = MPI_COMM_SELF;  // errors not tied to a communicator
    CH4_REQUIRE_INIT_IN(fn);
    coll::alias_reset();
    const dame::type* t = nullptr;
    COLL_TRY(coll::check_buf(fn, comm, "inbuf", in, count, dt, t));
    COLL_TRY(coll::check_buf(fn, comm, "inoutbuf", inout, count, dt, t));
    ch4lite::coll::reduction r;
    COLL_TRY(coll::make_reduction(fn, comm, op, *t, dt, r));
    std::size_t bytes = 0;
    COLL_TRY(coll::stream_bytes(fn, comm, count, *t, bytes));
    coll::stream a, b;
    status s = a.load(in, count, *t);
    if (s == status::ok) s = b.prepare_inout(inout, count, *t);
    if (s == status::ok) s = r.apply(a.data(), b.data(), count);
    if (s != status::ok) return coll::fail(fn, comm, s);
    b.store();
    return MPI_SUCCESS;
}

}  // namespace

bool lookup_op(MPI_Op op, op_ref& out) noexcept {
    if (dev::predefined_op(op, out.id)) {
        out.user = nullptr;
        return true;
    }
    out.user = g_ops.lookup(reinterpret_cast<uintptr_t>(op));
    return out.user != nullptr;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Op_create)
int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
    CH4_API_LOCK();
    return api::create(__func__, user_fn, nullptr, commute, op);
}

CH4_PMPI(MPI_Op_create_c)
int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
    CH4_API_LOCK();
    return api::create(__func__, nullptr, user_fn, commute, op);
}

CH4_PMPI(MPI_Op_free)
int MPI_Op_free(MPI_Op* op) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!op) CH4_FAIL_SELF(MPI_ERR_ARG, "op is NULL");
    api::op_ref o;
    if (!api::lookup_op(*op, o)) CH4_FAIL_SELF(MPI_ERR_OP, "invalid op");
    if (!o.user) CH4_FAIL_SELF(MPI_ERR_OP, "cannot free the predefined op %s", dev::op_name(o.id));
    api::g_ops.erase(reinterpret_cast<uintptr_t>(*op));
    delete o.user;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Op_commutative)
int MPI_Op_commutative(MPI_Op op, int* commute) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    api::op_ref o;
    if (!api::lookup_op(op, o)) CH4_FAIL_SELF(MPI_ERR_OP, "invalid op");
    if (!commute) CH4_FAIL_SELF(MPI_ERR_ARG, "commute (output) is NULL");
    *commute = o.user ? o.user->commutative : 1;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Op_toint)
int MPI_Op_toint(MPI_Op op) { CH4_API_LOCK(); return static_cast<int>(reinterpret_cast<uintptr_t>(op)); }
CH4_PMPI(MPI_Op_fromint)
MPI_Op MPI_Op_fromint(int op) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Op>(static_cast<uintptr_t>(static_cast<unsigned>(op)));
}

CH4_PMPI(MPI_Reduce_local)
int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op) {
    CH4_API_LOCK();
    return api::reduce_local(__func__, inbuf, inoutbuf, count, datatype, op);
}
CH4_PMPI(MPI_Reduce_local_c)
int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op) {
    CH4_API_LOCK();
    return api::reduce_local(__func__, inbuf, inoutbuf, count, datatype, op);
}

}  // extern "C"
