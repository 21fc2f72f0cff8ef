// SPDX-License-Identifier: MIT
#include "api/coll_args.hpp"

#include <cstring>

#include "api/datatype_handles.hpp"
#include "api/handles.hpp"
#include "api/op_handles.hpp"
#include "dame/dame.hpp"

namespace ch4lite::api::coll {

namespace {
// The aliasing check of check_buf: the buffer a collective's previous
// check_buf call looked at, until its partner ("sendbuf" <-> "recvbuf",
// "inbuf" <-> "inoutbuf") is checked in the same call. check_comm starts
// every collective with it cleared.
struct alias_memo {
    const char* fn = nullptr;
    const char* what = nullptr;
    const void* buf = nullptr;
    bool data = false;  // the buffer carries data (count and size > 0)
};
alias_memo g_alias;

bool partners(const char* a, const char* b) noexcept {
    auto is = [](const char* x, const char* y) { return std::strcmp(x, y) == 0; };
    return (is(a, "sendbuf") && is(b, "recvbuf")) || (is(a, "recvbuf") && is(b, "sendbuf")) ||
           (is(a, "inbuf") && is(b, "inoutbuf"));
}
}  // namespace

void alias_reset() noexcept { g_alias = {}; }

int check_comm(const char* fn, MPI_Comm comm, dev::comm*& out) noexcept {
    alias_reset();
    CH4_REQUIRE_INIT_IN(fn);
    out = lookup_comm(comm);
    if (!out) COLL_FAIL(MPI_ERR_COMM, "invalid communicator");
    return MPI_SUCCESS;
}

int check_root(const char* fn, MPI_Comm comm, const dev::comm& c, int root) noexcept {
    if (root < 0 || root >= c.size)
        COLL_FAIL(MPI_ERR_ROOT, "invalid root %d: must be in [0, %d)", root, c.size);
    return MPI_SUCCESS;
}

int check_buf(const char* fn, MPI_Comm comm, const char* what, const void* buf, int64_t count,
              MPI_Datatype dt, const dame::type*& t) noexcept {
    if (count < 0)
        COLL_FAIL(MPI_ERR_COUNT, "invalid count %lld for %s: must be >= 0",
                  static_cast<long long>(count), what);
    t = lookup_type(dt);
    if (!t) COLL_FAIL(MPI_ERR_TYPE, "invalid datatype for %s", what);
    if (!t->committed())
        COLL_FAIL(MPI_ERR_TYPE, "datatype of %s is not committed (call MPI_Type_commit)", what);
    if (in_place(buf))
        COLL_FAIL(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as %s here", what);
    if (!buf && count > 0 && t->size() > 0 && t->true_lb() == 0)
        COLL_FAIL(MPI_ERR_BUFFER, "%s is NULL but count is %lld", what,
                  static_cast<long long>(count));
    // The send and receive buffers of a collective must not be the same
    // memory unless the user says MPI_IN_PLACE (MPI-4.1 §2.3: an OUT or
    // INOUT argument must not alias any other; MPICH: MPI_ERR_BUFFER when
    // both are one pointer and both carry data).
    const bool data = count > 0 && t->size() > 0;
    if (g_alias.fn == fn && g_alias.what && partners(g_alias.what, what)) {
        const bool same = g_alias.buf == buf && g_alias.data && data;
        const char* first = g_alias.what;
        alias_reset();
        if (same)
            COLL_FAIL(MPI_ERR_BUFFER, "%s and %s are the same buffer %p: they must not overlap "
                      "(use MPI_IN_PLACE for an in-place operation)", first, what, buf);
    } else {
        g_alias = {fn, what, buf, data};
    }
    return MPI_SUCCESS;
}

template <class C>
int check_counts(const char* fn, MPI_Comm comm, const char* what, const C* counts, int n) noexcept {
    if (!counts && n > 0) COLL_FAIL(MPI_ERR_ARG, "%s is NULL", what);
    for (int i = 0; i < n; ++i)
        if (counts[i] < 0)
            COLL_FAIL(MPI_ERR_COUNT, "invalid %s[%d] = %lld: must be >= 0", what, i,
                      static_cast<long long>(counts[i]));
    return MPI_SUCCESS;
}
template int check_counts(const char*, MPI_Comm, const char*, const int*, int) noexcept;
template int check_counts(const char*, MPI_Comm, const char*, const MPI_Count*, int) noexcept;

int stream_bytes(const char* fn, MPI_Comm comm, int64_t count, const dame::type& t,
                 std::size_t& out) noexcept {
    uint64_t total = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(count), static_cast<uint64_t>(t.size()),
                               &total) ||
        total > static_cast<uint64_t>(INT64_MAX))
        COLL_FAIL(MPI_ERR_COUNT, "count %lld of a %lld-byte datatype overflows",
                  static_cast<long long>(count), static_cast<long long>(t.size()));
    out = static_cast<std::size_t>(total);
    return MPI_SUCCESS;
}

int make_reduction(const char* fn, MPI_Comm comm, MPI_Op op, const dame::type& t,
                   MPI_Datatype dt, ch4lite::coll::reduction& out) noexcept {
    op_ref o;
    if (!lookup_op(op, o)) COLL_FAIL(MPI_ERR_OP, "invalid op");
    out.t = &t;
    out.dt = dt;
    out.elem = static_cast<std::size_t>(t.size());
    out.user = o.user;
    out.id = o.id;
    if (o.user) {
        out.commutative = o.user->commutative;
        return MPI_SUCCESS;
    }
    // MPI_REPLACE and MPI_NO_OP are meant for accumulate; in a reduction we
    // apply them in rank order (REPLACE keeps rank 0's data, NO_OP the
    // last rank's), which makes the result well defined.
    out.commutative = o.id != dev::op_id::replace && o.id != dev::op_id::no_op;
    if (const std::size_t b = dev::packed_size(t.basic()); b && t.size() > 0)
        out.per = static_cast<std::size_t>(t.size()) / b;
    if (t.size() > 0 && !dev::op_applies(o.id, t.basic())) {
        const auto* p = t.predef();
        COLL_FAIL(MPI_ERR_OP, "%s is not defined for %s%s (elements of kind %s)",
                  dev::op_name(o.id), p ? "" : "a derived datatype of ", p ? p->name : "",
                  to_string(t.basic()));
    }
    return MPI_SUCCESS;
}

int fail(const char* fn, MPI_Comm comm, status s) noexcept {
    switch (s) {
        case status::truncated:
            COLL_FAIL(MPI_ERR_TRUNCATE,
                      "message sizes differ between processes: a count or datatype does not "
                      "match the other processes' arguments");
        case status::no_mem:
            COLL_FAIL(MPI_ERR_NO_MEM, "out of memory (request pool or temporary buffers)");
        default: COLL_FAIL(class_of(s), "communication failed: %s", to_string(s));
    }
}

// ---- stream

status stream::setup(const void* buf, int64_t count, const dame::type& t, bool load_all) noexcept {
    t_ = &t;
    count_ = count;
    n_ = static_cast<std::size_t>(count * t.size());
    if (t.contiguous() || n_ == 0) {
        p_ = const_cast<std::byte*>(static_cast<const std::byte*>(buf)) + (n_ ? t.true_lb() : 0);
        return status::ok;
    }
    p_ = tmp_.get(n_);
    if (!p_) return status::no_mem;
    if (load_all) dame::pack(t, buf, count, p_);
    return status::ok;
}

status stream::load(const void* buf, int64_t count, const dame::type& t) noexcept {
    return setup(buf, count, t, true);
}

status stream::prepare(void* buf, int64_t count, const dame::type& t) noexcept {
    const status s = setup(buf, count, t, false);
    if (s == status::ok && tmp_.data()) user_ = buf;
    return s;
}

status stream::prepare_inout(void* buf, int64_t count, const dame::type& t) noexcept {
    const status s = setup(buf, count, t, true);
    if (s == status::ok && tmp_.data()) user_ = buf;
    return s;
}

status stream::prepare_keep(void* buf, int64_t count, const dame::type& t, std::size_t off,
                            std::size_t len) noexcept {
    const status s = prepare(buf, count, t);
    if (s == status::ok && user_ && len)
        dame::pack_range(t, buf, count, static_cast<int64_t>(off), static_cast<int64_t>(len),
                         p_ + off);
    return s;
}

void stream::store(int64_t count) noexcept {
    if (!user_) return;
    dame::unpack(*t_, user_, count < 0 ? count_ : count, p_);
}

// ---- vstream

template <class C, class D>
status vstream::setup(const void* buf, const C* counts, const D* displs, const dame::type& t,
                      int p, int load) noexcept {
    p_ = p;
    t_ = &t;
    const std::size_t psz = static_cast<std::size_t>(p);
    std::byte* d = desc_.get(psz * (sizeof(ch4lite::coll::block) + 2 * sizeof(int64_t)));
    if (!d) return status::no_mem;
    b_ = reinterpret_cast<ch4lite::coll::block*>(d);
    auto* cnt = reinterpret_cast<int64_t*>(d + psz * sizeof(ch4lite::coll::block));
    auto* dsp = cnt + psz;
    std::size_t total = 0;
    for (int i = 0; i < p; ++i) {
        cnt[i] = counts[i];
        dsp[i] = displs[i];
        total += static_cast<std::size_t>(cnt[i] * t.size());
    }
    counts_ = cnt;
    displs_ = dsp;
    auto* base = const_cast<std::byte*>(static_cast<const std::byte*>(buf));
    if (t.contiguous() || total == 0) {
        for (int i = 0; i < p; ++i)
            b_[i] = {base + dsp[i] * t.extent() + t.true_lb(),
                     static_cast<std::size_t>(cnt[i] * t.size())};
        return status::ok;
    }
    std::byte* tmp = tmp_.get(total);
    if (!tmp) return status::no_mem;
    for (int i = 0; i < p; ++i) {
        b_[i] = {tmp, static_cast<std::size_t>(cnt[i] * t.size())};
        if (load == -2 || load == i) dame::pack(t, base + dsp[i] * t.extent(), cnt[i], tmp);
        tmp += b_[i].n;
    }
    user_ = base;
    return status::ok;
}

template <class C, class D>
status vstream::load(const void* buf, const C* counts, const D* displs, const dame::type& t,
                     int p) noexcept {
    const status s = setup(buf, counts, displs, t, p, -2);
    user_ = nullptr;  // send data is never written back
    return s;
}

template <class C, class D>
status vstream::prepare(void* buf, const C* counts, const D* displs, const dame::type& t, int p,
                        int keep) noexcept {
    return setup(buf, counts, displs, t, p, keep);
}

void vstream::store() noexcept {
    if (!user_) return;
    auto* base = static_cast<std::byte*>(user_);
    for (int i = 0; i < p_; ++i)
        if (b_[i].n) dame::unpack(*t_, base + displs_[i] * t_->extent(), counts_[i], b_[i].p);
}

template status vstream::load(const void*, const int*, const int*, const dame::type&, int) noexcept;
template status vstream::load(const void*, const MPI_Count*, const MPI_Aint*, const dame::type&,
                              int) noexcept;
template status vstream::prepare(void*, const int*, const int*, const dame::type&, int,
                                 int) noexcept;
template status vstream::prepare(void*, const MPI_Count*, const MPI_Aint*, const dame::type&, int,
                                 int) noexcept;

}  // namespace ch4lite::api::coll
