// SPDX-License-Identifier: MIT
// A committed type's program: a flat array of 64-byte nodes (root first),
// each one building block of seed 000 (CONTIG as a leaf, VECTOR, BLKINDEX,
// INDEXED, STRUCT) with the common fields count / size / alignment, and its
// own fields (stride, displacement list, block lengths as a prefix array).
//
// FINAL: a node whose child is a contiguous byte block has `kern` != 0 and
// `blen` = that block's byte length (INDEXED FINAL: blocks of varying length
// given by prefix differences). Its whole loop is one specialized kernel
// chosen at commit (kernels.hpp). Displacement lists are int32 when every
// value fits (`wide` == 0), else int64.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dame/alloc.hpp"
#include "util/status.hpp"

namespace ch4lite::dame {

class type;

enum class op : uint8_t { leaf, vector, blkindex, indexed, struct_ };

struct node {
    op kind = op::leaf;
    uint8_t kern = 0;        // kernel id (FINAL nodes), 0 otherwise
    uint8_t wide = 0;        // disps are int64 (else int32); struct: always int64
    uint8_t align_log2 = 0;  // every block's address and length are multiples of 1 << this
    uint32_t child = 0;      // child node; struct: first entry in program::kids
    int64_t count = 0;
    int64_t size = 0;        // packed bytes of one instance of this node
    int64_t stride = 0;      // vector: distance of copies; indexed: of copies in a block
    int64_t blen = 0;        // leaf / FINAL: contiguous block bytes; indexed FINAL: 1
    int64_t disp = 0;        // offset of this node inside its parent's copy
    const void* disps = nullptr;      // blkindex / indexed / struct
    const int64_t* prefix = nullptr;  // indexed: count+1 running copies; struct: packed offsets
};
static_assert(sizeof(node) == 64, "a node is one cache line");

class program {
  public:
    program() noexcept {}  // every member has its initializer (as type() in type.hpp)
    static void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
        return detail::pool_alloc_nothrow(bytes);
    }
    static void operator delete(void* p, std::size_t bytes) noexcept { detail::pool_free(p, bytes); }
    const node& root() const noexcept { return nodes_[0]; }
    const node& at(uint32_t i) const noexcept { return nodes_[i]; }
    uint32_t kid(uint32_t i) const noexcept { return kids_[i]; }
    size_t nodes() const noexcept { return nodes_.size(); }

    int64_t size() const noexcept { return size_; }
    int64_t extent() const noexcept { return extent_; }
    // Contiguous segments of one instance, after coalescing.
    int64_t segments_per_instance() const noexcept { return segs_; }
    // Segments of `count` consecutive instances (O(1)); saturates at INT64_MAX.
    int64_t segments(int64_t count) const noexcept;
    // Bytes of program memory (nodes + lists).
    size_t footprint() const noexcept;
    int depth() const noexcept { return depth_; }
    // The top-level loop for `count` instances (vector over the root, merged
    // with it when the root's copies continue across instances).
    node top(int64_t count) const noexcept;

  private:
    friend struct compiler;
    friend status compile(const type& t, std::unique_ptr<const program>* out) noexcept;
    pool_vec<node> nodes_;
    pool_vec<uint32_t> kids_;
    // Moving a list into these vectors keeps its elements where they are
    // (nodes point at them).
    pool_vec<pool_vec<int64_t>> lists64_;
    pool_vec<pool_vec<int32_t>> lists32_;
    size_t list_bytes_ = 0;
    int64_t size_ = 0, extent_ = 0, segs_ = 0;
    int64_t first_ = 0, last_end_ = 0;  // first segment start / last segment end
    uint8_t top_kern_ = 0;
    bool top_merge_ = false;
    int depth_ = 0;
};

// The deepest normal form commit accepts. The interpreter, IOV emission,
// segment counting and flattening recurse once per level of the program;
// everything before (lowering, normalization) and every walk of the type
// tree is iterative. A normal form cannot be deeper than 2 * 63 + 1 levels:
// every vec, blkidx and idx node has at least two copies of a child of
// size >= 1, and a struct has two non-empty children, none a struct, so the
// size at least doubles every two levels and fits in 63 bits. The check
// (status::range, MPI_ERR_TYPE) guards that argument.
constexpr int64_t max_program_depth = 160;

// Lowers, normalizes and flattens t into a program. Errors: status::no_mem,
// status::range (normal form deeper than max_program_depth).
status compile(const type& t, std::unique_ptr<const program>* out) noexcept;
// The normalized IR of t as text (recomputed on demand: commit keeps no text).
std::string normal_form(const type& t);

// Kernel ids below first_nested_kernel belong to FINAL nodes (child is a
// contiguous block); from it on, to a VECTOR whose child is a VECTOR FINAL
// (both loops in one kernel; disps points at the child node).
constexpr uint8_t first_nested_kernel = 63;
inline bool is_final(const node& n) noexcept { return n.kern != 0 && n.kern < first_nested_kernel; }
// Kernel id for a FINAL node of this kind and block length. far: a
// BLKINDEX whose blocks spread over at least far_span bytes, which pack
// reads with a prefetch ahead of the block list.
constexpr int64_t far_span = 512 * 1024;
uint8_t choose_kernel(op kind, int64_t blen, bool wide, bool far = false) noexcept;
uint8_t choose_nested_kernel(int64_t inner_blen) noexcept;
const char* kernel_name(uint8_t id) noexcept;

}  // namespace ch4lite::dame
