// SPDX-License-Identifier: MIT
// One job: the ranks, their PMI connections and output pipes, and the single
// event loop (poll over a signalfd, the PMI sockets and the pipes) that
// serves PMI, forwards output, watches the children and ends the job.
//
// Ranks are observed with waitid(WNOWAIT) and reaped only when the job is
// over, so a rank's pid (= its process group id) cannot be reused while we
// may still signal its group.
#pragma once
#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "options.hpp"
#include "output.hpp"
#include "pmi_server.hpp"
#include "unique_fd.hpp"

namespace ch4lite::launch {

// mpiexec's own exit codes (docs/mpiexec.md).
inline constexpr int exit_timeout = 124;
inline constexpr int exit_launcher_error = 125;
inline constexpr int exit_job_failed = 1;  // a rank broke the job but exited 0
inline constexpr int grace_ms = 2000;       // SIGTERM → SIGKILL

// The oom_kill count of mpiexec's cgroup (memory.events), -1 if unknown.
long job_oom_kills();

struct rank_proc {
    int rank = 0;
    pid_t pid = -1;
    unique_fd pmi;  // mpiexec's end of the socketpair
    int conn = -1;  // index in the PMI server
    unique_fd out, err;
    line_tagger tag_out, tag_err;
    bool exited = false;
    bool counted = false;  // its code is part of the job result (see rank_ended)
    int code = 0;          // exit status, or 128+signal
    int signal = 0;        // killing signal, 0 if it exited
    bool core = false;
    bool abort_reported = false, broken_reported = false;
};

class job {
  public:
    explicit job(const options& opt);
    ~job();
    job(const job&) = delete;
    job& operator=(const job&) = delete;

    // Starts the ranks, runs until all have ended, cleans up; returns
    // mpiexec's exit code.
    int run();

  private:
    // job.cpp: setup and the loop
    bool setup();
    bool start_rank(int r);
    std::vector<std::string> rank_env(int r, int pmi_fd) const;
    void loop();
    int next_timeout_ms() const;
    void on_signal();
    void on_pmi(rank_proc& p, short revents);
    void on_pipe(rank_proc& p, unique_fd& fd, line_tagger& tag);
    void check_children();
    void check_pmi_events();
    // job_end.cpp: classification, killing, the end
    void rank_ended(rank_proc& p, int how, int status);
    // Records a reason for ending the job; the first one gets the banner
    // and starts the kill (SIGTERM, SIGKILL after the grace period).
    // `culprit`: the rank that broke the job, if one did (it is not counted
    // among the ranks mpiexec ends).
    void fail(const std::string& what, bool quiet = false, const rank_proc* culprit = nullptr);
    // ", killed by the kernel's out-of-memory killer" when our cgroup's
    // oom_kill count rose since the job started (memory.events), else "".
    std::string oom_note() const;
    void kill_all(int sig);
    void on_deadlines();
    void finish();
    void drain_pipes(int budget_ms);
    void remove_shm_segments() const;
    int exit_code() const;
    bool running_others(const rank_proc& p) const;
    void log(const char* fmt, ...) const __attribute__((format(printf, 2, 3)));

    const options& opt_;
    std::vector<rank_proc> ranks_;
    std::unique_ptr<pmi_server> server_;
    std::string program_;
    uint64_t job_key_ = 0;
    std::string job_key_hex_;
    unique_fd sigfd_, devnull_;
    sigset_t old_mask_{};
    bool restore_mask_ = false;
    std::vector<cpu_set_t> cores_;
    int64_t start_ms_ = 0;
    int64_t maxtime_deadline_ = -1;  // monotonic ms, -1: none
    int64_t kill_deadline_ = -1;     // SIGKILL after the grace period
    int aborts_seen_ = 0;
    long oom_kills_at_start_ = -1;  // memory.events oom_kill, -1: unknown
    // How the job is ending, first cause wins.
    bool killing_ = false;
    bool timed_out_ = false;
    bool failed_ = false;
    int abort_code_ = -1;
    int fatal_signal_ = 0;   // a signal to mpiexec that ended the job
    int interrupts_ = 0;     // SIGINTs received
    int launch_error_ = 0;   // exit code when the job could not start
};

}  // namespace ch4lite::launch
