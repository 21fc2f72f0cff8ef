// SPDX-License-Identifier: MIT
// Starting one rank: fork, put the child in a process group of its own, tie
// its life to mpiexec (PR_SET_PDEATHSIG), wire its descriptors, bind it, and
// exec the program. Also the lookup of the program and the rank environment.
#pragma once
#include <sched.h>
#include <signal.h>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ch4lite::launch {

struct rank_spec {
    const char* path = nullptr;         // resolved program
    char* const* argv = nullptr;
    char* const* envp = nullptr;
    int pmi_fd = -1;                    // child end of the PMI socketpair
    int stdin_fd = -1;                  // -1: mpiexec's stdin
    int stdout_fd = -1, stderr_fd = -1; // -1: mpiexec's own
    const char* wdir = nullptr;
    const cpu_set_t* cpus = nullptr;    // null: no binding
    const sigset_t* sigmask = nullptr;  // the mask mpiexec started with
};

// Forks and execs; returns the child's pid (also its process group id), or
// -1 with errno set when fork fails. Exec failures are reported by the child
// itself on its stderr, which then exits 126 (cannot execute) or 127.
pid_t spawn_rank(const rank_spec& spec);

// Finds `name` like a shell (PATH unless it has a '/'); relative paths are
// made absolute so -wdir cannot change their meaning. On failure returns ""
// with `error` set and `code` 127 (not found) or 126 (not executable).
std::string resolve_program(const std::string& name, std::string& error, int& code);

// "K=V" strings: `base` (mpiexec's environment without launcher variables of
// any earlier launcher), then `extra` in order, later entries winning.
std::vector<std::string> merge_env(char** base,
                                   const std::vector<std::pair<std::string, std::string>>& extra);

}  // namespace ch4lite::launch
