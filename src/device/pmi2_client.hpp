// SPDX-License-Identifier: MIT
// PMI-2 client: the library's side of the PMI-2 wire protocol
// (util/pmi2_wire.hpp) over an inherited socket (PMI_FD), as Slurm's
// `srun --mpi=pmi2` and MPICH's Hydra serve it. Every call is one blocking
// request/response, except that kvs-fence answers when the server decides
// (Slurm: once every task fenced; Hydra: at once, its kvs-get of a missing
// key then waits until every task reached the same fence).
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "util/pmi2_wire.hpp"
#include "util/status.hpp"

namespace ch4lite::dev {

class pmi2_client {
  public:
    ~pmi2_client();
    pmi2_client(const pmi2_client&) = delete;
    pmi2_client& operator=(const pmi2_client&) = delete;

    // Takes ownership of `fd` (a connected stream socket).
    static std::unique_ptr<pmi2_client> from_fd(int fd);

    // "cmd=init pmi_version=2" (PMI-1 framing), then fullinit with our rank
    // (PMI_RANK) and, when set, PMI_JOBID. status::unsupported when the
    // server does not speak PMI-2.
    status init(long rank_hint, const char* jobid, std::string& error);
    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    int appnum() const noexcept { return appnum_; }

    status put(std::string_view key, std::string_view value, std::string& error);
    // `found` is false (and status ok) when the server has no such key.
    status get(std::string_view key, std::string& value, bool& found, std::string& error);
    status fence(std::string& error);
    // A job attribute (info-getjobattr), e.g. PMI_process_mapping.
    status job_attr(std::string_view key, std::string& value, bool& found, std::string& error);
    status finalize(std::string& error);
    // "cmd=abort;isworld=TRUE;msg=..." without waiting for an answer.
    bool send_abort(int code, std::string_view message) noexcept;

    int fd() const noexcept { return fd_; }
    // Longest value we put in one key: MPICH's PMI2_MAX_VALLEN (1024) with
    // room to spare; Slurm and Hydra both store longer ones, other servers
    // may not.
    static constexpr std::size_t max_value_len = 1000;
    static constexpr std::size_t max_key_len = 64;

  private:
    explicit pmi2_client(int fd) noexcept : fd_(fd) {}
    status send(const util::pmi2_cmd& c, std::string& error);
    status read_msg(util::pmi2_msg& m, std::string& error);
    // Sends `c`, reads the reply, which must be `expect` with rc=0 (or none).
    status call(const util::pmi2_cmd& c, std::string_view expect, util::pmi2_msg& reply,
                std::string& error);
    status fill(std::size_t n, std::string& error);

    int fd_ = -1;
    std::string inbuf_;
    int rank_ = -1, size_ = 0, appnum_ = 0;
};

}  // namespace ch4lite::dev
