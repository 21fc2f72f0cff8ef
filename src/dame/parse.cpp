// SPDX-License-Identifier: MIT
// Recursive-descent parser of the datatype language (parse.hpp). It never
// trusts its input: bounded recursion (64 levels of text) and list lengths,
// a bounded number of types built, and every value goes through the
// checked constructors. Deeper types come from nest(), a loop.
#include "dame/parse.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

#include "dame/type.hpp"

namespace ch4lite::dame {
namespace {

constexpr int max_depth = 64;
constexpr size_t max_list = 1 << 20;
// nest(n, ...): at most this many levels, and at most max_made types built
// by one text in all (a nest of nests multiplies).
constexpr int64_t max_nest = int64_t{1} << 21;
constexpr int64_t max_made = int64_t{1} << 22;

struct parser {
    std::string_view s;
    size_t i = 0;
    std::string err;
    status st = status::ok;
    std::vector<type*> owned;  // released at the end (constructors retain)
    std::vector<type*> holes;  // what `_` stands for, innermost nest() last
    int64_t made = 0;

    ~parser() {
        for (type* t : owned) t->release();
    }
    bool fail(const char* what, status why = status::invalid) {
        if (st == status::ok) {
            st = why;
            err = std::string(what) + " at offset " + std::to_string(i);
        }
        return false;
    }
    void ws() {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    bool eat(char c) {
        ws();
        if (i < s.size() && s[i] == c) {
            ++i;
            return true;
        }
        return false;
    }
    bool expect(char c) { return eat(c) || fail(c == '(' ? "expected '('" : c == ')' ? "expected ')'" : c == ',' ? "expected ','" : c == '[' ? "expected '['" : "expected ']'"); }
    std::string_view word() {
        ws();
        const size_t b = i;
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
        return s.substr(b, i - b);
    }
    bool num(int64_t* v) {
        ws();
        bool neg = false;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return fail("expected a number");
        uint64_t x = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            const uint64_t d = static_cast<uint64_t>(s[i++] - '0');
            if (x > (UINT64_C(1) << 63) / 10) return fail("number too large", status::range);
            x = x * 10 + d;
        }
        if (x > (UINT64_C(1) << 63) - (neg ? 0 : 1)) return fail("number too large", status::range);
        *v = neg ? static_cast<int64_t>(0 - x) : static_cast<int64_t>(x);
        return true;
    }
    bool list(std::vector<int64_t>& v) {
        if (!expect('[')) return false;
        if (eat(']')) return true;
        do {
            if (v.size() >= max_list) return fail("list too long");
            int64_t x = 0;  // set by num(); initialized for -Wmaybe-uninitialized
            if (!num(&x)) return false;
            v.push_back(x);
        } while (eat(','));
        return expect(']');
    }
    // rp is read only after the constructor ran (argument order is unspecified).
    bool result(status s2, type** rp, type** out) {
        if (s2 != status::ok) return fail("constructor rejected its arguments", s2);
        owned.push_back(*rp);
        if (++made > max_made) return fail("more than 2^22 types built", status::range);
        *out = *rp;
        return true;
    }
    bool predefined_name(std::string_view w, type** out) {
        char name[64] = "MPI_";
        if (w.size() > sizeof name - 5) return fail("unknown type name");
        for (size_t k = 0; k < w.size(); ++k) name[4 + k] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[k])));
        for (uintptr_t h = predefined_first + 1; h <= predefined_last; ++h) {
            const predefined_info* p = predefined(h);
            if (p && std::strcmp(p->name, name) == 0) return (*out = predefined_type(h)) != nullptr;
        }
        return fail("unknown type name");
    }

    bool type_(type** out, int depth);
    bool ctor(std::string_view w, type** out, int depth);
};

bool parser::type_(type** out, int depth) {
    if (depth > max_depth) return fail("nesting too deep");
    const std::string_view w = word();
    if (w.empty()) return fail("expected a type");
    if (w == "_") {
        if (holes.empty()) return fail("'_' outside nest()");
        *out = holes.back();
        return true;
    }
    if (!eat('(')) return predefined_name(w, out);
    return ctor(w, out, depth) && expect(')');
}

bool parser::ctor(std::string_view w, type** out, int depth) {
    int64_t a = 0, b = 0, c = 0;
    std::vector<int64_t> l1, l2, l3;
    type* t = nullptr;
    type* r = nullptr;
    auto inner = [&] { return expect(',') && type_(&t, depth + 1); };
    if (w == "contig")
        return num(&a) && inner() && result(make_contiguous(a, t, &r), &r, out);
    if (w == "vector" || w == "hvector")
        return num(&a) && expect(',') && num(&b) && expect(',') && num(&c) && inner() &&
               result(make_vector(a, b, c, w == "hvector", t, &r), &r, out);
    if (w == "indexed" || w == "hindexed")
        return list(l1) && expect(',') && list(l2) && inner() &&
               (l1.size() == l2.size() || fail("block and displacement lists differ in length")) &&
               result(make_indexed(static_cast<int64_t>(l1.size()), l1.data(), l2.data(), w == "hindexed", t, &r), &r, out);
    if (w == "blkidx" || w == "hblkidx")
        return num(&a) && expect(',') && list(l1) && inner() &&
               result(make_indexed_block(static_cast<int64_t>(l1.size()), a, l1.data(), w == "hblkidx", t, &r), &r, out);
    if (w == "resized")
        return num(&a) && expect(',') && num(&b) && inner() && result(make_resized(t, a, b, &r), &r, out);
    if (w == "dup") return type_(&t, depth + 1) && result(make_dup(t, &r), &r, out);
    if (w == "nest") {
        // nest(n, base, T): T applied n times, `_` in T standing for the
        // level below (base first). The template is parsed again for each
        // level: a loop, not nesting, so n is bounded by max_nest only.
        if (!(num(&a) && expect(',') && type_(&t, depth + 1) && expect(','))) return false;
        if (a < 0 || a > max_nest) return fail("nest count must be in [0, 2^21]");
        const size_t tpl = i;
        size_t end = tpl;
        type* cur = t;
        for (int64_t k = 0; k < std::max<int64_t>(a, 1); ++k) {  // n = 0: parsed once, for its syntax
            i = tpl;
            holes.push_back(cur);
            type* next = nullptr;
            const bool ok = type_(&next, depth + 1);
            holes.pop_back();
            if (!ok) return false;
            if (k < a) cur = next;
            end = i;
        }
        i = end;
        *out = cur;
        return true;
    }
    if (w == "struct") {
        std::vector<type*> ts;
        if (!(list(l1) && expect(',') && list(l2) && expect(',') && expect('['))) return false;
        if (!eat(']')) {
            do {
                if (ts.size() >= max_list) return fail("list too long");
                if (!type_(&t, depth + 1)) return false;
                ts.push_back(t);
            } while (eat(','));
            if (!expect(']')) return false;
        }
        if (l1.size() != l2.size() || l1.size() != ts.size()) return fail("struct lists differ in length");
        return result(make_struct(static_cast<int64_t>(l1.size()), l1.data(), l2.data(), ts.data(), &r), &r, out);
    }
    if (w == "subarray") {
        if (!(list(l1) && expect(',') && list(l2) && expect(',') && list(l3) && expect(','))) return false;
        const std::string_view o = word();
        if (o != "C" && o != "F") return fail("expected order C or F");
        if (!inner()) return false;
        if (l1.size() != l2.size() || l1.size() != l3.size() || l1.size() > 64)
            return fail("subarray lists differ in length (or more than 64 dimensions)");
        return result(make_subarray(static_cast<int>(l1.size()), l1.data(), l2.data(), l3.data(), o == "C", t, &r),
                      &r, out);
    }
    if (w == "darray") {
        std::vector<int64_t> l4;
        if (!(num(&a) && expect(',') && num(&b) && expect(',') && list(l1) && expect(',') && list(l2) &&
              expect(',') && list(l3) && expect(',') && list(l4) && expect(',')))
            return false;
        const std::string_view o = word();
        if (o != "C" && o != "F") return fail("expected order C or F");
        if (!inner()) return false;
        if (l1.size() != l2.size() || l1.size() != l3.size() || l1.size() != l4.size() || l1.size() > 64)
            return fail("darray lists differ in length (or more than 64 dimensions)");
        std::vector<distrib> d(l2.size());
        for (size_t k = 0; k < l2.size(); ++k) {
            if (l2[k] < 0 || l2[k] > 2) return fail("a distribution is 0 (none), 1 (block) or 2 (cyclic)");
            d[k] = static_cast<distrib>(l2[k]);
        }
        return result(make_darray(a, b, static_cast<int>(l1.size()), l1.data(), d.data(), l3.data(), l4.data(),
                                  o == "C", t, &r),
                      &r, out);
    }
    return fail("unknown constructor");
}

}  // namespace

status parse_type(std::string_view text, type** out, std::string* err) noexcept {
    try {
        parser p{text};
        type* t = nullptr;
        if (p.type_(&t, 0)) {
            p.ws();
            if (p.i != text.size()) p.fail("trailing characters");
        }
        if (p.st != status::ok) {
            if (err) *err = p.err;
            return p.st;
        }
        t->retain();  // the caller's reference; p releases its own
        *out = t;
        return status::ok;
    } catch (const std::bad_alloc&) {
        return status::no_mem;
    }
}

}  // namespace ch4lite::dame
