// SPDX-License-Identifier: MIT
#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "util/random.hpp"

namespace ch4lite::shm {

namespace {

// Closes a descriptor on every path.
struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};

std::string sys_error(const char* what, const std::string& name, int err) {
    return std::string(what) + " " + name + ": " + std::strerror(err);
}

// The object behind fd must be ours alone: a regular file, our euid, mode
// 0600, `bytes` long (0 = do not check the size yet).
bool check_object(int fd, const std::string& name, std::size_t bytes, std::string& error) {
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        error = sys_error("cannot fstat", name, errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = name + " is not a regular shared-memory object";
        return false;
    }
    if (st.st_uid != ::geteuid()) {
        error = name + " belongs to uid " + std::to_string(st.st_uid) + ", not to us";
        return false;
    }
    if ((st.st_mode & 07777) != 0600) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        error = name + " has mode " + mode + ", expected 0600";
        return false;
    }
    if (bytes != 0 && static_cast<std::size_t>(st.st_size) != bytes) {
        error = name + " is " + std::to_string(st.st_size) + " bytes, expected " +
                std::to_string(bytes);
        return false;
    }
    return true;
}

std::byte* map(int fd, std::size_t bytes, const std::string& name, std::string& error) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        error = sys_error("cannot map", name, errno);
        return nullptr;
    }
    return static_cast<std::byte*>(p);
}

}  // namespace

segment& segment::operator=(segment&& o) noexcept {
    if (this != &o) {
        reset();
        base_ = o.base_;
        size_ = o.size_;
        name_ = std::move(o.name_);
        owner_ = o.owner_;
        unlinked_ = o.unlinked_;
        o.base_ = nullptr;
        o.size_ = 0;
        o.owner_ = false;
    }
    return *this;
}

status segment::create_unique(uint64_t job_key, char tag, std::size_t bytes, segment& out,
                              std::string& error) {
    status s = status::again;
    for (int attempt = 0; attempt < 16 && s == status::again; ++attempt) {
        char buf[80];
        std::snprintf(buf, sizeof buf, "/ch4lite-%u-%016" PRIx64 "-%c%016" PRIx64,
                      static_cast<unsigned>(::getuid()), job_key, tag, util::random64());
        s = create(buf, bytes, out, error);
    }
    return s;
}

status segment::create(const std::string& name, std::size_t bytes, segment& out,
                       std::string& error) {
    fd_guard g{::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600)};
    if (g.fd < 0) {
        if (errno == EEXIST) {
            error = name + " already exists";
            return status::again;
        }
        error = sys_error("cannot create", name, errno);
        return status::io;
    }
    segment s;  // from here on, failures unlink the name (s owns it)
    s.name_ = name;
    s.owner_ = true;
    // The umask may have cleared bits of 0600; set exactly 0600, then check
    // what we got (another process cannot have changed it: O_EXCL made it ours).
    if (::fchmod(g.fd, 0600) != 0) {
        error = sys_error("cannot chmod", name, errno);
        return status::io;
    }
    if (!check_object(g.fd, name, 0, error)) return status::io;
    // Reserve the memory now: a full /dev/shm fails here, not with SIGBUS
    // in the middle of a send.
    if (const int e = ::posix_fallocate(g.fd, 0, static_cast<off_t>(bytes)); e != 0) {
        error = sys_error("cannot reserve memory for", name, e);
        return status::io;
    }
    if (!check_object(g.fd, name, bytes, error)) return status::io;
    s.base_ = map(g.fd, bytes, name, error);
    if (!s.base_) return status::io;
    s.size_ = bytes;
    out = std::move(s);
    return status::ok;
}

status segment::attach(const std::string& name, std::size_t bytes, segment& out,
                       std::string& error) {
    // shm_open adds O_NOFOLLOW: a symbolic link planted under the name fails.
    fd_guard g{::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0)};
    if (g.fd < 0) {
        error = sys_error("cannot open", name, errno);
        return status::io;
    }
    if (!check_object(g.fd, name, bytes, error)) return status::io;
    segment s;
    s.name_ = name;
    s.base_ = map(g.fd, bytes, name, error);
    if (!s.base_) return status::io;
    s.size_ = bytes;
    out = std::move(s);
    return status::ok;
}

void segment::unlink() noexcept {
    if (owner_ && !unlinked_) {
        ::shm_unlink(name_.c_str());
        unlinked_ = true;
    }
}

void segment::reset() noexcept {
    unlink();
    if (base_) ::munmap(base_, size_);
    base_ = nullptr;
    size_ = 0;
    owner_ = false;
    unlinked_ = false;
}

}  // namespace ch4lite::shm
