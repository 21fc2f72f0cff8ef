// SPDX-License-Identifier: MIT
// external32 moves (external32.hpp).
#include "dame/external32.hpp"

#include <bit>
#include <cfloat>
#include <cstring>

namespace ch4lite::dame {
namespace {

// store_be reverses bytes: big-endian from a little-endian host. The long
// double conversion uses GCC's __float128 (x86-64).
static_assert(std::endian::native == std::endian::little, "external32.cpp assumes a little-endian host");

// How one part of a basic element converts.
enum class conv : uint8_t {
    swap,      // same size, byte order reversed
    narrow_s,  // signed integer, native wider than external32
    narrow_u,  // unsigned integer, the same
    quad,      // long double <-> IEEE binary128
};

struct part {
    int16_t src;   // offset in the native element
    int8_t nlen;   // native bytes
    int8_t elen;   // external32 bytes
    conv how;
};

struct elem {
    int8_t nparts = 0;
    part p[2]{};
    int32_t size = 0;  // external32 bytes of the element
};

// Standard-ABI handles whose external32 size differs from the native one.
constexpr uintptr_t h_long = 0x20a, h_unsigned_long = 0x20e, h_wchar = 0x23c;

part plain(int off, int len) {
    return {static_cast<int16_t>(off), static_cast<int8_t>(len), static_cast<int8_t>(len), conv::swap};
}
part quad_part(int off) {
    return {static_cast<int16_t>(off), static_cast<int8_t>(sizeof(long double)), 16, conv::quad};
}
part long_part(int off, bool is_signed) {
    if (sizeof(long) == 4) return plain(off, 4);
    return {static_cast<int16_t>(off), static_cast<int8_t>(sizeof(long)), 4,
            is_signed ? conv::narrow_s : conv::narrow_u};
}

// One predefined type as external32 parts (nparts 0: not a predefined type).
elem describe(uintptr_t h) {
    elem e;
    const predefined_info* pi = predefined(h);
    if (!pi) return e;
    using K = basic_kind;
    auto add = [&e](part x) {
        e.p[e.nparts++] = x;
        e.size += x.elen;
    };
    const basic_piece* pc = pi->piece;
    switch (pi->kind) {
        case K::long_double: add(quad_part(0)); break;
        case K::complex16:
        case K::complex32:
        case K::complex64:
        case K::complex128:
            add(plain(0, pi->size / 2));
            add(plain(pi->size / 2, pi->size / 2));
            break;
        case K::complex_long_double:
            add(quad_part(0));
            add(quad_part(pi->size / 2));
            break;
        case K::long_int:
            add(long_part(pc[0].disp, true));
            add(plain(pc[1].disp, pc[1].len));
            break;
        case K::long_double_int:
            add(quad_part(pc[0].disp));
            add(plain(pc[1].disp, pc[1].len));
            break;
        case K::wchar:
            if (h == h_wchar && pi->size == 4)
                add({0, 4, 2, conv::narrow_u});
            else
                add(plain(0, pi->size));
            break;
        default:
            if (h == h_long || h == h_unsigned_long) {
                add(long_part(0, h == h_long));
            } else {
                for (int i = 0; i < pi->npieces; ++i) add(plain(pc[i].disp, pc[i].len));
            }
    }
    return e;
}

struct table {
    elem e[256];
    table() {
        for (uintptr_t h = predefined_first; h <= predefined_last; ++h) e[h - predefined_first] = describe(h);
    }
};
const elem& of(const type& t) {
    static const table tab;
    return tab.e[t.predefined_handle() - predefined_first];
}

// ---- byte order ----
void store_be(char* d, const char* s, int n) {
    for (int i = 0; i < n; ++i) d[i] = s[n - 1 - i];
}

// ---- the walk: every basic element of t at typed + off, in type-map order ----
// Elements of one predefined type at off + i*stride + j*step, i < count,
// j < blen, in that order.
struct run {
    int64_t count, stride, blen, step;
};

// f(b, off, r) takes a run of the predefined type b: a block of a
// predefined type, or a whole vector of them, is one call, so that the
// conversion loops (docs/dame.md: doubles 1 -> 26 GB/s).
template <class F>
bool walk(const type& t, int64_t off, F& f);

// The predefined type under k's resized/dup wrappers (which place it at
// their own origin), or nullptr.
const type* leaf_of(const type& k) {
    const type* t = &k;
    while (t->shp() == shape::resized) t = t->kids()[0];
    return t->shp() == shape::predef ? t : nullptr;
}

// n copies of k at off, off + extent(k), ... An empty k holds no element:
// nothing to visit, however large n is (contiguous(2^31 - 1, an empty
// type) walked 2^31 empty copies before, found by dt_random_args).
template <class F>
bool row(const type& k, int64_t off, int64_t n, F& f) {
    if (n == 0 || k.size() == 0) return true;
    if (const type* b = leaf_of(k)) return f(*b, off, run{1, 0, n, k.extent()});
    for (int64_t j = 0; j < n; ++j)
        if (!walk(k, off + j * k.extent(), f)) return false;
    return true;
}

template <class F>
bool walk(const type& t, int64_t off, F& f) {
    switch (t.shp()) {
        case shape::predef: return f(t, off, run{1, 0, 1, t.extent()});
        case shape::hvector:
            if (const type* b = leaf_of(*t.kids()[0]))
                return t.count() == 0 || t.blocklen() == 0 ||
                       f(*b, off, run{t.count(), t.stride(), t.blocklen(), t.kids()[0]->extent()});
            if (t.size() == 0) return true;
            for (int64_t i = 0; i < t.count(); ++i)
                if (!row(*t.kids()[0], off + i * t.stride(), t.blocklen(), f)) return false;
            return true;
        case shape::hblock:
            for (int64_t d : t.disps())
                if (!row(*t.kids()[0], off + d, t.blocklen(), f)) return false;
            return true;
        case shape::hindexed:
            for (size_t i = 0; i < t.blens().size(); ++i)
                if (!row(*t.kids()[0], off + t.disps()[i], t.blens()[i], f)) return false;
            return true;
        case shape::hstruct:
            for (size_t i = 0; i < t.blens().size(); ++i)
                if (!row(*t.kids()[i], off + t.disps()[i], t.blens()[i], f)) return false;
            return true;
        case shape::resized: return walk(*t.kids()[0], off, f);
    }
    return true;
}

// n elements of sizeof(U) bytes, `step` bytes apart at s, reversed into d
// one after the other (pack); or the other way round (unpack, Pack false).
// A function of its own, so that its loop gets the 32-byte alignment this
// file is compiled with (src/dame/CMakeLists.txt): inlined, the loop sat
// wherever the caller left it, across a 64-byte line (doubles 28 -> 15 GB/s).
template <bool Pack, class U, U (*Swap)(U)>
[[gnu::noinline]] void swap_row(const char* s, char* d, int64_t n, int64_t step) {
    for (int64_t j = 0; j < n; ++j) {
        U v;
        std::memcpy(&v, Pack ? s + j * step : s + j * sizeof(U), sizeof(U));
        v = Swap(v);
        std::memcpy(Pack ? d + j * sizeof(U) : d + j * step, &v, sizeof(U));
    }
}

// The elements of r at s (typed) reversed into d one after the other
// (pack), or the other way round (unpack): one swap_row per block, or one
// for all when the blocks follow each other.
template <bool Pack, class U, U (*Swap)(U)>
void swap_loop(const char* s, char* d, run r) {
    constexpr int64_t w = sizeof(U);
    if (r.blen == 1) r = {1, 0, r.count, r.stride};
    else if (r.stride == r.blen * r.step) r = {1, 0, r.count * r.blen, r.step};
    if (r.count == 1) return swap_row<Pack, U, Swap>(s, d, r.blen, r.step);
    for (int64_t i = 0; i < r.count; ++i) {
        if (Pack) swap_row<Pack, U, Swap>(s + i * r.stride, d + i * r.blen * w, r.blen, r.step);
        else swap_row<Pack, U, Swap>(s + i * r.blen * w, d + i * r.stride, r.blen, r.step);
    }
}
uint8_t same8(uint8_t v) { return v; }
uint16_t bswap16(uint16_t v) { return __builtin_bswap16(v); }
uint32_t bswap32(uint32_t v) { return __builtin_bswap32(v); }
uint64_t bswap64(uint64_t v) { return __builtin_bswap64(v); }

template <bool Pack>
void swap_run(const char* s, char* d, const run& r, int len) {
    switch (len) {
        case 1: swap_loop<Pack, uint8_t, same8>(s, d, r); return;
        case 2: swap_loop<Pack, uint16_t, bswap16>(s, d, r); return;
        case 4: swap_loop<Pack, uint32_t, bswap32>(s, d, r); return;
        case 8: swap_loop<Pack, uint64_t, bswap64>(s, d, r); return;
        default:
            for (int64_t i = 0; i < r.count; ++i)
                for (int64_t j = 0; j < r.blen; ++j) {
                    const int64_t typed = i * r.stride + j * r.step, packed = (i * r.blen + j) * len;
                    if (Pack) store_be(d + packed, s + typed, len);
                    else store_be(d + typed, s + packed, len);
                }
    }
}

// Overflow-checked size: multiplies and sums like the walk.
bool size_of(const type& t, int64_t* out) {
    int64_t k = 0, n = 0, s = 0;
    switch (t.shp()) {
        case shape::predef: *out = of(t).size; return true;
        case shape::hvector:
        case shape::hblock: {
            const int64_t blocks = t.shp() == shape::hvector ? t.count() : static_cast<int64_t>(t.disps().size());
            return size_of(*t.kids()[0], &k) && !__builtin_mul_overflow(blocks, t.blocklen(), &n) &&
                   !__builtin_mul_overflow(n, k, out);
        }
        case shape::hindexed:
            if (!size_of(*t.kids()[0], &k)) return false;
            for (int64_t b : t.blens())
                if (__builtin_add_overflow(n, b, &n)) return false;
            return !__builtin_mul_overflow(n, k, out);
        case shape::hstruct:
            for (size_t i = 0; i < t.blens().size(); ++i)
                if (!size_of(*t.kids()[i], &k) || __builtin_mul_overflow(k, t.blens()[i], &n) ||
                    __builtin_add_overflow(s, n, &s))
                    return false;
            *out = s;
            return true;
        case shape::resized: return size_of(*t.kids()[0], out);
    }
    return false;
}

// One part, native -> external32. False if the value does not fit.
bool put(const part& p, const char* s, char* d) {
    switch (p.how) {
        case conv::swap: store_be(d, s, p.nlen); return true;
        case conv::narrow_s: {
            int64_t v = 0;
            std::memcpy(&v, s, 8);
            if (v < INT32_MIN || v > INT32_MAX) return false;
            const int32_t w = static_cast<int32_t>(v);
            store_be(d, reinterpret_cast<const char*>(&w), 4);
            return true;
        }
        case conv::narrow_u: {
            uint64_t v = 0;  // little-endian: the low nlen bytes
            std::memcpy(&v, s, static_cast<size_t>(p.nlen));
            if (v >> (8 * p.elen)) return false;
            store_be(d, reinterpret_cast<const char*>(&v), p.elen);
            return true;
        }
        case conv::quad: {
            long double x;
            std::memcpy(&x, s, sizeof x);
            const __float128 q = x;
            store_be(d, reinterpret_cast<const char*>(&q), 16);
            return true;
        }
    }
    return false;
}

// One part, external32 -> native.
void get(const part& p, const char* s, char* d) {
    switch (p.how) {
        case conv::swap: store_be(d, s, p.nlen); return;
        case conv::narrow_s: {
            int32_t w;
            store_be(reinterpret_cast<char*>(&w), s, 4);
            const int64_t v = w;
            std::memcpy(d, &v, 8);
            return;
        }
        case conv::narrow_u: {
            uint64_t v = 0;
            store_be(reinterpret_cast<char*>(&v), s, p.elen);
            std::memcpy(d, &v, static_cast<size_t>(p.nlen));
            return;
        }
        case conv::quad: {
            __float128 q;
            store_be(reinterpret_cast<char*>(&q), s, 16);
            const long double x = static_cast<long double>(q);
            // x87's 80-bit value is 10 bytes; the padding after it is zeroed
            // rather than left as whatever the register spill held
            constexpr size_t value_bytes = LDBL_MANT_DIG == 64 ? 10 : sizeof(long double);
            std::memset(d, 0, sizeof x);
            std::memcpy(d, &x, value_bytes);
            return;
        }
    }
}

}  // namespace

status ext32_size(const type& t, int64_t* out) noexcept {
    return size_of(t, out) ? status::ok : status::range;
}

status ext32_pack(const type& t, const void* typed, int64_t count, char* out, ext32_fault* fault) noexcept {
    // typed may be MPI_BOTTOM (nullptr): addresses are formed as integers
    const auto base = reinterpret_cast<uintptr_t>(typed);
    int64_t index = 0;
    const type* bad = nullptr;
    auto f = [&](const type& b, int64_t off, const run& r) {
        const elem& e = of(b);
        const char* s = reinterpret_cast<const char*>(base + static_cast<uintptr_t>(off));
        if (e.nparts == 1 && e.p[0].how == conv::swap) {
            swap_run<true>(s + e.p[0].src, out, r, e.p[0].nlen);
            out += r.count * r.blen * e.p[0].elen;
            index += r.count * r.blen * b.predef()->elements;
            return true;
        }
        for (int64_t i = 0; i < r.count; ++i)
            for (int64_t j = 0; j < r.blen; ++j) {
                const char* x = s + i * r.stride + j * r.step;
                for (int p = 0; p < e.nparts; ++p) {
                    if (!put(e.p[p], x + e.p[p].src, out)) {
                        bad = &b;
                        return false;
                    }
                    out += e.p[p].elen;
                }
                index += b.predef()->elements;
            }
        return true;
    };
    if (!row(t, 0, count, f)) {
        if (fault) *fault = {index, bad->predef()->name};
        return status::range;
    }
    return status::ok;
}

void ext32_unpack(const type& t, void* typed, int64_t count, const char* in) noexcept {
    const auto base = reinterpret_cast<uintptr_t>(typed);
    auto f = [&](const type& b, int64_t off, const run& r) {
        const elem& e = of(b);
        char* d = reinterpret_cast<char*>(base + static_cast<uintptr_t>(off));
        if (e.nparts == 1 && e.p[0].how == conv::swap) {
            swap_run<false>(in, d + e.p[0].src, r, e.p[0].nlen);
            in += r.count * r.blen * e.p[0].elen;
            return true;
        }
        for (int64_t i = 0; i < r.count; ++i)
            for (int64_t j = 0; j < r.blen; ++j) {
                char* x = d + i * r.stride + j * r.step;
                for (int p = 0; p < e.nparts; ++p) {
                    get(e.p[p], in, x + e.p[p].src);
                    in += e.p[p].elen;
                }
            }
        return true;
    };
    (void)row(t, 0, count, f);
}

}  // namespace ch4lite::dame
