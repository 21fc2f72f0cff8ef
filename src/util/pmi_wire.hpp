// SPDX-License-Identifier: MIT
// The PMI-1 "simple" wire protocol, shared by mpiexec's server and the
// library's client (device/pmi_client.hpp): one line per message,
//
//   cmd=<name> key=value key=value ...\n
//
// Lines are at most pmi_max_line bytes including the newline. Keys are
// [A-Za-z0-9_-]; values are printable ASCII without space or '='. The one
// exception is the free text of `abort` (`message=` as MPICH 4 sends it,
// `error_msg=` as other clients do): it runs to the end of the line, may hold
// spaces, and `\x` escapes are undone. The parser validates everything and
// never reads past the line it is given; it does not know which commands
// exist (the server decides that).
//
// Also here, because both ends need them: hex encoding of binary values and
// MPICH's PMI_process_mapping format.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.hpp"

namespace ch4lite::util {

inline constexpr std::size_t pmi_max_line = 1024;  // including '\n'
inline constexpr std::size_t pmi_max_key = 64;
inline constexpr std::size_t pmi_max_pairs = 16;

// A parsed line. Views point into the message's own copy of the line.
class pmi_msg {
  public:
    pmi_msg() = default;
    pmi_msg(const pmi_msg&) = delete;
    pmi_msg& operator=(const pmi_msg&) = delete;

    std::string_view cmd() const noexcept { return cmd_; }
    std::size_t size() const noexcept { return npairs_; }
    std::string_view key(std::size_t i) const noexcept { return pairs_[i].key; }
    std::string_view value(std::size_t i) const noexcept { return pairs_[i].value; }
    // The value of `key`, or nullptr if absent.
    const std::string_view* find(std::string_view key) const noexcept;
    // Integer value of `key`; false if absent or not a (signed, decimal) int.
    bool get_int(std::string_view key, long& out) const noexcept;

  private:
    friend status pmi_parse(std::string_view, pmi_msg&, std::string*);
    struct pair {
        std::string_view key, value;
    };
    std::array<char, pmi_max_line> buf_{};
    std::string_view cmd_;
    std::array<pair, pmi_max_pairs> pairs_{};
    std::size_t npairs_ = 0;
};

// Parses one line (with or without its trailing '\n'). On failure returns
// status::invalid and, if `why` is given, a short reason ("line longer than
// 1024 bytes", "duplicate key 'key'", ...).
status pmi_parse(std::string_view line, pmi_msg& out, std::string* why = nullptr);

// True if `s` is a valid key / plain value.
bool pmi_valid_key(std::string_view s) noexcept;
bool pmi_valid_value(std::string_view s) noexcept;

// Builds one line. Every add checks its input; the first failure sticks and
// finish() reports it, so a caller checks once.
class pmi_line {
  public:
    explicit pmi_line(std::string_view cmd);
    pmi_line& add(std::string_view key, std::string_view value);
    pmi_line& add(std::string_view key, long value);
    // Free text (abort message): newlines and control characters become
    // spaces, '\\' is escaped, and the text is cut to fit the line. Must be
    // the last pair.
    pmi_line& add_text(std::string_view key, std::string_view text);
    // The complete line with its '\n', or status::invalid (bad key or
    // value, line too long) with the reason in `why`.
    status finish(std::string& out, std::string* why = nullptr) const;

  private:
    std::string line_;
    const char* error_ = nullptr;
    bool closed_ = false;  // add_text() was called
};

// Lower-case hex, two digits per byte.
std::string hex_encode(const void* data, std::size_t len);
// False on odd length or a non-hex digit; `out` is replaced.
bool hex_decode(std::string_view hex, std::vector<std::byte>& out);

// PMI_process_mapping, as MPICH's Hydra publishes it:
//   (vector,(start,nodes,ppn),(start,nodes,ppn),...)
// Each triple gives `nodes` consecutive node ids from `start`, with `ppn`
// consecutive ranks each; when the triples cover fewer ranks than the job
// has, they repeat (Hydra's round-robin placement). Fills node_of[0..size)
// with node ids renumbered densely in order of first appearance and returns
// the number of nodes; returns -1 for a malformed mapping.
int parse_process_mapping(std::string_view mapping, int size, std::vector<int>& node_of);
// The mapping for `size` ranks placed `ppn` per node in order, all nodes
// alike: "(vector,(0,ceil(size/ppn),ppn))".
std::string make_process_mapping(int size, int ppn);

}  // namespace ch4lite::util
