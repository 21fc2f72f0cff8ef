// SPDX-License-Identifier: MIT
// Commit: lower the type tree to IR, normalize it, and flatten it into a
// program of 64-byte nodes with kernels chosen once. Also computes the
// coalesced segment count of one instance (for O(1) IOV sizing).
#include <algorithm>
#include <climits>
#include <new>

#include "dame/ir.hpp"
#include "dame/kernels.hpp"
#include "dame/lists.hpp"
#include "dame/program.hpp"
#include "dame/type.hpp"

namespace ch4lite::dame {
namespace {

struct seg_info {
    int64_t segs = 0, first = 0, last_end = 0;
};

int64_t sat_mul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

// Coalesced segments of one instance of n, with the first start and last end
// relative to the parent's origin (n.disp included).
seg_info segments_of(const ir& n) {
    seg_info r;
    if (n.size() == 0) return r;
    switch (n.k) {
        case ir_kind::leaf:
            r = {1, 0, n.len};
            break;
        case ir_kind::vec: {
            const seg_info k = segments_of(*n.kid());
            const bool join = k.last_end == n.stride + k.first;
            r.segs = join ? sat_mul(n.count, k.segs) - (n.count - 1) : sat_mul(n.count, k.segs);
            r.first = k.first;
            r.last_end = (n.count - 1) * n.stride + k.last_end;
            break;
        }
        case ir_kind::blkidx: {
            const seg_info k = segments_of(*n.kid());
            r.segs = sat_mul(n.count, k.segs) -
                     lists::count_steps(n.disps.data(), n.disps.size(), k.last_end - k.first);
            r.first = n.disps.front() + k.first;
            r.last_end = n.disps.back() + k.last_end;
            break;
        }
        case ir_kind::idx: {
            // Block b = blens[b] copies at disps[b] + j*stride.
            const seg_info k = segments_of(*n.kid());
            const bool inner = k.last_end == n.stride + k.first;
            for (size_t b = 0; b < n.disps.size(); ++b) {
                const int64_t c = n.blens[b];
                r.segs = sat_mul(1, r.segs + sat_mul(c, k.segs) - (inner ? c - 1 : 0));
                const int64_t f = n.disps[b] + k.first;
                if (b == 0) r.first = f;
                else if (r.last_end == f) --r.segs;
                r.last_end = n.disps[b] + (c - 1) * n.stride + k.last_end;
            }
            break;
        }
        case ir_kind::strct: {
            bool any = false;
            for (size_t i = 0; i < n.kids.size(); ++i) {
                const seg_info k = segments_of(*n.kids[i]);
                if (k.segs == 0) continue;
                const int64_t f = n.disps[i] + k.first, e = n.disps[i] + k.last_end;
                r.segs = sat_mul(1, r.segs + k.segs);
                if (any && r.last_end == f) --r.segs;
                if (!any) r.first = f;
                r.last_end = e;
                any = true;
            }
            break;
        }
    }
    r.first += n.disp;
    r.last_end += n.disp;
    return r;
}

}  // namespace

// Whether emit() makes n's leaf child part of n (a final node) rather than a
// node of its own.
bool takes_leaf(const ir& n) {
    const ir* kid = n.kids.empty() ? nullptr : n.kid();
    return kid && kid->is_leaf() && n.k != ir_kind::strct &&
           !(n.k == ir_kind::idx && n.stride != kid->len);
}

// The nodes and struct kid slots emit() makes for n: the program's arrays are
// sized once (growing the node array by doubling was 5 blocks and 4 copies
// for a WRF struct).
void count_emit(const ir& n, size_t* nodes, size_t* kids) {
    ++*nodes;
    if (n.k == ir_kind::strct) {
        *kids += n.kids.size();
        for (const ir_ptr& k : n.kids) count_emit(*k, nodes, kids);
    } else if (!n.kids.empty() && !takes_leaf(n)) {
        count_emit(*n.kid(), nodes, kids);
    }
}

struct compiler {
    program& p;

    // v as int32 when every value fits, else int64 (*wide); *span: highest
    // minus lowest value (representable: builder::finish checks the bounds).
    const void* list(const pool_vec<int64_t>& v, bool* wide, int64_t* span = nullptr) {
        int64_t lo = 0, hi = 0;
        if (!v.empty()) lists::bounds(v.data(), v.size(), &lo, &hi);
        const bool fits = lo >= INT32_MIN && hi <= INT32_MAX;
        *wide = !fits;
        if (span) *span = hi - lo;
        if (fits) {
            p.list_bytes_ += v.size() * 4;
            pool_vec<int32_t>& a = p.lists32_.emplace_back();
            a.resize(v.size());
            lists::narrow(a.data(), v.data(), v.size());
            return a.data();
        }
        return list64(v);
    }
    const int64_t* list64(const pool_vec<int64_t>& v) {
        pool_vec<int64_t> a;
        copy_into(a, v.data(), v.size());
        return list64(std::move(a));
    }
    // A list built for the program (prefix sums): kept as it is.
    const int64_t* list64(pool_vec<int64_t>&& v) {
        p.list_bytes_ += v.size() * 8;
        return p.lists64_.emplace_back(std::move(v)).data();
    }

    static uint8_t align_of(int64_t bits) {
        uint8_t a = 0;
        while (a < 4 && !(bits & (int64_t{1} << a))) ++a;
        return a;
    }

    uint32_t emit(const ir& n, int depth) {
        p.depth_ = std::max(p.depth_, depth);
        const auto self = static_cast<uint32_t>(p.nodes_.size());
        p.nodes_.emplace_back();
        node nd;
        nd.disp = n.disp;
        nd.count = n.count;
        nd.size = n.size();
        int64_t bits = 0;
        const ir* kid = n.kids.empty() ? nullptr : n.kid();
        bool wide = false, far = false;
        switch (n.k) {
            case ir_kind::leaf:
                nd.kind = op::leaf;
                nd.blen = n.len;
                nd.count = 1;
                bits = n.len;
                break;
            case ir_kind::vec:
                nd.kind = op::vector;
                nd.stride = n.stride;
                bits = n.stride;
                break;
            case ir_kind::blkidx: {
                nd.kind = op::blkindex;
                int64_t span = 0;
                nd.disps = list(n.disps, &wide, &span);
                for (int64_t d : n.disps) bits |= d;
                far = span >= far_span;
                break;
            }
            case ir_kind::idx: {
                nd.kind = op::indexed;
                nd.stride = n.stride;
                nd.disps = list(n.disps, &wide);
                pool_vec<int64_t> pre;  // exactly its size: the program keeps it
                pre.reserve(n.blens.size() + 1);
                pre.push_back(0);
                for (int64_t b : n.blens) pre.push_back(pre.back() + b);
                nd.prefix = list64(std::move(pre));
                for (size_t i = 0; i < n.disps.size(); ++i) bits |= n.disps[i] | n.blens[i];
                break;
            }
            case ir_kind::strct: {
                nd.kind = op::struct_;
                nd.disps = list64(n.disps);
                wide = true;
                pool_vec<int64_t> pre;
                pre.reserve(n.kids.size() + 1);
                pre.push_back(0);
                for (const ir_ptr& k : n.kids) pre.push_back(pre.back() + k->size());
                nd.prefix = list64(std::move(pre));
                nd.child = static_cast<uint32_t>(p.kids_.size());
                p.kids_.resize(p.kids_.size() + n.kids.size());
                for (size_t i = 0; i < n.kids.size(); ++i)
                    p.kids_[nd.child + i] = emit(*n.kids[i], depth + 1);
                break;
            }
        }
        nd.wide = wide;
        if (takes_leaf(n)) {
            nd.blen = kid->len;
            nd.kern = choose_kernel(nd.kind, kid->len, wide, far);
            bits |= kid->len;
        } else if (kid && n.k != ir_kind::strct) {
            nd.child = emit(*kid, depth + 1);
        }
        nd.align_log2 = align_of(bits | n.disp);
        p.nodes_[self] = nd;
        return self;
    }
};

int64_t program::segments(int64_t count) const noexcept {
    if (count <= 0 || segs_ == 0) return 0;
    const bool join = last_end_ == extent_ + first_;
    const int64_t all = sat_mul(count, segs_);
    return join ? all - (count - 1) : all;
}

size_t program::footprint() const noexcept {
    return nodes_.size() * sizeof(node) + kids_.size() * sizeof(uint32_t) + list_bytes_;
}

node program::top(int64_t count) const noexcept {
    const node& r = nodes_[0];
    node t;
    if (r.kind == op::leaf && r.blen == extent_) {  // contiguous: one block
        t = r;
        t.blen = r.blen * count;
        t.size = t.blen;
    } else if (r.kind == op::leaf) {
        t.kind = op::vector;
        t.kern = top_kern_;
        t.blen = r.blen;
        t.disp = r.disp;
        t.stride = extent_;
        t.count = count;
        t.size = count * r.blen;
    } else if (top_merge_) {
        t = r;
        t.count = r.count * count;
        t.size = r.size * count;
    } else {
        t.kind = op::vector;
        t.child = 0;
        t.stride = extent_;
        t.count = count;
        t.size = count * size_;
    }
    return t;
}

std::string normal_form(const type& t) {
    ir_ptr n = lower(t);
    normalize(n);
    return to_text(*n);
}

status compile(const type& t, std::unique_ptr<const program>* out) noexcept {
    auto* p = new (std::nothrow) program();
    if (!p) return status::no_mem;
    std::unique_ptr<program> owner(p);
    try {
        ir_ptr n = lower(t);
        // What follows (segments_of, count_emit, emit) and the interpreter
        // recurse once per level of the normal form, whose depth the size
        // bounds (max_program_depth): checked, not assumed.
        if (normalize(n) > max_program_depth) return status::range;
        const seg_info s = segments_of(*n);
        p->segs_ = s.segs, p->first_ = s.first, p->last_end_ = s.last_end;
        p->size_ = t.size();
        p->extent_ = t.extent();
        size_t nodes = 0, kids = 0;
        count_emit(*n, &nodes, &kids);
        p->nodes_.reserve(nodes);
        p->kids_.reserve(kids);
        compiler{*p}.emit(*n, 1);
        for (node& nd : p->nodes_) {  // pointers into nodes_ only now that it is stable
            if (nd.kind != op::vector || nd.kern) continue;
            const node& c = p->nodes_[nd.child];
            if (c.kind == op::vector && is_final(c)) {
                nd.kern = choose_nested_kernel(c.blen);
                nd.disps = &c;
            }
        }
        const node& r = p->nodes_[0];
        if (r.kind == op::leaf) p->top_kern_ = choose_kernel(op::vector, r.blen, false);
        int64_t span = 0;  // copies continue across instances (overflow: they cannot)
        p->top_merge_ = r.kind == op::vector && !__builtin_mul_overflow(r.count, r.stride, &span) &&
                        span == p->extent_;
    } catch (const std::bad_alloc&) {
        return status::no_mem;
    }
    *out = std::move(owner);
    return status::ok;
}

}  // namespace ch4lite::dame
