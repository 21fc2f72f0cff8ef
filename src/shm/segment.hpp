// SPDX-License-Identifier: MIT
// RAII owner of one POSIX shared-memory mapping (STYLE.md #8).
//
// Security rules (docs/shm.md, "Segment security"):
//  - create() uses O_CREAT|O_EXCL with mode 0600 and never opens an existing
//    object: a name somebody else took answers `again`, and the caller
//    picks a fresh random name (so a pre-created file can neither be
//    hijacked nor block the job);
//  - both create() and attach() check with fstat that the object is a
//    regular file owned by our effective uid with mode exactly 0600 and the
//    expected size before mapping it;
//  - the creator unlinks the name as soon as every local rank attached (or
//    on any failure), so a crash leaves nothing in /dev/shm.
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
    // create() under "/ch4lite-<uid>-<job key>-<tag><16 random hex digits>"
    // (mpiexec removes ch4lite-<uid>-<job key>-* of a killed job), a fresh
    // random part for each of up to 16 names that exist already; the name
    // is out.name().
    static status create_unique(uint64_t job_key, char tag, std::size_t bytes, segment& out,
                                std::string& error);
    // Opens and maps an existing object after the ownership/mode/size checks.
    static status attach(const std::string& name, std::size_t bytes, segment& out,
                         std::string& error);

    // Removes the name (creator only; idempotent). The mapping stays valid.
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
};

}  // namespace ch4lite::shm
