// SPDX-License-Identifier: MIT
// TypePath and the dynamic program of Träff (EuroMPI/ASIA 2014), written from
// the paper's description (seed 001, Listings 1-2 and section 3).
#include "dame/traff.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <numeric>

namespace ch4lite::dame {
namespace {

constexpr int64_t max_flat = int64_t{1} << 20;  // largest idx a group may flatten to

// Largest c dividing n such that every run of c displacements is strided by d.
int64_t longest_vector(const int64_t* x, int64_t n, int64_t* d) {
    *d = x[1] - x[0];
    int64_t c = n, i = 0;
    for (;;) {
        const int64_t j = i;
        while (i < j + c - 1 && x[i + 1] - x[i] == *d) ++i;
        ++i;
        if (i == n) return c;
        if (i < j + c) {
            c = std::gcd(c, i - j);
            if (c == 1) return 1;
        }
    }
}

bool repeated(const int64_t* x, int64_t c, int64_t n) {
    for (int64_t i = 0; i + c < n; i += c)
        for (int64_t j = 1; j < c; ++j)
            if (x[i + j] - x[i] != x[i + c + j] - x[i + c]) return false;
    return true;
}

struct cut {
    size_t k;   // piece index
    int64_t q;  // inner count of piece k below the cut (count of k: clean cut)
};

// One part of a group: a whole piece, or the inner/outer part of a split
// vector. Index parts point at their piece (no copies while the DP searches).
struct part {
    bool is_vec;
    int64_t count;
    int64_t stride;
    const piece* src;
};

// The parts between cuts a (above) and b (below), into out (reused: no
// allocation in the DP's inner loop). Returns the product of their counts.
double between(const path& p, cut a, cut b, std::vector<part>& out) {
    out.clear();
    double count = 1;
    auto add = [&](part x) {
        if (x.count > 1) {
            count *= static_cast<double>(x.count);
            out.push_back(x);
        }
    };
    if (a.k == b.k) {
        add({true, a.q / b.q, b.q * p[a.k].stride, nullptr});
        return count;
    }
    const piece& top = p[a.k];
    if (top.is_vec) add({true, a.q, top.stride, nullptr});
    else add({false, top.count, 0, &top});
    for (size_t k = a.k + 1; k < b.k; ++k) add({p[k].is_vec, p[k].count, p[k].stride, &p[k]});
    if (b.k < p.size() && b.q < p[b.k].count)
        add({true, p[b.k].count / b.q, b.q * p[b.k].stride, nullptr});
    return count;
}

// Whether a group's parts form one vector: all vectors, each stride one
// span of the part below. (A group of one index part is an index node: it
// had been costed as a vector, which made every index piece look cheap.)
bool mergeable(const std::vector<part>& parts) {
    for (size_t i = 0; i < parts.size(); ++i)
        if (!parts[i].is_vec ||
            (i + 1 < parts.size() && !lines_up(parts[i].stride, parts[i + 1].count, parts[i + 1].stride)))
            return false;
    return true;
}

// Combines a group's parts into one piece (vec when strides line up).
piece combine(const std::vector<part>& parts) {
    if (parts.size() == 1 && !parts[0].is_vec) return *parts[0].src;
    piece r;
    if (mergeable(parts)) {
        r.count = 1;
        for (const part& x : parts) r.count *= x.count;
        r.stride = parts.back().stride;
        return r;
    }
    r.is_vec = false;
    pool_vec<int64_t> cur{0};
    for (const part& x : parts) {
        pool_vec<int64_t> next;
        next.reserve(cur.size() * static_cast<size_t>(x.count));
        for (int64_t a : cur)
            for (int64_t j = 0; j < x.count; ++j) next.push_back(a + (x.is_vec ? j * x.stride : x.src->disps[j]));
        cur = std::move(next);
    }
    r.count = static_cast<int64_t>(cur.size());
    r.disps = std::move(cur);
    return r;
}

// Divisors q of c with 1 < q < c, largest first, at most `cap` of them.
void divisors(int64_t c, int cap, std::vector<int64_t>& out) {
    out.clear();
    std::vector<int64_t> small;
    for (int64_t d = 2; d * d <= c; ++d) {
        if (c % d) continue;
        small.push_back(d);
        if (d != c / d) out.push_back(c / d);
        // The cap largest are c / d of the cap smallest d: the rest of the
        // search (up to sqrt(c): 1.5e8 divisions for a vector of 2^54 copies,
        // a second of commit, found by fuzz_dame_unpack) cannot change them.
        if (static_cast<int>(out.size()) == cap) return;
    }
    for (size_t i = small.size(); i-- > 0;) out.push_back(small[i]);  // out: large..small
    if (static_cast<int>(out.size()) > cap) out.resize(static_cast<size_t>(cap));
}

double node_cost(bool is_vec, double count, double reached, const cost_model& m) {
    if (is_vec) return reached * (m.vec_visit + m.vec_iter * count) + m.vec_store;
    return reached * (m.idx_visit + m.idx_iter * count) + (m.idx_store + m.idx_store_disp * count);
}

}  // namespace

path type_path(const int64_t* x, int64_t n) {
    path inner_first;
    pool_vec<int64_t> rest;  // every c-th displacement, once a piece of count c is taken
    const int64_t* cur = x;
    while (n > 1) {
        int64_t d = 0;
        int64_t c = longest_vector(cur, n, &d);
        piece pc;
        if (c > 1) {
            pc = {true, c, d, {}};
        } else {
            c = shortest_period(n, [&](int64_t p) { return repeated(cur, p, n); });
            pc.is_vec = false;
            pc.count = c;
            pc.disps.resize(static_cast<size_t>(c));
            for (int64_t i = 0; i < c; ++i) pc.disps[i] = cur[i] - cur[0];
        }
        inner_first.push_back(std::move(pc));
        n /= c;
        if (n > 1) {
            if (cur == x) rest.resize(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) rest[i] = cur[i * c];  // in place: i * c >= i
            cur = rest.data();
        }
    }
    std::reverse(inner_first.begin(), inner_first.end());
    return inner_first;
}

double path_cost(const path& p, const cost_model& m) {
    double reached = 1, cost = 0;
    for (const piece& x : p) {
        cost += node_cost(x.is_vec, static_cast<double>(x.count), reached, m);
        reached *= static_cast<double>(x.count);
    }
    return cost;
}

path optimal_path(const path& p, const cost_model& m) {
    if (p.empty()) return p;
    std::vector<cut> cuts;
    std::vector<double> above;  // times the group starting at this cut is reached
    std::vector<int64_t> divs;
    double reached = 1;
    for (size_t k = 0; k < p.size(); ++k) {
        cuts.push_back({k, p[k].count});
        above.push_back(reached);
        if (p[k].is_vec) {
            divisors(p[k].count, 16, divs);
            for (int64_t q : divs) {
                cuts.push_back({k, q});
                above.push_back(reached * static_cast<double>(p[k].count / q));
            }
        }
        reached *= static_cast<double>(p[k].count);
    }
    cuts.push_back({p.size(), 1});
    above.push_back(reached);
    const size_t nc = cuts.size();
    std::vector<double> best(nc, std::numeric_limits<double>::infinity());
    std::vector<size_t> from(nc, 0);
    std::vector<part> parts;
    parts.reserve(p.size() + 2);
    best[0] = 0;
    for (size_t j = 1; j < nc; ++j) {
        for (size_t i = j; i-- > 0;) {
            if (cuts[i].k == cuts[j].k && cuts[i].q % cuts[j].q) continue;
            const double count = between(p, cuts[i], cuts[j], parts);
            const bool vec = mergeable(parts);
            if (!vec && count > static_cast<double>(max_flat)) break;
            const double c = best[i] + (parts.empty() ? 0 : node_cost(vec, count, above[i], m));
            if (c < best[j]) best[j] = c, from[j] = i;
        }
    }
    path out;
    for (size_t j = nc - 1; j > 0; j = from[j]) {
        between(p, cuts[from[j]], cuts[j], parts);
        if (!parts.empty()) out.insert(out.begin(), combine(parts));
    }
    return out;
}

namespace {

bool is_chain_node(const ir& n) { return n.k == ir_kind::vec || n.k == ir_kind::blkidx; }

// The slot below the chain of vec/blkidx nodes that starts at n.
ir_ptr& below_chain(ir_ptr& n) {
    ir* last = n.get();
    while (is_chain_node(*last->kid())) last = last->kid();
    return last->kids[0];
}

// Rebuilds the chain of vec/blkidx nodes starting at n over the same node
// below it (which it neither reads nor changes); true if n changed.
bool optimize_chain(ir_ptr& n) {
    bool has_idx = false;
    size_t len = 0;
    for (ir* cur = n.get(); is_chain_node(*cur); cur = cur->kid()) has_idx |= cur->k == ir_kind::blkidx, ++len;
    ir_ptr& bottom = below_chain(n);
    // Vector-only chains stay vectors: the vec2 kernels run them without a
    // call per row, and skipping the DP there keeps commit of regular types
    // cheap. The rule depends only on the expanded path, so it is canonical.
    if (!has_idx) return false;
    path old, expanded;
    for (ir* c = n.get(); c != bottom.get(); c = c->kid()) {
        if (c->k == ir_kind::vec) {
            old.push_back({true, c->count, c->stride, {}});
            expanded.push_back(old.back());
        } else {
            path tp = type_path(c->disps.data(), c->count);
            // One index list (LAMMPS, SPECFEM3D) whose TypePath is the list
            // itself (no strided run, no repeated pattern): nothing can
            // change, so skip the copies and the DP (commit cost per block).
            if (len == 1 && tp.size() == 1 && !tp[0].is_vec && tp[0].disps == c->disps)
                return false;
            old.push_back({false, c->count, 0, c->disps});
            expanded.insert(expanded.end(), std::make_move_iterator(tp.begin()),
                            std::make_move_iterator(tp.end()));
        }
    }
    // Adjacent vectors whose strides line up are one vector, as TypePath
    // finds it in the byte list: vec(3, 5184) vec(2, 2592) is vec(6, 2592),
    // whose divisors the DP may then split at 2 as well as at 3.
    for (size_t i = 0; i + 1 < expanded.size();) {
        piece& a = expanded[i];
        const piece& b = expanded[i + 1];
        if (a.is_vec && b.is_vec && lines_up(a.stride, b.count, b.stride) &&
            static_cast<__int128>(a.count) * b.count <= std::numeric_limits<int64_t>::max()) {
            a.count *= b.count, a.stride = b.stride;
            expanded.erase(expanded.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        } else {
            ++i;
        }
    }
    bool all_vec = true;
    for (const piece& x : expanded) all_vec = all_vec && x.is_vec;
    // The DP multiplies counts by strides and adds displacements up to the
    // sum of every piece's count * |stride| (or largest |disp|), which
    // can exceed int64 with huge strides even where the type's own bounds
    // do not (count * stride is one stride past the last block). Such
    // paths keep their shape; the rule depends only on the path.
    if (!all_vec) {
        __int128 reach = 0;
        for (const piece& x : expanded) {
            if (x.is_vec) {
                reach += static_cast<__int128>(x.count) * (x.stride < 0 ? -static_cast<__int128>(x.stride) : x.stride);
            } else {
                __int128 far = 0;
                for (int64_t d : x.disps) far = std::max<__int128>(far, d < 0 ? -static_cast<__int128>(d) : d);
                reach += far;
            }
            if (reach > std::numeric_limits<int64_t>::max()) return false;
        }
    }
    path best = all_vec ? expanded : optimal_path(expanded);
    if (best == old) return false;
    ir_ptr kid = std::move(bottom);
    for (size_t i = best.size(); i-- > 0;) {
        const piece& x = best[i];
        if (x.is_vec) {
            kid = make_vec(x.count, x.stride, std::move(kid));
        } else {
            auto b = std::make_unique<ir>();
            b->k = ir_kind::blkidx;
            b->count = x.count;
            b->disps = x.disps;
            b->kids.push_back(std::move(kid));
            kid = std::move(b);
        }
    }
    kid->disp += n->disp;
    n = std::move(kid);
    return true;
}

}  // namespace

bool traff_optimize(ir_ptr& root) {
    // Every maximal chain, top-down on a stack of its own (no recursion).
    // A chain's rebuild reads only its own nodes, so the order of chains
    // does not matter; the node below a rebuilt chain is the same one.
    bool changed = false;
    small_stack<ir_ptr*, 16> todo;  // only struct nodes push (their other children)
    ir_ptr* at = &root;
    for (;;) {
        ir_ptr& n = *at;
        if (is_chain_node(*n)) {
            changed |= optimize_chain(n);
            at = &below_chain(n);
            continue;
        }
        if (!n->kids.empty()) {
            for (size_t i = n->kids.size(); i-- > 1;) todo.push(&n->kids[i]);
            at = &n->kids[0];
            continue;
        }
        if (todo.empty()) return changed;
        at = todo.top();
        todo.pop();
    }
}

}  // namespace ch4lite::dame
