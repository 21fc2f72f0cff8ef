// SPDX-License-Identifier: MIT
// MPI_Pack / MPI_Unpack / MPI_Pack_size. The packed format is the raw type
// map bytes (no header, no conversion): Pack_size is exact.
#include <climits>

#include "api/datatype_util.hpp"
#include "api/handles.hpp"
#include "dame/dame.hpp"
#include "dame/quick.hpp"

using namespace ch4lite;

#define PK_FAIL(cls, ...) \
    return ::ch4lite::api::raise(comm, ::ch4lite::api::error_code((cls), fn, __VA_ARGS__))

namespace {

// Common checks; on success *t is the committed type and *bytes the stream size.
[[gnu::always_inline]] inline int check(const char* fn, int64_t count, MPI_Datatype datatype, MPI_Comm comm,
          const dame::type** t, int64_t* bytes) {
    if (!api::comm_is_valid(comm))
        PK_FAIL(MPI_ERR_COMM, "invalid communicator %p", static_cast<void*>(comm));
    if (const int code = api::dt::check_moved_type(fn, count, datatype, t)) return api::raise(comm, code);
    if (__builtin_mul_overflow(count, (*t)->size(), bytes))
        PK_FAIL(MPI_ERR_COUNT, "count %lld times datatype size %lld overflows 64 bits",
                static_cast<long long>(count), static_cast<long long>((*t)->size()));
    return MPI_SUCCESS;
}

// Remembers datatype (t, committed) for the next call: in detail::g_quick
// if the first fast path of MPI_Pack/MPI_Unpack can move it, else in
// detail::g_quick_typed if it has data.
void remember_quick(MPI_Datatype datatype, const dame::type& t) noexcept {
    const auto h = reinterpret_cast<uintptr_t>(datatype);
    if (dame::quick_type(t) && dame::quick_bytes(t.size()))
        api::detail::g_quick = {h, t.size(), t.true_lb()};
    else if (t.size() > 0)
        api::detail::g_quick_typed = {h, t.size(), &t,
                                      dame::quick_bytes(t.size()) ? dame::quick_kernel_root(t) : nullptr};
}

template <class N>
int pack_impl(const char* fn, const void* inbuf, int64_t incount, MPI_Datatype datatype,
              void* outbuf, int64_t outsize, N* position, MPI_Comm comm) {
    DT_REQUIRE_INIT();
    const dame::type* t = nullptr;
    int64_t bytes = 0;
    DT_TRY(check(fn, incount, datatype, comm, &t, &bytes));
    remember_quick(datatype, *t);
    const int64_t pos = position ? *position : 0;
    if (const int code = api::dt::check_span(fn, true, "packed ", !position, pos, outsize, bytes, outbuf))
        return api::raise(comm, code);
    if (bytes > 0) dame::pack(*t, inbuf, incount, static_cast<char*>(outbuf) + pos);
    *position = static_cast<N>(pos + bytes);
    return MPI_SUCCESS;
}

template <class N>
int unpack_impl(const char* fn, const void* inbuf, int64_t insize, N* position, void* outbuf,
                int64_t outcount, MPI_Datatype datatype, MPI_Comm comm) {
    DT_REQUIRE_INIT();
    const dame::type* t = nullptr;
    int64_t bytes = 0;
    DT_TRY(check(fn, outcount, datatype, comm, &t, &bytes));
    remember_quick(datatype, *t);
    const int64_t pos = position ? *position : 0;
    if (const int code = api::dt::check_span(fn, false, "", !position, pos, insize, bytes, inbuf))
        return api::raise(comm, code);
    if (bytes > 0) dame::unpack(*t, outbuf, outcount, static_cast<const char*>(inbuf) + pos);
    *position = static_cast<N>(pos + bytes);
    return MPI_SUCCESS;
}

template <class N>
int pack_size_impl(const char* fn, int64_t incount, MPI_Datatype datatype, MPI_Comm comm, N* size) {
    DT_REQUIRE_INIT();
    const dame::type* t = nullptr;
    int64_t bytes = 0;
    if (!api::comm_is_valid(comm))
        PK_FAIL(MPI_ERR_COMM, "invalid communicator %p", static_cast<void*>(comm));
    if (incount < 0) PK_FAIL(MPI_ERR_COUNT, "invalid incount %lld: must be >= 0", static_cast<long long>(incount));
    t = api::lookup_type(datatype);
    if (!t) PK_FAIL(MPI_ERR_TYPE, "invalid datatype %p", static_cast<void*>(datatype));
    if (!size) PK_FAIL(MPI_ERR_ARG, "invalid size: must not be NULL");
    // A size the output cannot hold: MPI_ERR_VALUE_TOO_LARGE (MPI-4.1).
    if (__builtin_mul_overflow(incount, t->size(), &bytes) || (sizeof(N) < 8 && bytes > INT_MAX))
        PK_FAIL(MPI_ERR_VALUE_TOO_LARGE, "packed size of %lld elements of %lld bytes does not fit%s",
                static_cast<long long>(incount), static_cast<long long>(t->size()),
                sizeof(N) < 8 ? " in an int: use MPI_Pack_size_c" : " in 64 bits");
    *size = static_cast<N>(bytes);
    return MPI_SUCCESS;
}

// The fast path of MPI_Pack/MPI_Unpack and their _c forms, once the caller
// has seen MPI_COMM_WORLD: the committed contiguous type detail::g_quick
// remembers, 1 to dame::stream_floor - 1 bytes and no argument that raises
// an error. It returns true with the bytes to move and the type's true
// lower bound, or false: then the call takes the checked path, which
// accepts all that is accepted here, moves the same bytes and remembers the
// type for the next call. g_quick's size is below stream_floor, so with
// 0 < count < stream_floor the product cannot overflow.
//
// The checked path calls dame::pack, which calls whole(), with six
// registers saved; here the copy is inline and the checked path is a tail
// call to a function of its own. One 480-byte block (NAS_LU_x/12): 10.2 ->
// 8.6-9.1 ns, memcpy alone 4.7. Looking the type up (handle table, slot,
// type: three dependent loads before the copy's addresses are known) took
// most of the rest: with g_quick and copy_one, 6.5-7.1 ns.
// Whether b bytes fit at position pos of a buffer of size bytes: what
// check_span (datatype_util.cpp) raises its errors for, here only tested by
// the fast paths, which leave every error to the checked path.
[[gnu::always_inline]] inline bool fits(int64_t pos, int64_t size, int64_t b) noexcept {
    return pos >= 0 && pos <= size && b <= size - pos;
}

template <class C, class N>
[[gnu::always_inline]] inline bool quick(C count, MPI_Datatype datatype, C size, const N* position,
                                         const void* buf, int64_t* bytes, int64_t* true_lb) noexcept {
    const auto& last = api::detail::g_quick;
    if (reinterpret_cast<uintptr_t>(datatype) != last.handle || !position || !buf) return false;
    if (static_cast<uint64_t>(count) - 1 >= static_cast<uint64_t>(dame::stream_floor) - 1) return false;
    const int64_t pos = *position;
    const int64_t b = static_cast<int64_t>(count) * last.size;
    if (b <= 0 || !dame::quick_bytes(b) || !fits(pos, size, b)) return false;
    *bytes = b;
    *true_lb = last.true_lb;
    return true;
}

// The second fast path: the type detail::g_quick_typed remembers, any count
// from 1, no argument that raises an error. It returns whether it applies,
// and the bytes to move; if not, the call takes the checked path. move_typed
// moves the bytes with dame::pack()/unpack(), as the checked path does, or
// for one element of a one-kernel type with that kernel, as they do for
// count 1 below stream_floor (whole() -> run_full() on the root).
// This skips the checked path's type look-up, its checks and two calls:
// one element of NAS_LU_y/12's type (twelve 40-byte blocks), MPI_Pack
// 42-43 -> 17-19 ns; a small struct of two kernels 56-59 -> 30-32 ns
// (docs/dame-programs.md).
template <class C, class N>
[[gnu::always_inline]] inline bool quick_typed(C count, MPI_Datatype datatype, C size, const N* position,
                                               const void* buf, int64_t* bytes) noexcept {
    const auto& last = api::detail::g_quick_typed;
    if (reinterpret_cast<uintptr_t>(datatype) != last.handle || count < 1 || !position || !buf) return false;
    int64_t b = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(count), last.size, &b)) return false;
    if (!fits(*position, size, b)) return false;
    *bytes = b;
    return true;
}

// The move of the second fast path, for the type g_quick_typed remembers:
// its root's kernel for one element of a one-kernel type, else
// dame::pack()/unpack(). A function of its own, reached by a tail call, so
// that MPI_Pack/MPI_Unpack keep no register across a call: with these
// calls inline GCC pushed and popped a third register on every call, the
// contiguous fast path's included (MPI_Pack of 40 contiguous bytes, 10 M
// calls: 8.4-8.9 -> 9.8-10.1 ns; 8.0-8.8 again with this function).
template <dame::dir D>
[[gnu::noinline]] int move_typed(char* typed, int64_t count, char* packed) noexcept {
    const auto& q = api::detail::g_quick_typed;
    if (const dame::node* n = q.root; n && count == 1)
        dame::kernel<D>(n->kern)(*n, typed + n->disp, packed);
    else if constexpr (D == dame::dir::pack)
        dame::pack(*q.type, typed, count, packed);
    else
        dame::unpack(*q.type, typed, count, packed);
    return MPI_SUCCESS;
}

template <class C, class N>
[[gnu::noinline]] int pack_checked(const void* inbuf, C incount, MPI_Datatype datatype, void* outbuf,
                                   C outsize, N* position, MPI_Comm comm) {
    return pack_impl(sizeof(C) == sizeof(int) ? "MPI_Pack" : "MPI_Pack_c", inbuf, incount, datatype,
                     outbuf, outsize, position, comm);
}

template <class C, class N>
[[gnu::noinline]] int unpack_checked(const void* inbuf, C insize, N* position, void* outbuf,
                                     C outcount, MPI_Datatype datatype, MPI_Comm comm) {
    return unpack_impl(sizeof(C) == sizeof(int) ? "MPI_Unpack" : "MPI_Unpack_c", inbuf, insize,
                       position, outbuf, outcount, datatype, comm);
}

// The checked path once the communicator is known to be MPI_COMM_WORLD: the
// fast path's other checks then keep no register for comm, the seventh
// argument, which the x86-64 convention passes on the stack. GCC saved two
// registers per call instead of three; MPI_Unpack of 8 bytes 4.36 -> 4.1 ns,
// MPI_Pack level.
template <class C, class N>
[[gnu::noinline]] int pack_checked_world(const void* inbuf, C incount, MPI_Datatype datatype,
                                         void* outbuf, C outsize, N* position) {
    return pack_checked(inbuf, incount, datatype, outbuf, outsize, position, MPI_COMM_WORLD);
}

template <class C, class N>
[[gnu::noinline]] int unpack_checked_world(const void* inbuf, C insize, N* position, void* outbuf,
                                           C outcount, MPI_Datatype datatype) {
    return unpack_checked(inbuf, insize, position, outbuf, outcount, datatype, MPI_COMM_WORLD);
}

// The copy of the fast path: dame::copy_one, which moves the same bytes as
// pack()/unpack() do for a contiguous type. It is reached by a tail call
// through a pointer, so that MPI_Pack itself has no loop and no call: with
// the copy inline GCC saved and restored four registers on every call, and
// the x86-64-v4 copy_one needs no memcpy call below 16 KiB.
[[gnu::always_inline]] inline int copy_quick(char* __restrict d, const char* __restrict s,
                                             int64_t n) noexcept {
    return dame::copy_one(d, s, n);
}

// *position is written before the copy, so that nothing stays live across
// it; MPI forbids aliasing an INOUT argument with another argument.
template <class C, class N>
[[gnu::always_inline]] inline int pack_entry(const void* inbuf, C incount, MPI_Datatype datatype,
                                             void* outbuf, C outsize, N* position, MPI_Comm comm) {
    if (!api::is_initialized() || comm != MPI_COMM_WORLD) [[unlikely]]
        return pack_checked(inbuf, incount, datatype, outbuf, outsize, position, comm);
    int64_t bytes = 0, lb = 0;
    if (quick(incount, datatype, outsize, position, outbuf, &bytes, &lb)) [[likely]] {
        const int64_t pos = *position;
        *position = static_cast<N>(pos + bytes);
        return copy_quick(static_cast<char*>(outbuf) + pos, static_cast<const char*>(inbuf) + lb, bytes);
    }
    if (quick_typed(incount, datatype, outsize, position, outbuf, &bytes)) {
        const int64_t pos = *position;
        *position = static_cast<N>(pos + bytes);
        return move_typed<dame::dir::pack>(const_cast<char*>(static_cast<const char*>(inbuf)), incount,
                                           static_cast<char*>(outbuf) + pos);
    }
    return pack_checked_world(inbuf, incount, datatype, outbuf, outsize, position);
}

template <class C, class N>
[[gnu::always_inline]] inline int unpack_entry(const void* inbuf, C insize, N* position, void* outbuf,
                                               C outcount, MPI_Datatype datatype, MPI_Comm comm) {
    if (!api::is_initialized() || comm != MPI_COMM_WORLD) [[unlikely]]
        return unpack_checked(inbuf, insize, position, outbuf, outcount, datatype, comm);
    int64_t bytes = 0, lb = 0;
    if (quick(outcount, datatype, insize, position, inbuf, &bytes, &lb)) [[likely]] {
        const int64_t pos = *position;
        *position = static_cast<N>(pos + bytes);
        return copy_quick(static_cast<char*>(outbuf) + lb, static_cast<const char*>(inbuf) + pos, bytes);
    }
    if (quick_typed(outcount, datatype, insize, position, inbuf, &bytes)) {
        const int64_t pos = *position;
        *position = static_cast<N>(pos + bytes);
        return move_typed<dame::dir::unpack>(static_cast<char*>(outbuf), outcount,
                                             const_cast<char*>(static_cast<const char*>(inbuf)) + pos);
    }
    return unpack_checked_world(inbuf, insize, position, outbuf, outcount, datatype);
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Pack)
int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
             int* position, MPI_Comm comm) {
    CH4_API_LOCK();
    return pack_entry(inbuf, incount, datatype, outbuf, outsize, position, comm);
}
CH4_PMPI(MPI_Pack_c)
int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
               MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
    CH4_API_LOCK();
    return pack_entry(inbuf, incount, datatype, outbuf, outsize, position, comm);
}
CH4_PMPI(MPI_Unpack)
int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
    CH4_API_LOCK();
    return unpack_entry(inbuf, insize, position, outbuf, outcount, datatype, comm);
}
CH4_PMPI(MPI_Unpack_c)
int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
    CH4_API_LOCK();
    return unpack_entry(inbuf, insize, position, outbuf, outcount, datatype, comm);
}
CH4_PMPI(MPI_Pack_size)
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
    CH4_API_LOCK();
    return pack_size_impl(__func__, incount, datatype, comm, size);
}
CH4_PMPI(MPI_Pack_size_c)
int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
    CH4_API_LOCK();
    return pack_size_impl(__func__, incount, datatype, comm, size);
}

}  // extern "C"
