// SPDX-License-Identifier: MIT
// The test oracle: a naive walker of the type tree that lists the type map
// element by element (one basic element at a time), in order. It reads only
// the construction record of dame::type (shape, counts, displacements), never
// the IR or the program, so it checks them independently.
#pragma once
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

inline void typemap(const type& t, int64_t at, std::vector<elem>& out) {
    switch (t.shp()) {
        case shape::predef: {
            const auto* p = t.predef();
            for (int i = 0; i < p->npieces; ++i) out.push_back({at + p->piece[i].disp, p->piece[i].len});
            return;
        }
        case shape::hvector: {
            const type& k = *t.kids()[0];
            for (int64_t i = 0; i < t.count(); ++i)
                for (int64_t j = 0; j < t.blocklen(); ++j)
                    typemap(k, at + i * t.stride() + j * k.extent(), out);
            return;
        }
        case shape::hblock: {
            const type& k = *t.kids()[0];
            for (int64_t i = 0; i < t.count(); ++i)
                for (int64_t j = 0; j < t.blocklen(); ++j)
                    typemap(k, at + t.disps()[i] + j * k.extent(), out);
            return;
        }
        case shape::hindexed: {
            const type& k = *t.kids()[0];
            for (int64_t i = 0; i < t.count(); ++i)
                for (int64_t j = 0; j < t.blens()[i]; ++j)
                    typemap(k, at + t.disps()[i] + j * k.extent(), out);
            return;
        }
        case shape::hstruct:
            for (int64_t i = 0; i < t.count(); ++i) {
                const type& k = *t.kids()[i];
                for (int64_t j = 0; j < t.blens()[i]; ++j)
                    typemap(k, at + t.disps()[i] + j * k.extent(), out);
            }
            return;
        case shape::resized:
            typemap(*t.kids()[0], at, out);
            return;
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
