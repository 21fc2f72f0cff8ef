// SPDX-License-Identifier: MIT
// Test helper: mpiexec's PMI server driven by a poll loop on a thread, with
// socketpairs (PMI_FD style) or a listening socket (PMI_PORT style) as the
// connections. The test's clients run on other threads or the main one.
#pragma once
#include <atomic>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "pmi_server.hpp"

namespace ch4lite::test {

class server_thread {
  public:
    explicit server_thread(launch::pmi_server_config cfg) : server_(std::move(cfg)) {
        if (::pipe(stop_) != 0) stop_[0] = stop_[1] = -1;
    }
    ~server_thread() {
        stop();
        for (int fd : owned_) ::close(fd);
        ::close(stop_[0]);
        ::close(stop_[1]);
    }
    // A rank on a socketpair: returns the client's end (the test owns it).
    int add_rank(int rank) {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
        owned_.push_back(sv[0]);
        server_.attach(sv[0], rank);
        return sv[1];
    }
    // Accept port-mode connections on `fd` (owned by the helper).
    void listen_on(int fd) {
        listen_fd_ = fd;
        owned_.push_back(fd);
    }
    void start() {
        thread_ = std::thread([this] { run(); });
    }
    void stop() {
        if (!thread_.joinable()) return;
        char c = 0;
        ssize_t w = ::write(stop_[1], &c, 1);
        (void)w;
        thread_.join();
    }
    // Only after stop(). Everything clients wrote before stop() has been
    // handled by then.
    launch::pmi_server& server() { return server_; }

  private:
    void run() {
        while (true) {
            std::vector<pollfd> fds{{stop_[0], POLLIN, 0}};
            if (listen_fd_ >= 0) fds.push_back({listen_fd_, POLLIN, 0});
            const std::size_t first = fds.size();
            for (std::size_t c = 0; c < server_.connections(); ++c) {
                const auto& conn = server_.conn(static_cast<int>(c));
                short ev = conn.eof || conn.broken ? 0 : POLLIN;
                if (server_.wants_write(static_cast<int>(c))) ev |= POLLOUT;
                fds.push_back({conn.fd, ev, 0});
            }
            if (::poll(fds.data(), fds.size(), -1) < 0) continue;
            if (listen_fd_ >= 0 && fds[1].revents) {
                const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
                if (fd >= 0) {
                    owned_.push_back(fd);
                    server_.attach(fd, -1);
                }
            }
            for (std::size_t i = first; i < fds.size(); ++i) {
                const int c = static_cast<int>(i - first);
                if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) server_.on_readable(c);
                if (fds[i].revents & POLLOUT) server_.on_writable(c);
            }
            // Last, so that whatever a client sent before stop() is handled.
            if (fds[0].revents) return;
        }
    }
    launch::pmi_server server_;
    std::thread thread_;
    int stop_[2];
    int listen_fd_ = -1;
    std::vector<int> owned_;
};

}  // namespace ch4lite::test
