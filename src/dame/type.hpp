// SPDX-License-Identifier: MIT
// dame::type: one MPI datatype. It records how it was built (for
// MPI_Type_get_contents and for lowering at commit), its bounds, and after
// commit its program. Predefined types are static objects, never freed;
// derived types are reference counted so that a type used inside another, or
// by a pending operation, outlives MPI_Type_free.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "dame/alloc.hpp"
#include "dame/basic.hpp"
#include "util/status.hpp"

namespace ch4lite::dame {

class program;

// How a type was built, as MPI_Type_get_envelope reports it.
enum class combiner : uint8_t {
    named, dup, contiguous, vector, hvector, indexed, hindexed, indexed_block,
    hindexed_block, struct_, subarray, darray, resized, f90_real, f90_complex, f90_integer
};

// How MPI_Type_create_darray distributes one dimension.
enum class distrib : uint8_t { none, block, cyclic };
// The darg that asks for the default block size (MPI_DISTRIBUTE_DFLT_DARG).
constexpr int64_t darg_default = -1;

// The internal shape every constructor reduces to (displacements in bytes).
//   hvector : count blocks of `blocklen` children, block i at i*stride
//   hindexed: block i = blens[i] children at disps[i]
//   hblock  : block i = blocklen children at disps[i]
//   hstruct : block i = blens[i] of kids[i] at disps[i]
//   resized : kids[0] with bounds lb/extent set explicitly (also dup)
enum class shape : uint8_t { predef, hvector, hindexed, hblock, hstruct, resized };

// Arguments exactly as the user passed them, for MPI_Type_get_contents.
// `counts` holds the large-count arrays of the _c constructors.
struct contents {
    pool_vec<int> ints;
    pool_vec<int64_t> aints;
    pool_vec<int64_t> counts;
};

class type;

// The types a type holds (its children, or those the user passed): one for
// every constructor but struct, so one is kept in place and only longer
// lists take a block (a struct of subarrays is 15 types; a list block each
// was 30 of its 105 allocations). 16 bytes. Not movable: a type never moves.
class type_list {
  public:
    type_list() noexcept {}
    type_list(const type_list&) = delete;
    type_list& operator=(const type_list&) = delete;
    ~type_list() {
        if (cap_ > 1) detail::pool_free(many_, cap_ * sizeof(type*));
    }
    std::span<type* const> view() const noexcept { return {cap_ > 1 ? many_ : &one_, n_}; }
    // Empties the list without releasing anything (type::release() has
    // taken over the references).
    void forget() noexcept { n_ = 0; }
    // Room for n entries in all (may throw std::bad_alloc; the list is then
    // unchanged).
    void reserve(size_t n) {
        if (n <= cap_) return;
        if (n > UINT32_MAX) throw std::bad_alloc();
        auto* d = static_cast<type**>(detail::pool_alloc(n * sizeof(type*)));
        type* const* old = view().data();
        for (size_t i = 0; i < n_; ++i) d[i] = old[i];
        if (cap_ > 1) detail::pool_free(many_, cap_ * sizeof(type*));
        many_ = d, cap_ = static_cast<uint32_t>(n);
    }
    void push_back(type* k) {
        if (n_ == cap_) reserve(2 * size_t{cap_});
        (cap_ > 1 ? many_ : &one_)[n_++] = k;
    }

  private:
    union {
        type* one_ = nullptr;  // cap_ == 1
        type** many_;          // cap_ > 1
    };
    uint32_t n_ = 0, cap_ = 1;
};

class type {
  public:
    // ---- cheap accessors (used on the device's hot path) ----
    int64_t size() const noexcept { return size_; }
    int64_t extent() const noexcept { return ub_ - lb_; }
    int64_t lb() const noexcept { return lb_; }
    int64_t ub() const noexcept { return ub_; }
    int64_t true_lb() const noexcept { return true_lb_; }
    int64_t true_extent() const noexcept { return true_ub_ - true_lb_; }
    int64_t true_ub() const noexcept { return true_ub_; }
    bool committed() const noexcept { return prog_ != nullptr; }
    // count instances occupy exactly count*size() bytes at buf + true_lb().
    bool contiguous() const noexcept { return contig_; }
    basic_kind basic() const noexcept { return basic_; }
    int32_t alignment() const noexcept { return align_; }
    // Basic elements in one instance (MPI_Get_elements).
    int64_t elements() const noexcept { return elements_; }
    bool is_predefined() const noexcept { return pre_ != nullptr; }
    const predefined_info* predef() const noexcept { return pre_; }
    const program* prog() const noexcept { return prog_; }

    // Reference counting works on const types: a pending operation holds a
    // reference to a type it only reads. Predefined types ignore both.
    void retain() const noexcept {
        if (!pre_) refs_.fetch_add(1, std::memory_order_relaxed);
    }
    // Drops a reference; the last one destroys the type and releases its
    // children, iteratively: a chain of a million types nested in each other
    // goes without recursion (and without allocating).
    void release() const noexcept;

    // Builds the program (idempotent). A type whose program is its one
    // child's (dup, f90, or resized to the child's extent) shares the
    // committed child's program: a chain of MPI_Type_dup commits in O(1)
    // per level. Error: status::no_mem / range.
    status commit() noexcept;

    // ---- construction record ----
    combiner comb() const noexcept { return comb_; }
    // Made by MPI_Type_create_f90_*: MPI counts it as predefined (it cannot
    // be freed), though it is a DAME wrapper of the named type of its kind.
    bool f90() const noexcept { return comb_ >= combiner::f90_real && comb_ <= combiner::f90_integer; }
    // What MPI calls a predefined datatype: a named one or an f90 one.
    bool predefined_for_mpi() const noexcept { return is_predefined() || f90(); }
    shape shp() const noexcept { return shape_; }
    std::span<type* const> kids() const noexcept { return kids_.view(); }
    std::span<type* const> user_types() const noexcept { return user_types_.view(); }
    const contents& user_contents() const noexcept { return contents_; }
    bool large_counts() const noexcept { return large_; }
    void set_contents(contents c, bool large) { contents_ = std::move(c); large_ = large; }
    // The datatypes the user passed (retained until this type dies); once,
    // right after construction.
    void set_user_types(type* const* ts, size_t n) {
        user_types_.reserve(n);  // may throw: nothing retained yet
        for (size_t i = 0; i < n; ++i) {
            user_types_.push_back(ts[i]);
            ts[i]->retain();
        }
    }
    int64_t count() const noexcept { return count_; }
    int64_t blocklen() const noexcept { return blocklen_; }
    int64_t stride() const noexcept { return stride_; }
    const pool_vec<int64_t>& blens() const noexcept { return blens_; }
    const pool_vec<int64_t>& disps() const noexcept { return disps_; }
    bool explicit_bounds() const noexcept { return sticky_; }

    // The static object of a predefined type (its entry in the table).
    explicit type(const predefined_info* p) noexcept;
    uintptr_t predefined_handle() const noexcept { return pre_ ? predefined_handle_of(pre_) : 0; }
    // Defaulted in type.cpp, hence user-provided: `new type()` is then not
    // value-initialization, which zeroes all its bytes first (rep stos, 45 %
    // of make_vector's time) before the member initializers set them again.
    type() noexcept;
    // From alloc.hpp's pool (a struct of three subarrays is 10 types).
    static void* operator new(std::size_t bytes) { return detail::pool_alloc(bytes); }
    static void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
        return detail::pool_alloc_nothrow(bytes);
    }
    static void operator delete(void* p, std::size_t bytes) noexcept { detail::pool_free(p, bytes); }
    ~type();
    type(const type&) = delete;
    type& operator=(const type&) = delete;

  private:
    friend struct builder;
    static type* drop(type_list& l, type* dead) noexcept;
    friend status make_contiguous(int64_t, type*, type**) noexcept;
    friend status make_vector(int64_t, int64_t, int64_t, bool, type*, type**) noexcept;
    friend status make_indexed(int64_t, const int64_t*, const int64_t*, bool, type*, type**) noexcept;
    template <class D>
    friend status indexed_block(int64_t, int64_t, const D*, bool, type*, type**) noexcept;
    friend status make_struct(int64_t, const int64_t*, const int64_t*, type* const*, type**) noexcept;
    friend status make_subarray(int, const int64_t*, const int64_t*, const int64_t*, bool, type*,
                                type**) noexcept;
    friend status make_darray(int64_t, int64_t, int, const int64_t*, const distrib*, const int64_t*,
                              const int64_t*, bool, type*, type**) noexcept;
    friend status make_resized(type*, int64_t, int64_t, type**) noexcept;
    friend status make_placed(type*, int64_t, int64_t, int64_t, type**) noexcept;
    friend status make_dup(type*, type**) noexcept;
    friend status make_f90(combiner, type*, type**) noexcept;
    int64_t size_ = 0, lb_ = 0, ub_ = 0, true_lb_ = 0, true_ub_ = 0;
    int64_t elements_ = 0;
    const program* prog_ = nullptr;  // owned when own_prog_, else the child's
    const predefined_info* pre_ = nullptr;
    mutable std::atomic<int32_t> refs_{1};
    int32_t align_ = 1;
    basic_kind basic_ = basic_kind::none;
    bool contig_ = false;
    bool sticky_ = false;  // bounds set by resized somewhere inside: no struct padding
    bool large_ = false;
    bool own_prog_ = false;
    combiner comb_ = combiner::named;
    shape shape_ = shape::predef;
    int64_t count_ = 0, blocklen_ = 0;
    union {
        int64_t stride_ = 0;
        type* dead_next_;  // release(): the next type to destroy (stride_ is dead by then)
    };
    pool_vec<int64_t> blens_, disps_;
    type_list kids_;        // retained children (internal shape)
    type_list user_types_;  // retained, as passed by the user (get_contents)
    contents contents_;
};
// At most 256 bytes: the 193-256 byte pool class (296 bytes had taken a
// block of the 257-384 one).
static_assert(sizeof(type) <= 256);

namespace detail {
// Filled during static initialization; zero (nullptr) before that.
extern type* g_predef[256];
}
// The static object for a predefined handle (0x201..0x2FF), or nullptr.
inline type* predefined_type(uintptr_t handle) noexcept {
    return handle - 0x200 < 256 ? detail::g_predef[handle - 0x200] : nullptr;
}

// ---- constructors: on success *out is a new type with one reference ----
// Counts and block lengths must be >= 0 (status::invalid); byte sizes that
// overflow int64 give status::range. Children are retained.
status make_contiguous(int64_t count, type* old, type** out) noexcept;
status make_vector(int64_t count, int64_t blocklen, int64_t stride, bool stride_bytes, type* old,
                   type** out) noexcept;
status make_indexed(int64_t count, const int64_t* blens, const int64_t* disps, bool disp_bytes,
                    type* old, type** out) noexcept;
status make_indexed_block(int64_t count, int64_t blocklen, const int64_t* disps, bool disp_bytes,
                          type* old, type** out) noexcept;
// The same for displacements in elements as MPI_Type_create_indexed_block
// takes them (no widened copy of the list).
status make_indexed_block(int64_t count, int64_t blocklen, const int32_t* disps, type* old,
                          type** out) noexcept;
status make_struct(int64_t count, const int64_t* blens, const int64_t* disps, type* const* types,
                   type** out) noexcept;
// order_c: true for C (row-major) order, false for Fortran.
status make_subarray(int ndims, const int64_t* sizes, const int64_t* subsizes,
                     const int64_t* starts, bool order_c, type* old, type** out) noexcept;
// The part of a global array (gsizes elements of old per dimension, order_c
// as above) that process `rank` of a row-major grid of psizes processes
// (their product is size) owns: distribs/dargs per dimension, dargs[i] > 0
// or darg_default; none needs psizes[i] == 1, block with a darg needs
// darg * psizes[i] >= gsizes[i]. lb 0, extent = product(gsizes) * extent(old).
status make_darray(int64_t size, int64_t rank, int ndims, const int64_t* gsizes,
                   const distrib* distribs, const int64_t* dargs, const int64_t* psizes,
                   bool order_c, type* old, type** out) noexcept;
status make_resized(type* old, int64_t lb, int64_t extent, type** out) noexcept;
// One `old` at byte displacement disp, with bounds set to [lb, lb + extent)
// as make_resized sets them: resized(hindexed_block(1, 1, {disp}, old), lb,
// extent) as one type (a subarray's corner in the whole array).
status make_placed(type* old, int64_t disp, int64_t lb, int64_t extent, type** out) noexcept;
status make_dup(type* old, type** out) noexcept;
// The type MPI_Type_create_f90_* returns: `named` (a predefined type)
// under combiner c (one of the f90 ones), committed. status::invalid for
// anything else.
status make_f90(combiner c, type* named, type** out) noexcept;

// Basic elements contained in the first `bytes` packed bytes of `count`
// instances (MPI_Get_elements); -1 when the type has size 0 but bytes > 0.
int64_t elements_in(const type& t, int64_t bytes) noexcept;
// Inverse (MPI_Status_set_elements): packed bytes of the first n basic
// elements; -1 when that is more than INT64_MAX.
int64_t bytes_for_elements(const type& t, int64_t n) noexcept;

}  // namespace ch4lite::dame
