// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

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
    for (K k : {K::char_, K::wchar}) {
        for (op_id op : all_ops)
            EXPECT_EQ(dev::op_applies(op, k), op == op_id::replace || op == op_id::no_op)
                << dev::op_name(op);
    }
    for (K k : {K::none, K::mixed})
        for (op_id op : all_ops) EXPECT_FALSE(dev::op_applies(op, k)) << dev::op_name(op);
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

}  // namespace
