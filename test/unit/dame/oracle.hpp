// SPDX-License-Identifier: MIT
// The test oracle: a naive walker of the type tree that lists the type map
// element by element (one basic element at a time), in order. It reads only
// the construction record of dame::type (shape, counts, displacements), never
// the IR or the program, so it checks them independently.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "dame/type.hpp"

namespace dame_test {

using ch4lite::dame::shape;
using ch4lite::dame::type;

struct elem {
    int64_t disp;
    int64_t len;
};

// Appends the type map of one instance of t at `at`. A stack of its own
// (the type, its block and copy), no recursion: the deep-type tests walk
// types nested a million levels.
inline void typemap(const type& root, int64_t root_at, std::vector<elem>& out) {
    struct frame {
        const type* t;
        int64_t at, i, j;  // block i, copy j of it
    };
    std::vector<frame> st{{&root, root_at, 0, 0}};
    while (!st.empty()) {
        frame& f = st.back();
        const type& t = *f.t;
        switch (t.shp()) {
            case shape::predef: {
                const auto* p = t.predef();
                for (int i = 0; i < p->npieces; ++i) out.push_back({f.at + p->piece[i].disp, p->piece[i].len});
                st.pop_back();
                continue;
            }
            case shape::resized:
                f.t = t.kids()[0];  // the child at the same origin
                continue;
            default: break;
        }
        // Blocks: hvector count x blocklen at i*stride; hblock count x
        // blocklen at disps[i]; hindexed / hstruct blens[i] at disps[i].
        const bool vec = t.shp() == shape::hvector;
        if (f.i == t.count()) {
            st.pop_back();
            continue;
        }
        const type& k = *t.kids()[t.shp() == shape::hstruct ? f.i : 0];
        const int64_t blen = vec || t.shp() == shape::hblock ? t.blocklen() : t.blens()[f.i];
        if (f.j >= blen) {
            ++f.i, f.j = 0;
            continue;
        }
        const int64_t at = f.at + (vec ? f.i * t.stride() : t.disps()[f.i]) + f.j++ * k.extent();
        st.push_back({&k, at, 0, 0});  // f is not used after this
    }
}

// Type map of count instances.
inline std::vector<elem> typemap(const type& t, int64_t count) {
    std::vector<elem> m;
    for (int64_t i = 0; i < count; ++i) typemap(t, i * t.extent(), m);
    return m;
}

// Coalesced byte segments of a type map (what IOV emission must produce).
inline std::vector<elem> segments(const std::vector<elem>& m) {
    std::vector<elem> s;
    for (const elem& e : m) {
        if (e.len == 0) continue;
        if (!s.empty() && s.back().disp + s.back().len == e.disp) s.back().len += e.len;
        else s.push_back(e);
    }
    return s;
}

// Oracle pack: buf points at displacement 0.
inline std::vector<char> oracle_pack(const std::vector<elem>& m, const char* buf) {
    std::vector<char> out;
    for (const elem& e : m) out.insert(out.end(), buf + e.disp, buf + e.disp + e.len);
    return out;
}

inline bool overlapping(const std::vector<elem>& m) {
    std::vector<elem> s(m);
    std::sort(s.begin(), s.end(), [](const elem& a, const elem& b) { return a.disp < b.disp; });
    for (size_t i = 1; i < s.size(); ++i)
        if (s[i - 1].disp + s[i - 1].len > s[i].disp) return true;
    return false;
}

}  // namespace dame_test
