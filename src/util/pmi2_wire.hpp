// SPDX-License-Identifier: MIT
// The PMI-2 wire protocol (MPICH's PMI-2 message protocol, served by Slurm's
// mpi/pmi2 plugin and by Hydra): after a PMI-1 style
// "cmd=init pmi_version=2 pmi_subversion=0\n" exchange, every message is
//
//   <6 characters: decimal length of the rest, space padded>cmd=<name>;k=v;k=v;
//
// with no newline. Servers pad the length either way ("%6u" in Hydra,
// "%-6d" in Slurm). Keys are [A-Za-z0-9_-]; values are printable ASCII
// without ';' (Slurm does not undo the ";;" escape some clients use, so we
// never send a ';'). A reply may lack a value ("value=;" or no pair at all).
//
// Also here: base64 without padding, the compact encoding of binary values
// the bootstrap uses for every PMI flavour (PMI-1 values may not hold '=' or
// spaces, PMI-2 values may not hold ';'; '+' and '/' are fine in both).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.hpp"

namespace ch4lite::util {

inline constexpr std::size_t pmi2_header = 6;
// Largest body we accept from a server (an info-getjobattr of a long
// process mapping stays far below it).
inline constexpr std::size_t pmi2_max_body = 64 * 1024;

class pmi2_msg {
  public:
    std::string_view cmd() const noexcept { return cmd_; }
    std::size_t size() const noexcept { return pairs_.size(); }
    // The value of `key`, or nullptr if absent.
    const std::string_view* find(std::string_view key) const noexcept;
    bool get_int(std::string_view key, long& out) const noexcept;
    // "TRUE"/"FALSE" (any case); false if absent or neither.
    bool get_bool(std::string_view key, bool& out) const noexcept;

  private:
    friend status pmi2_parse(std::string_view, pmi2_msg&, std::string*);
    std::string body_;
    std::string_view cmd_;
    std::vector<std::pair<std::string_view, std::string_view>> pairs_;
};

// Length of the body announced by a 6-character header, or -1 if the
// header is not digits padded with spaces or exceeds pmi2_max_body.
long pmi2_body_length(std::string_view header) noexcept;

// Parses one body (the bytes after the header). status::invalid with the
// reason in `why` on malformed input.
status pmi2_parse(std::string_view body, pmi2_msg& out, std::string* why = nullptr);

// Builds one message, header included. Every add checks its input; the first
// failure sticks and finish() reports it.
class pmi2_cmd {
  public:
    explicit pmi2_cmd(std::string_view cmd);
    pmi2_cmd& add(std::string_view key, std::string_view value);
    pmi2_cmd& add(std::string_view key, long value);
    pmi2_cmd& add_bool(std::string_view key, bool value);
    status finish(std::string& out, std::string* why = nullptr) const;

  private:
    std::string body_;
    const char* error_ = nullptr;
};

bool pmi2_valid_value(std::string_view s) noexcept;

// Base64 (RFC 4648 alphabet) without '=' padding.
std::string b64_encode(const void* data, std::size_t len);
// False on a character outside the alphabet or an impossible length; `out`
// is replaced.
bool b64_decode(std::string_view text, std::vector<std::byte>& out);

}  // namespace ch4lite::util
