// SPDX-License-Identifier: MIT
#include "output.hpp"

#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace ch4lite::launch {

namespace {
constexpr std::size_t max_line = 64 * 1024;
}

bool write_fully(int fd, const char* p, std::size_t n) noexcept {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd pfd{fd, POLLOUT, 0};
            ::poll(&pfd, 1, -1);
            continue;
        }
        if (w < 0) return false;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

line_tagger::line_tagger(int rank, int out_fd)
    : prefix_("[" + std::to_string(rank) + "] "), fd_(out_fd) {}

void line_tagger::emit(const char* line, std::size_t n) {
    std::string out;
    out.reserve(prefix_.size() + n + 1);
    out += prefix_;
    out.append(line, n);
    out += '\n';
    // Output nobody reads any more (e.g. `mpiexec ... | head`) is dropped.
    if (fd_ >= 0 && !write_fully(fd_, out.data(), out.size())) fd_ = -1;
}

void line_tagger::feed(const char* data, std::size_t n) {
    pending_.append(data, n);
    std::size_t start = 0, nl;
    while ((nl = pending_.find('\n', start)) != std::string::npos) {
        emit(pending_.data() + start, nl - start);
        start = nl + 1;
    }
    pending_.erase(0, start);
    while (pending_.size() >= max_line) {
        emit(pending_.data(), max_line);
        pending_.erase(0, max_line);
    }
}

void line_tagger::finish() {
    if (!pending_.empty()) emit(pending_.data(), pending_.size());
    pending_.clear();
}

}  // namespace ch4lite::launch
