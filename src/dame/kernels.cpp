// SPDX-License-Identifier: MIT
// The specialized inner loops of FINAL nodes: one instantiation per (node
// kind, block length class, displacement width, direction), picked once at
// commit by choose_kernel(). A kernel moves the node's whole loop. The
// templates are in kernels_impl.hpp; this file builds them for the baseline
// instruction set and, at start-up, installs the x86-64-v4 (kernels_v4.cpp)
// or x86-64-v3 (kernels_v3.cpp) build instead when the CPU has that level.
#include "dame/kernels.hpp"

#include <cstdlib>
#include <cstring>

#include "dame/kernels_impl.hpp"

namespace ch4lite::dame {
namespace {

static_assert(fixed_len[n_fixed - 1] == 64);
// fixed_len's index of a block length up to 64 bytes, -1 for the others
// (a table: the search over fixed_len was 3 % of a WRF struct's commit).
constexpr auto fixed_index = [] {
    std::array<int8_t, 65> t{};
    t.fill(-1);
    for (int i = 0; i < n_fixed; ++i) t[fixed_len[i]] = static_cast<int8_t>(i);
    return t;
}();

int len_class(int64_t blen) {
    if (blen >= 0 && blen <= 64 && fixed_index[blen] >= 0) return fixed_index[blen];
    if (blen < long_block) return cls_short;
    if (blen < big_begin) return cls_medium;
    return blen < big_end ? cls_big : cls_long;
}

}  // namespace

static_assert(first_nested_kernel + n_cls == n_kernels);

namespace {
constinit const std::array<kernel_fn, n_kernels> base_pack = make_table<dir::pack>();
constinit const std::array<kernel_fn, n_kernels> base_unpack = make_table<dir::unpack>();
[[maybe_unused]] std::array<kernel_fn, n_kernels> isa_pack{}, isa_unpack{};

int base_copy_one(char* __restrict d, const char* __restrict s, int64_t n) noexcept {
    copy_any(d, s, n);
    return 0;
}
}  // namespace

constinit copy_one_fn copy_one = base_copy_one;

// The baseline tables until start-up has looked at the CPU (below); the two
// tables hold kernels of the same meaning, so either serves at any time.
constinit const kernel_fn* pack_table = base_pack.data();
constinit const kernel_fn* unpack_table = base_unpack.data();

namespace {
// The highest level start-up may install: CH4LITE_DAME_ISA=base or v3 caps
// it (read once; anything else leaves it to the CPU).
int isa_cap() noexcept {
    static const int cap = [] {
        const char* e = std::getenv("CH4LITE_DAME_ISA");
        if (e && std::strcmp(e, "base") == 0) return 0;
        if (e && std::strcmp(e, "v3") == 0) return 3;
        return 4;
    }();
    return cap;
}
}  // namespace

bool isa_forced_base() noexcept { return isa_cap() == 0; }

namespace {
// The x86-64-v4 kernels (kernels_v4.cpp) when the CPU has AVX-512, else the
// x86-64-v3 ones (kernels_v3.cpp) when it has AVX2, up to isa_cap(). The
// grouped transposes (VECTOR of VECTOR of blocks of at most 32 bytes) keep
// the baseline code: compiled for AVX-512 they ran slower (FFT2 receive,
// docs/dame-programs.md, "Kernels for the CPU").
#if CH4LITE_DAME_HAVE_ISA && defined(__clang__) && __clang_major__ < 16
// Clang before 16 knows no level names in __builtin_cpu_supports: the
// features that set the levels apart (every CPU with AVX2, FMA and BMI2 also
// has v3's MOVBE, LZCNT and F16C).
bool cpu_v3() noexcept {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
}
bool cpu_v4() noexcept {
    return cpu_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
}
#elif CH4LITE_DAME_HAVE_ISA
bool cpu_v3() noexcept { return __builtin_cpu_supports("x86-64-v3"); }
bool cpu_v4() noexcept { return __builtin_cpu_supports("x86-64-v4"); }
#endif

int install_isa() noexcept {
#if CH4LITE_DAME_HAVE_ISA
    __builtin_cpu_init();
    int level = 0;
    if (isa_cap() >= 4 && cpu_v4()) {
        level = 4;
        isa_pack = v4_pack_kernels;
        isa_unpack = v4_unpack_kernels;
        copy_one = v4_copy_one;
    } else if (isa_cap() >= 3 && cpu_v3()) {
        level = 3;
        isa_pack = v3_pack_kernels;
        isa_unpack = v3_unpack_kernels;
        copy_one = v3_copy_one;
    } else {
        return 0;
    }
    for (int c = 0; c < n_fixed; ++c) {
        if (group_of(fixed_len[c]) > 1) {
            isa_pack[first_nested_kernel + c] = base_pack[first_nested_kernel + c];
            isa_unpack[first_nested_kernel + c] = base_unpack[first_nested_kernel + c];
        }
    }
    pack_table = isa_pack.data();
    unpack_table = isa_unpack.data();
    return level;
#else
    return 0;
#endif
}
// The level installed at start-up: 0 (baseline), 3 or 4.
const int g_level = install_isa();
}  // namespace

const char* kernel_isa() noexcept {
    return g_level == 4 ? "x86-64-v4" : g_level == 3 ? "x86-64-v3" : "baseline";
}

int kernel_level() noexcept { return g_level; }

uint8_t choose_kernel(op kind, int64_t blen, bool wide, bool far) noexcept {
    switch (kind) {
        case op::vector: return static_cast<uint8_t>(first_vec + len_class(blen));
        case op::blkindex: {
            const int first = wide ? first_far64 : far ? first_far32 : first_blk32;
            return static_cast<uint8_t>(first + len_class(blen));
        }
        case op::indexed: return static_cast<uint8_t>(wide ? idx64_kernel : idx32_kernel);
        default: return 0;
    }
}

uint8_t choose_nested_kernel(int64_t inner_blen) noexcept {
    return static_cast<uint8_t>(first_nested_kernel + len_class(inner_blen));
}

const char* kernel_name(uint8_t id) noexcept {
    static const char* cls[] = {"1", "2", "4", "8", "12", "16", "24", "32", "40", "48", "64",
                                "short", "medium", "big", "long"};
    static char buf[n_kernels][32];
    if (id == 0 || id >= n_kernels) return "-";
    if (buf[id][0]) return buf[id];
    if (id == idx32_kernel) return "idx_final/i32";
    if (id == idx64_kernel) return "idx_final/i64";
    static const struct {
        int first;
        const char* name;
    } fams[] = {{first_nested_kernel, "vec2"}, {first_far64, "blk/i64/far"}, {first_far32, "blk/i32/far"},
                {first_blk32, "blk/i32"},      {first_vec, "vec"}};
    for (const auto& f : fams) {  // highest start first: the family holding id
        if (id < f.first) continue;
        std::snprintf(buf[id], sizeof buf[id], "%s_%s", f.name, cls[id - f.first]);
        break;
    }
    return buf[id];
}

}  // namespace ch4lite::dame
