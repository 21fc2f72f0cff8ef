// SPDX-License-Identifier: MIT
// external32 moves (external32.hpp).
#include "dame/external32.hpp"

#include <bit>
#include <cfloat>
#include <cstring>
#include <new>
#include <unordered_map>

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

// The predefined type under k's resized/dup wrappers (which place it at
// their own origin), or nullptr.
const type* leaf_of(const type& k) {
    const type* t = &k;
    while (t->shp() == shape::resized) t = t->kids()[0];
    return t->shp() == shape::predef ? t : nullptr;
}

// Every basic element of n copies of k at off, off + extent(k), ... in
// type-map order: f(b, off, r) takes a run of the predefined type b, a
// block of one, or a whole vector of them, in one call, so that the
// conversion loops run long (docs/dame-external32.md: doubles 1 -> 26 GB/s). False
// when f asked to stop.
//
// No recursion: a stack of the types being walked, each at its block i and
// copy j (a type nested a million levels deep is walked like any other; up
// to 32 levels the stack allocates nothing, beyond it may throw
// std::bad_alloc). An empty block holds no element: nothing to visit,
// however many copies it has (contiguous(2^31 - 1, an empty type) walked
// 2^31 empty copies before, found by dt_random_args).
template <class F>
bool walk_row(const type& k0, int64_t off0, int64_t n0, F& f) {
    struct frame {
        const type* t;  // hvector / hblock / hindexed / hstruct; nullptr: the n0 copies of k0
        int64_t off, i, j;
    };
    small_stack<frame, 32> st;
    st.push({nullptr, off0, 0, 0});
    while (!st.empty()) {
        frame& fr = st.top();
        // Block i of the frame: n copies of k at base.
        const type* k = &k0;
        int64_t base = fr.off, n = n0;
        if (!fr.t) {
            if (fr.i > 0) {
                st.pop();
                continue;
            }
        } else {
            const type& t = *fr.t;
            const shape sh = t.shp();
            const auto blocks = sh == shape::hvector ? t.count()
                                : sh == shape::hblock ? static_cast<int64_t>(t.disps().size())
                                                      : static_cast<int64_t>(t.blens().size());
            if (fr.i >= blocks) {
                st.pop();
                continue;
            }
            k = t.kids()[sh == shape::hstruct ? fr.i : 0];
            base += sh == shape::hvector ? fr.i * t.stride() : t.disps()[fr.i];
            n = sh == shape::hvector || sh == shape::hblock ? t.blocklen() : t.blens()[fr.i];
        }
        if (fr.j == n || k->size() == 0) {
            ++fr.i, fr.j = 0;
            continue;
        }
        if (fr.j == 0)
            if (const type* b = leaf_of(*k)) {
                ++fr.i;
                if (!f(*b, base, run{1, 0, n, k->extent()})) return false;
                continue;
            }
        const int64_t at = base + fr.j++ * k->extent();
        // Copy j of k, at `at` (resized places its child at its own origin).
        const type* u = k;
        while (u->shp() == shape::resized) u = u->kids()[0];
        if (u->shp() == shape::predef) {
            if (!f(*u, at, run{1, 0, 1, u->extent()})) return false;
            continue;
        }
        if (u->shp() == shape::hvector) {
            if (const type* b = leaf_of(*u->kids()[0])) {
                if (u->count() != 0 && u->blocklen() != 0 &&
                    !f(*b, at, run{u->count(), u->stride(), u->blocklen(), u->kids()[0]->extent()}))
                    return false;
                continue;
            }
        }
        if (u->size() == 0) continue;
        st.push({u, at, 0, 0});  // fr is not used after this
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

// Whether a type map of this element kind can hold an element whose
// external32 size is not its native size: MPI_LONG, MPI_UNSIGNED_LONG
// (int64 / uint64 kinds), MPI_WCHAR, MPI_LONG_INT, or a mix. Every other
// kind keeps its size (long double is binary128 in 16 bytes either way).
bool may_narrow(basic_kind k) {
    return k == basic_kind::mixed || k == basic_kind::int64 || k == basic_kind::uint64 ||
           k == basic_kind::wchar || k == basic_kind::long_int;
}

// Copies of child i of t (a derived, non-empty type); false on overflow.
bool copies_of(const type& t, size_t i, int64_t* n) {
    switch (t.shp()) {
        case shape::hvector: return !__builtin_mul_overflow(t.count(), t.blocklen(), n);
        case shape::hblock:
            return !__builtin_mul_overflow(static_cast<int64_t>(t.disps().size()), t.blocklen(), n);
        case shape::hindexed:
            *n = 0;
            for (int64_t b : t.blens())
                if (__builtin_add_overflow(*n, b, n)) return false;
            return true;
        case shape::hstruct: *n = t.blens()[i]; return true;
        default: *n = 1; return true;  // resized
    }
}

// The external32 size of one instance of t, overflow-checked: a predefined
// type's from the table, a type that cannot narrow its native size, a
// derived one the sum over its children. Iterative (a stack of the types
// being summed), and each derived type is summed once, whatever the number
// of paths to it (struct{T, T} nested 60 levels has 2^60 paths). May throw
// std::bad_alloc.
bool size_of(const type& root, int64_t* out) {
    auto known = [](const type& t, int64_t* v) {
        if (t.shp() == shape::predef) return *v = of(t).size, true;
        if (t.size() == 0 || !may_narrow(t.basic())) return *v = t.size(), true;
        return false;
    };
    if (known(root, out)) return true;
    struct frame {
        const type* t;
        size_t i;     // next child
        int64_t acc;  // external32 bytes of the children so far
    };
    small_stack<frame, 32> st;
    std::unordered_map<const type*, int64_t> memo;  // derived types summed
    st.push({&root, 0, 0});
    int64_t done = 0;        // the size of the child just summed
    bool have_done = false;  // done is to be added to the top frame's child i
    while (!st.empty()) {
        frame& f = st.top();
        const type& t = *f.t;
        const size_t kids = t.shp() == shape::hstruct ? t.kids().size() : 1;
        if (have_done || f.i < kids) {
            int64_t n = 0, v = 0, add = 0;
            if (!copies_of(t, f.i, &n)) return false;
            if (have_done) {
                v = done, have_done = false;
            } else if (n != 0 && !known(*t.kids()[f.i], &v)) {
                const type* k = t.kids()[f.i];
                if (auto it = memo.find(k); it != memo.end()) {
                    v = it->second;
                } else {
                    st.push({k, 0, 0});  // f is not used after this
                    continue;
                }
            }
            if (n != 0 && (__builtin_mul_overflow(n, v, &add) || __builtin_add_overflow(f.acc, add, &f.acc)))
                return false;
            ++f.i;
            continue;
        }
        done = f.acc, have_done = true;
        if (st.size() > 1) memo.emplace(f.t, done);  // the root is not met again
        st.pop();
    }
    *out = done;
    return true;
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

status ext32_size(const type& t, int64_t* out) noexcept try {
    return size_of(t, out) ? status::ok : status::range;
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

status ext32_pack(const type& t, const void* typed, int64_t count, char* out, ext32_fault* fault) noexcept try {
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
    if (!walk_row(t, 0, count, f)) {
        if (fault) *fault = {index, bad->predef()->name};
        return status::range;
    }
    return status::ok;
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

status ext32_unpack(const type& t, void* typed, int64_t count, const char* in) noexcept try {
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
    (void)walk_row(t, 0, count, f);
    return status::ok;
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

}  // namespace ch4lite::dame
