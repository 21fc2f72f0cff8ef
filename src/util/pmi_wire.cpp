// SPDX-License-Identifier: MIT
#include "util/pmi_wire.hpp"

#include <charconv>
#include <cstring>
#include <unordered_map>

namespace ch4lite::util {

namespace {

bool is_key_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}
bool is_value_char(char c) noexcept { return c > ' ' && c < 0x7f && c != '='; }
// Free text may hold spaces and UTF-8, but no control characters.
bool is_text_char(char c) noexcept {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u != 0x7f;
}
bool is_free_text_key(std::string_view cmd, std::string_view key) noexcept {
    return cmd == "abort" && (key == "message" || key == "error_msg");
}

status fail(std::string* why, std::string reason) {
    if (why) *why = std::move(reason);
    return status::invalid;
}

// Undoes "\x" escapes in place; returns the new length.
std::size_t unescape(char* s, std::size_t n) noexcept {
    std::size_t w = 0;
    for (std::size_t r = 0; r < n; ++r) {
        if (s[r] == '\\' && r + 1 < n) ++r;
        s[w++] = s[r];
    }
    return w;
}

}  // namespace

const std::string_view* pmi_msg::find(std::string_view key) const noexcept {
    for (std::size_t i = 0; i < npairs_; ++i)
        if (pairs_[i].key == key) return &pairs_[i].value;
    return nullptr;
}

bool pmi_msg::get_int(std::string_view key, long& out) const noexcept {
    const std::string_view* v = find(key);
    if (!v || v->empty()) return false;
    const char* b = v->data();
    const char* e = b + v->size();
    long x = 0;
    auto [p, ec] = std::from_chars(b, e, x);
    if (ec != std::errc() || p != e) return false;
    out = x;
    return true;
}

bool pmi_valid_key(std::string_view s) noexcept {
    if (s.empty() || s.size() > pmi_max_key) return false;
    for (char c : s)
        if (!is_key_char(c)) return false;
    return true;
}

bool pmi_valid_value(std::string_view s) noexcept {
    if (s.empty() || s.size() >= pmi_max_line) return false;
    for (char c : s)
        if (!is_value_char(c)) return false;
    return true;
}

status pmi_parse(std::string_view line, pmi_msg& m, std::string* why) {
    m.cmd_ = {};
    m.npairs_ = 0;
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (line.size() + 1 > pmi_max_line)
        return fail(why, "line longer than " + std::to_string(pmi_max_line) + " bytes");
    if (line.substr(0, 4) != "cmd=") return fail(why, "line does not start with 'cmd='");
    std::memcpy(m.buf_.data(), line.data(), line.size());
    char* const s = m.buf_.data();
    const std::size_t n = line.size();
    std::size_t i = 0;
    while (true) {
        while (i < n && s[i] == ' ') ++i;
        if (i == n) break;
        const std::size_t k0 = i;
        while (i < n && is_key_char(s[i])) ++i;
        const std::string_view key(s + k0, i - k0);
        if (key.empty()) return fail(why, "bad character at byte " + std::to_string(i));
        if (key.size() > pmi_max_key) return fail(why, "key longer than 64 bytes");
        if (i == n || s[i] != '=') return fail(why, "key '" + std::string(key) + "' without '='");
        ++i;
        std::string_view value;
        if (is_free_text_key(m.cmd_, key)) {
            for (std::size_t j = i; j < n; ++j)
                if (!is_text_char(s[j])) return fail(why, "control character in free text");
            value = std::string_view(s + i, unescape(s + i, n - i));
            i = n;
        } else {
            const std::size_t v0 = i;
            while (i < n && s[i] != ' ') {
                if (!is_value_char(s[i]))
                    return fail(why, "bad character in the value of '" + std::string(key) + "'");
                ++i;
            }
            value = std::string_view(s + v0, i - v0);
            if (value.empty()) return fail(why, "empty value for '" + std::string(key) + "'");
        }
        if (k0 == 0) {  // the "cmd=" pair, checked above
            for (char c : value)
                if (!is_key_char(c)) return fail(why, "bad command name");
            m.cmd_ = value;
            continue;
        }
        if (key == "cmd" || m.find(key)) return fail(why, "duplicate key '" + std::string(key) + "'");
        if (m.npairs_ == pmi_max_pairs) return fail(why, "too many keys");
        m.pairs_[m.npairs_++] = {key, value};
    }
    return status::ok;
}

pmi_line::pmi_line(std::string_view cmd) {
    line_.reserve(128);
    line_ = "cmd=";
    if (!pmi_valid_key(cmd)) error_ = "bad command name";
    line_.append(cmd);
}

pmi_line& pmi_line::add(std::string_view key, std::string_view value) {
    if (error_) return *this;
    if (closed_) error_ = "pair after free text";
    else if (!pmi_valid_key(key)) error_ = "bad key";
    else if (!pmi_valid_value(value)) error_ = "bad value (empty, space, '=' or control character)";
    else {
        line_ += ' ';
        line_.append(key);
        line_ += '=';
        line_.append(value);
    }
    return *this;
}

pmi_line& pmi_line::add(std::string_view key, long value) { return add(key, std::to_string(value)); }

pmi_line& pmi_line::add_text(std::string_view key, std::string_view text) {
    if (error_) return *this;
    if (closed_ || !pmi_valid_key(key)) {
        error_ = "bad free-text key";
        return *this;
    }
    closed_ = true;
    line_ += ' ';
    line_.append(key);
    line_ += '=';
    const std::size_t limit = pmi_max_line - 1;
    for (char c : text) {
        const std::size_t need = c == '\\' ? 2 : 1;
        if (line_.size() + need > limit) break;
        if (c == '\\') line_ += '\\';
        line_ += is_text_char(c) ? c : ' ';
    }
    if (text.empty() && line_.size() < limit) line_ += '-';  // values are never empty
    return *this;
}

status pmi_line::finish(std::string& out, std::string* why) const {
    if (error_) return fail(why, error_);
    if (line_.size() + 1 > pmi_max_line) return fail(why, "line longer than 1024 bytes");
    out = line_;
    out += '\n';
    return status::ok;
}

std::string hex_encode(const void* data, std::size_t len) {
    static constexpr char digits[] = "0123456789abcdef";
    const auto* p = static_cast<const unsigned char*>(data);
    std::string s(2 * len, '\0');
    for (std::size_t i = 0; i < len; ++i) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    return s;
}

bool hex_decode(std::string_view hex, std::vector<std::byte>& out) {
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    out.clear();
    if (hex.size() % 2) return false;
    out.resize(hex.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            out.clear();
            return false;
        }
        out[i] = static_cast<std::byte>(hi << 4 | lo);
    }
    return true;
}

namespace {

// Reads a non-negative decimal int at s[i], advancing i.
bool read_uint(std::string_view s, std::size_t& i, long& out) {
    const char* b = s.data() + i;
    const char* e = s.data() + s.size();
    if (b == e || *b < '0' || *b > '9') return false;
    auto [p, ec] = std::from_chars(b, e, out);
    if (ec != std::errc() || out > (1L << 30)) return false;
    i += static_cast<std::size_t>(p - b);
    return true;
}
bool expect(std::string_view s, std::size_t& i, char c) {
    if (i >= s.size() || s[i] != c) return false;
    ++i;
    return true;
}

}  // namespace

int parse_process_mapping(std::string_view s, int size, std::vector<int>& node_of) {
    struct block {
        long start, nodes, ppn;
    };
    std::vector<block> blocks;
    std::size_t i = 0;
    constexpr std::string_view head = "(vector";
    if (size <= 0 || s.substr(0, head.size()) != head) return -1;
    i = head.size();
    while (i < s.size() && s[i] == ',') {
        ++i;
        block b{};
        if (!expect(s, i, '(') || !read_uint(s, i, b.start) || !expect(s, i, ',') ||
            !read_uint(s, i, b.nodes) || !expect(s, i, ',') || !read_uint(s, i, b.ppn) ||
            !expect(s, i, ')'))
            return -1;
        if (b.nodes > 0 && b.ppn > 0) blocks.push_back(b);
    }
    if (!expect(s, i, ')') || i != s.size() || blocks.empty()) return -1;

    // Raw node ids, repeating the blocks until every rank has one.
    std::vector<long> raw(static_cast<std::size_t>(size));
    std::size_t r = 0;
    while (r < raw.size())
        for (const block& b : blocks)
            for (long n = 0; n < b.nodes && r < raw.size(); ++n)
                for (long k = 0; k < b.ppn && r < raw.size(); ++k) raw[r++] = b.start + n;

    // Dense renumbering in order of first appearance.
    std::unordered_map<long, int> dense;
    node_of.assign(raw.size(), 0);
    for (std::size_t q = 0; q < raw.size(); ++q) {
        auto it = dense.emplace(raw[q], static_cast<int>(dense.size()));
        node_of[q] = it.first->second;
    }
    return static_cast<int>(dense.size());
}

std::string make_process_mapping(int size, int ppn) {
    if (ppn <= 0 || ppn > size) ppn = size;
    const int nodes = (size + ppn - 1) / ppn;
    return "(vector,(0," + std::to_string(nodes) + "," + std::to_string(ppn) + "))";
}

}  // namespace ch4lite::util
