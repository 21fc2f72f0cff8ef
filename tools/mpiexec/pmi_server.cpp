// SPDX-License-Identifier: MIT
#include "pmi_server.hpp"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ch4lite::launch {

using util::pmi_line;
using util::pmi_msg;

namespace {

constexpr int max_errors = 16;                       // malformed requests per connection
constexpr std::size_t max_pending_out = 256 * 1024;  // replies a peer leaves unread
constexpr std::string_view prefix = "cmd=";

// A reason as a PMI value: no spaces, no '='.
std::string token(std::string_view s) {
    std::string t;
    for (char c : s) t += (c > ' ' && c < 0x7f && c != '=') ? c : '_';
    return t.empty() ? "error" : t;
}

// A line as it may be shown in a diagnostic: printable, at most 80 bytes.
std::string excerpt(std::string_view s) {
    std::string t;
    for (char c : s.substr(0, 80)) t += (c >= ' ' && c < 0x7f) ? c : '?';
    if (s.size() > 80) t += "...";
    return t;
}

}  // namespace

pmi_server::pmi_server(pmi_server_config cfg) : cfg_(std::move(cfg)) {
    if (!cfg_.process_mapping.empty())
        kvs_["PMI_process_mapping"] = {cfg_.process_mapping, -1};
}

std::size_t pmi_server::vallen_max() const noexcept {
    // Whole "cmd=put kvsname=K key=<64> value=V\n" must fit in 1024 bytes.
    return util::pmi_max_line - 29 - cfg_.kvsname.size() - util::pmi_max_key;
}

int pmi_server::attach(int fd, int rank) {
    const int fl = ::fcntl(fd, F_GETFL);
    if (fl >= 0) ::fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    pmi_conn c;
    c.fd = fd;
    c.rank = rank;
    conns_.push_back(std::move(c));
    return static_cast<int>(conns_.size() - 1);
}

void pmi_server::mark_broken(pmi_conn& c, std::string why) {
    if (c.broken) return;
    c.broken = true;
    c.why = std::move(why);
    std::fprintf(stderr, "mpiexec: rank %d: %s; dropping its PMI connection\n", c.rank, c.why.c_str());
}

void pmi_server::on_readable(int ci) {
    pmi_conn& c = conns_[static_cast<std::size_t>(ci)];
    if (c.eof || c.broken) return;
    char buf[8192];
    // Bounded work per call so one chatty rank cannot starve the others.
    for (int rounds = 0; rounds < 8 && !c.broken; ++rounds) {
        const ssize_t n = ::read(c.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            c.eof = true;
            if (!c.in.empty() && !c.discarding && cfg_.verbose)
                std::fprintf(stderr, "mpiexec: rank %d: PMI connection closed inside a line\n", c.rank);
            break;
        }
        c.in.append(buf, static_cast<std::size_t>(n));
        std::size_t start = 0, nl;
        while (!c.broken && (nl = c.in.find('\n', start)) != std::string::npos) {
            const std::string_view line(c.in.data() + start, nl - start);
            if (c.discarding)
                c.discarding = false;  // the tail of an overlong line
            else
                handle_line(c, line);
            start = nl + 1;
        }
        c.in.erase(0, start);
        // An incomplete line that cannot become valid gets its answer now:
        // a PMI-2 client, for one, would wait forever for a newline.
        const std::string_view rest(c.in);
        const bool bad_start = !c.discarding && !rest.empty() &&
                               rest.substr(0, prefix.size()) != prefix.substr(0, rest.size());
        if (!c.broken && (bad_start || c.in.size() >= util::pmi_max_line)) {
            if (!c.discarding)
                reject(c, "error",
                       bad_start ? "not a PMI-1 line (a PMI-2 client?)" : "line longer than 1024 bytes",
                       rest);
            c.discarding = true;
            c.in.clear();
        }
    }
    flush(c);
}

void pmi_server::on_writable(int ci) { flush(conns_[static_cast<std::size_t>(ci)]); }

void pmi_server::flush(pmi_conn& c) {
    while (!c.out.empty() && !c.eof) {
        const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0) {
            c.eof = true;  // EPIPE / ECONNRESET: the rank is gone
            c.out.clear();
            break;
        }
        c.out.erase(0, static_cast<std::size_t>(n));
    }
    if (c.out.size() > max_pending_out) {
        c.out.clear();
        mark_broken(c, "does not read its PMI replies");
    }
}

void pmi_server::reply(pmi_conn& c, const pmi_line& line) {
    std::string text, why;
    if (failed(line.finish(text, &why))) {
        std::fprintf(stderr, "mpiexec: internal error: cannot encode a PMI reply: %s\n", why.c_str());
        text = "cmd=error rc=-1 msg=internal_error\n";
    }
    c.out += text;
}

void pmi_server::reject(pmi_conn& c, std::string_view reply_cmd, const std::string& reason,
                        std::string_view line) {
    std::fprintf(stderr, "mpiexec: rank %d: bad PMI request (%s): '%s'\n", c.rank, reason.c_str(),
                 excerpt(line).c_str());
    reply(c, pmi_line(reply_cmd).add("rc", -1L).add("msg", token(reason)));
    if (++c.errors > max_errors) mark_broken(c, "sent too many bad PMI requests");
}

void pmi_server::handle_line(pmi_conn& c, std::string_view line) {
    pmi_msg m;
    std::string why;
    if (failed(util::pmi_parse(line, m, &why))) return reject(c, "error", why, line);
    if (cfg_.verbose) std::fprintf(stderr, "mpiexec: rank %d -> %s\n", c.rank, excerpt(line).c_str());
    if (c.rank < 0 && m.cmd() != "initack")
        return reject(c, "error", "initack must come first on a PMI_PORT connection", line);
    handle(c, m, line);
}

void pmi_server::handle(pmi_conn& c, const pmi_msg& m, std::string_view line) {
    const std::string_view cmd = m.cmd();
    if (cmd == "initack") return handle_initack(c, m);
    if (cmd == "init") {
        long ver = 0;
        if (!m.get_int("pmi_version", ver) || ver != 1)
            return reject(c, "response_to_init", "only PMI version 1 is served", line);
        c.initialized = true;
        return reply(c, pmi_line("response_to_init").add("pmi_version", 1L).add("pmi_subversion", 1L)
                            .add("rc", 0L));
    }
    if (cmd == "get_maxes")
        return reply(c, pmi_line("maxes").add("kvsname_max", 256L).add("keylen_max",
                     static_cast<long>(util::pmi_max_key)).add("vallen_max",
                     static_cast<long>(vallen_max())));
    if (cmd == "get_appnum") return reply(c, pmi_line("appnum").add("appnum", static_cast<long>(cfg_.appnum)));
    if (cmd == "get_my_kvsname") return reply(c, pmi_line("my_kvsname").add("kvsname", cfg_.kvsname));
    if (cmd == "get_universe_size")
        return reply(c, pmi_line("universe_size").add("size", static_cast<long>(cfg_.size)));
    if (cmd == "put") return handle_put(c, m);
    if (cmd == "get") return handle_get(c, m);
    if (cmd == "barrier_in") return handle_barrier(c);
    if (cmd == "finalize") {
        c.finalized = true;
        return reply(c, pmi_line("finalize_ack"));
    }
    if (cmd == "abort") {
        long code = 1;
        if (m.find("exitcode") && !m.get_int("exitcode", code)) code = 1;
        const std::string_view* msg = m.find("message");
        if (!msg) msg = m.find("error_msg");
        if (!c.aborted) ++aborts_;
        c.aborted = true;
        c.abort_code = static_cast<int>(code);
        c.abort_message = msg ? std::string(*msg) : std::string();
        return;  // no reply: the launcher ends the job
    }
    reject(c, "error", "unknown command '" + std::string(cmd) + "'", line);
}

void pmi_server::handle_initack(pmi_conn& c, const pmi_msg& m) {
    long id = -1;
    if (c.rank >= 0) return reject(c, "initack", "initack on a connection that has a rank", "initack");
    if (!m.get_int("pmiid", id) || id < 0 || id >= cfg_.size)
        return reject(c, "initack", "initack needs pmiid in [0, size)", "initack");
    for (const pmi_conn& o : conns_)
        if (o.rank == id) return reject(c, "initack", "pmiid already connected", "initack");
    c.rank = static_cast<int>(id);
    reply(c, pmi_line("initack").add("rc", 0L));
    reply(c, pmi_line("set").add("size", static_cast<long>(cfg_.size)));
    reply(c, pmi_line("set").add("rank", id));
    reply(c, pmi_line("set").add("debug", 0L));
}

bool pmi_server::kvsname_ok(pmi_conn& c, const pmi_msg& m, std::string_view reply_cmd,
                            std::string_view line) {
    const std::string_view* k = m.find("kvsname");
    if (!k || *k == cfg_.kvsname) return true;  // optional in PMI 1.1
    reject(c, reply_cmd, "unknown kvsname '" + std::string(*k) + "'", line);
    return false;
}

void pmi_server::handle_put(pmi_conn& c, const pmi_msg& m) {
    const std::string_view* key = m.find("key");
    const std::string_view* value = m.find("value");
    if (!key || !value) return reject(c, "put_result", "put needs key= and value=", "put");
    if (!kvsname_ok(c, m, "put_result", "put")) return;
    if (value->size() > vallen_max()) return reject(c, "put_result", "value too long", "put");
    auto it = kvs_.find(std::string(*key));
    if (it != kvs_.end() && it->second.owner != c.rank)
        return reject(c, "put_result", "key '" + std::string(*key) + "' was put by another rank", "put");
    const std::size_t old = it == kvs_.end() ? 0 : key->size() + it->second.value.size();
    if (kvs_bytes_ - old + key->size() + value->size() > cfg_.kvs_max_bytes)
        return reject(c, "put_result", "key/value space full", "put");
    kvs_bytes_ = kvs_bytes_ - old + key->size() + value->size();
    kvs_[std::string(*key)] = {std::string(*value), c.rank};
    reply(c, pmi_line("put_result").add("rc", 0L).add("msg", "success"));
}

void pmi_server::handle_get(pmi_conn& c, const pmi_msg& m) {
    const std::string_view* key = m.find("key");
    if (!key) return reject(c, "get_result", "get needs key=", "get");
    if (!kvsname_ok(c, m, "get_result", "get")) return;
    auto it = kvs_.find(std::string(*key));
    if (it == kvs_.end())  // normal: clients probe optional keys
        return reply(c, pmi_line("get_result").add("rc", -1L).add("msg", "key_not_found"));
    reply(c, pmi_line("get_result").add("rc", 0L).add("msg", "success").add("value", it->second.value));
}

void pmi_server::handle_barrier(pmi_conn& c) {
    if (c.in_barrier) return reject(c, "barrier_out", "barrier_in twice", "barrier_in");
    c.in_barrier = true;
    if (++in_barrier_ < cfg_.size) return;
    in_barrier_ = 0;
    for (pmi_conn& o : conns_) {
        if (!o.in_barrier) continue;
        o.in_barrier = false;
        reply(o, pmi_line("barrier_out"));
        if (&o != &c) flush(o);
    }
}

}  // namespace ch4lite::launch
