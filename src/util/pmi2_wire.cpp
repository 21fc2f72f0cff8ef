// SPDX-License-Identifier: MIT
#include "util/pmi2_wire.hpp"

#include <charconv>
#include <cstdio>
#include <strings.h>

#include "util/pmi_wire.hpp"

namespace ch4lite::util {

namespace {

bool is_key_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

status fail(std::string* why, std::string reason) {
    if (why) *why = std::move(reason);
    return status::invalid;
}

constexpr char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int b64_value(char c) noexcept {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

}  // namespace

const std::string_view* pmi2_msg::find(std::string_view key) const noexcept {
    for (const auto& p : pairs_)
        if (p.first == key) return &p.second;
    return nullptr;
}

bool pmi2_msg::get_int(std::string_view key, long& out) const noexcept {
    const std::string_view* v = find(key);
    if (!v || v->empty()) return false;
    long x = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
    if (ec != std::errc() || p != v->data() + v->size()) return false;
    out = x;
    return true;
}

bool pmi2_msg::get_bool(std::string_view key, bool& out) const noexcept {
    const std::string_view* v = find(key);
    if (!v) return false;
    if (v->size() == 4 && ::strncasecmp(v->data(), "true", 4) == 0) {
        out = true;
        return true;
    }
    if (v->size() == 5 && ::strncasecmp(v->data(), "false", 5) == 0) {
        out = false;
        return true;
    }
    return false;
}

long pmi2_body_length(std::string_view h) noexcept {
    if (h.size() != pmi2_header) return -1;
    std::size_t b = 0, e = h.size();
    while (b < e && h[b] == ' ') ++b;
    while (e > b && h[e - 1] == ' ') --e;
    if (b == e) return -1;
    long n = 0;
    auto [p, ec] = std::from_chars(h.data() + b, h.data() + e, n);
    if (ec != std::errc() || p != h.data() + e || n < 0 || static_cast<std::size_t>(n) > pmi2_max_body)
        return -1;
    return n;
}

status pmi2_parse(std::string_view body, pmi2_msg& m, std::string* why) {
    m.pairs_.clear();
    m.cmd_ = {};
    if (body.size() > pmi2_max_body) return fail(why, "message longer than 64 KiB");
    if (body.substr(0, 4) != "cmd=") return fail(why, "message does not start with 'cmd='");
    m.body_.assign(body);
    const std::string_view s(m.body_);
    std::size_t i = 0;
    bool first = true;
    while (i < s.size()) {
        const std::size_t k0 = i;
        while (i < s.size() && is_key_char(s[i])) ++i;
        const std::string_view key = s.substr(k0, i - k0);
        if (key.empty()) return fail(why, "bad character at byte " + std::to_string(i));
        if (i == s.size() || s[i] != '=')
            return fail(why, "key '" + std::string(key) + "' without '='");
        const std::size_t v0 = ++i;
        while (i < s.size() && s[i] != ';') {
            const auto c = static_cast<unsigned char>(s[i]);
            if (c < 0x20 || c == 0x7f)
                return fail(why, "control character in the value of '" + std::string(key) + "'");
            ++i;
        }
        const std::string_view value = s.substr(v0, i - v0);
        if (i < s.size()) ++i;  // the ';' (the last one may be missing)
        if (first) {
            if (value.empty()) return fail(why, "empty command name");
            for (char c : value)
                if (!is_key_char(c)) return fail(why, "bad command name");
            m.cmd_ = value;
            first = false;
            continue;
        }
        m.pairs_.emplace_back(key, value);
    }
    return status::ok;
}

bool pmi2_valid_value(std::string_view s) noexcept {
    if (s.size() > pmi2_max_body) return false;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f || c == ';') return false;
    }
    return true;
}

pmi2_cmd::pmi2_cmd(std::string_view cmd) {
    if (!pmi_valid_key(cmd)) error_ = "bad command name";
    body_.append("cmd=").append(cmd).append(";");
}

pmi2_cmd& pmi2_cmd::add(std::string_view key, std::string_view value) {
    if (error_) return *this;
    if (!pmi_valid_key(key)) {
        error_ = "bad key";
        return *this;
    }
    if (!pmi2_valid_value(value)) {
        error_ = "bad value (';' or a control character)";
        return *this;
    }
    body_.append(key).append("=").append(value).append(";");
    return *this;
}

pmi2_cmd& pmi2_cmd::add(std::string_view key, long value) { return add(key, std::to_string(value)); }

pmi2_cmd& pmi2_cmd::add_bool(std::string_view key, bool value) {
    return add(key, value ? std::string_view("TRUE") : std::string_view("FALSE"));
}

status pmi2_cmd::finish(std::string& out, std::string* why) const {
    if (error_) return fail(why, error_);
    if (body_.size() > 999999) return fail(why, "message too long");
    char head[pmi2_header + 1];
    std::snprintf(head, sizeof head, "%6zu", body_.size());
    out.assign(head, pmi2_header).append(body_);
    return status::ok;
}

std::string b64_encode(const void* data, std::size_t len) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::string out;
    out.reserve((len * 4 + 2) / 3);
    std::size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        const unsigned v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
        out.push_back(b64_alphabet[(v >> 18) & 63]);
        out.push_back(b64_alphabet[(v >> 12) & 63]);
        out.push_back(b64_alphabet[(v >> 6) & 63]);
        out.push_back(b64_alphabet[v & 63]);
    }
    if (len - i == 1) {
        const unsigned v = p[i] << 16;
        out.push_back(b64_alphabet[(v >> 18) & 63]);
        out.push_back(b64_alphabet[(v >> 12) & 63]);
    } else if (len - i == 2) {
        const unsigned v = (p[i] << 16) | (p[i + 1] << 8);
        out.push_back(b64_alphabet[(v >> 18) & 63]);
        out.push_back(b64_alphabet[(v >> 12) & 63]);
        out.push_back(b64_alphabet[(v >> 6) & 63]);
    }
    return out;
}

bool b64_decode(std::string_view t, std::vector<std::byte>& out) {
    out.clear();
    if (t.size() % 4 == 1) return false;
    out.reserve(t.size() * 3 / 4);
    unsigned acc = 0;
    int bits = 0;
    for (char c : t) {
        const int v = b64_value(c);
        if (v < 0) return false;
        acc = (acc << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<std::byte>((acc >> bits) & 0xff));
        }
    }
    // Leftover bits must be zero (a canonical encoding).
    return (acc & ((1u << bits) - 1)) == 0;
}

}  // namespace ch4lite::util
