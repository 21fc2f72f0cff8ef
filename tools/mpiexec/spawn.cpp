// SPDX-License-Identifier: MIT
#include "spawn.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <vector>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ch4lite::launch {

namespace {

// Only write(2) after fork: the child must not touch stdio buffers it
// inherited.
void child_say(const char* what, const char* arg, int err) noexcept {
    char buf[512];
    const int n = std::snprintf(buf, sizeof buf, "mpiexec: %s %s: %s\n", what, arg, std::strerror(err));
    if (n > 0) {
        ssize_t w = ::write(2, buf, static_cast<std::size_t>(n) < sizeof buf ? n : sizeof buf - 1);
        (void)w;
    }
}

// Closes every descriptor >= lo except `keep`: close_range(2) (Linux 5.9),
// else each open one listed in /proc/self/fd, else every number up to the
// descriptor limit.
void close_from(int lo, int keep) noexcept {
    auto range = [](unsigned a, unsigned b) {
        if (a > b) return true;
        return ::syscall(SYS_close_range, a, b, 0u) == 0;
    };
    if (range(static_cast<unsigned>(lo), static_cast<unsigned>(keep) - 1) &&
        range(static_cast<unsigned>(keep) + 1, ~0u))
        return;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        const int self = ::dirfd(d);
        std::vector<int> fds;  // (after fork of a single-threaded mpiexec: malloc is safe)
        while (dirent* e = ::readdir(d)) {
            const int fd = std::atoi(e->d_name);
            if (e->d_name[0] != '.' && fd >= lo && fd != keep && fd != self) fds.push_back(fd);
        }
        ::closedir(d);
        for (int fd : fds) ::close(fd);
        return;
    }
    const long max = ::sysconf(_SC_OPEN_MAX);
    for (long fd = lo; fd < (max > 0 ? max : 1024); ++fd)
        if (fd != keep) ::close(static_cast<int>(fd));
}

[[noreturn]] void child_main(const rank_spec& s, pid_t parent) noexcept {
    ::setpgid(0, 0);
    // Die with mpiexec; if it is already gone, the signal will never come.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(125);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    // mpiexec ignores SIGPIPE, and a shell may have started it with SIGINT
    // and SIGQUIT ignored (background job): the program gets the defaults.
    for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD}) ::sigaction(sig, &dfl, nullptr);
    if (s.sigmask) ::sigprocmask(SIG_SETMASK, s.sigmask, nullptr);
    if (s.stdin_fd >= 0 && ::dup2(s.stdin_fd, 0) < 0) ::_exit(125);
    if (s.stdout_fd >= 0 && ::dup2(s.stdout_fd, 1) < 0) ::_exit(125);
    if (s.stderr_fd >= 0 && ::dup2(s.stderr_fd, 2) < 0) ::_exit(125);
    const int fl = ::fcntl(s.pmi_fd, F_GETFD);  // the one descriptor the rank inherits
    if (fl < 0 || ::fcntl(s.pmi_fd, F_SETFD, fl & ~FD_CLOEXEC) < 0) ::_exit(125);
    // Besides 0-2, nothing else: descriptors mpiexec's caller left open
    // without FD_CLOEXEC (a shell's redirections, a build system's pipes)
    // are closed (docs/mpiexec.md). s.pmi_fd > 2 (main.cpp keeps 0-2 open).
    close_from(3, s.pmi_fd);
    if (s.cpus && ::sched_setaffinity(0, sizeof *s.cpus, s.cpus) != 0)
        child_say("warning: cannot bind", "to its core", errno);
    if (s.wdir && ::chdir(s.wdir) != 0) {
        child_say("cannot change to directory", s.wdir, errno);
        ::_exit(126);
    }
    ::execve(s.path, s.argv, s.envp);
    const int err = errno;
    child_say("cannot execute", s.path, err);
    ::_exit(err == ENOENT ? 127 : 126);
}

bool is_launcher_var(std::string_view kv) {
    static constexpr std::string_view drop[] = {
        "PMI_FD=", "PMI_PORT=", "PMI_ID=", "PMI_RANK=", "PMI_SIZE=", "PMI_process_mapping=",
        "MPI_LOCALNRANKS=", "MPI_LOCALRANKID=", "CH4LITE_JOB_KEY=", "CH4LITE_HOST_RANKS="};
    for (std::string_view d : drop)
        if (kv.substr(0, d.size()) == d) return true;
    return false;
}

}  // namespace

pid_t spawn_rank(const rank_spec& spec) {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) child_main(spec, parent);
    // Also from the parent, so the group exists before we ever signal it.
    if (pid > 0) ::setpgid(pid, pid);
    return pid;
}

std::string resolve_program(const std::string& name, std::string& error, int& code) {
    auto usable = [](const std::string& p, int& why) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) {
            why = errno;
            return false;
        }
        if (!S_ISREG(st.st_mode) || ::access(p.c_str(), X_OK) != 0) {
            why = EACCES;
            return false;
        }
        return true;
    };
    int why = ENOENT;
    if (name.find('/') != std::string::npos) {
        std::string p = name;
        if (p[0] != '/') {
            char cwd[PATH_MAX];
            if (::getcwd(cwd, sizeof cwd)) p = std::string(cwd) + "/" + p;
        }
        if (usable(p, why)) return p;
    } else {
        const char* path = std::getenv("PATH");
        std::string_view dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
        bool denied = false;
        while (true) {
            const std::size_t colon = dirs.find(':');
            std::string dir(dirs.substr(0, colon));
            if (dir.empty()) dir.push_back('.');
            const std::string p = dir + "/" + name;
            int w = 0;
            if (usable(p, w)) return p[0] == '/' ? p : resolve_program(p, error, code);
            denied = denied || w == EACCES;
            if (colon == std::string_view::npos) break;
            dirs.remove_prefix(colon + 1);
        }
        why = denied ? EACCES : ENOENT;
    }
    code = why == EACCES ? 126 : 127;
    error = why == EACCES ? "'" + name + "' is not an executable file"
                          : "program '" + name + "' not found" +
                                (name.find('/') == std::string::npos ? " in PATH" : "");
    return {};
}

std::vector<std::string> merge_env(char** base,
                                   const std::vector<std::pair<std::string, std::string>>& extra) {
    std::vector<std::string> env;
    for (char** e = base; e && *e; ++e)
        if (!is_launcher_var(*e)) env.emplace_back(*e);
    for (const auto& [k, v] : extra) {
        const std::string prefix = k + "=";
        std::erase_if(env, [&](const std::string& s) { return s.compare(0, prefix.size(), prefix) == 0; });
        env.push_back(prefix + v);
    }
    return env;
}

}  // namespace ch4lite::launch
