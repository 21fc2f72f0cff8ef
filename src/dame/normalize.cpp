// SPDX-License-Identifier: MIT
// Normalization: local rewrite rules applied bottom-up until nothing changes,
// then Träff's optimal pass on vector/index-block chains (traff.cpp), and
// again the local rules, to a fixed point. Rules (each preserves the type map
// and its order):
//   empty      a node of size 0 becomes leaf(0)
//   hoist      a child's disp moves into its parent (every copy shifts alike);
//              the first displacement of an index list moves into the node
//   count-1    vec/blkidx/idx/struct with one element become their child
//   contig     vec(n, L, leaf(L))            -> leaf(n*L)
//   vec-merge  vec(n, m*s, vec(m, s, C))      -> vec(n*m, s, C)
//   idx-merge  idx blocks that continue each other merge; zero blocks drop
//   idx->blk   idx with one block length b   -> blkidx(vec(b, stride, C))
//   blk->vec   blkidx with arithmetic disps  -> vec
//   blk->idx   blkidx(leaf) with touching blocks -> idx (then idx-merge)
//   chain      a vec/blkidx chain over a leaf whose blocks touch as much
//              -> blkidx(leaf) of its blocks (then blk->idx); over byte
//              runs, one touching copy -> one idx of the runs
//   idx-copies an idx that is not byte runs -> blkidx of its copies (small)
//   struct     one child repeated            -> blkidx; all leaves, or chains
//              of at most 256 blocks in all -> idx of byte runs; nested
//              structs are spliced into their parent
// Index lists over leaves are kept in byte units (child leaf(1)), so equal
// byte layouts give equal programs whatever the element type was.
#include <algorithm>
#include <numeric>
#include <utility>

#include "dame/ir.hpp"
#include "dame/lists.hpp"
#include "dame/traff.hpp"

namespace ch4lite::dame {
namespace {

void become(ir_ptr& n, ir_ptr repl, int64_t extra_disp) {
    repl->disp += extra_disp;
    n = std::move(repl);
}

// The children's disps into the node: a struct's into its list, another
// node's (one child) into its own disp. True if one was not 0.
bool hoist_kids(ir& n) {
    bool moved = false;
    if (n.k == ir_kind::strct) {
        for (size_t i = 0; i < n.kids.size(); ++i) {
            if (n.kids[i]->disp == 0) continue;
            n.disps[i] += std::exchange(n.kids[i]->disp, 0);
            moved = true;
        }
    } else if (!n.is_leaf() && n.kid()->disp != 0) {
        n.disp += std::exchange(n.kid()->disp, 0);
        moved = true;
    }
    return moved;
}

bool hoist_first(ir& n) {
    if (n.disps.empty() || n.disps[0] == 0) return false;
    const int64_t d0 = n.disps[0];
    for (int64_t& d : n.disps) d -= d0;
    n.disp += d0;
    return true;
}

// In place where the node stays (no allocation: lowering runs it on every
// vector it builds, vec_node() below); the size is unchanged.
bool rule_vec(ir_ptr& n) {
    ir& v = *n;
    ir& c = *v.kid();
    if (v.count == 1) {
        become(n, std::move(v.kids[0]), v.disp);
        return true;
    }
    if (c.is_leaf() && v.stride == c.len) {  // contig: v becomes leaf(count * len), as make_leaf
        v.k = ir_kind::leaf;
        v.len = v.count * c.len;
        v.count = 0, v.stride = 0;
        v.kids.clear();
        return true;
    }
    if (c.k == ir_kind::vec && lines_up(v.stride, c.count, c.stride)) {  // vec-merge
        v.count *= c.count;
        v.stride = c.stride;
        v.kids[0] = std::move(c.kids[0]);  // releases c's child first, then frees c
        return true;
    }
    return false;
}

bool arithmetic(const pool_vec<int64_t>& d) {
    if (d.size() < 2) return false;
    const int64_t s = d[1] - d[0];
    for (size_t i = 2; i < d.size(); ++i)
        if (d[i] - d[i - 1] != s) return false;
    return true;
}

// Byte runs pay when merging the touching blocks of a list removes more than
// a quarter of them. rule_blkidx and the chain rule ask this of blocks,
// rule_idx's split of runs into equal blocks asks its converse, so the form
// depends only on the runs of the type map (canonical) and cannot cycle.
bool runs_pay(int64_t blocks, int64_t touching) {
    return static_cast<__int128>(blocks - touching) * 4 < static_cast<__int128>(blocks) * 3;
}

bool rule_blkidx(ir_ptr& n) {
    ir& b = *n;
    if (b.count == 1) {
        become(n, std::move(b.kids[0]), b.disp + b.disps[0]);
        return true;
    }
    if (hoist_first(b)) return true;
    if (arithmetic(b.disps)) {
        become(n, make_vec(b.count, b.disps[1], std::move(b.kids[0])), b.disp);
        return true;
    }
    const ir& c = *b.kid();
    if (c.is_leaf()) {
        const int64_t touching = lists::count_steps(b.disps.data(), b.disps.size(), c.len);
        if (runs_pay(b.count, touching)) {  // re-express as byte runs; idx-merge joins them
            b.k = ir_kind::idx;
            b.stride = 1;
            b.blens.assign(b.count, c.len);
            b.kids[0] = make_leaf(1);
            return true;
        }
    }
    return false;
}

// A chain of vec/blkidx nodes over one leaf is a list of equal blocks, like
// blkidx(leaf), and the same runs rule must decide for it: a byte list that
// converged to byte runs and a vector nest of the same type map would
// otherwise stay different programs (vec(4, 64, vec(2, 56, leaf(8))) has
// blocks at 0, 56, 64, 120...: 3 of its 8 blocks continue the one before).
// A chain over byte runs (idx of leaf(1)) is a list of runs, and merges like
// one as soon as a copy's first run continues the copy before.
// Block i + 1 continues block i across copies c -> c + 1 of a level when the
// gap between the copies equals end(last block) - start(first block).
struct chain_info {
    int64_t blocks = 0, touching = 0;  // blocks (runs) of the chain, how many continue the one before
    int64_t first = 0, end = 0;        // start of the first block, end of the last, from the node's origin
    int64_t len = 0;                   // the leaf's length; 0 over byte runs
    int64_t listed = 0;                // displacements the chain's lists hold already
};

constexpr int64_t chain_cap = int64_t{1} << 20;  // blocks we are willing to count (as traff.cpp)
// A chain is rewritten only when its list stays small or at most twice what
// its own lists hold: vec(2^19, 24, vec(2, 16, leaf(8))) stays two nodes
// rather than becoming 2^19 runs (the price: such large vector nests and
// their byte lists are not one program).
constexpr int64_t chain_small = 256;

bool byte_runs(const ir& n) {
    return n.k == ir_kind::idx && n.stride == 1 && n.kid()->is_leaf() && n.kid()->len == 1;
}

// One level of chain_of: ci describes n's child (or is empty at the
// chain's base, a leaf or byte runs); afterwards it describes n.
bool chain_step(const ir& n, chain_info& ci) {
    // |disp|, |stride| < 2^62 and counts < 2^63: the wide type keeps the sums exact.
    __int128 first = 0, end = 0;
    if (n.is_leaf() || byte_runs(n)) {
        if (n.is_leaf() && n.len <= 0) return false;
        const bool leaf = n.is_leaf();
        ci.blocks = leaf ? 1 : n.count, ci.touching = 0, ci.len = leaf ? n.len : 0;
        ci.listed = leaf ? 0 : n.count;
        first = leaf ? 0 : n.disps.front();
        end = leaf ? n.len : static_cast<__int128>(n.disps.back()) + n.blens.back();
    } else {
        // Copies of the child: count (vec, blkidx), or blens[i] per block at the stride (idx).
        __int128 copies = n.count;
        if (n.k == ir_kind::idx) {
            copies = 0;
            for (int64_t b : n.blens) {
                if (b <= 0) return false;  // idx-merge drops empty blocks first
                copies += b;
            }
        }
        const __int128 blocks = ci.blocks * copies;
        if (blocks > chain_cap) return false;
        const __int128 step = static_cast<__int128>(ci.end) - ci.first;  // a gap that continues
        __int128 touching = ci.touching * copies;
        first = ci.first, end = ci.end;
        if (n.k == ir_kind::vec) {
            touching += n.stride == step ? n.count - 1 : 0;
            end += static_cast<__int128>(n.count - 1) * n.stride;
        } else if (n.k == ir_kind::blkidx) {
            // Neighbouring displacements of one type differ by an int64: a
            // step outside it continues no block.
            if (step >= INT64_MIN && step <= INT64_MAX)
                touching += lists::count_steps(n.disps.data(), n.disps.size(), static_cast<int64_t>(step));
            first += n.disps.front(), end += n.disps.back();
            ci.listed += n.count;
        } else {
            __int128 last = 0;  // the previous block's last copy
            for (size_t i = 0; i < n.disps.size(); ++i) {
                if (i > 0) touching += n.disps[i] - last == step;
                touching += n.stride == step ? n.blens[i] - 1 : 0;
                last = n.disps[i] + static_cast<__int128>(n.blens[i] - 1) * n.stride;
            }
            first += n.disps.front(), end += last;
            ci.listed += n.count;
        }
        ci.blocks = static_cast<int64_t>(blocks), ci.touching = static_cast<int64_t>(touching);
    }
    first += n.disp, end += n.disp;
    if (end > INT64_MAX || end < INT64_MIN || first > INT64_MAX || first < INT64_MIN) return false;
    ci.first = static_cast<int64_t>(first), ci.end = static_cast<int64_t>(end);
    return true;
}

// The chain's summary, from its base up: down to the base, `link` marking
// the way back (a chain of count-1 nodes a sweep has not folded yet can be
// as deep as the type; no recursion, no allocation).
bool chain_of(const ir& n, chain_info& ci) {
    const ir* c = &n;
    while (!c->is_leaf() && !byte_runs(*c)) {
        if (c->k == ir_kind::strct) return false;
        c->kid()->link = const_cast<ir*>(c);
        c = c->kid();
    }
    for (;; c = c->link) {
        if (!chain_step(*c, ci)) return false;
        if (c == &n) return true;
    }
}

// Copy j at the stride: a position inside the type's bounds (int64), though
// j * stride alone may not be (a far negative start, a huge stride).
int64_t at(int64_t base, int64_t j, int64_t stride) {
    return static_cast<int64_t>(base + static_cast<__int128>(j) * stride);
}

// Where a vec/blkidx/idx node puts the copies of its child, in type-map
// order, from base (the node's own disp included).
template <class F>
void for_each_copy(const ir& n, int64_t base, F&& f) {
    base += n.disp;
    if (n.k == ir_kind::idx) {
        for (size_t i = 0; i < n.disps.size(); ++i)
            for (int64_t j = 0; j < n.blens[i]; ++j) f(at(base + n.disps[i], j, n.stride));
        return;
    }
    for (int64_t i = 0; i < n.count; ++i)
        f(n.k == ir_kind::vec ? at(base, i, n.stride) : base + n.disps[static_cast<size_t>(i)]);
}

// The blocks (runs) of a chain in type-map order, from base: the copies of
// each level, outermost first, one level at a time (no recursion).
void chain_list(const ir& n, int64_t base, ir& out) {
    pool_vec<int64_t> at{base}, next;  // where the copies of the current level's node start
    const ir* c = &n;
    for (; !c->is_leaf() && !byte_runs(*c); c = c->kid()) {
        next.clear();
        for (int64_t a : at) for_each_copy(*c, a, [&](int64_t at_copy) { next.push_back(at_copy); });
        std::swap(at, next);
    }
    for (int64_t a : at) {
        if (c->is_leaf()) {
            out.disps.push_back(a + c->disp);
        } else {
            for (size_t i = 0; i < c->disps.size(); ++i) out.disps.push_back(a + c->disp + c->disps[i]);
            out.blens.insert(out.blens.end(), c->blens.begin(), c->blens.end());
        }
    }
}

// The chain rooted at n (whose child is no leaf: rule_blkidx and the contig
// rule decide those) becomes blkidx(leaf) of its blocks when rule_blkidx
// would turn that into byte runs. In the other case it is left alone, so
// this rule and the Träff pass, which builds such chains, cannot cycle.
// Over byte runs, it becomes one list of runs (idx-merge joins them).
bool rule_chain_runs(ir_ptr& n) {
    if (n->kid()->is_leaf()) return false;
    chain_info ci;
    if (!chain_of(*n, ci) || ci.touching == 0) return false;
    if (ci.blocks > std::max(chain_small, 2 * ci.listed)) return false;
    if (ci.len > 0 && !runs_pay(ci.blocks, ci.touching)) return false;
    auto b = std::make_unique<ir>();
    b->disps.reserve(static_cast<size_t>(ci.blocks));
    chain_list(*n, -n->disp, *b);
    b->count = ci.blocks;
    if (ci.len > 0) {
        b->k = ir_kind::blkidx;
        b->kids.push_back(make_leaf(ci.len));
    } else {
        b->k = ir_kind::idx;
        b->stride = 1;
        b->kids.push_back(make_leaf(1));
    }
    become(n, std::move(b), n->disp);
    return true;
}

// An idx that is not byte runs (blocks of copies of any child at a stride;
// rule_idx has already made uniform ones blkidx(vec)) becomes the blkidx of
// its copies, which the runs rule, the chain rule and the Träff pass decide
// as they decide the byte list of the same type map. Only while that list
// stays small or at most twice the idx's own: idx([1000, 500], ...) keeps
// its two entries.
bool rule_idx_copies(ir_ptr& n) {
    ir& x = *n;
    if (byte_runs(x)) return false;
    __int128 copies = 0;
    for (int64_t b : x.blens) copies += b;
    if (copies > std::max(chain_small, 2 * x.count)) return false;
    auto b = std::make_unique<ir>();
    b->k = ir_kind::blkidx;
    b->count = static_cast<int64_t>(copies);
    b->disps.reserve(static_cast<size_t>(copies));
    for_each_copy(x, -x.disp, [&](int64_t at_copy) { b->disps.push_back(at_copy); });
    b->kids.push_back(std::move(x.kids[0]));
    become(n, std::move(b), x.disp);
    return true;
}

// An index list whose first c blocks repeat (same relative displacements and
// lengths) n/c times is a block index of that c-block pattern: Träff's
// repeated prefix applied to blocks of unequal length (section 6 of the paper
// leaves INDEXED open; this keeps its TypePath part). The shortest c wins.
bool repeat_pattern(ir_ptr& n) {
    ir& x = *n;
    const int64_t cnt = x.count;
    const int64_t c = shortest_period(cnt, [&](int64_t p) {
        for (int64_t i = p; i < cnt; ++i) {
            const int64_t base = i - i % p;
            if (x.blens[i] != x.blens[i % p] || x.disps[i] - x.disps[base] != x.disps[i % p] - x.disps[0])
                return false;
        }
        return true;
    });
    if (c == cnt) return false;
    auto inner = std::make_unique<ir>();
    inner->k = ir_kind::idx;
    inner->count = c;
    inner->stride = x.stride;
    inner->disps.assign(x.disps.begin(), x.disps.begin() + c);
    inner->blens.assign(x.blens.begin(), x.blens.begin() + c);
    inner->kids.push_back(std::move(x.kids[0]));
    auto outer = std::make_unique<ir>();
    outer->k = ir_kind::blkidx;
    outer->count = cnt / c;
    for (int64_t k = 0; k < cnt; k += c) outer->disps.push_back(x.disps[k]);
    outer->kids.push_back(std::move(inner));
    become(n, std::move(outer), x.disp);
    return true;
}

bool rule_idx(ir_ptr& n) {
    ir& x = *n;
    ir& c = *x.kid();
    if (c.is_leaf() && (c.len != 1 || x.stride != 1) && x.stride == c.len) {
        for (int64_t& b : x.blens) b *= c.len;  // to byte units
        x.stride = 1;
        x.kids[0] = make_leaf(1);
        return true;
    }
    // Drop empty blocks and merge blocks that continue each other.
    size_t w = 0;
    for (size_t i = 0; i < x.disps.size(); ++i) {
        if (x.blens[i] == 0) continue;
        int64_t len = 0, end = 0;  // one stride past block w - 1: may overflow (see rule_vec)
        if (w > 0 && !__builtin_mul_overflow(x.blens[w - 1], x.stride, &len) &&
            !__builtin_add_overflow(x.disps[w - 1], len, &end) && end == x.disps[i]) {
            x.blens[w - 1] += x.blens[i];
            continue;
        }
        x.disps[w] = x.disps[i], x.blens[w] = x.blens[i];
        ++w;
    }
    bool changed = w != x.disps.size();
    x.disps.resize(w), x.blens.resize(w);
    x.count = static_cast<int64_t>(w);
    if (x.count == 1) {
        become(n, make_vec(x.blens[0], x.stride, std::move(x.kids[0])), x.disp + x.disps[0]);
        return true;
    }
    if (hoist_first(x)) return true;
    bool uniform = true;
    for (int64_t b : x.blens) uniform = uniform && b == x.blens[0];
    // Byte runs: a 1-byte leaf at stride 1 (a wider leaf at stride 1 is a
    // resized type whose copies overlap, not bytes).
    if (!uniform && byte_runs(x)) {
        // Byte runs whose lengths share a divisor g, when splitting them into
        // g-byte blocks adds at most a third more blocks, run faster as a
        // fixed-length block index (one kernel, 4-8 bytes per block).
        int64_t g = 0, total = 0;  // total <= the type's size: no overflow
        for (int64_t b : x.blens) g = std::gcd(g, b), total += b;
        // The converse of runs_pay: total / g blocks of g bytes, all but the
        // x.count run starts continuing the one before. Exact (no rounding),
        // so a pattern and its repetitions decide alike.
        if (!runs_pay(total / g, total / g - x.count)) {
            auto b = std::make_unique<ir>();
            b->k = ir_kind::blkidx;
            for (size_t i = 0; i < x.disps.size(); ++i)
                for (int64_t o = 0; o < x.blens[i]; o += g) b->disps.push_back(x.disps[i] + o);
            b->count = static_cast<int64_t>(b->disps.size());
            b->kids.push_back(make_leaf(g));
            become(n, std::move(b), x.disp);
            return true;
        }
    }
    if (uniform) {
        auto b = std::make_unique<ir>();
        b->k = ir_kind::blkidx;
        b->count = x.count;
        b->disps = std::move(x.disps);
        b->kids.push_back(make_vec(x.blens[0], x.stride, std::move(x.kids[0])));
        become(n, std::move(b), x.disp);
        return true;
    }
    if (x.count >= 4 && repeat_pattern(n)) return true;
    return changed;
}

// A struct whose fields are leaves, chains over a leaf or chains over byte
// runs (what the other rules leave of any field a small struct can have)
// and whose blocks number at most chain_small becomes the idx of its byte
// runs, in type-map order: the list the byte list of the same type map
// lowers to, which idx-merge and the runs rules then decide alike. Only that
// small: a struct of index lists (LAMMPS_full, 6 x 3062 blocks) keeps one
// fixed-length kernel per field.
bool rule_struct_runs(ir_ptr& n) {
    ir& s = *n;
    // The product of the counts of the nodes down a field (its copies at each
    // level, an idx's entries) bounds its blocks from below in O(depth): a
    // struct of long index lists (LAMMPS_full) is refused without chain_of's
    // walk over their displacements, in every sweep.
    int64_t blocks = 0;
    for (const ir_ptr& c : s.kids) {
        int64_t at_least = 1;
        for (const ir* k = c.get(); !k->is_leaf() && k->k != ir_kind::strct; k = k->kid())
            if (__builtin_mul_overflow(at_least, k->count, &at_least) || at_least > chain_small) return false;
        if ((blocks += at_least) > chain_small) return false;
    }
    blocks = 0;
    std::vector<int64_t> lens;  // per field: its leaf's length, 0 over byte runs
    lens.reserve(s.kids.size());
    for (const ir_ptr& c : s.kids) {
        chain_info ci;
        if (!chain_of(*c, ci) || (blocks += ci.blocks) > chain_small) return false;
        lens.push_back(ci.len);
    }
    auto b = std::make_unique<ir>();
    b->k = ir_kind::idx;
    b->stride = 1;
    b->disps.reserve(static_cast<size_t>(blocks));
    b->blens.reserve(static_cast<size_t>(blocks));
    for (size_t i = 0; i < s.kids.size(); ++i) {
        chain_list(*s.kids[i], s.disps[i], *b);
        if (lens[i] > 0) b->blens.resize(b->disps.size(), lens[i]);  // a chain over a leaf lists starts only
    }
    b->count = blocks;
    b->kids.push_back(make_leaf(1));
    become(n, std::move(b), s.disp);
    return true;
}

bool rule_struct(ir_ptr& n) {
    ir& s = *n;
    // Splice nested structs and drop empty children. Every sweep visits the
    // struct: its lists are rebuilt only when there is something to do.
    bool changed = false;
    for (const ir_ptr& c : s.kids) changed = changed || c->size() == 0 || c->k == ir_kind::strct;
    if (changed) {
        pool_vec<int64_t> d;
        ir_list k;
        for (size_t i = 0; i < s.kids.size(); ++i) {
            ir_ptr& c = s.kids[i];
            if (c->size() == 0) continue;
            if (c->k == ir_kind::strct) {
                for (size_t j = 0; j < c->kids.size(); ++j) {
                    d.push_back(s.disps[i] + c->disp + c->disps[j]);
                    k.push_back(std::move(c->kids[j]));
                }
            } else {
                d.push_back(s.disps[i]);
                k.push_back(std::move(c));
            }
        }
        s.disps = std::move(d), s.kids = std::move(k);
        s.count = static_cast<int64_t>(s.kids.size());
    }
    if (s.count == 1) {
        become(n, std::move(s.kids[0]), s.disp + s.disps[0]);
        return true;
    }
    if (hoist_first(s)) return true;
    bool all_same = true, all_leaf = true;
    for (const ir_ptr& c : s.kids) {
        all_same = all_same && same(*c, *s.kids[0]);
        all_leaf = all_leaf && c->is_leaf();
    }
    if (all_same || all_leaf) {
        auto b = std::make_unique<ir>();
        b->count = s.count;
        b->disps = std::move(s.disps);
        if (all_same) {
            b->k = ir_kind::blkidx;
            b->kids.push_back(std::move(s.kids[0]));
        } else {
            b->k = ir_kind::idx;
            b->stride = 1;
            for (const ir_ptr& c : s.kids) b->blens.push_back(c->len);
            b->kids.push_back(make_leaf(1));
        }
        become(n, std::move(b), s.disp);
        return true;
    }
    return rule_struct_runs(n) || changed;
}

// The rules at n, whose children are swept; true if anything changed.
bool rewrite(ir_ptr& n) {
    if (n->size() == 0) {
        if (n->is_leaf() && n->len == 0 && n->disp == 0) return false;
        n = make_leaf(0);
        return true;
    }
    const bool changed = hoist_kids(*n);
    switch (n->k) {
        case ir_kind::leaf: return changed;
        case ir_kind::vec: return rule_vec(n) || rule_chain_runs(n) || changed;
        case ir_kind::blkidx: return rule_blkidx(n) || rule_chain_runs(n) || changed;
        case ir_kind::idx: return rule_idx(n) || rule_idx_copies(n) || changed;
        case ir_kind::strct: return rule_struct(n) || changed;
    }
    return changed;
}

// One bottom-up sweep; true if anything changed. Post-order on a stack of
// its own: before the first sweep the IR is as deep as the type. *depth:
// the deepest level it visited (the tree's depth when nothing changed).
bool sweep(ir_ptr& root, int64_t* depth) {
    struct frame {
        ir_ptr* at;   // the slot of the node (a rule may replace it)
        size_t next;  // its next child to sweep
    };
    small_stack<frame, 32> st;
    st.push({&root, 0});
    *depth = 1;
    bool changed = false;
    while (!st.empty()) {
        frame& f = st.top();
        ir& n = **f.at;
        if (f.next < n.kids.size()) {
            ir_ptr* kid = &n.kids[f.next++];
            st.push({kid, 0});  // f is not used after this
            if (static_cast<int64_t>(st.size()) > *depth) *depth = static_cast<int64_t>(st.size());
            continue;
        }
        ir_ptr* at = f.at;
        st.pop();
        // One rewrite per node and sweep, as the sweeps have always done:
        // the normal form depends on that order (sweeping a rewritten node
        // again at once reaches other fixed points for some types).
        changed |= rewrite(*at);
    }
    return changed;
}

}  // namespace

ir_ptr vec_node(int64_t count, int64_t stride, ir_ptr kid) {
    if (count == 1) return kid;
    // contig and vec-merge without a new node: the kid grows (its disp is
    // where the vector would have hoisted it).
    if (kid->is_leaf() && stride == kid->len) {
        kid->len *= count;
        kid->size_ = -1;
        return kid;
    }
    if (kid->k == ir_kind::vec && lines_up(stride, kid->count, kid->stride)) {
        kid->count *= count;
        kid->size_ = -1;
        while (kid->k == ir_kind::vec && rule_vec(kid)) {
        }
        return kid;
    }
    ir_ptr n = make_vec(count, stride, std::move(kid));
    // What a sweep does at a vector once its child is normal: hoist the
    // child's disp, then the vector rules until none applies.
    hoist_kids(*n);
    while (n->k == ir_kind::vec && rule_vec(n)) {
    }
    return n;
}

void hoist(ir& n) {
    hoist_kids(n);
    hoist_first(n);
}

int64_t normalize(ir_ptr& n) {
    // Each rule strictly shrinks the tree or moves a displacement upward, so
    // the local sweeps terminate; the Träff pass is idempotent on its own
    // output. The round limit only guards against a cost-model cycle.
    int64_t depth = 0;
    for (int round = 0; round < 16; ++round) {
        while (sweep(n, &depth)) {
        }
        // The last sweep changed nothing: depth is the tree's, unless the
        // Träff pass changes it now.
        if (!traff_optimize(n)) return depth;
    }
    return depth_of(*n);
}

}  // namespace ch4lite::dame
