// SPDX-License-Identifier: MIT
// The commit-time intermediate form: a tree of byte-granular loop nodes that
// lowering builds from the type tree and normalization rewrites to a fixed
// point before it is flattened into a program (program.hpp).
//
//   leaf   : `len` contiguous bytes at `disp`
//   vec    : `count` copies of kids[0], copy i at disp + i*stride
//   blkidx : `count` copies of kids[0], copy i at disp + disps[i]
//   idx    : block i = blens[i] copies of kids[0] at disp + disps[i] + j*stride
//   strct  : kids[i] at disp + disps[i]           (count = kids.size())
//
// Every node's `disp` is relative to its parent's position; a node with
// size 0 is removed by normalization (an empty type is an empty leaf).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dame/alloc.hpp"

namespace ch4lite::dame {

class type;

enum class ir_kind : uint8_t { leaf, vec, blkidx, idx, strct };

struct ir;
using ir_ptr = std::unique_ptr<ir>;

// Nodes, kid lists and displacement lists come from alloc.hpp's pools.
using ir_list = pool_vec<ir_ptr>;

struct ir {
    // Not value-initialization (make_unique<ir>()): every member has its
    // initializer, the object is not zeroed first (as type() in type.hpp).
    ir() noexcept {}
    // Destroys the subtree iteratively (a lowered IR can be as deep as the
    // type is nested), without allocating.
    ~ir();
    ir(const ir&) = delete;
    ir& operator=(const ir&) = delete;
    ir_kind k = ir_kind::leaf;
    int64_t disp = 0;
    int64_t count = 0;
    int64_t len = 0;     // leaf
    int64_t stride = 0;  // vec; idx: spacing of copies inside a block
    pool_vec<int64_t> disps;
    pool_vec<int64_t> blens;
    ir_list kids;

    // Packed bytes of one instance. Cached: every rewrite preserves the type
    // map of the node it rewrites, hence its size (new nodes start uncached).
    int64_t size() const noexcept {
        return size_ >= 0 ? size_ : (size_ = compute_size());
    }
    mutable int64_t size_ = -1;
    int64_t compute_size() const noexcept;
    // Scratch link of the walks that must not allocate (~ir: the next node
    // to destroy; compute_size: the parent). No initializer: meaningful only
    // inside those walks. Within the 128-byte pool class either way.
    mutable ir* link;
    bool is_leaf() const noexcept { return k == ir_kind::leaf; }
    ir* kid() const noexcept { return kids[0].get(); }

    static void* operator new(std::size_t bytes) { return detail::pool_alloc(bytes); }
    static void operator delete(void* p, std::size_t bytes) noexcept { detail::pool_free(p, bytes); }
};

ir_ptr make_leaf(int64_t len, int64_t disp = 0);
ir_ptr make_vec(int64_t count, int64_t stride, ir_ptr kid, int64_t disp = 0);
ir_ptr clone(const ir& n);
// Structural equality (including displacements).
bool same(const ir& a, const ir& b);
// A compact one-line text form, e.g. "vec(4,+16,leaf(8))" (tests and dumps).
std::string to_text(const ir& n);
// Levels of the tree (a leaf alone is 1), counted without recursion.
int64_t depth_of(const ir& n);

// Builds the IR of one instance of t (not normalized). Iterative: the type
// tree may be nested a million levels deep.
ir_ptr lower(const type& t);
// Rewrites n to its normal form (a fixed point of all passes); returns the
// normal form's depth (depth_of), known from its last sweep.
int64_t normalize(ir_ptr& n);
// vec(count, stride, kid) with the rules normalization applies to a
// vector over a normal child already applied (count-1, contig, vec-merge,
// the child's disp hoisted): lowering builds its vectors with it, so that
// commit makes and rewrites fewer nodes (the rules keep the type map;
// normalization goes on from the result).
ir_ptr vec_node(int64_t count, int64_t stride, ir_ptr kid);
// The hoist rule at n as a sweep applies it (its children's disps into n,
// then the first entry of n's list into n's disp): lowering runs it on the
// structs and block indexes it builds, so that a struct of normal fields
// needs one normalization sweep, not two.
void hoist(ir& n);

}  // namespace ch4lite::dame
