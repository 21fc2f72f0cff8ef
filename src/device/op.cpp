// SPDX-License-Identifier: MIT
// Predefined ops: handle decoding, the op/kind validity table and the
// dispatch from (op, kind) to a kernel (device/op_kernels.hpp).
#include "device/op.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "device/op_kernels.hpp"
#include "util/env.hpp"

namespace ch4lite::dev {

namespace {

using dame::basic_kind;

// What an element kind is, for the validity table.
enum class family : uint8_t { none, c_integer, f_integer, real, complex, logical, byte, pair, character };

family family_of(basic_kind k) noexcept {
    switch (k) {
        case basic_kind::int8: case basic_kind::uint8: case basic_kind::int16:
        case basic_kind::uint16: case basic_kind::int32: case basic_kind::uint32:
        case basic_kind::int64: case basic_kind::uint64: case basic_kind::schar:
        case basic_kind::uchar:
            return family::c_integer;
        case basic_kind::int128: return family::f_integer;  // MPI_INTEGER16
        case basic_kind::float16: case basic_kind::float32: case basic_kind::float64:
        case basic_kind::long_double: case basic_kind::float128:
            return family::real;
        case basic_kind::complex16: case basic_kind::complex32: case basic_kind::complex64:
        case basic_kind::complex_long_double: case basic_kind::complex128:
            return family::complex;
        case basic_kind::bool_: case basic_kind::logical1: case basic_kind::logical2:
        case basic_kind::logical4: case basic_kind::logical8: case basic_kind::logical16:
            return family::logical;
        case basic_kind::byte: return family::byte;
        case basic_kind::float_int: case basic_kind::double_int: case basic_kind::long_int:
        case basic_kind::int_int: case basic_kind::short_int: case basic_kind::long_double_int:
        case basic_kind::real_real: case basic_kind::double_double:
        case basic_kind::integer_integer:
            return family::pair;
        case basic_kind::char_: case basic_kind::wchar: return family::character;
        default: return family::none;
    }
}

}  // namespace

bool predefined_op(MPI_Op h, op_id& out) noexcept {
    switch (reinterpret_cast<uintptr_t>(h)) {
        case 0x21: out = op_id::sum; return true;
        case 0x22: out = op_id::min; return true;
        case 0x23: out = op_id::max; return true;
        case 0x24: out = op_id::prod; return true;
        case 0x28: out = op_id::band; return true;
        case 0x29: out = op_id::bor; return true;
        case 0x2a: out = op_id::bxor; return true;
        case 0x30: out = op_id::land; return true;
        case 0x31: out = op_id::lor; return true;
        case 0x32: out = op_id::lxor; return true;
        case 0x38: out = op_id::minloc; return true;
        case 0x39: out = op_id::maxloc; return true;
        case 0x3c: out = op_id::replace; return true;
        case 0x3d: out = op_id::no_op; return true;
        default: return false;
    }
}

const char* op_name(op_id op) noexcept {
    static constexpr const char* names[] = {
        "MPI_SUM", "MPI_PROD", "MPI_MIN", "MPI_MAX", "MPI_LAND", "MPI_LOR", "MPI_LXOR",
        "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
    static_assert(sizeof names / sizeof names[0] == static_cast<int>(op_id::count_));
    const auto i = static_cast<unsigned>(op);
    return i < static_cast<unsigned>(op_id::count_) ? names[i] : "user op";
}

std::size_t packed_size(basic_kind k) noexcept {
    switch (k) {
        case basic_kind::byte: case basic_kind::char_: case basic_kind::schar:
        case basic_kind::uchar: case basic_kind::int8: case basic_kind::uint8:
        case basic_kind::logical1:
            return 1;
        case basic_kind::bool_: return sizeof(bool);
        case basic_kind::wchar: return sizeof(wchar_t);
        case basic_kind::int16: case basic_kind::uint16: case basic_kind::float16:
        case basic_kind::logical2:
            return 2;
        case basic_kind::int32: case basic_kind::uint32: case basic_kind::float32:
        case basic_kind::logical4: case basic_kind::complex16:
            return 4;
        case basic_kind::int64: case basic_kind::uint64: case basic_kind::float64:
        case basic_kind::logical8: case basic_kind::complex32: case basic_kind::int_int:
        case basic_kind::float_int: case basic_kind::real_real:
        case basic_kind::integer_integer:
            return 8;
        case basic_kind::int128: case basic_kind::float128: case basic_kind::logical16:
        case basic_kind::complex64: case basic_kind::double_double:
            return 16;
        case basic_kind::long_double: return sizeof(long double);
        case basic_kind::complex_long_double: return 2 * sizeof(long double);
        case basic_kind::complex128: return 32;
        case basic_kind::double_int: return sizeof(double) + sizeof(int);
        case basic_kind::long_int: return sizeof(long) + sizeof(int);
        case basic_kind::short_int: return sizeof(short) + sizeof(int);
        case basic_kind::long_double_int: return sizeof(long double) + sizeof(int);
        default: return 0;
    }
}

bool op_applies(op_id op, basic_kind k) noexcept {
    const family f = family_of(k);
    if (f == family::none) return false;
    // Extension (docs/collectives.md): MPI_CHAR takes the arithmetic ops as
    // signed char, as MPICH and Open MPI accept it (the OSU benchmarks'
    // default type); MPI-4.1 defines none on character types.
    const bool integer = f == family::c_integer || f == family::f_integer ||
                         (k == basic_kind::char_ && (op == op_id::sum || op == op_id::prod ||
                                                     op == op_id::min || op == op_id::max));
    switch (op) {
        case op_id::min: case op_id::max: return integer || f == family::real;
        case op_id::sum: case op_id::prod:
            return integer || f == family::real || f == family::complex;
        case op_id::land: case op_id::lor: case op_id::lxor:
            return f == family::c_integer || f == family::logical;
        case op_id::band: case op_id::bor: case op_id::bxor: return integer || f == family::byte;
        case op_id::minloc: case op_id::maxloc: return f == family::pair;
        case op_id::replace: case op_id::no_op: return true;
        default: return false;
    }
}

namespace {

// The hot kinds at each level (op_kernels.hpp, hot()). The target attributes
// enable no FMA, so nothing can contract into a fused operation.
bool hot_baseline(op_id op, basic_kind k, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    return kern::hot(op, k, in, io, n);
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] bool hot_avx2(op_id op, basic_kind k, const std::byte* in, std::byte* io,
                                       std::size_t n) noexcept {
    return kern::hot(op, k, in, io, n);
}
[[gnu::target("avx512f,avx512bw,avx512dq,avx512vl,prefer-vector-width=512")]] bool hot_avx512(
    op_id op, basic_kind k, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    return kern::hot(op, k, in, io, n);
}
#endif

op_isa detect() noexcept {
#if defined(__x86_64__)
    __builtin_cpu_init();  // we may run before libgcc's constructor
    // __builtin_cpu_supports also checks that the OS saves the vector state (xgetbv).
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return op_isa::avx512;
    if (__builtin_cpu_supports("avx2")) return op_isa::avx2;
#endif
    return op_isa::baseline;
}

op_isa pick() noexcept {
    const op_isa best = detect();
    const char* want = util::env_str("CH4LITE_OP_ISA", "");
    op_isa cap = op_isa::avx512;
    if (!std::strcmp(want, "baseline")) cap = op_isa::baseline;
    else if (!std::strcmp(want, "avx2")) cap = op_isa::avx2;
    else if (*want && std::strcmp(want, "avx512") && std::strcmp(want, "auto"))
        std::fprintf(stderr, "ch4lite: ignoring CH4LITE_OP_ISA=%s: not auto, avx512, avx2 or baseline\n",
                     want);
    return std::min(best, cap);
}

// Chosen at load (dynamic initialization of libmpi), not per call.
const op_isa g_supported = detect();
const op_isa g_used = pick();

// The kinds outside hot(): rarer types, each at the baseline level.
void apply_cold(op_id op, basic_kind k, const std::byte* in, std::byte* io, std::size_t n) noexcept {
    using namespace kern;
    switch (k) {
        case basic_kind::int128: integer<__int128>(op, in, io, n); break;
        case basic_kind::float16: real<_Float16>(op, in, io, n); break;
        case basic_kind::long_double: real<long double>(op, in, io, n); break;
        case basic_kind::float128: real<__float128>(op, in, io, n); break;
        case basic_kind::complex16: complex<_Float16>(op, in, io, n); break;
        case basic_kind::complex32: complex<float>(op, in, io, n); break;
        case basic_kind::complex64: complex<double>(op, in, io, n); break;
        case basic_kind::complex_long_double: complex<long double>(op, in, io, n); break;
        case basic_kind::complex128: complex<__float128>(op, in, io, n); break;
        case basic_kind::bool_: case basic_kind::logical1: logical<uint8_t>(op, in, io, n); break;
        case basic_kind::logical2: logical<uint16_t>(op, in, io, n); break;
        case basic_kind::logical4: logical<uint32_t>(op, in, io, n); break;
        case basic_kind::logical8: logical<uint64_t>(op, in, io, n); break;
        case basic_kind::logical16: logical<unsigned __int128>(op, in, io, n); break;
        case basic_kind::float_int: loc<float, int>(op, in, io, n); break;
        case basic_kind::double_int: loc<double, int>(op, in, io, n); break;
        case basic_kind::long_int: loc<long, int>(op, in, io, n); break;
        case basic_kind::int_int: case basic_kind::integer_integer: loc<int, int>(op, in, io, n); break;
        case basic_kind::short_int: loc<short, int>(op, in, io, n); break;
        case basic_kind::long_double_int: loc<long double, int>(op, in, io, n); break;
        case basic_kind::real_real: loc<float, float>(op, in, io, n); break;
        case basic_kind::double_double: loc<double, double>(op, in, io, n); break;
        default: break;
    }
}

[[gnu::always_inline]] inline void apply(op_isa isa, op_id op, basic_kind k, const void* in_v,
                                         void* io_v, std::size_t n) noexcept {
    // Pairs op_applies() rejects reach no kernel below (each family's kernel
    // ignores the ops it does not define), so no check is needed here.
    if (n == 0 || packed_size(k) == 0) return;
    const auto* in = static_cast<const std::byte*>(in_v);
    auto* io = static_cast<std::byte*>(io_v);
    if (op == op_id::no_op) return;
    if (op == op_id::replace) {
        if (in != io) std::memmove(io, in, n * packed_size(k));
        return;
    }
    bool done;
    switch (isa) {
#if defined(__x86_64__)
        case op_isa::avx512: done = hot_avx512(op, k, in, io, n); break;
        case op_isa::avx2: done = hot_avx2(op, k, in, io, n); break;
#endif
        default: done = hot_baseline(op, k, in, io, n); break;
    }
    if (!done) apply_cold(op, k, in, io, n);
}

}  // namespace

op_isa op_isa_supported() noexcept { return g_supported; }
op_isa op_isa_used() noexcept { return g_used; }

const char* op_isa_name(op_isa isa) noexcept {
    switch (isa) {
        case op_isa::avx512: return "avx512";
        case op_isa::avx2: return "avx2";
        default: return "baseline";
    }
}

void op_apply(op_id op, basic_kind k, const void* in, void* inout, std::size_t n) noexcept {
    apply(g_used, op, k, in, inout, n);
}

void op_apply_isa(op_isa isa, op_id op, basic_kind k, const void* in, void* inout,
                  std::size_t n) noexcept {
    apply(std::min(isa, g_supported), op, k, in, inout, n);
}

}  // namespace ch4lite::dev
