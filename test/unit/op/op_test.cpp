// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "device/op.hpp"

using namespace ch4lite;
using dev::op_id;
using K = dame::basic_kind;

namespace {

constexpr op_id all_ops[] = {op_id::sum,  op_id::prod,   op_id::min,    op_id::max,
                             op_id::land, op_id::lor,    op_id::lxor,   op_id::band,
                             op_id::bor,  op_id::bxor,   op_id::minloc, op_id::maxloc,
                             op_id::replace, op_id::no_op};

// Runs op on n elements of T placed at odd offsets (no alignment), returns inout.
template <class T>
std::vector<T> run(op_id op, K k, const std::vector<T>& a, const std::vector<T>& b) {
    const std::size_t bytes = a.size() * sizeof(T);  // a and b have the same size
    std::vector<unsigned char> in(bytes + 1), io(bytes + 3);
    std::memcpy(in.data() + 1, a.data(), bytes);
    std::memcpy(io.data() + 3, b.data(), bytes);
    dev::op_apply(op, k, in.data() + 1, io.data() + 3, a.size());
    std::vector<T> out(a.size());
    std::memcpy(out.data(), io.data() + 3, bytes);
    return out;
}

template <class T>
void check_integer(K k) {
    ASSERT_EQ(dev::packed_size(k), sizeof(T));
    std::vector<T> a, b;
    for (int i = 0; i < 37; ++i) {
        a.push_back(static_cast<T>(i % 5 == 0 ? 0 : (i * 7) % 23));
        b.push_back(static_cast<T>(i % 3 == 0 ? 0 : (i * 11) % 19));
    }
    for (op_id op : all_ops) {
        if (op == op_id::minloc || op == op_id::maxloc) continue;
        ASSERT_TRUE(dev::op_applies(op, k)) << dev::op_name(op) << " on " << to_string(k);
        const auto r = run(op, k, a, b);
        for (std::size_t i = 0; i < a.size(); ++i) {
            T x = a[i], y = b[i], want{};
            switch (op) {
                case op_id::sum: want = static_cast<T>(x + y); break;
                case op_id::prod: want = static_cast<T>(x * y); break;
                case op_id::min: want = x < y ? x : y; break;
                case op_id::max: want = x > y ? x : y; break;
                case op_id::land: want = static_cast<T>((x != 0) && (y != 0)); break;
                case op_id::lor: want = static_cast<T>((x != 0) || (y != 0)); break;
                case op_id::lxor: want = static_cast<T>((x != 0) != (y != 0)); break;
                case op_id::band: want = static_cast<T>(x & y); break;
                case op_id::bor: want = static_cast<T>(x | y); break;
                case op_id::bxor: want = static_cast<T>(x ^ y); break;
                case op_id::replace: want = x; break;
                case op_id::no_op: want = y; break;
                default: break;
            }
            ASSERT_TRUE(r[i] == want) << dev::op_name(op) << " on " << to_string(k) << " at " << i;
        }
    }
    EXPECT_FALSE(dev::op_applies(op_id::minloc, k));
}

TEST(Op, IntegerKinds) {
    check_integer<int8_t>(K::int8);
    check_integer<int8_t>(K::schar);
    check_integer<uint8_t>(K::uint8);
    check_integer<uint8_t>(K::uchar);
    check_integer<int16_t>(K::int16);
    check_integer<uint16_t>(K::uint16);
    check_integer<int32_t>(K::int32);
    check_integer<uint32_t>(K::uint32);
    check_integer<int64_t>(K::int64);
    check_integer<uint64_t>(K::uint64);
}

// Integer SUM/PROD wrap modulo 2^bits, at every ISA level (a level above
// the CPU's runs the best one it has). The old kernels
// computed in the signed type (and a uint16_t product in int): the same
// bits in a plain build, but undefined behaviour, which `make sanitize`
// stops at.
TEST(Op, IntegerSumAndProdWrap) {
    constexpr int32_t imax = INT32_MAX, imin = INT32_MIN;
    for (auto isa : {dev::op_isa::baseline, dev::op_isa::avx2, dev::op_isa::avx512}) {
        std::vector<int32_t> a(9, imax), b(9, 1), c(9, imin), d(9, -1);
        dev::op_apply_isa(isa, op_id::sum, K::int32, a.data(), b.data(), a.size());
        dev::op_apply_isa(isa, op_id::sum, K::int32, d.data(), c.data(), c.size());
        for (int i = 0; i < 9; ++i) EXPECT_TRUE(b[i] == imin && c[i] == imax) << i;
        std::vector<int32_t> p(9, 65536), q(9, 65536 + 3);
        dev::op_apply_isa(isa, op_id::prod, K::int32, p.data(), q.data(), p.size());
        for (int i = 0; i < 9; ++i) EXPECT_EQ(q[i], 3 * 65536) << i;  // 2^32 + 3*2^16 mod 2^32
        std::vector<uint16_t> u(9, 65535), v(9, 65535);
        dev::op_apply_isa(isa, op_id::prod, K::uint16, u.data(), v.data(), u.size());
        for (int i = 0; i < 9; ++i) EXPECT_EQ(v[i], 1) << i;  // (2^16-1)^2 mod 2^16
        std::vector<int64_t> x(9, INT64_MAX), y(9, INT64_MAX);
        dev::op_apply_isa(isa, op_id::sum, K::int64, x.data(), y.data(), x.size());
        for (int i = 0; i < 9; ++i) EXPECT_EQ(y[i], -2) << i;
        std::vector<__int128> w(3, ~((__int128)1 << 127)), z(3, 1);  // max + 1 = min
        dev::op_apply_isa(isa, op_id::sum, K::int128, w.data(), z.data(), w.size());
        for (int i = 0; i < 3; ++i) EXPECT_TRUE(z[i] == ((__int128)1 << 127)) << i;
    }
}

TEST(Op, Int128IsFortranIntegerNoLogicalOps) {
    std::vector<__int128> a{(__int128)1 << 100, -5, 7}, b{3, 9, -7};
    auto r = run(op_id::sum, K::int128, a, b);
    EXPECT_TRUE(r[0] == ((__int128)1 << 100) + 3 && r[1] == 4 && r[2] == 0);
    r = run(op_id::max, K::int128, a, b);
    EXPECT_TRUE(r[0] == ((__int128)1 << 100) && r[1] == 9 && r[2] == 7);
    r = run(op_id::bxor, K::int128, a, b);
    EXPECT_TRUE(r[2] == (7 ^ -7));
    EXPECT_FALSE(dev::op_applies(op_id::land, K::int128));
}

template <class T>
void check_real(K k) {
    ASSERT_EQ(dev::packed_size(k), sizeof(T));
    std::vector<T> a, b;
    for (int i = 0; i < 29; ++i) {
        a.push_back(static_cast<T>(0.5 * i - 3));
        b.push_back(static_cast<T>(1.25 * (i % 7) - 2));
    }
    for (op_id op : all_ops) {
        const bool valid = op == op_id::sum || op == op_id::prod || op == op_id::min ||
                           op == op_id::max || op == op_id::replace || op == op_id::no_op;
        ASSERT_EQ(dev::op_applies(op, k), valid) << dev::op_name(op) << " on " << to_string(k);
        const auto r = run(op, k, a, b);
        for (std::size_t i = 0; i < a.size(); ++i) {
            T x = a[i], y = b[i], want = y;
            switch (op) {
                case op_id::sum: want = x + y; break;
                case op_id::prod: want = x * y; break;
                case op_id::min: want = x < y ? x : y; break;
                case op_id::max: want = x > y ? x : y; break;
                case op_id::replace: want = x; break;
                default: break;  // invalid ops and NO_OP leave inout alone
            }
            ASSERT_TRUE(r[i] == want) << dev::op_name(op) << " on " << to_string(k) << " at " << i;
        }
    }
}

TEST(Op, RealKinds) {
    check_real<_Float16>(K::float16);
    check_real<float>(K::float32);
    check_real<double>(K::float64);
    check_real<long double>(K::long_double);
    check_real<__float128>(K::float128);
}

template <class R>
void check_complex(K k) {
    struct C {
        R re, im;
    };
    ASSERT_EQ(dev::packed_size(k), sizeof(C));
    std::vector<C> a{{1, 2}, {-3, 0.5}, {0, 0}}, b{{3, -1}, {2, 2}, {7, 1}};
    auto r = run(op_id::sum, k, a, b);
    EXPECT_TRUE(r[0].re == 4 && r[0].im == 1 && r[1].re == -1 && r[1].im == R(2.5));
    r = run(op_id::prod, k, a, b);
    // (1+2i)(3-i) = 5+5i; (-3+0.5i)(2+2i) = -7-5i; 0
    EXPECT_TRUE(r[0].re == 5 && r[0].im == 5 && r[1].re == -7 && r[1].im == -5 && r[2].re == 0);
    for (op_id op : {op_id::min, op_id::max, op_id::land, op_id::band, op_id::minloc})
        EXPECT_FALSE(dev::op_applies(op, k)) << dev::op_name(op);
    r = run(op_id::replace, k, a, b);
    EXPECT_TRUE(r[1].re == -3 && r[1].im == R(0.5));
}

TEST(Op, ComplexKinds) {
    check_complex<_Float16>(K::complex16);
    check_complex<float>(K::complex32);
    check_complex<double>(K::complex64);
    check_complex<long double>(K::complex_long_double);
    check_complex<__float128>(K::complex128);
}

template <class U>
void check_logical(K k) {
    ASSERT_EQ(dev::packed_size(k), sizeof(U));
    std::vector<U> a{0, 0, 5, 1}, b{0, 3, 0, 1};
    auto r = run(op_id::land, k, a, b);
    EXPECT_TRUE(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 1);
    r = run(op_id::lor, k, a, b);
    EXPECT_TRUE(r[0] == 0 && r[1] == 1 && r[2] == 1 && r[3] == 1);
    r = run(op_id::lxor, k, a, b);
    EXPECT_TRUE(r[0] == 0 && r[1] == 1 && r[2] == 1 && r[3] == 0);
    for (op_id op : {op_id::sum, op_id::max, op_id::band, op_id::maxloc})
        EXPECT_FALSE(dev::op_applies(op, k)) << dev::op_name(op);
}

TEST(Op, LogicalKinds) {
    check_logical<uint8_t>(K::bool_);
    check_logical<uint8_t>(K::logical1);
    check_logical<uint16_t>(K::logical2);
    check_logical<uint32_t>(K::logical4);
    check_logical<uint64_t>(K::logical8);
    check_logical<unsigned __int128>(K::logical16);
}

TEST(Op, ByteTakesBitwiseOpsOnly) {
    std::vector<uint8_t> a{0xf0, 0x0f}, b{0x3c, 0xff};
    auto r = run(op_id::band, K::byte, a, b);
    EXPECT_TRUE(r[0] == 0x30 && r[1] == 0x0f);
    r = run(op_id::bxor, K::byte, a, b);
    EXPECT_TRUE(r[0] == 0xcc && r[1] == 0xf0);
    for (op_id op : {op_id::sum, op_id::max, op_id::land, op_id::minloc})
        EXPECT_FALSE(dev::op_applies(op, K::byte)) << dev::op_name(op);
}

TEST(Op, CharactersTakeOnlyReplaceAndNoOp) {
    for (op_id op : all_ops)
        EXPECT_EQ(dev::op_applies(op, K::wchar), op == op_id::replace || op == op_id::no_op)
            << dev::op_name(op);
    // Extension: MPI_CHAR takes the arithmetic ops, as MPICH and Open MPI do.
    for (op_id op : all_ops)
        EXPECT_EQ(dev::op_applies(op, K::char_),
                  op == op_id::replace || op == op_id::no_op || op == op_id::sum ||
                      op == op_id::prod || op == op_id::min || op == op_id::max)
            << dev::op_name(op);
    for (K k : {K::none, K::mixed})
        for (op_id op : all_ops) EXPECT_FALSE(dev::op_applies(op, k)) << dev::op_name(op);
}

// MPI_CHAR's arithmetic is signed char's (wrapping), at every level.
TEST(Op, CharArithmeticIsSignedChar) {
    std::vector<char> a(67), b(67);
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<char>(i % 2 ? 100 : -1);
        b[i] = static_cast<char>(i % 2 ? 100 : 1);
    }
    for (auto isa : {dev::op_isa::baseline, dev::op_isa::avx2, dev::op_isa::avx512}) {
        auto sum = b, mx = b, mn = b, pr = b;
        dev::op_apply_isa(isa, op_id::sum, K::char_, a.data(), sum.data(), a.size());
        dev::op_apply_isa(isa, op_id::max, K::char_, a.data(), mx.data(), a.size());
        dev::op_apply_isa(isa, op_id::min, K::char_, a.data(), mn.data(), a.size());
        dev::op_apply_isa(isa, op_id::prod, K::char_, a.data(), pr.data(), a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            const bool odd = i % 2;
            EXPECT_EQ(static_cast<signed char>(sum[i]), odd ? -56 : 0) << i;   // 200 wraps
            EXPECT_EQ(static_cast<signed char>(mx[i]), odd ? 100 : 1) << i;    // -1 < 1: signed
            EXPECT_EQ(static_cast<signed char>(mn[i]), odd ? 100 : -1) << i;
            EXPECT_EQ(static_cast<signed char>(pr[i]), odd ? 16 : -1) << i;    // 10000 mod 256
        }
    }
}

// Pairs are packed: value then index, no padding.
template <class V, class I>
void check_pair(K k) {
    constexpr std::size_t es = sizeof(V) + sizeof(I);
    ASSERT_EQ(dev::packed_size(k), es);
    const V va[] = {1, 5, 3, 3, -2}, vb[] = {2, 4, 3, 3, -2};
    const I ia[] = {10, 11, 12, 2, 9}, ib[] = {20, 21, 1, 22, 9};
    std::vector<unsigned char> in(5 * es + 1), io(5 * es + 1);
    auto put = [&](std::vector<unsigned char>& b, int j, V v, I i) {
        std::memcpy(b.data() + 1 + j * es, &v, sizeof v);
        std::memcpy(b.data() + 1 + j * es + sizeof(V), &i, sizeof i);
    };
    for (op_id op : {op_id::minloc, op_id::maxloc}) {
        for (int j = 0; j < 5; ++j) {
            put(in, j, va[j], ia[j]);
            put(io, j, vb[j], ib[j]);
        }
        dev::op_apply(op, k, in.data() + 1, io.data() + 1, 5);
        for (int j = 0; j < 5; ++j) {
            V v;
            I i;
            std::memcpy(&v, io.data() + 1 + j * es, sizeof v);
            std::memcpy(&i, io.data() + 1 + j * es + sizeof(V), sizeof i);
            const bool a_wins = op == op_id::minloc ? va[j] < vb[j] : va[j] > vb[j];
            const V wv = a_wins ? va[j] : vb[j];
            const I wi = va[j] == vb[j] ? std::min(ia[j], ib[j]) : (a_wins ? ia[j] : ib[j]);
            EXPECT_TRUE(v == wv && i == wi) << dev::op_name(op) << " on " << to_string(k) << " at " << j;
        }
    }
    for (op_id op : {op_id::sum, op_id::min, op_id::land, op_id::band})
        EXPECT_FALSE(dev::op_applies(op, k)) << dev::op_name(op);
}

TEST(Op, PairKindsMinlocMaxloc) {
    check_pair<float, int>(K::float_int);
    check_pair<double, int>(K::double_int);
    check_pair<long, int>(K::long_int);
    check_pair<int, int>(K::int_int);
    check_pair<short, int>(K::short_int);
    check_pair<long double, int>(K::long_double_int);
    check_pair<float, float>(K::real_real);
    check_pair<double, double>(K::double_double);
    check_pair<int, int>(K::integer_integer);
    EXPECT_EQ(dev::packed_size(K::double_int), 12u);
    EXPECT_EQ(dev::packed_size(K::short_int), 6u);
}

TEST(Op, ReplaceInPlaceAndZeroCount) {
    std::vector<int> a{1, 2, 3};
    dev::op_apply(op_id::replace, K::int32, a.data(), a.data(), 3);
    EXPECT_EQ(a, (std::vector<int>{1, 2, 3}));
    std::vector<int> b{9, 9, 9};
    dev::op_apply(op_id::sum, K::int32, a.data(), b.data(), 0);
    EXPECT_EQ(b, (std::vector<int>{9, 9, 9}));
}

TEST(Op, PredefinedHandles) {
    op_id id;
    ASSERT_TRUE(dev::predefined_op(MPI_SUM, id));
    EXPECT_EQ(id, op_id::sum);
    ASSERT_TRUE(dev::predefined_op(MPI_NO_OP, id));
    EXPECT_EQ(id, op_id::no_op);
    ASSERT_TRUE(dev::predefined_op(MPI_MAXLOC, id));
    EXPECT_STREQ(dev::op_name(id), "MPI_MAXLOC");
    EXPECT_FALSE(dev::predefined_op(MPI_OP_NULL, id));
    EXPECT_FALSE(dev::predefined_op(reinterpret_cast<MPI_Op>(0x25), id));
    EXPECT_FALSE(dev::predefined_op(reinterpret_cast<MPI_Op>(0x2800001), id));
}

// Every instruction-set level of the hot kinds gives the baseline's bits:
// random bit patterns (NaNs with payloads, infinities, signed zeros,
// subnormals for the reals), every op, lengths around the vector widths,
// odd offsets, and in == inout.
// SUM and PROD of two NaNs: IEEE 754 leaves open which operand's payload the
// (quiet) NaN result carries, and the compiler commutes the operands
// differently in a loop's vector body and its scalar tail, so even one level
// differs by position there. Checks that x and y (one element) are one of
// the operands a, b, quieted, and makes y equal x.
void both_nan(std::size_t es, const unsigned char* a, const unsigned char* b, unsigned char* x,
              unsigned char* y) {
    uint64_t va = 0, vb = 0, vx = 0, vy = 0, quiet = es == 4 ? 0x400000u : 0x8000000000000ull;
    std::memcpy(&va, a, es), std::memcpy(&vb, b, es), std::memcpy(&vx, x, es), std::memcpy(&vy, y, es);
    auto nan = [es](uint64_t v) {
        return es == 4 ? std::isnan(std::bit_cast<float>(static_cast<uint32_t>(v)))
                       : std::isnan(std::bit_cast<double>(v));
    };
    if (!nan(va) || !nan(vb)) return;
    for (uint64_t v : {vx, vy})
        EXPECT_TRUE(v == (va | quiet) || v == (vb | quiet)) << std::hex << v << " from " << va << ", " << vb;
    std::memcpy(y, x, es);
}

void check_level(dev::op_isa isa) {
    if (dev::op_isa_supported() < isa)
        GTEST_SKIP() << "this CPU has no " << dev::op_isa_name(isa);
    const K kinds[] = {K::int8, K::schar, K::uint8, K::uchar, K::byte, K::int16, K::uint16,
                       K::int32, K::uint32, K::int64, K::uint64, K::float32, K::float64};
    const std::size_t lens[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 257, 1000};
    std::vector<unsigned char> a(8 * 1000 + 8), b(a.size()), x(a.size()), y(a.size());
    uint64_t seed = 0x9e3779b97f4a7c15u;
    auto next = [&seed] {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        return seed;
    };
    for (K k : kinds) {
        const std::size_t es = dev::packed_size(k);
        for (op_id op : all_ops) {
            if (!dev::op_applies(op, k)) continue;
            for (std::size_t n : lens) {
                const std::size_t ia = n % 3, ib = n % 4;  // odd offsets
                for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(next());
                for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>(next());
                if (k == K::float32 || k == K::float64) {  // special values in a few elements
                    const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-310, -1.0, 3.5};
                    for (std::size_t i = 0; i < n; i += 1 + next() % 5) {
                        const double v = sp[next() % 8];
                        const float f = static_cast<float>(v == 1e-310 ? 1e-40 : v);
                        unsigned char* p = (next() & 1 ? a.data() + ia : b.data() + ib) + i * es;
                        if (es == 4) std::memcpy(p, &f, 4);
                        else std::memcpy(p, &v, 8);
                    }
                    for (std::size_t i = next() % 4; i < n; i += 1 + next() % 4) {  // NaN and NaN
                        const uint64_t pa = next(), pb = next();  // payloads, signs
                        const uint64_t da = (pa & 0x8007ffffffffffffu) | 0x7ff8000000000000u;
                        const uint64_t db = (pb & 0x8003ffffffffffffu) | 0x7ff4000000000000u;
                        const uint32_t fa = static_cast<uint32_t>(pa & 0x803fffffu) | 0x7fc00000u;
                        const uint32_t fb = static_cast<uint32_t>(pb & 0x801fffffu) | 0x7fa00000u;
                        if (es == 4) {
                            std::memcpy(a.data() + ia + i * es, &fa, 4);
                            std::memcpy(b.data() + ib + i * es, &fb, 4);
                        } else {
                            std::memcpy(a.data() + ia + i * es, &da, 8);
                            std::memcpy(b.data() + ib + i * es, &db, 8);
                        }
                    }
                }
                x = b;
                y = b;
                dev::op_apply_isa(dev::op_isa::baseline, op, k, a.data() + ia, x.data() + ib, n);
                dev::op_apply_isa(isa, op, k, a.data() + ia, y.data() + ib, n);
                if ((k == K::float32 || k == K::float64) && (op == op_id::sum || op == op_id::prod))
                    for (std::size_t i = 0; i < n; ++i)
                        both_nan(es, a.data() + ia + i * es, b.data() + ib + i * es, x.data() + ib + i * es,
                                 y.data() + ib + i * es);
                ASSERT_EQ(x, y) << dev::op_name(op) << " on " << to_string(k) << ", n " << n << " at "
                                << dev::op_isa_name(isa);
                x = a;  // in place: in == inout
                y = a;
                dev::op_apply_isa(dev::op_isa::baseline, op, k, x.data() + ia, x.data() + ia, n);
                dev::op_apply_isa(isa, op, k, y.data() + ia, y.data() + ia, n);
                ASSERT_EQ(x, y) << dev::op_name(op) << " on " << to_string(k) << " in place, n " << n
                                << " at " << dev::op_isa_name(isa);
            }
        }
    }
}

TEST(Op, Avx2LevelMatchesBaselineBits) { check_level(dev::op_isa::avx2); }
TEST(Op, Avx512LevelMatchesBaselineBits) { check_level(dev::op_isa::avx512); }

TEST(Op, UsedLevelIsSupported) {
    EXPECT_LE(dev::op_isa_used(), dev::op_isa_supported());
    EXPECT_STREQ(dev::op_isa_name(dev::op_isa::baseline), "baseline");
}

}  // namespace
