// SPDX-License-Identifier: MIT
// IR helpers and lowering from the type tree. Nothing here recurses: a type
// can be nested as deep as the user likes (a million contiguous or struct
// levels), and its lowered IR is as deep until normalization folds it, so
// every walk keeps its own stack (or, where it must not allocate, links the
// nodes through ir::link).
#include "dame/ir.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "dame/type.hpp"

namespace ch4lite::dame {

namespace {
// Size of n from its children's cached sizes.
int64_t own_size(const ir& n) noexcept {
    switch (n.k) {
        case ir_kind::leaf: return n.len;
        case ir_kind::vec:
        case ir_kind::blkidx: return n.count * n.kid()->size_;
        case ir_kind::idx: {
            int64_t b = 0;
            for (int64_t x : n.blens) b += x;
            return b * n.kid()->size_;
        }
        case ir_kind::strct: {
            int64_t s = 0;
            for (const ir_ptr& c : n.kids) s += c->size_;
            return s;
        }
    }
    return 0;
}
}  // namespace

int64_t ir::compute_size() const noexcept {
    // Children without a cached size first, bottom-up, `link` leading back
    // up (lowering caches every size it knows, so this rarely goes deeper
    // than the few nodes a rewrite made).
    const ir* n = this;
    for (;;) {
        const ir* down = nullptr;
        for (const ir_ptr& c : n->kids)
            if (c->size_ < 0) {
                down = c.get();
                break;
            }
        if (down) {
            down->link = const_cast<ir*>(n);
            n = down;
            continue;
        }
        const int64_t s = own_size(*n);
        if (n == this) return s;
        n->size_ = s;
        n = n->link;
    }
}

ir::~ir() {
    // Children without children of their own (most nodes' only child is a
    // leaf) go with the kid list, one level: no walk.
    bool shallow = true;
    for (const ir_ptr& c : kids) shallow = shallow && (!c || c->kids.empty());
    if (shallow) return;
    // Children with children of their own go on a list linked through
    // `link` and are deleted once their own children are on it: each delete
    // below meets an empty kid list.
    ir* dead = nullptr;
    auto take = [&dead](ir& n) noexcept {
        for (ir_ptr& c : n.kids) {
            ir* p = c.release();
            if (!p) continue;  // moved away (a rewrite made the child its parent)
            if (p->kids.empty()) {
                delete p;
            } else {
                p->link = dead;
                dead = p;
            }
        }
        n.kids.clear();
    };
    take(*this);
    while (dead) {
        ir* p = dead;
        dead = p->link;
        take(*p);
        delete p;
    }
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

namespace {
ir_ptr copy_node(const ir& n) {
    auto c = std::make_unique<ir>();
    c->k = n.k, c->disp = n.disp, c->count = n.count, c->len = n.len, c->stride = n.stride;
    c->size_ = n.size_;
    copy_into(c->disps, n.disps.data(), n.disps.size());
    copy_into(c->blens, n.blens.data(), n.blens.size());
    c->kids.reserve(n.kids.size());
    return c;
}
}  // namespace

ir_ptr clone(const ir& n) {
    ir_ptr root = copy_node(n);
    small_stack<std::pair<const ir*, ir*>, 16> todo;  // copied nodes whose children are not yet
    if (!n.kids.empty()) todo.push({&n, root.get()});
    while (!todo.empty()) {
        const auto [from, to] = todo.top();
        todo.pop();
        for (const ir_ptr& k : from->kids) {
            to->kids.push_back(copy_node(*k));
            if (!k->kids.empty()) todo.push({k.get(), to->kids.back().get()});
        }
    }
    return root;
}

bool same(const ir& a, const ir& b) {
    small_stack<std::pair<const ir*, const ir*>, 16> todo;  // only struct nodes push
    const ir* x = &a;
    const ir* y = &b;
    for (;;) {
        if (x->k != y->k || x->disp != y->disp || x->count != y->count || x->len != y->len ||
            x->stride != y->stride || x->disps != y->disps || x->blens != y->blens ||
            x->kids.size() != y->kids.size())
            return false;
        if (x->kids.size() == 1) {  // a chain: no stack
            x = x->kid(), y = y->kid();
            continue;
        }
        for (size_t i = 0; i < x->kids.size(); ++i) todo.push({x->kids[i].get(), y->kids[i].get()});
        if (todo.empty()) return true;
        x = todo.top().first, y = todo.top().second;
        todo.pop();
    }
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

// The text of n up to its first child ("vec(4,+16,"), or all of a leaf.
void open_text(std::string& s, const ir& n) {
    char buf[96];
    if (n.disp) {
        std::snprintf(buf, sizeof buf, "@%lld:", static_cast<long long>(n.disp));
        s += buf;
    }
    switch (n.k) {
        case ir_kind::leaf:
            std::snprintf(buf, sizeof buf, "leaf(%lld)", static_cast<long long>(n.len));
            s += buf;
            return;
        case ir_kind::vec:
            std::snprintf(buf, sizeof buf, "vec(%lld,+%lld,", static_cast<long long>(n.count),
                          static_cast<long long>(n.stride));
            s += buf;
            return;
        case ir_kind::blkidx:
            std::snprintf(buf, sizeof buf, "blkidx(%lld,", static_cast<long long>(n.count));
            s += buf;
            list(s, n.disps);
            s += ',';
            return;
        case ir_kind::idx:
            std::snprintf(buf, sizeof buf, "idx(%lld,+%lld,", static_cast<long long>(n.count),
                          static_cast<long long>(n.stride));
            s += buf;
            list(s, n.disps);
            list(s, n.blens);
            s += ',';
            return;
        case ir_kind::strct:
            s += "struct(";
            list(s, n.disps);
            return;
    }
}
}  // namespace

std::string to_text(const ir& n) {
    std::string s;
    small_stack<std::pair<const ir*, size_t>, 16> st;  // a node and its next child
    open_text(s, n);
    if (!n.is_leaf()) st.push({&n, 0});
    while (!st.empty()) {
        auto& [node, next] = st.top();
        if (next == node->kids.size()) {
            s += ')';
            st.pop();
            continue;
        }
        const ir& c = *node->kids[next++];
        if (node->k == ir_kind::strct) s += ',';
        open_text(s, c);
        if (!c.is_leaf()) st.push({&c, 0});
    }
    return s;
}

int64_t depth_of(const ir& n) {
    int64_t deepest = 0;
    small_stack<std::pair<const ir*, int64_t>, 16> st;  // only struct nodes push
    const ir* x = &n;
    int64_t d = 1;
    for (;;) {
        while (x->kids.size() == 1) x = x->kid(), ++d;  // a chain: no stack
        deepest = std::max(deepest, d);
        for (const ir_ptr& k : x->kids) st.push({k.get(), d + 1});
        if (st.empty()) return deepest;
        x = st.top().first, d = st.top().second;
        st.pop();
    }
}

namespace {

// The IR of a predefined type: a leaf, or a struct of its pieces (pairs).
ir_ptr lower_predef(const type& t) {
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

// A type whose IR waits for a child's: the struct built so far (hstruct;
// owned here: lower() deletes it if an allocation throws) and the field
// being lowered. Trivial, so that the stack costs nothing to keep.
struct pending {
    const type* t;
    ir* node;
    size_t field;
};

// The field's node: `blen` copies of the lowered child at its extent. An
// empty field is an empty leaf without lowering its type, which a struct
// nest may share between fields (struct{T, 0 x T} nested n levels would
// lower 2^n copies; normalization drops empty fields anyway).
ir_ptr field_node(const type& t, size_t i, ir_ptr lowered) {
    ir_ptr f = vec_node(t.blens()[i], t.kids()[i]->extent(), std::move(lowered));
    f->size_ = t.blens()[i] * t.kids()[i]->size();
    return f;
}

}  // namespace

ir_ptr lower(const type& root) {
    small_stack<pending, 8> st;
    try {
        ir_ptr done;
        const type* t = &root;
        for (;;) {
            // Down: through resized wrappers, to a type whose IR needs no
            // child (done) or to the child it needs first (pushed).
            while (t->size() != 0 && t->shp() == shape::resized) t = t->kids()[0];
            // An empty type lowers to nothing: its children may be huge types
            // repeated zero times, whose products were never checked.
            if (t->size() == 0) {
                done = make_leaf(0);
            } else if (t->shp() == shape::predef) {
                done = lower_predef(*t);
            } else {
                pending p{t, nullptr, 0};
                if (t->shp() == shape::hstruct) {
                    ir_ptr n = std::make_unique<ir>();
                    n->k = ir_kind::strct;
                    n->count = t->count();
                    copy_into(n->disps, t->disps().data(), t->disps().size());
                    n->kids.reserve(t->kids().size());
                    // Leading empty fields need no child.
                    while (p.field < t->kids().size() && t->blens()[p.field] == 0) {
                        n->kids.push_back(make_leaf(0));
                        ++p.field;
                    }
                    // t->size() != 0: some field is not empty.
                    p.node = n.get();
                    st.push(p);
                    n.release();  // the stack owns it now
                } else {
                    st.push(p);
                }
                t = t->kids()[p.field];
                continue;
            }
            // Up: hand `done` to the types waiting for it.
            while (!st.empty()) {
                pending& p = st.top();
                const type& u = *p.t;
                const type& k = *u.kids()[p.field];
                if (u.shp() == shape::hvector) {
                    ir_ptr block = vec_node(u.blocklen(), k.extent(), std::move(done));
                    block->size_ = u.blocklen() * k.size();
                    done = vec_node(u.count(), u.stride(), std::move(block));
                } else if (u.shp() == shape::hblock) {
                    ir_ptr c = vec_node(u.blocklen(), k.extent(), std::move(done));
                    if (u.count() == 1) {  // the count-1 rule (a subarray's placement)
                        c->disp += u.disps()[0];
                        done = std::move(c);
                    } else {
                        auto n = std::make_unique<ir>();
                        n->k = ir_kind::blkidx;
                        n->count = u.count();
                        copy_into(n->disps, u.disps().data(), u.disps().size());
                        c->size_ = u.blocklen() * k.size();
                        n->kids.push_back(std::move(c));
                        hoist(*n);
                        done = std::move(n);
                    }
                } else if (u.shp() == shape::hindexed) {
                    auto n = std::make_unique<ir>();
                    n->k = ir_kind::idx;
                    n->count = u.count();
                    n->stride = k.extent();
                    copy_into(n->disps, u.disps().data(), u.disps().size());
                    copy_into(n->blens, u.blens().data(), u.blens().size());
                    n->kids.push_back(std::move(done));
                    done = std::move(n);
                } else {  // hstruct: this field, the copies after it, then the next field to lower
                    ir& n = *p.node;
                    n.kids.push_back(field_node(u, p.field, std::move(done)));
                    const auto kids = u.kids();
                    size_t i = p.field + 1;
                    for (; i < kids.size(); ++i) {
                        if (u.blens()[i] == 0) {
                            n.kids.push_back(make_leaf(0));
                            continue;
                        }
                        // A field like one of the 4 before it (WRF: 4, 3 and 2
                        // of one subarray each) is a copy of that one's IR.
                        size_t j = i;
                        while (j > 0 && j + 4 > i && (kids[j - 1] != kids[i] || u.blens()[j - 1] != u.blens()[i])) --j;
                        if (j > 0 && j + 4 > i) n.kids.push_back(clone(*n.kids[j - 1]));
                        else break;
                    }
                    if (i < kids.size()) {
                        p.field = i;
                        t = kids[i];
                        break;  // down again, to this field's type
                    }
                    hoist(n);
                    done.reset(p.node);
                    p.node = nullptr;
                }
                done->size_ = u.size();  // the IR of one instance of u
                st.pop();
            }
            if (st.empty()) return done;
            // else: down to the next struct field (t)
        }
    } catch (...) {  // std::bad_alloc: the structs being built go too
        for (; !st.empty(); st.pop()) delete st.top().node;
        throw;
    }
}

}  // namespace ch4lite::dame
