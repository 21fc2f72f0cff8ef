// SPDX-License-Identifier: MIT
#include "targets.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../unit/dame/oracle.hpp"
#include "dame/dame.hpp"
#include "dame/external32.hpp"
#include "dame/parse.hpp"

using namespace ch4lite;
using namespace ch4lite::dame;

namespace {

[[noreturn]] void bug(const char* what) {
    __builtin_trap();  // a finding: libFuzzer saves the input; the replay test dies
    (void)what;
}

struct owned {
    type* t = nullptr;
    ~owned() {
        if (t) t->release();
    }
};

// Small enough to materialize: the oracle lists the type map element by element.
bool small(const type& t) {
    constexpr int64_t m = 1 << 20;  // bytes of address span we are willing to allocate
    return t.size() <= (1 << 14) && t.elements() <= (1 << 12) && t.true_extent() <= m &&
           t.true_extent() >= 0 && t.extent() <= m && t.extent() >= -m && t.true_lb() <= m &&
           t.true_lb() >= -m;
}

}  // namespace

namespace dame_fuzz {

int types(const uint8_t* data, size_t size) {
    owned o;
    if (parse_type(std::string_view(reinterpret_cast<const char*>(data), size), &o.t) != status::ok) return 0;
    if (o.t->commit() != status::ok) return 0;
    const type& t = *o.t;
    if (!small(t) || t.size() == 0) return 0;
    const int64_t count = 2;
    const std::vector<dame_test::elem> map = dame_test::typemap(t, count);
    int64_t lo = 0, hi = 1;
    for (const auto& e : map) lo = std::min(lo, e.disp), hi = std::max(hi, e.disp + e.len);
    std::vector<char> mem(static_cast<size_t>(hi - lo) + 16);
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<char>(i * 31 + 7);
    char* buf = mem.data() + (8 - lo);
    const std::vector<char> want = dame_test::oracle_pack(map, buf);
    std::vector<char> got(want.size());
    if (static_cast<int64_t>(want.size()) != count * t.size()) bug("size disagrees with the type map");
    pack(t, buf, count, got.data());
    if (got != want) bug("pack differs from the oracle");
    const std::vector<dame_test::elem> segs = dame_test::segments(map);
    if (iov_count(t, count) != static_cast<int64_t>(segs.size())) bug("iov_count differs");
    std::vector<iov_seg> iov(segs.size() + 1);
    const iov_result r = to_iov(t, buf, count, 0, iov.data(), static_cast<int64_t>(iov.size()), INT64_MAX);
    if (r.segs != static_cast<int64_t>(segs.size()) || r.bytes != count * t.size()) bug("iov differs");
    for (size_t i = 0; i < segs.size(); ++i)
        if (static_cast<char*>(iov[i].base) != buf + segs[i].disp || iov[i].len != static_cast<size_t>(segs[i].len))
            bug("iov segment differs");
    if (!dame_test::overlapping(map)) {
        std::vector<char> copy(mem);
        unpack(t, copy.data() + (8 - lo), count, want.data());
        if (copy != mem) bug("unpack(pack(x)) != x");
    }
    return 0;
}

int unpack(const uint8_t* data, size_t size) {
    const auto* nl = static_cast<const uint8_t*>(std::memchr(data, '\n', size));
    if (!nl) return 0;
    owned o;
    if (parse_type(std::string_view(reinterpret_cast<const char*>(data), nl - data), &o.t) != status::ok) return 0;
    if (o.t->commit() != status::ok) return 0;
    const type& t = *o.t;
    if (!small(t) || t.size() == 0) return 0;
    const uint8_t* in = nl + 1;
    const size_t n = size - static_cast<size_t>(in - data);
    const int64_t count = 3, total = count * t.size();
    const int64_t offset = n ? in[0] % (total + 1) : 0;
    std::vector<dame_test::elem> map = dame_test::typemap(t, count);
    int64_t lo = 0, hi = 1;
    for (const auto& e : map) lo = std::min(lo, e.disp), hi = std::max(hi, e.disp + e.len);
    std::vector<char> mem(static_cast<size_t>(hi - lo) + 16, 0x55);
    char* buf = mem.data() + (8 - lo);
    // The stream is short or garbage: move only what is there, never past it.
    const int64_t moved = unpack_range(t, buf, count, offset, static_cast<int64_t>(n), in);
    if (moved != std::min<int64_t>(static_cast<int64_t>(n), std::max<int64_t>(total - offset, 0))) bug("moved");
    if (!dame_test::overlapping(map) && moved > 0) {
        std::vector<char> back(static_cast<size_t>(moved));
        pack_range(t, buf, count, offset, moved, back.data());
        if (std::memcmp(back.data(), in, static_cast<size_t>(moved)) != 0) bug("pack(unpack(stream)) != stream");
    }
    return 0;
}

int external32(const uint8_t* data, size_t size) {
    const auto* nl = static_cast<const uint8_t*>(std::memchr(data, '\n', size));
    if (!nl) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data), static_cast<size_t>(nl - data));
    owned o;
    if (parse_type(text, &o.t) != status::ok) return 0;
    if (o.t->commit() != status::ok) return 0;
    const type& t = *o.t;
    if (!small(t) || t.size() == 0) return 0;
    int64_t esize = 0;
    if (ext32_size(t, &esize) != status::ok || esize <= 0 || esize > t.size())
        bug("external32 size of a small type");
    const uint8_t* in = nl + 1;
    const auto n = static_cast<int64_t>(size - static_cast<size_t>(in - data));
    const int64_t count = std::min<int64_t>(3, n / esize);
    if (count == 0) return 0;
    const std::vector<dame_test::elem> map = dame_test::typemap(t, count);
    int64_t lo = 0, hi = 1;
    for (const auto& e : map) lo = std::min(lo, e.disp), hi = std::max(hi, e.disp + e.len);
    std::vector<char> mem(static_cast<size_t>(hi - lo) + 16);
    std::vector<bool> mapped(mem.size());
    for (const auto& e : map)
        for (int64_t b = 0; b < e.len; ++b) mapped[static_cast<size_t>(e.disp + b + (8 - lo))] = true;
    char* buf = mem.data() + (8 - lo);
    // Packing arbitrary memory: a long beyond 32 bits stops it, at an
    // element of the type map.
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<char>(i * 131 + in[i % static_cast<size_t>(n)]);
    std::vector<char> out(static_cast<size_t>(count * esize));
    ext32_fault fault;
    const status ps = ext32_pack(t, buf, count, out.data(), &fault);
    if (ps != status::ok &&
        (ps != status::range || fault.element < 0 || fault.element >= count * t.elements() || !fault.type_name))
        bug("external32 pack of arbitrary memory");
    // Unpacking the stream changes the type map's bytes and nothing else.
    std::fill(mem.begin(), mem.end(), static_cast<char>(0x55));
    if (ext32_unpack(t, buf, count, reinterpret_cast<const char*>(in)) != status::ok) bug("external32 unpack failed");
    for (size_t i = 0; i < mem.size(); ++i)
        if (!mapped[i] && mem[i] != static_cast<char>(0x55)) bug("external32 unpack wrote outside the type map");
    // Back again: the same stream, unless binary128 was rounded.
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool rounds = lower.find("long_double") != std::string::npos;
    if (!rounds && !dame_test::overlapping(map)) {
        std::fill(out.begin(), out.end(), 0);
        if (ext32_pack(t, buf, count, out.data(), &fault) != status::ok) bug("external32 pack of unpacked values");
        if (std::memcmp(out.data(), in, out.size()) != 0) bug("pack_external(unpack_external(stream)) != stream");
    }
    return 0;
}

}  // namespace dame_fuzz
