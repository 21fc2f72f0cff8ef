// SPDX-License-Identifier: MIT
// IR helpers and lowering from the type tree.
#include "dame/ir.hpp"

#include <cstdio>

#include "dame/type.hpp"

namespace ch4lite::dame {

int64_t ir::compute_size() const noexcept {
    switch (k) {
        case ir_kind::leaf: return len;
        case ir_kind::vec:
        case ir_kind::blkidx: return count * kid()->size();
        case ir_kind::idx: {
            int64_t n = 0;
            for (int64_t b : blens) n += b;
            return n * kid()->size();
        }
        case ir_kind::strct: {
            int64_t n = 0;
            for (const ir_ptr& c : kids) n += c->size();
            return n;
        }
    }
    return 0;
}

ir_ptr make_leaf(int64_t len, int64_t disp) {
    auto n = std::make_unique<ir>();
    n->k = ir_kind::leaf;
    n->len = len;
    n->disp = disp;
    return n;
}

ir_ptr make_vec(int64_t count, int64_t stride, ir_ptr kid, int64_t disp) {
    auto n = std::make_unique<ir>();
    n->k = ir_kind::vec;
    n->count = count;
    n->stride = stride;
    n->disp = disp;
    n->kids.push_back(std::move(kid));
    return n;
}

ir_ptr clone(const ir& n) {
    auto c = std::make_unique<ir>();
    c->k = n.k, c->disp = n.disp, c->count = n.count, c->len = n.len, c->stride = n.stride;
    copy_into(c->disps, n.disps.data(), n.disps.size());
    copy_into(c->blens, n.blens.data(), n.blens.size());
    c->kids.reserve(n.kids.size());
    for (const ir_ptr& k : n.kids) c->kids.push_back(clone(*k));
    return c;
}

bool same(const ir& a, const ir& b) noexcept {
    if (a.k != b.k || a.disp != b.disp || a.count != b.count || a.len != b.len ||
        a.stride != b.stride || a.disps != b.disps || a.blens != b.blens ||
        a.kids.size() != b.kids.size())
        return false;
    for (size_t i = 0; i < a.kids.size(); ++i)
        if (!same(*a.kids[i], *b.kids[i])) return false;
    return true;
}

namespace {
void list(std::string& s, const pool_vec<int64_t>& v) {
    char buf[32];
    s += '<';
    for (size_t i = 0; i < v.size(); ++i) {
        if (i == 8 && v.size() > 10) {
            std::snprintf(buf, sizeof buf, "...%zu", v.size());
            s += buf;
            break;
        }
        std::snprintf(buf, sizeof buf, i ? ",%lld" : "%lld", static_cast<long long>(v[i]));
        s += buf;
    }
    s += '>';
}
}  // namespace

std::string to_text(const ir& n) {
    char buf[96];
    std::string s;
    if (n.disp) {
        std::snprintf(buf, sizeof buf, "@%lld:", static_cast<long long>(n.disp));
        s += buf;
    }
    switch (n.k) {
        case ir_kind::leaf:
            std::snprintf(buf, sizeof buf, "leaf(%lld)", static_cast<long long>(n.len));
            return s + buf;
        case ir_kind::vec:
            std::snprintf(buf, sizeof buf, "vec(%lld,+%lld,", static_cast<long long>(n.count),
                          static_cast<long long>(n.stride));
            return s + buf + to_text(*n.kid()) + ")";
        case ir_kind::blkidx:
            std::snprintf(buf, sizeof buf, "blkidx(%lld,", static_cast<long long>(n.count));
            s += buf;
            list(s, n.disps);
            return s + "," + to_text(*n.kid()) + ")";
        case ir_kind::idx:
            std::snprintf(buf, sizeof buf, "idx(%lld,+%lld,", static_cast<long long>(n.count),
                          static_cast<long long>(n.stride));
            s += buf;
            list(s, n.disps);
            list(s, n.blens);
            return s + "," + to_text(*n.kid()) + ")";
        case ir_kind::strct:
            s += "struct(";
            list(s, n.disps);
            for (const ir_ptr& k : n.kids) s += "," + to_text(*k);
            return s + ")";
    }
    return s;
}

ir_ptr lower(const type& t) {
    // An empty type lowers to nothing: its children may be huge types repeated
    // zero times, whose products were never checked (and need not fit).
    if (t.size() == 0) return make_leaf(0);
    switch (t.shp()) {
        case shape::predef: {
            const predefined_info* p = t.predef();
            if (p->npieces == 1) return make_leaf(p->piece[0].len, p->piece[0].disp);
            auto n = std::make_unique<ir>();
            n->k = ir_kind::strct;
            n->count = p->npieces;
            for (int i = 0; i < p->npieces; ++i) {
                n->disps.push_back(p->piece[i].disp);
                n->kids.push_back(make_leaf(p->piece[i].len));
            }
            return n;
        }
        case shape::hvector: {
            const type& k = *t.kids()[0];
            return vec_node(t.count(), t.stride(), vec_node(t.blocklen(), k.extent(), lower(k)));
        }
        case shape::hblock: {
            const type& k = *t.kids()[0];
            if (t.count() == 1) {  // the count-1 rule (a subarray's placement)
                ir_ptr c = vec_node(t.blocklen(), k.extent(), lower(k));
                c->disp += t.disps()[0];
                return c;
            }
            auto n = std::make_unique<ir>();
            n->k = ir_kind::blkidx;
            n->count = t.count();
            copy_into(n->disps, t.disps().data(), t.disps().size());
            n->kids.push_back(vec_node(t.blocklen(), k.extent(), lower(k)));
            hoist(*n);
            return n;
        }
        case shape::hindexed: {
            const type& k = *t.kids()[0];
            auto n = std::make_unique<ir>();
            n->k = ir_kind::idx;
            n->count = t.count();
            n->stride = k.extent();
            copy_into(n->disps, t.disps().data(), t.disps().size());
            copy_into(n->blens, t.blens().data(), t.blens().size());
            n->kids.push_back(lower(k));
            return n;
        }
        case shape::hstruct: {
            auto n = std::make_unique<ir>();
            n->k = ir_kind::strct;
            n->count = t.count();
            copy_into(n->disps, t.disps().data(), t.disps().size());
            n->kids.reserve(t.kids().size());
            for (size_t i = 0; i < t.kids().size(); ++i) {
                const type& k = *t.kids()[i];
                // A field like one of the 4 before it (WRF: 4, 3 and 2 of
                // one subarray each) is a copy of that one's IR.
                size_t j = i;
                while (j > 0 && j + 4 > i && (t.kids()[j - 1] != &k || t.blens()[j - 1] != t.blens()[i])) --j;
                if (j > 0 && j + 4 > i) n->kids.push_back(clone(*n->kids[j - 1]));
                else n->kids.push_back(vec_node(t.blens()[i], k.extent(), lower(k)));
            }
            hoist(*n);
            return n;
        }
        case shape::resized:
            return lower(*t.kids()[0]);
    }
    return make_leaf(0);
}

}  // namespace ch4lite::dame
