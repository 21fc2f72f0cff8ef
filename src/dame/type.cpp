// SPDX-License-Identifier: MIT
// Type objects: predefined table, reference counting, and the constructors.
// Every constructor reduces to one internal shape (type.hpp) with byte
// displacements and computes size, bounds, alignment and element kind once;
// all overflow is detected here, never in the move loops.
#include "dame/type.hpp"

#include <algorithm>
#include <new>
#include <utility>

#include "dame/checked.hpp"
#include "dame/lists.hpp"
#include "dame/program.hpp"

namespace ch4lite::dame {

namespace detail {
type* g_predef[256];
}

namespace {
struct predef_init {
    predef_init() {
        for (uintptr_t h = predefined_first + 1; h <= predefined_last; ++h) {
            const predefined_info* p = predefined(h);
            if (!p) continue;
            auto* t = new type(p);
            (void)t->commit();
            detail::g_predef[h - predefined_first] = t;
        }
    }
};
const predef_init the_predef_init;

basic_kind merge_kind(basic_kind a, basic_kind b) {
    if (a == basic_kind::none) return b;
    if (b == basic_kind::none || a == b) return a;
    return basic_kind::mixed;
}
}  // namespace

type::type(const predefined_info* p) noexcept
    : size_(p->size), lb_(0), ub_(p->extent), elements_(p->elements), pre_(p),
      align_(p->align), basic_(p->kind) {
    true_lb_ = p->piece[0].disp;
    const basic_piece& last = p->piece[p->npieces - 1];
    true_ub_ = last.disp + last.len;
}

type::type() noexcept = default;

type::~type() {
    // A type destroyed by release() has had its lists emptied there; one
    // destroyed by a failed constructor (builder) still holds its children.
    for (type* k : kids_.view()) k->release();
    for (type* k : user_types_.view()) k->release();
    if (own_prog_) delete prog_;
}

// The children of a list lose a reference; those that lose their last go
// on the list of types to destroy, which is returned.
inline type* type::drop(type_list& l, type* dead) noexcept {
    for (type* k : l.view()) {
        if (k->pre_ || k->refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
        k->dead_next_ = dead;
        dead = k;
    }
    l.forget();
    return dead;
}

void type::release() const noexcept {
    if (pre_ || refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    // The types whose last reference went, linked through dead_next_: each
    // one's children lose a reference before it is deleted, and those that
    // lose their last join the list. No recursion, whatever the nesting.
    type* dead = const_cast<type*>(this);
    dead->dead_next_ = nullptr;
    do {
        type* t = dead;
        dead = drop(t->user_types_, drop(t->kids_, t->dead_next_));
        delete t;
    } while (dead);
}

status type::commit() noexcept {
    if (prog_) return status::ok;
    // lower() of a resized type is its child's IR, and a program depends on
    // that IR, the size and the extent only: with the child's extent, the
    // child's program is this type's (a dup, an f90 type). The child, and so
    // its program, lives as long as this type.
    if (shape_ == shape::resized && kids_.view()[0]->committed() && kids_.view()[0]->extent() == extent()) {
        prog_ = kids_.view()[0]->prog_;
    } else {
        std::unique_ptr<const program> p;
        if (status s = compile(*this, &p); s != status::ok) return s;
        prog_ = p.release();
        own_prog_ = true;
    }
    contig_ = size_ == extent() && lb_ == true_lb_ && size_ == true_extent() &&
              prog_->segments_per_instance() <= 1;
    return status::ok;
}

// Fills bounds and summary fields of a new type from its shape. Owns the
// type until finish() hands it out: a range error, or std::bad_alloc from one
// of its lists (out of memory), frees it with the children adopted so far.
struct builder {
    type* t;
    checked c;
    bool any = false;   // at least one block (bounds)
    bool tany = false;  // at least one block with data (true bounds)
    int64_t lb = 0, ub = 0, tlb = 0, tub = 0;

    // A block of n children of `k`, the first at displacement d.
    void block(type* k, int64_t d, int64_t n) {
        if (n == 0) return;
        const int64_t e = k->extent();
        const int64_t span = c.mul(n - 1, e);
        const int64_t lo = std::min<int64_t>(0, span), hi = std::max<int64_t>(0, span);
        const int64_t l = c.add(c.add(d, k->lb()), lo), u = c.add(c.add(d, k->ub()), hi);
        const int64_t tl = c.add(c.add(d, k->true_lb()), lo),
                      tu = c.add(c.add(d, k->true_ub()), hi);
        if (!any) lb = l, ub = u;
        lb = std::min(lb, l), ub = std::max(ub, u);
        any = true;
        if (k->size() > 0) {  // true bounds cover data only
            if (!tany) tlb = tl, tub = tu;
            tlb = std::min(tlb, tl), tub = std::max(tub, tu);
            tany = true;
        }
        t->size_ = c.add(t->size_, c.mul(n, k->size()));
        t->elements_ = c.add(t->elements_, c.mul(n, k->elements()));
        t->basic_ = merge_kind(t->basic_, k->basic());
        t->align_ = std::max(t->align_, k->alignment());
        t->sticky_ = t->sticky_ || k->explicit_bounds();
    }
    // n more children of `k` inside bounds already recorded.
    void repeat(type* k, int64_t n) {
        t->size_ = c.add(t->size_, c.mul(n, k->size()));
        t->elements_ = c.add(t->elements_, c.mul(n, k->elements()));
    }
    ~builder() { delete t; }
    status finish(type** out) {
        if (any) t->lb_ = lb, t->ub_ = ub, t->true_lb_ = tlb, t->true_ub_ = tub;
        // extent() and true_extent() must be representable, and so must every
        // difference of displacements inside the type (normalization relies on it).
        int64_t e;
        if (__builtin_sub_overflow(ub, lb, &e) || __builtin_sub_overflow(tub, tlb, &e)) c.bad = true;
        if (c.bad) return status::range;
        *out = std::exchange(t, nullptr);
        return status::ok;
    }
    // Bounds set explicitly (resized): lb and lb + extent, kept by parents.
    void set_bounds(int64_t l, int64_t extent) {
        any = true;
        lb = l;
        ub = c.add(l, extent);
        t->sticky_ = true;
    }
    void init(combiner cb, shape sh) {
        t->comb_ = cb;
        t->shape_ = sh;
    }
    void adopt(type* k) {
        t->kids_.push_back(k);  // may throw: retain only once recorded
        k->retain();
    }
};


#define DAME_NEW(var, cb, sh)              \
    type* var = new (std::nothrow) type(); \
    if (!var) return status::no_mem;       \
    builder b{var};                        \
    b.init(cb, sh)

status make_vector(int64_t count, int64_t blocklen, int64_t stride, bool stride_bytes, type* old,
                   type** out) noexcept try {
    if (count < 0 || blocklen < 0 || !old) return status::invalid;
    DAME_NEW(t, stride_bytes ? combiner::hvector : combiner::vector, shape::hvector);
    t->count_ = count, t->blocklen_ = blocklen;
    t->stride_ = stride_bytes ? stride : b.c.mul(stride, old->extent());
    b.adopt(old);
    for (int64_t i = 0; i < std::min<int64_t>(count, 2); ++i) {
        // Bounds of a vector are those of its first and last block.
        const int64_t idx = i == 0 ? 0 : count - 1;
        b.block(old, b.c.mul(idx, t->stride_), blocklen);
    }
    if (count > 2) {  // middle blocks add size/elements but never widen bounds
        t->size_ = b.c.add(t->size_, b.c.mul(count - 2, b.c.mul(blocklen, old->size())));
        t->elements_ = b.c.add(t->elements_, b.c.mul(count - 2, b.c.mul(blocklen, old->elements())));
    }
    return b.finish(out);
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

status make_contiguous(int64_t count, type* old, type** out) noexcept {
    if (count < 0 || !old) return status::invalid;
    status s = make_vector(1, count, 0, true, old, out);
    if (s == status::ok) (*out)->comb_ = combiner::contiguous, (*out)->count_ = 1;
    return s;
}

status make_indexed(int64_t count, const int64_t* blens, const int64_t* disps, bool disp_bytes,
                    type* old, type** out) noexcept try {
    if (count < 0 || !old || (count > 0 && (!blens || !disps))) return status::invalid;
    for (int64_t i = 0; i < count; ++i)
        if (blens[i] < 0) return status::invalid;
    DAME_NEW(t, disp_bytes ? combiner::hindexed : combiner::indexed, shape::hindexed);
    t->count_ = count;
    b.adopt(old);
    t->blens_.assign(blens, blens + count);
    t->disps_.resize(count);
    for (int64_t i = 0; i < count; ++i) {
        t->disps_[i] = disp_bytes ? disps[i] : b.c.mul(disps[i], old->extent());
        b.block(old, t->disps_[i], blens[i]);
    }
    return b.finish(out);
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

// Displacements as the user passed them: int (elements) or int64 (elements
// or bytes).
template <class D>
status indexed_block(int64_t count, int64_t blocklen, const D* disps, bool disp_bytes, type* old,
                     type** out) noexcept try {
    if (count < 0 || blocklen < 0 || !old || (count > 0 && !disps)) return status::invalid;
    DAME_NEW(t, disp_bytes ? combiner::hindexed_block : combiner::indexed_block, shape::hblock);
    t->count_ = count, t->blocklen_ = blocklen;
    b.adopt(old);
    int64_t lo = 0, hi = 0;
    if (count > 0) lists::bounds(disps, static_cast<size_t>(count), &lo, &hi);
    // Scaling by the extent is monotonic: if the lowest and the highest
    // displacement do not overflow, none does, and the copy needs no check.
    const int64_t e = disp_bytes ? 1 : old->extent();
    if (!disp_bytes) lo = b.c.mul(lo, e), hi = b.c.mul(hi, e);  // swapped when e < 0: block() takes either order
    if (b.c.bad) return b.finish(out);
    t->disps_.resize(static_cast<size_t>(count));
    lists::scale(t->disps_.data(), disps, static_cast<size_t>(count), e);
    // Equal blocks: the bounds come from the lowest and the highest
    // displacement, the others only add their size (commit of index types,
    // ns per block).
    if (count > 0) b.block(old, lo, blocklen);
    if (count > 1) b.block(old, hi, blocklen);
    if (count > 2) b.repeat(old, b.c.mul(count - 2, blocklen));
    return b.finish(out);
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

status make_indexed_block(int64_t count, int64_t blocklen, const int64_t* disps, bool disp_bytes,
                          type* old, type** out) noexcept {
    return indexed_block(count, blocklen, disps, disp_bytes, old, out);
}

status make_indexed_block(int64_t count, int64_t blocklen, const int32_t* disps, type* old,
                          type** out) noexcept {
    return indexed_block(count, blocklen, disps, false, old, out);
}

status make_struct(int64_t count, const int64_t* blens, const int64_t* disps, type* const* types,
                   type** out) noexcept try {
    if (count < 0 || (count > 0 && (!blens || !disps || !types))) return status::invalid;
    for (int64_t i = 0; i < count; ++i)
        if (blens[i] < 0 || !types[i]) return status::invalid;
    DAME_NEW(t, combiner::struct_, shape::hstruct);
    t->count_ = count;
    t->kids_.reserve(static_cast<size_t>(count));
    t->blens_.assign(blens, blens + count);
    t->disps_.assign(disps, disps + count);
    for (int64_t i = 0; i < count; ++i) {
        b.adopt(types[i]);
        b.block(types[i], disps[i], blens[i]);
    }
    // C struct rule: without explicit bounds, the extent is padded to the
    // largest alignment of the members (MPI 5.1.6 "epsilon").
    int64_t ext = 0;
    if (b.any && !t->sticky_ && !b.c.bad && !__builtin_sub_overflow(b.ub, b.lb, &ext)) {
        const int64_t al = t->align_;
        b.ub = b.c.add(b.lb, b.c.mul(b.c.add(ext, al - 1) / al, al));
    }
    return b.finish(out);
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

status make_resized(type* old, int64_t lb, int64_t extent, type** out) noexcept try {
    if (!old) return status::invalid;
    DAME_NEW(t, combiner::resized, shape::resized);
    b.adopt(old);
    b.block(old, 0, 1);
    b.set_bounds(lb, extent);
    b.tlb = old->true_lb(), b.tub = old->true_ub();
    return b.finish(out);
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

status make_placed(type* old, int64_t disp, int64_t lb, int64_t extent, type** out) noexcept try {
    if (!old) return status::invalid;
    DAME_NEW(t, combiner::resized, shape::hblock);
    t->count_ = 1, t->blocklen_ = 1;
    b.adopt(old);
    t->disps_.assign(1, disp);
    b.block(old, disp, 1);  // size, elements, true bounds
    b.set_bounds(lb, extent);
    return b.finish(out);
} catch (const std::bad_alloc&) {
    return status::no_mem;
}

namespace {
// old under combiner c with old's bounds (a dup, or an f90 type), committed
// when `commit` says so.
status wrap(combiner c, type* old, bool commit, type** out) noexcept try {
    DAME_NEW(t, c, shape::resized);
    b.adopt(old);
    b.block(old, 0, 1);
    b.any = true;
    b.lb = old->lb(), b.ub = old->ub(), b.tlb = old->true_lb(), b.tub = old->true_ub();
    status s = b.finish(out);
    if (s == status::ok && commit) {
        s = (*out)->commit();
        if (s != status::ok) (*out)->release(), *out = nullptr;
    }
    return s;
} catch (const std::bad_alloc&) {
    return status::no_mem;
}
}  // namespace

status make_dup(type* old, type** out) noexcept {
    if (!old) return status::invalid;
    return wrap(combiner::dup, old, old->committed(), out);  // dup keeps "committed"
}

status make_f90(combiner c, type* named, type** out) noexcept {
    if (!named || !named->is_predefined() ||
        (c != combiner::f90_real && c != combiner::f90_complex && c != combiner::f90_integer))
        return status::invalid;
    return wrap(c, named, true, out);  // predefined types need no commit
}

}  // namespace ch4lite::dame
