// SPDX-License-Identifier: MIT
// PMI-1 client: the library's side of the "simple" wire protocol
// (util/pmi_wire.hpp). Talks to our mpiexec or MPICH's Hydra over
//  - an inherited socket (PMI_FD), or
//  - a TCP connection to PMI_PORT=host:port, introduced by
//    "cmd=initack pmiid=<PMI_ID>" (Hydra's -pmi-port mode).
// Every call is one blocking request/response; the launcher never sends
// anything unasked, so between calls the socket is silent and any
// readability on it means the launcher went away.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "util/pmi_wire.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

class pmi_client {
  public:
    ~pmi_client();
    pmi_client(const pmi_client&) = delete;
    pmi_client& operator=(const pmi_client&) = delete;

    // Takes ownership of `fd` (a connected stream socket).
    static std::unique_ptr<pmi_client> from_fd(int fd);
    // Connects to "host:port" and performs the initack handshake, which
    // tells rank and size. Null on failure, with the reason in `error`.
    static std::unique_ptr<pmi_client> connect_port(const char* host_port, int pmi_id,
                                                    std::string& error);

    // cmd=init (any 1.x reply is accepted), then the maxes, appnum and
    // kvsname queries.
    status init(std::string& error);
    status put(std::string_view key, std::string_view value, std::string& error);
    // `found` is false (and status ok) when the launcher has no such key.
    status get(std::string_view key, std::string& value, bool& found, std::string& error);
    status barrier(std::string& error);
    status finalize(std::string& error);
    // Sends "cmd=abort exitcode=<code> message=<text>" and does not wait
    // for an answer (there is none). Async-signal-safe apart from the
    // formatting of the line. False if the line could not be written.
    bool send_abort(int code, std::string_view message) noexcept;

    int fd() const noexcept { return fd_; }
    // Known after connect_port (from initack); -1 for the PMI_FD path, where
    // rank and size come from PMI_RANK / PMI_SIZE.
    int handshake_rank() const noexcept { return hs_rank_; }
    int handshake_size() const noexcept { return hs_size_; }
    const std::string& kvsname() const noexcept { return kvsname_; }
    int appnum() const noexcept { return appnum_; }
    // Longest value we may put in one key: the launcher's vallen_max, cut so
    // that the whole put line stays under the 1024-byte line limit for keys
    // up to `key_len` bytes.
    std::size_t max_value_len(std::size_t key_len) const noexcept;
    std::size_t max_key_len() const noexcept { return keylen_max_; }

  private:
    explicit pmi_client(int fd) noexcept : fd_(fd) {}
    status send_line(const util::pmi_line& line, std::string& error);
    status read_msg(util::pmi_msg& msg, std::string& error);
    // Sends `line` and reads the reply, which must be `expect` with rc=0
    // (or no rc at all).
    status call(const util::pmi_line& line, std::string_view expect, util::pmi_msg& reply,
                std::string& error);
    status handshake(int pmi_id, std::string& error);

    int fd_ = -1;
    // Bytes read beyond the last line (the launcher may send several lines
    // at once, e.g. Hydra's initack + set lines).
    std::string inbuf_;
    int hs_rank_ = -1, hs_size_ = -1;
    std::string kvsname_;
    int appnum_ = 0;
    std::size_t keylen_max_ = 64, vallen_max_ = 1024, kvsname_max_ = 256;
};

}  // namespace ch4lite::dev
