// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>

#include "shm/segment.hpp"

using namespace ch4lite;
using shm::segment;

namespace {

std::string unique_name(const char* what) {
    std::random_device rd;
    return "/ch4lite-unittest-" + std::to_string(::getpid()) + "-" + what + "-" +
           std::to_string(rd());
}

bool exists(const std::string& name) {
    return ::access(("/dev/shm" + name).c_str(), F_OK) == 0;
}

mode_t mode_of(const std::string& name) {
    struct stat st{};
    if (::lstat(("/dev/shm" + name).c_str(), &st) != 0) return 0;
    return st.st_mode & 07777;
}

// A file somebody else planted under `name`.
void plant(const std::string& name, mode_t mode, std::size_t bytes) {
    const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, mode);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::fchmod(fd, mode), 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(bytes)), 0);
    ::close(fd);
}

}  // namespace

TEST(ShmSegment, CreateAttachShareMemoryAndUnlink) {
    const std::string name = unique_name("basic");
    std::string err;
    segment a, b;
    ASSERT_EQ(segment::create(name, 65536, a, err), status::ok) << err;
    EXPECT_EQ(mode_of(name), 0600u);
    ASSERT_EQ(segment::attach(name, 65536, b, err), status::ok) << err;
    std::memcpy(a.base() + 100, "hello", 6);
    EXPECT_STREQ(reinterpret_cast<const char*>(b.base() + 100), "hello");
    EXPECT_EQ(b.base()[5000], std::byte{0});  // fresh memory is zero
    a.unlink();
    EXPECT_FALSE(exists(name));
    std::memcpy(b.base() + 200, "still", 6);  // mappings outlive the name
    EXPECT_STREQ(reinterpret_cast<const char*>(a.base() + 200), "still");
}

TEST(ShmSegment, CreatorUnlinksWhenDestroyed) {
    const std::string name = unique_name("raii");
    std::string err;
    {
        segment a;
        ASSERT_EQ(segment::create(name, 8192, a, err), status::ok) << err;
        EXPECT_TRUE(exists(name));
    }
    EXPECT_FALSE(exists(name));
}

TEST(ShmSegment, UmaskDoesNotWeakenOrBreakTheMode) {
    const std::string name = unique_name("umask");
    const mode_t old = ::umask(0277);  // would leave 0400
    std::string err;
    segment a;
    const status s = segment::create(name, 8192, a, err);
    ::umask(old);
    ASSERT_EQ(s, status::ok) << err;
    EXPECT_EQ(mode_of(name), 0600u);
}

TEST(ShmSegment, ExistingNameIsNeverOpenedByCreate) {
    const std::string name = unique_name("planted");
    plant(name, 0666, 4096);
    std::string err;
    segment a;
    EXPECT_EQ(segment::create(name, 8192, a, err), status::again) << err;
    EXPECT_EQ(a.base(), nullptr);
    // The planted object is untouched (same mode and size) and not unlinked.
    EXPECT_EQ(mode_of(name), 0666u);
    struct stat st{};
    ASSERT_EQ(::stat(("/dev/shm" + name).c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 4096);
    ::shm_unlink(name.c_str());
}

TEST(ShmSegment, SymlinkUnderTheNameIsRefused) {
    const std::string name = unique_name("link");
    const std::string target = unique_name("target");
    plant(target, 0600, 8192);
    ASSERT_EQ(::symlink(("/dev/shm" + target).c_str(), ("/dev/shm" + name).c_str()), 0);
    std::string err;
    segment a, b;
    EXPECT_EQ(segment::create(name, 8192, a, err), status::again);
    EXPECT_EQ(segment::attach(name, 8192, b, err), status::io);
    ::unlink(("/dev/shm" + name).c_str());
    ::shm_unlink(target.c_str());
}

TEST(ShmSegment, AttachChecksModeSizeAndOwner) {
    std::string err;
    segment s;
    const std::string loose = unique_name("loose");
    plant(loose, 0644, 8192);
    EXPECT_EQ(segment::attach(loose, 8192, s, err), status::io);
    EXPECT_NE(err.find("mode 0644"), std::string::npos) << err;
    ::shm_unlink(loose.c_str());

    const std::string sized = unique_name("size");
    plant(sized, 0600, 4096);
    EXPECT_EQ(segment::attach(sized, 8192, s, err), status::io);
    EXPECT_NE(err.find("bytes"), std::string::npos) << err;
    EXPECT_EQ(segment::attach(sized, 4096, s, err), status::ok) << err;
    s.reset();
    ::shm_unlink(sized.c_str());

    if (::geteuid() == 0) {  // only root can give a file away
        const std::string foreign = unique_name("owner");
        plant(foreign, 0600, 8192);
        ASSERT_EQ(::chown(("/dev/shm" + foreign).c_str(), 12345, 12345), 0);
        EXPECT_EQ(segment::attach(foreign, 8192, s, err), status::io);
        EXPECT_NE(err.find("uid 12345"), std::string::npos) << err;
        ::shm_unlink(foreign.c_str());
    }
    EXPECT_EQ(segment::attach(unique_name("missing"), 8192, s, err), status::io);
}

TEST(ShmSegment, AttacherNeverUnlinks) {
    const std::string name = unique_name("attacher");
    std::string err;
    segment a;
    ASSERT_EQ(segment::create(name, 8192, a, err), status::ok) << err;
    {
        segment b;
        ASSERT_EQ(segment::attach(name, 8192, b, err), status::ok) << err;
        EXPECT_FALSE(b.linked());
    }
    EXPECT_TRUE(exists(name));
    EXPECT_TRUE(a.linked());
}

// The memfd backend (the default): no name anywhere; a peer takes the
// creator's descriptor and checks it is the published inode.
namespace {
int count_dev_shm_ours() {
    int n = 0;
    const std::string prefix = "ch4lite-" + std::to_string(::getuid()) + "-";
    if (DIR* d = ::opendir("/dev/shm")) {
        while (dirent* e = ::readdir(d)) n += std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0;
        ::closedir(d);
    }
    return n;
}
}  // namespace

TEST(ShmSegmentMemfd, NoNameSharedMemorySealedAndChecked) {
    std::string err;
    segment a, b;
    ASSERT_EQ(segment::create_memfd(65536, a, err), status::ok) << err;
    EXPECT_EQ(a.name().compare(0, 6, "memfd:"), 0) << a.name();
    ASSERT_EQ(segment::attach(a.name(), 65536, b, err), status::ok) << err;
    std::memcpy(a.base() + 100, "hello", 6);
    EXPECT_STREQ(reinterpret_cast<const char*>(b.base() + 100), "hello");
    EXPECT_EQ(b.base()[5000], std::byte{0});
    // A wrong size, a garbled or forged descriptor: refused.
    segment c;
    EXPECT_EQ(segment::attach(a.name(), 4096, c, err), status::io);
    EXPECT_EQ(segment::attach("memfd:1:2:3", 65536, c, err), status::io);
    std::string forged = a.name();
    forged.back() = forged.back() == '0' ? '1' : '0';  // another inode number
    EXPECT_EQ(segment::attach(forged, 65536, c, err), status::io);
    // Closed by the creator: nobody can take it any more, the mappings stay.
    const std::string name = a.name();
    a.unlink();
    EXPECT_EQ(segment::attach(name, 65536, c, err), status::io);
    std::memcpy(b.base() + 200, "still", 6);
    EXPECT_STREQ(reinterpret_cast<const char*>(a.base() + 200), "still");
}

TEST(ShmSegmentMemfd, SealedAgainstResizeAndMode0600) {
    std::string err;
    segment a;
    ASSERT_EQ(segment::create_memfd(8192, a, err), status::ok) << err;
    long pid = 0;
    int fd = -1;
    ASSERT_EQ(std::sscanf(a.name().c_str(), "memfd:%ld:%d:", &pid, &fd), 2);
    struct stat st {};
    ASSERT_EQ(::fstat(fd, &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_EQ(st.st_size, 8192);
    EXPECT_NE(::ftruncate(fd, 4096), 0);   // F_SEAL_SHRINK
    EXPECT_NE(::ftruncate(fd, 16384), 0);  // F_SEAL_GROW
}

TEST(ShmSegmentMemfd, CreateUniqueLeavesNothingInDevShm) {
    const int before = count_dev_shm_ours();
    std::string err;
    segment a;
    ASSERT_EQ(segment::create_unique(0x1234, 'x', 8192, a, err), status::ok) << err;
    EXPECT_EQ(count_dev_shm_ours(), before);
}
