// SPDX-License-Identifier: MIT
// mpiexec: starts N ranks of a program on this machine and serves them PMI-1.
// Usage and exit codes: docs/mpiexec.md (and `mpiexec -h`).
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

#include "job.hpp"
#include "options.hpp"

int main(int argc, char** argv) {
    using namespace ch4lite::launch;
    // Descriptors 0-2 must exist, or a socketpair could land on them and be
    // clobbered when a rank's stdio is set up.
    for (int fd = 0; fd < 3; ++fd)
        if (::fcntl(fd, F_GETFD) < 0 && ::open("/dev/null", O_RDWR) < 0) return exit_launcher_error;

    options opt;
    std::string error;
    switch (parse_options(argc, argv, opt, error)) {
        case parse_result::help:
            std::fputs(usage_text(), stdout);
            return 0;
        case parse_result::error:
            std::fprintf(stderr, "mpiexec: %s\n%s", error.c_str(), usage_text());
            return exit_launcher_error;
        case parse_result::run:
            break;
    }
    job j(opt);
    return j.run();
}
