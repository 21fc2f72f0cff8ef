// SPDX-License-Identifier: MIT
// The PMI-1 server: one key/value space, one barrier, and one connection per
// rank. It only reacts to bytes arriving on non-blocking sockets and never
// blocks, so mpiexec's single event loop (job.cpp) can drive it, and a unit
// test can drive it from a thread.
//
// Served: initack (port mode only), init, get_maxes, get_appnum,
// get_my_kvsname, get_universe_size, put, get, barrier_in, finalize, abort.
// A malformed or unknown request gets "cmd=error rc=-1 msg=..." (or the
// command's own reply with rc=-1) and a diagnostic on stderr; too many of
// them, or a peer that never reads its replies, marks the connection broken
// so the launcher can end the job. Nothing a client sends can crash or hang
// the server.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/pmi_wire.hpp"

namespace ch4lite::launch {

struct pmi_server_config {
    int size = 1;
    std::string kvsname = "kvs_0";
    std::string process_mapping;  // served as key PMI_process_mapping if set
    int appnum = 0;
    bool verbose = false;         // log every request on stderr
    std::size_t kvs_max_bytes = std::size_t{256} << 20;
};

struct pmi_conn {
    int fd = -1;
    int rank = -1;           // -1 until initack names it (port mode)
    bool initialized = false;
    bool finalized = false;
    bool eof = false;        // peer closed (or reset) the connection
    bool broken = false;     // protocol abuse; `why` says what
    bool aborted = false;    // sent cmd=abort
    bool in_barrier = false;
    int abort_code = 0;
    std::string abort_message;
    std::string why;
    std::string in, out;     // unparsed input, unsent output
    bool discarding = false; // skipping the rest of an overlong line
    int errors = 0;
};

class pmi_server {
  public:
    explicit pmi_server(pmi_server_config cfg);

    // Adds a connected socket (made non-blocking; not owned). `rank` is
    // known for inherited sockets, -1 for port-mode connections.
    int attach(int fd, int rank);
    std::size_t connections() const noexcept { return conns_.size(); }
    const pmi_conn& conn(int c) const noexcept { return conns_[static_cast<std::size_t>(c)]; }

    // Reads what is available and answers complete requests.
    void on_readable(int c);
    // Sends queued replies.
    void on_writable(int c);
    bool wants_write(int c) const noexcept { return !conn(c).out.empty() && !conn(c).eof; }

    // Number of aborts received so far (the launcher compares with its own
    // count to notice new ones).
    int aborts() const noexcept { return aborts_; }
    // Largest value the server accepts, as announced in maxes.
    std::size_t vallen_max() const noexcept;

  private:
    void handle_line(pmi_conn& c, std::string_view line);
    void handle(pmi_conn& c, const util::pmi_msg& m, std::string_view line);
    void reply(pmi_conn& c, const util::pmi_line& line);
    void reject(pmi_conn& c, std::string_view reply_cmd, const std::string& reason,
                std::string_view line);
    void handle_put(pmi_conn& c, const util::pmi_msg& m);
    void handle_get(pmi_conn& c, const util::pmi_msg& m);
    void handle_barrier(pmi_conn& c);
    void handle_initack(pmi_conn& c, const util::pmi_msg& m);
    bool kvsname_ok(pmi_conn& c, const util::pmi_msg& m, std::string_view reply_cmd,
                    std::string_view line);
    void flush(pmi_conn& c);
    void mark_broken(pmi_conn& c, std::string why);

    struct entry {
        std::string value;
        int owner;
    };
    pmi_server_config cfg_;
    std::vector<pmi_conn> conns_;
    std::unordered_map<std::string, entry> kvs_;
    std::size_t kvs_bytes_ = 0;
    int in_barrier_ = 0;
    int aborts_ = 0;
};

}  // namespace ch4lite::launch
