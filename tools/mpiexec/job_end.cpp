// SPDX-License-Identifier: MIT
// How a job ends: judging each rank's exit, the failure banner, killing the
// process groups (SIGTERM, then SIGKILL after the grace period), reaping,
// removing leftover shared-memory segments, and the exit code.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.hpp"

namespace ch4lite::launch {

namespace {

int64_t now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::string who(const rank_proc& p) {
    return "rank " + std::to_string(p.rank) + " (pid " + std::to_string(p.pid) + ")";
}

std::string signal_text(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    const char* desc = strsignal(sig);
    return "signal " + std::to_string(sig) + " (" + (abbrev ? "SIG" + std::string(abbrev) : "?") +
           (desc ? ": " + std::string(desc) : "") + ")";
}

// The oom_kill count of our memory cgroup, or -1 when unknown: cgroup v2
// memory.events, or v1 memory.oom_control. Both count the ranks, which stay
// in mpiexec's cgroup (v2's count is hierarchical).
long cgroup_oom_kills() {
    char line[4096];
    std::string file;
    if (FILE* f = std::fopen("/proc/self/cgroup", "r")) {
        while (std::fgets(line, sizeof line, f)) {
            std::string path(line);
            while (!path.empty() && (path.back() == '\n' || path.back() == '/')) path.pop_back();
            if (path.compare(0, 3, "0::") == 0 && file.empty())
                file = "/sys/fs/cgroup" + path.substr(3) + "/memory.events";
            else if (const std::size_t m = path.find(":memory:"); m != std::string::npos)
                file = "/sys/fs/cgroup/memory" + path.substr(m + 8) + "/memory.oom_control";
        }
        std::fclose(f);
    }
    FILE* f = file.empty() ? nullptr : std::fopen(file.c_str(), "r");
    if (!f) return -1;
    long n = -1;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "oom_kill %ld", &n) == 1) break;
    std::fclose(f);
    return n;
}

}  // namespace

long job_oom_kills() { return cgroup_oom_kills(); }

std::string job::oom_note() const {
    if (oom_kills_at_start_ < 0) return {};
    const long now = cgroup_oom_kills();
    if (now <= oom_kills_at_start_) return {};
    return ": out of memory, by the look of it (the kernel's OOM killer ran during the job: its oom_kill count in "
           "mpiexec's memory cgroup went from " + std::to_string(oom_kills_at_start_) + " to " +
           std::to_string(now) + ")";
}

bool job::running_others(const rank_proc& self) const {
    return std::any_of(ranks_.begin(), ranks_.end(), [&](const rank_proc& p) {
        return &p != &self && p.pid > 0 && !p.exited;
    });
}

void job::rank_ended(rank_proc& p, int how, int status) {
    p.exited = true;
    if (how == CLD_EXITED) {
        p.code = status;
    } else {
        p.signal = status;
        p.code = 128 + status;
        p.core = how == CLD_DUMPED;
    }
    // Deaths by signal after mpiexec began killing are its own doing, not
    // the job's result; an exit status is the rank's own word and counts.
    p.counted = how == CLD_EXITED || !killing_;
    const pmi_conn& c = server_->conn(p.conn);
    if (p.signal)
        log("%s ended by %s", who(p).c_str(), signal_text(p.signal).c_str());
    else
        log("%s exited with status %d", who(p).c_str(), p.code);
    if (!p.counted || c.aborted) return;
    if (killing_) {
        if (p.code != 0) std::fprintf(stderr, "mpiexec: also: %s exited with status %d\n", who(p).c_str(), p.code);
        return;
    }
    if (p.signal == SIGINT && interrupts_ > 0) {
        fail(who(p) + " ended by the forwarded SIGINT", true, &p);
    } else if (p.signal) {
        fail(who(p) + " killed by " + signal_text(p.signal) + (p.core ? ", core dumped" : "") +
             (p.signal == SIGKILL ? oom_note() : std::string()), false, &p);
    } else if (p.code != 0) {
        fail(who(p) + " exited with status " + std::to_string(p.code), false, &p);
    } else if (c.initialized && !c.finalized) {
        if (running_others(p))
            fail(who(p) + " exited without calling PMI finalize (MPI_Finalize) while other ranks run",
                 false, &p);
        else
            std::fprintf(stderr, "mpiexec: warning: %s exited without calling PMI finalize\n",
                         who(p).c_str());
    }
}

void job::fail(const std::string& what, bool quiet, const rank_proc* culprit) {
    failed_ = true;
    if (killing_) {
        if (!quiet) std::fprintf(stderr, "mpiexec: also: %s\n", what.c_str());
        return;
    }
    killing_ = true;
    // The ranks still running, without the one that broke the job (which
    // may not have exited yet: it sends its abort, then exits).
    const int alive = static_cast<int>(std::count_if(ranks_.begin(), ranks_.end(), [&](const rank_proc& p) {
        return p.pid > 0 && !p.exited && &p != culprit;
    }));
    if (!quiet) {
        char kill_line[160] = "";
        if (alive > 0)
            std::snprintf(kill_line, sizeof kill_line,
                          "mpiexec: ending %s %d rank%s still running: SIGTERM, SIGKILL after %d s\n",
                          culprit ? "the other" : alive == opt_.np ? "all" : "the", alive,
                          alive == 1 ? "" : "s", grace_ms / 1000);
        std::fprintf(stderr,
                     "mpiexec: ==================================================================\n"
                     "mpiexec: JOB FAILED: %s\n%s"
                     "mpiexec: ==================================================================\n",
                     what.c_str(), kill_line);
    }
    kill_all(SIGTERM);
    kill_deadline_ = now_ms() + grace_ms;
}

void job::kill_all(int sig) {
    // Every group, also of ranks that ended: helpers they started must not
    // outlive the job. The leaders are unreaped zombies, so these ids are
    // still ours.
    for (const rank_proc& p : ranks_)
        if (p.pid > 0) ::kill(-p.pid, sig);
}

void job::on_deadlines() {
    const int64_t now = now_ms();
    if (maxtime_deadline_ >= 0 && now >= maxtime_deadline_ && !killing_) {
        timed_out_ = true;
        fail("timed out after " + std::to_string(opt_.maxtime) + " s (-maxtime / MPIEXEC_TIMEOUT)");
    }
    if (kill_deadline_ >= 0 && now >= kill_deadline_) {
        log("grace period over: SIGKILL to every rank");
        kill_all(SIGKILL);
        kill_deadline_ = -1;
    }
}

void job::drain_pipes(int budget_ms) {
    const int64_t end = now_ms() + budget_ms;
    while (true) {
        std::vector<pollfd> fds;
        std::vector<std::pair<unique_fd*, line_tagger*>> who;
        for (rank_proc& p : ranks_) {
            if (p.out) {
                fds.push_back({p.out.get(), POLLIN, 0});
                who.emplace_back(&p.out, &p.tag_out);
            }
            if (p.err) {
                fds.push_back({p.err.get(), POLLIN, 0});
                who.emplace_back(&p.err, &p.tag_err);
            }
        }
        const int64_t left = end - now_ms();
        if (fds.empty() || left <= 0) break;
        if (::poll(fds.data(), fds.size(), static_cast<int>(left)) <= 0) continue;
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (!fds[i].revents) continue;
            char buf[16384];
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                who[i].second->feed(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                who[i].second->finish();
                who[i].first->reset();
            }
        }
    }
    // Whatever still holds a pipe escaped its process group; stop waiting.
    for (rank_proc& p : ranks_) {
        if (p.out) p.tag_out.finish();
        if (p.err) p.tag_err.finish();
        p.out.reset();
        p.err.reset();
    }
}

void job::finish() {
    kill_all(SIGKILL);
    drain_pipes(1000);
    for (rank_proc& p : ranks_) {
        if (p.pid <= 0) continue;
        int st;
        while (::waitpid(p.pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    remove_shm_segments();
    if (timed_out_ || failed_ || abort_code_ >= 0 || fatal_signal_)
        log("job ended abnormally; exit code %d", exit_code());
    else
        log("all %d rank(s) done; exit code %d", opt_.np, exit_code());
}

void job::remove_shm_segments() const {
    // The shm transport names its segments ch4lite-<uid>-<job key>-*; a
    // killed job cannot unlink them itself.
    // libfabric's shm provider (CH4LITE_SHM=0 FI_PROVIDER=shm) names its
    // regions <pid>:<n>:<n>; those of our own ranks, if still ours, go too.
    const std::string prefix = "ch4lite-" + std::to_string(::getuid()) + "-" + job_key_hex_ + "-";
    DIR* d = ::opendir("/dev/shm");
    if (!d) return;
    while (dirent* e = ::readdir(d)) {
        bool ours = std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0;
        if (!ours) {
            unsigned long pid = 0, a = 0, b = 0;
            int used = 0;
            struct stat sb;
            if (std::sscanf(e->d_name, "%lu:%lu:%lu%n", &pid, &a, &b, &used) == 3 &&
                e->d_name[used] == '\0' && std::isdigit(static_cast<unsigned char>(e->d_name[0])) &&
                ::fstatat(::dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISREG(sb.st_mode) && sb.st_uid == ::getuid())
                for (const rank_proc& p : ranks_)
                    if (p.pid > 0 && static_cast<unsigned long>(p.pid) == pid) ours = true;
        }
        if (ours && ::unlinkat(::dirfd(d), e->d_name, 0) == 0) log("removed /dev/shm/%s", e->d_name);
    }
    ::closedir(d);
}

int job::exit_code() const {
    if (launch_error_) return launch_error_;
    if (timed_out_) return exit_timeout;
    if (abort_code_ >= 0) return abort_code_ & 0xff;
    if (fatal_signal_) return 128 + fatal_signal_;
    int code = 0;
    for (const rank_proc& p : ranks_)
        if (p.counted) code = std::max(code, p.code);
    return code == 0 && failed_ ? exit_job_failed : code;
}

}  // namespace ch4lite::launch
