// SPDX-License-Identifier: MIT
// Setting up a job and its event loop; how it ends is in job_end.cpp.
#include "job.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding.hpp"
#include "spawn.hpp"

extern char** environ;

namespace ch4lite::launch {

namespace {

int64_t now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

uint64_t random_key() {
    uint64_t v = 0;
    if (::getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v))
        v = static_cast<uint64_t>(now_ms()) * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(::getpid());
    return v;
}

bool sig_ignored(int sig) {
    struct sigaction sa {};
    return ::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

}  // namespace

job::job(const options& opt) : opt_(opt) {}

job::~job() {
    if (restore_mask_) ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

void job::log(const char* fmt, ...) const {
    if (!opt_.verbose) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "mpiexec: %s\n", buf);
}

int job::run() {
    if (!setup()) return launch_error_ ? launch_error_ : exit_launcher_error;
    for (int r = 0; r < opt_.np; ++r) {
        if (!start_rank(r)) {
            launch_error_ = exit_launcher_error;
            fail("cannot start rank " + std::to_string(r) + ": " + std::strerror(errno));
            break;
        }
    }
    loop();
    finish();
    return exit_code();
}

bool job::setup() {
    std::string error;
    int code = 0;
    program_ = resolve_program(opt_.argv[0], error, code);
    if (program_.empty()) {
        std::fprintf(stderr, "mpiexec: %s\n", error.c_str());
        launch_error_ = code;
        return false;
    }
    struct stat st {};
    if (!opt_.wdir.empty() && (::stat(opt_.wdir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
        std::fprintf(stderr, "mpiexec: -wdir %s: not a directory\n", opt_.wdir.c_str());
        return false;
    }
    if (opt_.bind == binding::core) {
        cores_ = allowed_cores(error);
        if (cores_.empty()) {
            std::fprintf(stderr, "mpiexec: -bind-to core: %s\n", error.c_str());
            return false;
        }
    }
    devnull_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    // Several descriptors per rank: raise the soft limit as far as allowed.
    rlimit rl{};
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &rl);
    }

    // Signals arrive through a signalfd so the loop sees them in order with
    // everything else. A shell may have started us with SIGINT ignored
    // (background job): Ctrl-C forwarding needs it, so take it back.
    ::signal(SIGPIPE, SIG_IGN);
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGQUIT}) {
        ::signal(sig, SIG_DFL);
        sigaddset(&set, sig);
    }
    if (!sig_ignored(SIGHUP)) sigaddset(&set, SIGHUP);  // nohup keeps working
    ::sigprocmask(SIG_BLOCK, &set, &old_mask_);
    restore_mask_ = true;
    sigfd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!sigfd_ || !devnull_) {
        std::fprintf(stderr, "mpiexec: setup failed: %s\n", std::strerror(errno));
        return false;
    }

    job_key_ = random_key();
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016" PRIx64, job_key_);
    job_key_hex_ = hex;
    pmi_server_config cfg;
    cfg.size = opt_.np;
    cfg.kvsname = "kvs_" + std::to_string(::getpid()) + "_0";
    cfg.process_mapping = util::make_process_mapping(opt_.np, opt_.ppn ? opt_.ppn : opt_.np);
    cfg.verbose = opt_.verbose;
    log("%d rank(s) of %s, job key %s, process mapping %s", opt_.np, program_.c_str(), hex,
        cfg.process_mapping.c_str());
    server_ = std::make_unique<pmi_server>(std::move(cfg));
    ranks_.resize(static_cast<std::size_t>(opt_.np));
    start_ms_ = now_ms();
    oom_kills_at_start_ = job_oom_kills();
    if (opt_.maxtime > 0) maxtime_deadline_ = start_ms_ + int64_t{opt_.maxtime} * 1000;
    return true;
}

std::vector<std::string> job::rank_env(int r, int pmi_fd) const {
    std::vector<std::string> env = merge_env(environ, opt_.env);
    const int ppn = opt_.ppn ? opt_.ppn : opt_.np;
    const int node = r / ppn;
    const int local_n = std::min(ppn, opt_.np - node * ppn);
    env.push_back("PMI_FD=" + std::to_string(pmi_fd));
    env.push_back("PMI_RANK=" + std::to_string(r));
    env.push_back("PMI_SIZE=" + std::to_string(opt_.np));
    env.push_back("MPI_LOCALNRANKS=" + std::to_string(local_n));
    env.push_back("MPI_LOCALRANKID=" + std::to_string(r % ppn));
    // Every rank runs on this host, whatever -ppn says about nodes: the
    // library counts them all against the cores (idle waits yield).
    env.push_back("CH4LITE_HOST_RANKS=" + std::to_string(opt_.np));
    env.push_back("CH4LITE_JOB_KEY=" + job_key_hex_);
    if (opt_.verbose) env.push_back("CH4LITE_VERBOSE=1");
    return env;
}

bool job::start_rank(int r) {
    rank_proc& p = ranks_[static_cast<std::size_t>(r)];
    p.rank = r;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return false;
    p.pmi.reset(sv[0]);
    unique_fd child_pmi(sv[1]), child_out, child_err;
    if (opt_.tag_output) {
        int po[2], pe[2];
        if (::pipe2(po, O_CLOEXEC) != 0) return false;
        p.out.reset(po[0]);
        child_out.reset(po[1]);
        if (::pipe2(pe, O_CLOEXEC) != 0) return false;
        p.err.reset(pe[0]);
        child_err.reset(pe[1]);
        p.tag_out = line_tagger(r, 1);
        p.tag_err = line_tagger(r, 2);
    }
    std::vector<std::string> env = rank_env(r, child_pmi.get());
    std::vector<char*> envp, argv;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = opt_.argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    rank_spec spec;
    spec.path = program_.c_str();
    spec.argv = argv.data();
    spec.envp = envp.data();
    spec.pmi_fd = child_pmi.get();
    // Like Hydra, stdin goes to rank 0 -- unless it is a terminal: rank 0 is
    // not in the terminal's foreground process group, so reading it would
    // stop the rank with SIGTTIN.
    spec.stdin_fd = r == 0 && !::isatty(0) ? -1 : devnull_.get();
    spec.stdout_fd = child_out.get();
    spec.stderr_fd = child_err.get();
    spec.wdir = opt_.wdir.empty() ? nullptr : opt_.wdir.c_str();
    spec.cpus = cores_.empty() ? nullptr : &cores_[static_cast<std::size_t>(r) % cores_.size()];
    spec.sigmask = &old_mask_;
    p.pid = spawn_rank(spec);
    if (p.pid < 0) return false;
    p.conn = server_->attach(p.pmi.get(), r);
    if (spec.cpus)
        log("rank %d: pid %d, bound to cpu %s", r, static_cast<int>(p.pid), cpu_list(*spec.cpus).c_str());
    else
        log("rank %d: pid %d", r, static_cast<int>(p.pid));
    return true;
}

int job::next_timeout_ms() const {
    int64_t t = -1;
    if (maxtime_deadline_ >= 0 && !killing_) t = maxtime_deadline_;
    if (kill_deadline_ >= 0 && (t < 0 || kill_deadline_ < t)) t = kill_deadline_;
    if (t < 0) return -1;
    return static_cast<int>(std::clamp<int64_t>(t - now_ms(), 0, 60000));
}

void job::loop() {
    enum kind { k_sig, k_pmi, k_out, k_err };
    std::vector<pollfd> fds;
    std::vector<std::pair<kind, rank_proc*>> who;
    auto all_exited = [&] {
        return std::all_of(ranks_.begin(), ranks_.end(), [](const rank_proc& p) { return p.pid < 0 || p.exited; });
    };
    while (!all_exited()) {
        fds.clear();
        who.clear();
        fds.push_back({sigfd_.get(), POLLIN, 0});
        who.emplace_back(k_sig, nullptr);
        for (rank_proc& p : ranks_) {
            if (p.pid < 0) continue;
            const pmi_conn& c = server_->conn(p.conn);
            if (!c.eof && !c.broken) {
                fds.push_back({p.pmi.get(), static_cast<short>(POLLIN | (server_->wants_write(p.conn) ? POLLOUT : 0)), 0});
                who.emplace_back(k_pmi, &p);
            }
            if (p.out) {
                fds.push_back({p.out.get(), POLLIN, 0});
                who.emplace_back(k_out, &p);
            }
            if (p.err) {
                fds.push_back({p.err.get(), POLLIN, 0});
                who.emplace_back(k_err, &p);
            }
        }
        const int n = ::poll(fds.data(), fds.size(), next_timeout_ms());
        if (n < 0 && errno != EINTR) {
            std::fprintf(stderr, "mpiexec: poll: %s\n", std::strerror(errno));
            kill_all(SIGKILL);
            launch_error_ = exit_launcher_error;
        }
        for (std::size_t i = 0; n > 0 && i < fds.size(); ++i) {
            if (!fds[i].revents) continue;
            auto [k, p] = who[i];
            switch (k) {
                case k_sig: on_signal(); break;
                case k_pmi: on_pmi(*p, fds[i].revents); break;
                case k_out: on_pipe(*p, p->out, p->tag_out); break;
                case k_err: on_pipe(*p, p->err, p->tag_err); break;
            }
        }
        check_pmi_events();
        on_deadlines();
    }
}

void job::on_pmi(rank_proc& p, short revents) {
    if (revents & (POLLIN | POLLHUP | POLLERR)) server_->on_readable(p.conn);
    if (revents & POLLOUT) server_->on_writable(p.conn);
}

void job::on_pipe(rank_proc& p, unique_fd& fd, line_tagger& tag) {
    char buf[16384];
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        tag.finish();
        fd.reset();
        return;
    }
    tag.feed(buf, static_cast<std::size_t>(n));
}

void job::on_signal() {
    signalfd_siginfo si;
    while (::read(sigfd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        const int sig = static_cast<int>(si.ssi_signo);
        if (sig == SIGCHLD) {
            check_children();
        } else if (sig == SIGINT && ++interrupts_ == 1 && !killing_) {
            std::fprintf(stderr, "mpiexec: SIGINT forwarded to all ranks; "
                                 "press Ctrl-C again to kill the job\n");
            for (const rank_proc& p : ranks_)
                if (p.pid > 0 && !p.exited) ::kill(-p.pid, SIGINT);
        } else {
            if (!fatal_signal_) fatal_signal_ = sig;
            std::fprintf(stderr, "mpiexec: got %s: killing the job\n", sigabbrev_np(sig));
            const bool again = killing_;
            fail("mpiexec received SIG" + std::string(sigabbrev_np(sig)), true);
            // A second Ctrl-C, or any signal while already killing: no grace.
            if (sig == SIGINT || again) {
                kill_all(SIGKILL);
                kill_deadline_ = -1;
            }
        }
    }
}

void job::check_children() {
    for (rank_proc& p : ranks_) {
        if (p.pid < 0 || p.exited) continue;
        siginfo_t si{};
        if (::waitid(P_PID, static_cast<id_t>(p.pid), &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            si.si_pid != p.pid)
            continue;
        // Whatever the rank said before it died (finalize, abort) is in the
        // socket: hear it before judging the exit.
        for (int k = 0; k < 64 && !server_->conn(p.conn).eof && !server_->conn(p.conn).broken; ++k)
            server_->on_readable(p.conn);
        check_pmi_events();
        rank_ended(p, si.si_code, si.si_status);
    }
}

void job::check_pmi_events() {
    const bool new_abort = server_->aborts() != aborts_seen_;
    aborts_seen_ = server_->aborts();
    for (rank_proc& p : ranks_) {
        if (p.pid < 0) continue;
        const pmi_conn& c = server_->conn(p.conn);
        if (new_abort && c.aborted && !p.abort_reported) {
            p.abort_reported = true;
            if (!killing_) abort_code_ = c.abort_code;
            fail("rank " + std::to_string(p.rank) + " (pid " + std::to_string(p.pid) +
                     ") called abort with exit code " + std::to_string(c.abort_code) +
                     (c.abort_message.empty() ? std::string() : ": " + c.abort_message),
                 false, &p);
        }
        if (c.broken && !p.broken_reported) {
            p.broken_reported = true;
            fail("rank " + std::to_string(p.rank) + " (pid " + std::to_string(p.pid) + ") " + c.why, false, &p);
        }
    }
}

}  // namespace ch4lite::launch
