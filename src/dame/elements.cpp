// SPDX-License-Identifier: MIT
// MPI_Get_elements: basic elements contained in a packed byte count. Whole
// instances are counted in O(1); a trailing partial instance is walked in
// type-map order, skipping whole children by division (O(depth) for regular
// types, O(blocks) for index lists). A row of children is cut short at
// most once per level and only that one child is entered, so the walk is a
// loop down the type, however deep it is nested (no recursion).
#include "dame/type.hpp"

namespace ch4lite::dame {
namespace {

// `n` children of k in a row, `rem` bytes available: adds the elements of
// the children fully inside to acc and takes their bytes off rem. True if
// the row was cut short: rem then holds the bytes of the cut child.
bool row(const type& k, int64_t n, int64_t& rem, int64_t& acc) {
    const int64_t ks = k.size();
    if (ks == 0 || n == 0) return false;
    if (rem >= ks && rem / ks >= n) {
        rem -= n * ks;
        acc += n * k.elements();
        return false;
    }
    const int64_t i = rem / ks;
    acc += i * k.elements();
    rem -= i * ks;
    return true;
}

// Elements in the first rem packed bytes of one instance of t (rem < size).
int64_t partial(const type* t, int64_t rem) {
    int64_t n = 0;
    for (;;) {
        if (rem <= 0) return n;
        const type* cut = nullptr;  // the child the bytes end in
        switch (t->shp()) {
            case shape::predef: {
                const predefined_info* p = t->predef();
                for (int i = 0; i < p->npieces && rem >= p->piece[i].len; ++i) {
                    rem -= p->piece[i].len;
                    n += p->elements / p->npieces;
                }
                return n;
            }
            case shape::hvector:
            case shape::hblock:
                if (row(*t->kids()[0], t->count() * t->blocklen(), rem, n)) cut = t->kids()[0];
                break;
            case shape::hindexed:
                for (size_t i = 0; i < t->blens().size() && !cut; ++i)
                    if (row(*t->kids()[0], t->blens()[i], rem, n)) cut = t->kids()[0];
                break;
            case shape::hstruct:
                for (size_t i = 0; i < t->blens().size() && !cut; ++i)
                    if (row(*t->kids()[i], t->blens()[i], rem, n)) cut = t->kids()[i];
                break;
            case shape::resized: cut = t->kids()[0]; break;
        }
        if (!cut) return n;
        t = cut;
    }
}

// `copies` children of k in a row, `n` elements wanted: adds the bytes of
// the children fully used to acc and takes their elements off n. True if
// the row was cut short: n then counts the elements of the cut child.
bool row_bytes(const type& k, int64_t copies, int64_t& n, int64_t& acc) {
    const int64_t ke = k.elements();
    if (ke == 0 || copies == 0) return false;
    if (n / ke >= copies) {
        n -= copies * ke;
        acc += copies * k.size();
        return false;
    }
    const int64_t i = n / ke;
    acc += i * k.size();
    n -= i * ke;
    return true;
}

// Packed bytes holding the first `n` basic elements of one instance of t
// (n < t.elements()).
int64_t bytes_of(const type* t, int64_t n) {
    int64_t b = 0;
    for (;;) {
        if (n <= 0) return b;
        const type* cut = nullptr;
        switch (t->shp()) {
            case shape::predef: {
                const predefined_info* p = t->predef();
                const int64_t per = p->elements / p->npieces;
                for (int i = 0; i < p->npieces && n >= per; ++i, n -= per) b += p->piece[i].len;
                return b;
            }
            case shape::hvector:
            case shape::hblock:
                if (row_bytes(*t->kids()[0], t->count() * t->blocklen(), n, b)) cut = t->kids()[0];
                break;
            case shape::hindexed:
                for (size_t i = 0; i < t->blens().size() && !cut; ++i)
                    if (row_bytes(*t->kids()[0], t->blens()[i], n, b)) cut = t->kids()[0];
                break;
            case shape::hstruct:
                for (size_t i = 0; i < t->blens().size() && !cut; ++i)
                    if (row_bytes(*t->kids()[i], t->blens()[i], n, b)) cut = t->kids()[i];
                break;
            case shape::resized: cut = t->kids()[0]; break;
        }
        if (!cut) return b;
        t = cut;
    }
}

}  // namespace

int64_t elements_in(const type& t, int64_t bytes) noexcept {
    if (bytes <= 0) return 0;
    if (t.size() == 0) return -1;
    return (bytes / t.size()) * t.elements() + partial(&t, bytes % t.size());
}

int64_t bytes_for_elements(const type& t, int64_t n) noexcept {
    if (n <= 0 || t.elements() == 0) return 0;
    int64_t whole = 0, all = 0;
    if (__builtin_mul_overflow(n / t.elements(), t.size(), &whole) ||
        __builtin_add_overflow(whole, bytes_of(&t, n % t.elements()), &all))
        return -1;
    return all;
}

}  // namespace ch4lite::dame
