// SPDX-License-Identifier: MIT
// -l / --tag-output: a rank's stdout or stderr arrives on a pipe; whole
// lines go to mpiexec's own stdout or stderr prefixed with "[rank] ", each
// in one write so lines of different ranks never mix.
#pragma once
#include <cstddef>
#include <string>

namespace ch4lite::launch {

class line_tagger {
  public:
    line_tagger() = default;
    line_tagger(int rank, int out_fd);
    // Writes every complete line in `data` (plus what was pending). A line
    // longer than 64 KiB is cut; its rest continues under a new prefix.
    void feed(const char* data, std::size_t n);
    // At EOF: writes the unfinished last line with a newline added.
    void finish();

  private:
    void emit(const char* line, std::size_t n);
    std::string prefix_;
    std::string pending_;
    int fd_ = -1;
};

// write(2) of all bytes, waiting out EAGAIN and EINTR; false on a real
// error (EPIPE when the reader went away).
bool write_fully(int fd, const char* p, std::size_t n) noexcept;

}  // namespace ch4lite::launch
