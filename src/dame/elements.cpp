// SPDX-License-Identifier: MIT
// MPI_Get_elements: basic elements contained in a packed byte count. Whole
// instances are counted in O(1); a trailing partial instance is walked in
// type-map order, skipping whole children by division (O(depth) for regular
// types, O(blocks) for index lists).
#include "dame/type.hpp"

namespace ch4lite::dame {
namespace {

int64_t partial(const type& t, int64_t rem);

// `n` children of k in a row, `rem` bytes available: elements fully inside.
// Sets rem to what is left after the row (0 if the row was cut short).
int64_t row(const type& k, int64_t n, int64_t& rem, bool& stop) {
    const int64_t ks = k.size();
    if (ks == 0 || n == 0) return 0;
    if (rem >= ks && rem / ks >= n) {
        rem -= n * ks;
        return n * k.elements();
    }
    const int64_t i = rem / ks;
    stop = true;
    return i * k.elements() + partial(k, rem - i * ks);
}

int64_t partial(const type& t, int64_t rem) {
    if (rem <= 0) return 0;
    bool stop = false;
    int64_t n = 0;
    switch (t.shp()) {
        case shape::predef: {
            const predefined_info* p = t.predef();
            for (int i = 0; i < p->npieces && rem >= p->piece[i].len; ++i) {
                rem -= p->piece[i].len;
                n += p->elements / p->npieces;
            }
            return n;
        }
        case shape::hvector:
            return row(*t.kids()[0], t.count() * t.blocklen(), rem, stop);
        case shape::hblock:
            return row(*t.kids()[0], t.count() * t.blocklen(), rem, stop);
        case shape::hindexed:
            for (size_t i = 0; i < t.blens().size() && !stop; ++i)
                n += row(*t.kids()[0], t.blens()[i], rem, stop);
            return n;
        case shape::hstruct:
            for (size_t i = 0; i < t.blens().size() && !stop; ++i)
                n += row(*t.kids()[i], t.blens()[i], rem, stop);
            return n;
        case shape::resized:
            return partial(*t.kids()[0], rem);
    }
    return n;
}

}  // namespace

int64_t elements_in(const type& t, int64_t bytes) noexcept {
    if (bytes <= 0) return 0;
    if (t.size() == 0) return -1;
    return (bytes / t.size()) * t.elements() + partial(t, bytes % t.size());
}

}  // namespace ch4lite::dame

namespace ch4lite::dame {
namespace {

// Packed bytes holding the first `n` basic elements of one instance of t
// (n < t.elements()).
int64_t bytes_of(const type& t, int64_t n);

int64_t row_bytes(const type& k, int64_t copies, int64_t& n, bool& stop) {
    const int64_t ke = k.elements();
    if (ke == 0 || copies == 0) return 0;
    if (n / ke >= copies) {
        n -= copies * ke;
        return copies * k.size();
    }
    stop = true;
    const int64_t i = n / ke;
    return i * k.size() + bytes_of(k, n - i * ke);
}

int64_t bytes_of(const type& t, int64_t n) {
    if (n <= 0) return 0;
    bool stop = false;
    int64_t b = 0;
    switch (t.shp()) {
        case shape::predef: {
            const predefined_info* p = t.predef();
            const int64_t per = p->elements / p->npieces;
            for (int i = 0; i < p->npieces && n >= per; ++i, n -= per) b += p->piece[i].len;
            return b;
        }
        case shape::hvector:
        case shape::hblock:
            return row_bytes(*t.kids()[0], t.count() * t.blocklen(), n, stop);
        case shape::hindexed:
            for (size_t i = 0; i < t.blens().size() && !stop; ++i)
                b += row_bytes(*t.kids()[0], t.blens()[i], n, stop);
            return b;
        case shape::hstruct:
            for (size_t i = 0; i < t.blens().size() && !stop; ++i)
                b += row_bytes(*t.kids()[i], t.blens()[i], n, stop);
            return b;
        case shape::resized:
            return bytes_of(*t.kids()[0], n);
    }
    return b;
}

}  // namespace

int64_t bytes_for_elements(const type& t, int64_t n) noexcept {
    if (n <= 0 || t.elements() == 0) return 0;
    int64_t whole = 0, all = 0;
    if (__builtin_mul_overflow(n / t.elements(), t.size(), &whole) ||
        __builtin_add_overflow(whole, bytes_of(t, n % t.elements()), &all))
        return -1;
    return all;
}

}  // namespace ch4lite::dame
