// SPDX-License-Identifier: MIT
// RAII owner of one shared-memory mapping (STYLE.md #8).
//
// Two backends (docs/shm-segment.md, "Segment"):
//  - memfd (default): the creator makes an anonymous memfd (no name in
//    /dev/shm, ever) and publishes a descriptor "memfd:<pid>:<fd>:<dev>:<ino>";
//    a peer takes the file with pidfd_getfd(2), else reopens
//    /proc/<pid>/fd/<fd>, and checks it is that inode. So no failure of any
//    rank, under any launcher, can leave a name behind. The creator keeps
//    its descriptor until every peer has attached (unlink() closes it).
//  - named (CH4LITE_SHM_NAMED=1): POSIX shm_open names, for systems where
//    peers cannot reach each other's descriptors.
//
// Security rules (docs/shm-segment.md, "Segment security"):
//  - create() uses O_CREAT|O_EXCL with mode 0600 and never opens an existing
//    object: a name somebody else took answers `again`, and the caller
//    picks a fresh random name (so a pre-created file can neither be
//    hijacked nor block the job);
//  - both backends check with fstat that the object is a regular file owned
//    by our effective uid with mode exactly 0600 and the expected size
//    before mapping it (a memfd: also that it is the published inode), and
//    a memfd is sealed against growing and shrinking;
//  - the creator unlinks the name (closes the memfd) as soon as every local
//    rank attached (or on any failure).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "util/status.hpp"

namespace ch4lite::shm {

class segment {
  public:
    segment() = default;
    ~segment() { reset(); }
    segment(const segment&) = delete;
    segment& operator=(const segment&) = delete;
    segment(segment&& o) noexcept { *this = static_cast<segment&&>(o); }
    segment& operator=(segment&& o) noexcept;

    // Creates and maps a new object `name` ("/..."), zero-filled, `bytes`
    // long, with its memory reserved (no SIGBUS later on a full /dev/shm).
    // again: the name exists; io: any other failure (`error` says which).
    static status create(const std::string& name, std::size_t bytes, segment& out,
                         std::string& error);
    // A memfd of `bytes`, zero-filled, reserved and sealed against size
    // changes; out.name() is the descriptor peers attach with.
    static status create_memfd(std::size_t bytes, segment& out, std::string& error);
    // The default backend's segment: create_memfd(), or with
    // CH4LITE_SHM_NAMED=1 create() under
    // "/ch4lite-<uid>-<job key>-<tag><16 random hex digits>" (mpiexec
    // removes ch4lite-<uid>-<job key>-* of a killed job), a fresh random part
    // for each of up to 16 names that exist already. out.name() is what
    // peers attach with.
    static status create_unique(uint64_t job_key, char tag, std::size_t bytes, segment& out,
                                std::string& error);
    // Opens and maps a segment another rank created (its name(): a memfd
    // descriptor or a POSIX name) after the ownership/mode/size checks.
    static status attach(const std::string& name, std::size_t bytes, segment& out,
                         std::string& error);
    // CH4LITE_SHM_NAMED=1: the named backend.
    static bool named_backend() noexcept;

    // Removes the name, or closes the memfd peers take (creator only;
    // idempotent). The mapping stays valid.
    void unlink() noexcept;
    // Unmaps (and unlinks if still named and ours).
    void reset() noexcept;

    std::byte* base() const noexcept { return base_; }
    std::size_t size() const noexcept { return size_; }
    const std::string& name() const noexcept { return name_; }
    bool linked() const noexcept { return owner_ && !unlinked_; }

  private:
    std::byte* base_ = nullptr;
    std::size_t size_ = 0;
    std::string name_;
    bool owner_ = false;
    bool unlinked_ = false;
    int memfd_ = -1;  // memfd backend: the creator's descriptor until unlink()
};

}  // namespace ch4lite::shm
