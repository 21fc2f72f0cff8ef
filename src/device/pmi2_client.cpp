// SPDX-License-Identifier: MIT
#include "device/pmi2_client.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/pmi_wire.hpp"

namespace ch4lite::dev {

using util::pmi2_cmd;
using util::pmi2_msg;

namespace {

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

status gone(std::string& error) {
    error = "PMI-2: the launcher closed the connection (srun/mpiexec died?)";
    return status::proc_failed;
}

}  // namespace

pmi2_client::~pmi2_client() {
    if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<pmi2_client> pmi2_client::from_fd(int fd) {
    const int fl = ::fcntl(fd, F_GETFD);
    if (fl >= 0) ::fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    return std::unique_ptr<pmi2_client>(new pmi2_client(fd));
}

status pmi2_client::fill(std::size_t n, std::string& error) {
    while (inbuf_.size() < n) {
        char buf[4096];
        const ssize_t r = ::read(fd_, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            error = std::string("PMI-2: read from the launcher failed: ") + std::strerror(errno);
            return status::io;
        }
        if (r == 0) return gone(error);
        inbuf_.append(buf, static_cast<std::size_t>(r));
    }
    return status::ok;
}

status pmi2_client::send(const pmi2_cmd& c, std::string& error) {
    std::string text, why;
    if (failed(c.finish(text, &why))) {
        error = "PMI-2: cannot encode request: " + why;
        return status::invalid;
    }
    if (!write_all(fd_, text.data(), text.size())) {
        if (errno == EPIPE || errno == ECONNRESET) return gone(error);
        error = std::string("PMI-2: write to the launcher failed: ") + std::strerror(errno);
        return status::io;
    }
    return status::ok;
}

status pmi2_client::read_msg(pmi2_msg& m, std::string& error) {
    if (status st = fill(util::pmi2_header, error); failed(st)) return st;
    const long len = util::pmi2_body_length(std::string_view(inbuf_).substr(0, util::pmi2_header));
    if (len < 0) {
        error = "PMI-2: bad message header '" + inbuf_.substr(0, util::pmi2_header) + "'";
        return status::io;
    }
    const std::size_t total = util::pmi2_header + static_cast<std::size_t>(len);
    if (status st = fill(total, error); failed(st)) return st;
    std::string why;
    const status st =
        util::pmi2_parse(std::string_view(inbuf_).substr(util::pmi2_header, static_cast<std::size_t>(len)), m, &why);
    if (failed(st))
        error = "PMI-2: malformed reply '" + inbuf_.substr(util::pmi2_header, 80) + "': " + why;
    inbuf_.erase(0, total);
    return st;
}

status pmi2_client::call(const pmi2_cmd& c, std::string_view expect, pmi2_msg& reply,
                         std::string& error) {
    if (status st = send(c, error); failed(st)) return st;
    if (status st = read_msg(reply, error); failed(st)) return st;
    if (reply.cmd() != expect) {
        error = "PMI-2: expected cmd=" + std::string(expect) + ", got cmd=" + std::string(reply.cmd());
        return status::io;
    }
    long rc = 0;
    if (reply.find("rc") && (!reply.get_int("rc", rc) || rc != 0)) {
        error = "PMI-2: " + std::string(expect) + " failed: rc=" + std::to_string(rc);
        if (const std::string_view* m = reply.find("errmsg")) error.append(" ").append(*m);
        return status::io;
    }
    return status::ok;
}

status pmi2_client::init(long rank_hint, const char* jobid, std::string& error) {
    // The version handshake uses PMI-1 framing: one line each way.
    static constexpr char hello[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    if (!write_all(fd_, hello, sizeof hello - 1)) return gone(error);
    std::size_t nl;
    while ((nl = inbuf_.find('\n')) == std::string::npos) {
        if (inbuf_.size() >= util::pmi_max_line) {
            error = "PMI-2: the launcher's answer to init is not a line";
            return status::io;
        }
        if (status st = fill(inbuf_.size() + 1, error); failed(st)) return st;
    }
    util::pmi_msg r;
    std::string why;
    const std::string line = inbuf_.substr(0, nl);
    inbuf_.erase(0, nl + 1);
    if (failed(util::pmi_parse(line, r, &why)) || r.cmd() != "response_to_init") {
        error = "PMI-2: unexpected answer to init '" + line.substr(0, 80) + "'";
        return status::io;
    }
    long ver = 0, rc = 0;
    if ((r.find("rc") && (!r.get_int("rc", rc) || rc != 0)) || !r.get_int("pmi_version", ver) ||
        ver != 2) {
        error = "PMI-2: the launcher does not speak PMI-2 ('" + line.substr(0, 80) + "')";
        return status::unsupported;
    }
    pmi2_cmd full("fullinit");
    if (jobid && *jobid) full.add("pmijobid", jobid);
    full.add("pmirank", rank_hint).add_bool("threaded", false);
    pmi2_msg m;
    if (status st = call(full, "fullinit-response", m, error); failed(st)) return st;
    long rank = -1, size = -1, app = 0;
    if (!m.get_int("rank", rank) || !m.get_int("size", size) || size < 1 || rank < 0 ||
        rank >= size) {
        error = "PMI-2: fullinit-response without a usable rank and size";
        return status::io;
    }
    // Slurm answers appnum=-1 (it does not track it): MPI's default is 0.
    if (m.get_int("appnum", app) && app >= 0) appnum_ = static_cast<int>(app);
    rank_ = static_cast<int>(rank);
    size_ = static_cast<int>(size);
    return status::ok;
}

status pmi2_client::put(std::string_view key, std::string_view value, std::string& error) {
    pmi2_msg m;
    return call(pmi2_cmd("kvs-put").add("key", key).add("value", value), "kvs-put-response", m, error);
}

status pmi2_client::get(std::string_view key, std::string& value, bool& found, std::string& error) {
    pmi2_msg m;
    found = false;
    if (status st = call(pmi2_cmd("kvs-get").add("key", key), "kvs-get-response", m, error); failed(st))
        return st;
    bool f = false;
    const std::string_view* v = m.find("value");
    found = m.get_bool("found", f) && f && v;
    if (found) value.assign(v->data(), v->size());
    return status::ok;
}

status pmi2_client::fence(std::string& error) {
    pmi2_msg m;
    return call(pmi2_cmd("kvs-fence"), "kvs-fence-response", m, error);
}

status pmi2_client::job_attr(std::string_view key, std::string& value, bool& found,
                             std::string& error) {
    pmi2_msg m;
    found = false;
    if (status st = call(pmi2_cmd("info-getjobattr").add("key", key), "info-getjobattr-response", m,
                         error);
        failed(st))
        return st;
    bool f = false;
    const std::string_view* v = m.find("value");
    found = m.get_bool("found", f) && f && v;
    if (found) value.assign(v->data(), v->size());
    return status::ok;
}

status pmi2_client::finalize(std::string& error) {
    pmi2_msg m;
    return call(pmi2_cmd("finalize"), "finalize-response", m, error);
}

bool pmi2_client::send_abort(int code, std::string_view message) noexcept {
    try {
        // The message may hold anything: keep what the wire can carry.
        std::string text(message.substr(0, 512));
        for (char& c : text)
            if (c == ';' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
                c = ' ';
        std::string out;
        if (failed(pmi2_cmd("abort").add_bool("isworld", true).add("exitcode", static_cast<long>(code))
                       .add("msg", text)
                       .finish(out)))
            return false;
        return write_all(fd_, out.data(), out.size());
    } catch (...) {
        return false;
    }
}

}  // namespace ch4lite::dev
