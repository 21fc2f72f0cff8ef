// SPDX-License-Identifier: MIT
#include "device/pmi_client.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ch4lite::dev {

using util::pmi_line;
using util::pmi_msg;

namespace {

status io_error(std::string& error, const char* what, int err) {
    error = std::string("PMI: ") + what + ": " + std::strerror(err);
    return status::io;
}

bool write_all(int fd, const char* p, std::size_t n) noexcept {
    while (n > 0) {
        // MSG_NOSIGNAL: a dead launcher must give EPIPE, not kill us.
        ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK) w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

}  // namespace

pmi_client::~pmi_client() {
    if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<pmi_client> pmi_client::from_fd(int fd) {
    // Programs the rank starts (system(), popen()) must not hold the
    // launcher's socket open after the rank dies.
    const int fl = ::fcntl(fd, F_GETFD);
    if (fl >= 0) ::fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    return std::unique_ptr<pmi_client>(new pmi_client(fd));
}

std::unique_ptr<pmi_client> pmi_client::connect_port(const char* host_port, int pmi_id,
                                                     std::string& error) {
    const char* colon = std::strrchr(host_port, ':');
    if (!colon || colon == host_port || colon[1] == '\0') {
        error = std::string("PMI: PMI_PORT='") + host_port + "' is not host:port";
        return nullptr;
    }
    const std::string host(host_port, colon);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), colon + 1, &hints, &res); rc != 0) {
        error = "PMI: cannot resolve PMI_PORT host '" + host + "': " + gai_strerror(rc);
        return nullptr;
    }
    int fd = -1, err = 0;
    for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int rc;
        do rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
        while (rc < 0 && errno == EINTR);
        if (rc < 0) {
            err = errno;
            ::close(fd);
            fd = -1;
        }
    }
    ::freeaddrinfo(res);
    if (fd < 0) {
        (void)io_error(error, (std::string("cannot connect to PMI_PORT ") + host_port).c_str(), err);
        return nullptr;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::unique_ptr<pmi_client> c(new pmi_client(fd));
    if (failed(c->handshake(pmi_id, error))) return nullptr;
    return c;
}

status pmi_client::send_line(const pmi_line& line, std::string& error) {
    std::string text, why;
    if (failed(line.finish(text, &why))) {
        error = "PMI: cannot encode request: " + why;
        return status::invalid;
    }
    if (!write_all(fd_, text.data(), text.size())) {
        if (errno == EPIPE || errno == ECONNRESET) {
            error = "PMI: the launcher closed the connection (mpiexec died?)";
            return status::proc_failed;
        }
        return io_error(error, "write to the launcher failed", errno);
    }
    return status::ok;
}

status pmi_client::read_msg(pmi_msg& msg, std::string& error) {
    std::size_t nl;
    while ((nl = inbuf_.find('\n')) == std::string::npos) {
        if (inbuf_.size() >= util::pmi_max_line) {
            error = "PMI: launcher sent a line longer than 1024 bytes";
            return status::io;
        }
        char buf[util::pmi_max_line];
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return io_error(error, "read from the launcher failed", errno);
        if (n == 0) {
            error = "PMI: the launcher closed the connection (mpiexec died?)";
            return status::proc_failed;
        }
        inbuf_.append(buf, static_cast<std::size_t>(n));
    }
    std::string why;
    const status st = util::pmi_parse(std::string_view(inbuf_).substr(0, nl), msg, &why);
    if (failed(st)) error = "PMI: malformed reply '" + inbuf_.substr(0, std::min<std::size_t>(nl, 80)) +
                            "': " + why;
    inbuf_.erase(0, nl + 1);
    return st;
}

status pmi_client::call(const pmi_line& line, std::string_view expect, pmi_msg& reply,
                        std::string& error) {
    if (status st = send_line(line, error); failed(st)) return st;
    if (status st = read_msg(reply, error); failed(st)) return st;
    if (reply.cmd() != expect) {
        const std::string_view* msg = reply.find("msg");
        error = "PMI: expected cmd=" + std::string(expect) + ", got cmd=" + std::string(reply.cmd());
        if (msg) error += " (" + std::string(*msg) + ")";
        return status::io;
    }
    long rc = 0;
    if (reply.find("rc") && (!reply.get_int("rc", rc) || rc != 0)) {
        const std::string_view* msg = reply.find("msg");
        error = "PMI: " + std::string(expect) + " failed: rc=" + std::to_string(rc);
        if (msg) error += " " + std::string(*msg);
        return status::io;
    }
    return status::ok;
}

status pmi_client::handshake(int pmi_id, std::string& error) {
    pmi_msg m;
    if (status st = call(pmi_line("initack").add("pmiid", static_cast<long>(pmi_id)), "initack", m,
                         error);
        failed(st))
        return st;
    long rank = -1, size = -1, debug = 0;
    // Newer servers may put rank and size on the initack line itself; classic
    // ones (Hydra) follow with "cmd=set size=", "rank=" and "debug=" lines.
    const bool inline_info = m.get_int("rank", rank) && m.get_int("size", size);
    bool have_debug = false;
    while (!inline_info && !(rank >= 0 && size > 0 && have_debug)) {
        if (status st = read_msg(m, error); failed(st)) return st;
        if (m.cmd() != "set") {
            error = "PMI: expected cmd=set after initack, got cmd=" + std::string(m.cmd());
            return status::io;
        }
        m.get_int("size", size);
        m.get_int("rank", rank);
        have_debug = have_debug || m.get_int("debug", debug);
    }
    if (rank < 0 || size <= 0 || rank >= size) {
        error = "PMI: initack gave rank " + std::to_string(rank) + " of size " + std::to_string(size);
        return status::io;
    }
    hs_rank_ = static_cast<int>(rank);
    hs_size_ = static_cast<int>(size);
    return status::ok;
}

status pmi_client::init(std::string& error) {
    pmi_msg m;
    if (status st = call(pmi_line("init").add("pmi_version", 1L).add("pmi_subversion", 1L),
                         "response_to_init", m, error);
        failed(st))
        return st;
    long ver = 0;
    if (!m.get_int("pmi_version", ver) || ver != 1) {
        error = "PMI: launcher does not speak PMI 1.x (pmi_version=" +
                std::string(m.find("pmi_version") ? *m.find("pmi_version") : "?") + ")";
        return status::unsupported;
    }
    if (status st = call(pmi_line("get_maxes"), "maxes", m, error); failed(st)) return st;
    long kn = 0, kl = 0, vl = 0;
    if (!m.get_int("kvsname_max", kn) || !m.get_int("keylen_max", kl) ||
        !m.get_int("vallen_max", vl) || kn <= 0 || kl < 16 || vl < 64) {
        error = "PMI: launcher sent unusable maxes";
        return status::io;
    }
    kvsname_max_ = static_cast<std::size_t>(kn);
    keylen_max_ = std::min<std::size_t>(static_cast<std::size_t>(kl), util::pmi_max_key);
    vallen_max_ = static_cast<std::size_t>(vl);
    if (status st = call(pmi_line("get_appnum"), "appnum", m, error); failed(st)) return st;
    long app = 0;
    if (m.get_int("appnum", app)) appnum_ = static_cast<int>(app);
    if (status st = call(pmi_line("get_my_kvsname"), "my_kvsname", m, error); failed(st)) return st;
    const std::string_view* k = m.find("kvsname");
    if (!k || k->size() > kvsname_max_ || k->size() > 256) {
        error = "PMI: launcher sent no usable kvsname";
        return status::io;
    }
    kvsname_ = std::string(*k);
    return status::ok;
}

std::size_t pmi_client::max_value_len(std::size_t key_len) const noexcept {
    // "cmd=put kvsname=K key=k value=v\n" must fit in a line, and so must the
    // get_result that returns v (about 40 bytes of overhead; keep 64).
    constexpr std::size_t put_overhead = 29, reply_overhead = 64;
    const std::size_t by_put = util::pmi_max_line - put_overhead - kvsname_.size() - key_len;
    return std::min({vallen_max_, by_put, util::pmi_max_line - reply_overhead});
}

status pmi_client::put(std::string_view key, std::string_view value, std::string& error) {
    pmi_msg m;
    return call(pmi_line("put").add("kvsname", kvsname_).add("key", key).add("value", value),
                "put_result", m, error);
}

status pmi_client::get(std::string_view key, std::string& value, bool& found, std::string& error) {
    pmi_msg m;
    if (status st = send_line(pmi_line("get").add("kvsname", kvsname_).add("key", key), error);
        failed(st))
        return st;
    if (status st = read_msg(m, error); failed(st)) return st;
    if (m.cmd() != "get_result") {
        error = "PMI: expected cmd=get_result, got cmd=" + std::string(m.cmd());
        return status::io;
    }
    long rc = 0;
    const std::string_view* v = m.find("value");
    found = m.get_int("rc", rc) && rc == 0 && v != nullptr;
    if (found) value.assign(v->data(), v->size());
    return status::ok;
}

status pmi_client::barrier(std::string& error) {
    pmi_msg m;
    return call(pmi_line("barrier_in"), "barrier_out", m, error);
}

status pmi_client::finalize(std::string& error) {
    pmi_msg m;
    return call(pmi_line("finalize"), "finalize_ack", m, error);
}

bool pmi_client::send_abort(int code, std::string_view message) noexcept {
    try {
        std::string text;
        if (failed(pmi_line("abort").add("exitcode", static_cast<long>(code))
                       .add_text("message", message)
                       .finish(text)))
            return false;
        return write_all(fd_, text.data(), text.size());
    } catch (...) {
        return false;
    }
}

}  // namespace ch4lite::dev
