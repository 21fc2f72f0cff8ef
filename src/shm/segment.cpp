// SPDX-License-Identifier: MIT
#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "util/env.hpp"
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

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

// A new memfd: non-executable where the kernel knows the flag (required
// under vm.memfd_noexec=2), else without it.
int new_memfd() noexcept {
    int fd = static_cast<int>(::syscall(SYS_memfd_create, "ch4lite-shm",
                                        MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL));
    if (fd < 0 && errno == EINVAL)
        fd = static_cast<int>(::syscall(SYS_memfd_create, "ch4lite-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    return fd;
}

// The creator's descriptor `fd` of process `pid`, as a descriptor of ours:
// pidfd_getfd (Linux 5.6; ptrace-attach permission), else reopening
// /proc/<pid>/fd/<fd> (ptrace-read permission, which Yama does not restrict).
int take_fd(long pid, int fd, std::string& why) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
    if (pidfd >= 0) {
        const int got = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, fd, 0));
        const int err = errno;
        ::close(pidfd);
        if (got >= 0) {
            (void)::fcntl(got, F_SETFD, FD_CLOEXEC);  // pidfd_getfd sets it; be sure
            return got;
        }
        why = std::string("pidfd_getfd: ") + std::strerror(err);
    } else {
        why = std::string("pidfd_open: ") + std::strerror(errno);
    }
#endif
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/fd/%d", pid, fd);
    const int got = ::open(path, O_RDWR | O_CLOEXEC);
    if (got < 0) why += std::string(why.empty() ? "" : "; ") + "open " + path + ": " + std::strerror(errno);
    return got;
}

// The most a memfd of ours may reserve: what /dev/shm could still hold (the
// named backend's limit) and what the machine has available. A memfd lives
// in the kernel's internal tmpfs, which has no size limit: posix_fallocate
// of more than the machine has would not fail, it would reserve pages until
// the kernel's out-of-memory killer ends processes (Win_allocate_shared of
// an absurd size did that). 0: unknown, no limit.
uint64_t memfd_capacity() noexcept {
    uint64_t cap = 0;
    struct statvfs v;
    if (::statvfs("/dev/shm", &v) == 0 && v.f_frsize > 0)
        cap = static_cast<uint64_t>(v.f_bavail) * v.f_frsize;
    if (FILE* f = std::fopen("/proc/meminfo", "r")) {
        char line[128];
        unsigned long long kb = 0;
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                const uint64_t avail = static_cast<uint64_t>(kb) * 1024;
                cap = cap == 0 ? avail : std::min(cap, avail);
                break;
            }
        std::fclose(f);
    }
    return cap;
}

}  // namespace

bool segment::named_backend() noexcept {
    static const bool named = util::env_bool("CH4LITE_SHM_NAMED", false);
    return named;
}

segment& segment::operator=(segment&& o) noexcept {
    if (this != &o) {
        reset();
        base_ = o.base_;
        size_ = o.size_;
        name_ = std::move(o.name_);
        owner_ = o.owner_;
        unlinked_ = o.unlinked_;
        memfd_ = o.memfd_;
        o.base_ = nullptr;
        o.size_ = 0;
        o.owner_ = false;
        o.memfd_ = -1;
    }
    return *this;
}

status segment::create_memfd(std::size_t bytes, segment& out, std::string& error) {
    const std::string what = "a memfd";
    fd_guard g{new_memfd()};
    if (g.fd < 0) {
        error = sys_error("cannot create", what, errno);
        return status::io;
    }
    // Exactly 0600 (a memfd starts as 0777 less the umask) and ours.
    if (::fchmod(g.fd, 0600) != 0) {
        error = sys_error("cannot chmod", what, errno);
        return status::io;
    }
    // Reserve the memory now: a full tmpfs fails here, not with SIGBUS in
    // the middle of a send. Then no peer can change the size.
    if (const uint64_t cap = memfd_capacity(); cap != 0 && bytes > cap) {
        error = "cannot reserve " + std::to_string(bytes) + " bytes of shared memory: " +
                std::to_string(cap) + " available";
        return status::io;
    }
    if (const int e = ::posix_fallocate(g.fd, 0, static_cast<off_t>(bytes)); e != 0) {
        error = sys_error("cannot reserve memory for", what, e);
        return status::io;
    }
    (void)::fcntl(g.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    if (!check_object(g.fd, what, bytes, error)) return status::io;
    struct stat st;
    if (::fstat(g.fd, &st) != 0) {
        error = sys_error("cannot fstat", what, errno);
        return status::io;
    }
    segment seg;
    seg.base_ = map(g.fd, bytes, what, error);
    if (!seg.base_) return status::io;
    seg.size_ = bytes;
    seg.owner_ = true;
    char name[96];
    std::snprintf(name, sizeof name, "memfd:%ld:%d:%llx:%llx", static_cast<long>(::getpid()), g.fd,
                  static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino));
    seg.name_ = name;
    seg.memfd_ = g.fd;
    g.fd = -1;  // kept until unlink()
    out = std::move(seg);
    return status::ok;
}

status segment::create_unique(uint64_t job_key, char tag, std::size_t bytes, segment& out,
                              std::string& error) {
    if (!named_backend()) return create_memfd(bytes, out, error);
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
    if (name.compare(0, 6, "memfd:") == 0) {
        long pid = 0;
        int fd = -1, used = 0;
        unsigned long long dev = 0, ino = 0;
        if (std::sscanf(name.c_str(), "memfd:%ld:%d:%llx:%llx%n", &pid, &fd, &dev, &ino, &used) != 4 ||
            static_cast<std::size_t>(used) != name.size() || pid <= 0 || fd < 0) {
            error = "bad segment descriptor '" + name + "'";
            return status::io;
        }
        std::string why;
        fd_guard g{take_fd(pid, fd, why)};
        if (g.fd < 0) {
            error = "cannot take the segment " + name + " from its creator: " + why;
            return status::io;
        }
        // The creator's descriptor number might have been reused: this must
        // be the very inode it published.
        struct stat st;
        if (::fstat(g.fd, &st) != 0 || static_cast<unsigned long long>(st.st_dev) != dev ||
            static_cast<unsigned long long>(st.st_ino) != ino) {
            error = name + " is not the object its creator published";
            return status::io;
        }
        if (!check_object(g.fd, name, bytes, error)) return status::io;
        segment seg;
        seg.name_ = name;
        seg.base_ = map(g.fd, bytes, name, error);
        if (!seg.base_) return status::io;
        seg.size_ = bytes;
        out = std::move(seg);
        return status::ok;
    }
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
        if (memfd_ >= 0) {
            ::close(memfd_);
            memfd_ = -1;
        } else {
            ::shm_unlink(name_.c_str());
        }
        unlinked_ = true;
    }
}

void segment::reset() noexcept {
    unlink();
    if (memfd_ >= 0) ::close(memfd_);
    memfd_ = -1;
    if (base_) ::munmap(base_, size_);
    base_ = nullptr;
    size_ = 0;
    owner_ = false;
    unlinked_ = false;
}

}  // namespace ch4lite::shm
