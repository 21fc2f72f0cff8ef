// SPDX-License-Identifier: MIT
// A non-MPI rank for the launcher tests: uses dev::bootstrap (PMIx, PMI-2, PMI-1)
// directly, so mpiexec and Hydra can be tested before libmpi exists.
//
//   pmi_prog kvs                 put/fence/get of per-rank binary values
//   pmi_prog exchange            one address per rank; print the round trips
//   pmi_prog mapping             print the node map and local rank info
//   pmi_prog exit R CODE         rank R exits CODE after init, others wait
//   pmi_prog exitall             after a barrier, rank r exits 2*r (SIGTERM blocked)
//   pmi_prog crash R             rank R raises SIGSEGV, others wait
//   pmi_prog abort R CODE        rank R calls bootstrap::abort(CODE)
//   pmi_prog nofinalize R        rank R exits 0 without finalize, others wait
//   pmi_prog hang                init, then wait for ever
//   pmi_prog sigint              count SIGINTs in files, wait for ever
//   pmi_prog watch               no parent-death signal; exit on PMI EOF
//   pmi_prog env K...            print K=value for each K, and the cwd
//   pmi_prog affinity            print the CPU affinity list
//   pmi_prog print N             N stdout lines, one stderr line, a partial line
//   pmi_prog stdin               print the first line read from stdin
//   pmi_prog shm                 rank 0 creates a /dev/shm file named after the job key, then crashes
//   pmi_prog garbage             send malformed PMI lines first, then run kvs
//   pmi_prog flood               send endless malformed PMI lines
// Every rank writes its pid to $LAUNCH_TEST_DIR/pid.<rank> (when set) and,
// once ready, $LAUNCH_TEST_DIR/ready.<rank>.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "device/bootstrap.hpp"

using namespace ch4lite;

namespace {

int g_rank = -1;

void mark(const char* what, int rank) {
    const char* dir = std::getenv("LAUNCH_TEST_DIR");
    if (!dir) return;
    const std::string path = std::string(dir) + "/" + what + "." + std::to_string(rank);
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return;
    std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
    std::fclose(f);
}

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "pmi_prog[%d]: %s\n", g_rank, what);
    std::exit(2);
}

[[noreturn]] void wait_forever() {
    for (;;) ::pause();
}

void on_sigint(int) {
    const char* dir = std::getenv("LAUNCH_TEST_DIR");
    if (!dir) return;
    char path[512];
    std::snprintf(path, sizeof path, "%s/sigint.%d", dir, g_rank);
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) ::close(fd);
}

std::vector<std::byte> pattern(int rank) {
    std::vector<std::byte> v(static_cast<std::size_t>(rank + 1) * 1500 + 1);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::byte>((i * 7 + rank * 31) & 0xff);
    return v;
}

// Two fences: values of several sizes (some longer than one PMI key holds),
// a value replaced, one published by even ranks only, and names never put.
void kvs(dev::bootstrap& b) {
    const auto mine = pattern(b.rank());
    const std::vector<std::byte> tiny{std::byte{static_cast<unsigned char>(b.rank())}};
    if (failed(b.put("val", mine.data(), mine.size())) || failed(b.put("tiny", tiny.data(), 1)))
        die("put failed");
    if (b.rank() % 2 == 0 && failed(b.put("even", mine.data(), 7))) die("put failed");
    if (failed(b.fence())) die("fence failed");
    for (int r = 0; r < b.size(); ++r) {
        std::vector<std::byte> v;
        if (failed(b.get(r, "val", v))) die("get failed");
        if (v != pattern(r)) die("wrong value");
        if (failed(b.get(r, "tiny", v)) || v.size() != 1 || v[0] != std::byte{static_cast<unsigned char>(r)})
            die("wrong tiny value");
        const status e = b.get(r, "even", v);
        if ((r % 2 == 0) != (e == status::ok)) die("wrong presence of 'even'");
        if (b.get(r, "never", v) == status::ok) die("found a value never put");
    }
    const std::vector<std::byte> two{std::byte{2}, std::byte{static_cast<unsigned char>(b.rank())}};
    if (failed(b.put("tiny", two.data(), 2)) || failed(b.fence())) die("second fence failed");
    for (int r = 0; r < b.size(); ++r) {
        std::vector<std::byte> v;
        if (failed(b.get(r, "tiny", v)) || v.size() != 2 || v[1] != std::byte{static_cast<unsigned char>(r)})
            die("value not replaced");
        if (failed(b.get(r, "val", v)) || v != pattern(r)) die("value lost at the second fence");
    }
    if (failed(b.barrier())) die("barrier failed");
    std::printf("rank %d of %d ok launcher=%s pmi=%s nodes=%d\n", b.rank(), b.size(), b.launcher(),
                b.pmi(), b.num_nodes());
}

// What MPI_Init exchanges (one address per rank, read from every rank),
// then the number of round trips to the launcher this rank made.
void exchange(dev::bootstrap& b) {
    std::byte addr[24];
    for (std::size_t i = 0; i < sizeof addr; ++i) addr[i] = static_cast<std::byte>(b.rank() + i);
    if (failed(b.put("addr", addr, sizeof addr)) || failed(b.fence())) die("put/fence failed");
    for (int r = 0; r < b.size(); ++r) {
        std::vector<std::byte> v;
        if (failed(b.get(r, "addr", v)) || v.size() != sizeof addr || v[0] != std::byte(r)) die("get failed");
    }
    const auto& s = b.stats();
    std::printf("rank %d of %d pmi=%s puts=%llu fences=%llu gets=%llu trips=%llu\n", b.rank(), b.size(),
                b.pmi(), static_cast<unsigned long long>(s.puts), static_cast<unsigned long long>(s.fences),
                static_cast<unsigned long long>(s.gets), static_cast<unsigned long long>(s.round_trips));
}

// Raw protocol abuse on the PMI socket; the replies are read and ignored.
void send_garbage(int fd, int lines) {
    for (int i = 0; i < lines; ++i) {
        const char junk[] = "this is not PMI\n";
        if (::send(fd, junk, sizeof junk - 1, MSG_NOSIGNAL) < 0) return;
        char buf[256];
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 5000) == 1 && ::read(fd, buf, sizeof buf) <= 0) return;
    }
}

// The descriptors open at start, "0 1 2 5" (the listing's own left out).
std::string open_fds() {
    std::vector<int> fds;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        const int self = ::dirfd(d);
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.' && std::atoi(e->d_name) != self) fds.push_back(std::atoi(e->d_name));
        ::closedir(d);
    }
    std::sort(fds.begin(), fds.end());
    std::string s;
    for (int fd : fds) s += (s.empty() ? "" : " ") + std::to_string(fd);
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) die("usage: pmi_prog MODE [args]");
    const std::string mode = argv[1];
    auto arg = [&](int i) { return i < argc ? std::atoi(argv[i]) : 0; };
    const std::string fds_at_start = mode == "fds" ? open_fds() : std::string();
    if (mode == "sigint") std::signal(SIGINT, on_sigint);
    if (mode == "watch") ::prctl(PR_SET_PDEATHSIG, 0);
    const char* pr = std::getenv("PMI_RANK");
    mark("pid", pr ? std::atoi(pr) : 0);

    dev::bootstrap b;
    std::string error;
    if (mode == "garbage" || mode == "flood") {
        const char* fd = std::getenv("PMI_FD");
        if (fd) send_garbage(std::atoi(fd), mode == "flood" ? 1000 : 3);
    }
    if (failed(b.init(error))) {
        std::fprintf(stderr, "pmi_prog: bootstrap init failed: %s\n", error.c_str());
        return 3;
    }
    g_rank = b.rank();
    const int me = b.rank();
    setvbuf(stdout, nullptr, _IOLBF, 0);

    if (mode == "kvs" || mode == "garbage") {
        kvs(b);
    } else if (mode == "exchange") {
        exchange(b);
    } else if (mode == "mapping") {
        std::string nodes;
        for (int n : b.node_of()) nodes += (nodes.empty() ? "" : ",") + std::to_string(n);
        std::printf("rank %d nodes=%s num=%d local=%s/%s\n", me, nodes.c_str(), b.num_nodes(),
                    std::getenv("MPI_LOCALRANKID") ? std::getenv("MPI_LOCALRANKID") : "?",
                    std::getenv("MPI_LOCALNRANKS") ? std::getenv("MPI_LOCALNRANKS") : "?");
    } else if (mode == "exit" || mode == "crash" || mode == "abort" || mode == "nofinalize" ||
               mode == "shm") {
        mark("ready", me);
        const int target = mode == "shm" ? 0 : arg(2);
        if (me == target) {
            if (mode == "exit") std::exit(arg(3));
            if (mode == "crash") std::raise(SIGSEGV);
            if (mode == "abort") b.abort(arg(3), ("test abort from rank " + std::to_string(me)).c_str());
            if (mode == "nofinalize") std::exit(0);
            if (mode == "shm") {
                const std::string name = "/dev/shm/ch4lite-" + std::to_string(::getuid()) + "-" +
                                         std::getenv("CH4LITE_JOB_KEY") + "-test";
                const int fd = ::open(name.c_str(), O_CREAT | O_WRONLY, 0600);
                if (fd < 0) die("cannot create the shm file");
                ::close(fd);
                std::raise(SIGSEGV);
            }
        }
        (void)b.barrier();  // never completes: mpiexec kills us
        wait_forever();
    } else if (mode == "exitall") {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGTERM);
        sigprocmask(SIG_BLOCK, &s, nullptr);
        if (failed(b.barrier()) || failed(b.finalize())) die("barrier failed");
        std::exit(2 * me);
    } else if (mode == "hang" || mode == "sigint") {
        mark("ready", me);
        wait_forever();
    } else if (mode == "watch") {
        mark("ready", me);
        // What the device does: the launcher never writes unasked, so
        // readability means EOF (or an error): the launcher is gone.
        pollfd p{b.fd(), POLLIN, 0};
        while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
        }
        char c;
        if (::recv(b.fd(), &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) mark("eof", me);
        std::_Exit(0);
    } else if (mode == "env") {
        for (int i = 2; i < argc; ++i)
            std::printf("%s=%s\n", argv[i], std::getenv(argv[i]) ? std::getenv(argv[i]) : "(unset)");
        char cwd[4096];
        std::printf("cwd=%s\n", ::getcwd(cwd, sizeof cwd) ? cwd : "?");
    } else if (mode == "fds") {
        const char* pmi = std::getenv("PMI_FD");
        std::printf("rank %d fds=%s pmi_fd=%s\n", me, fds_at_start.c_str(), pmi ? pmi : "-");
    } else if (mode == "affinity") {
        cpu_set_t s;
        if (sched_getaffinity(0, sizeof s, &s) != 0) die("sched_getaffinity");
        std::string list;
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &s)) list += (list.empty() ? "" : ",") + std::to_string(c);
        std::printf("rank %d cpus=%s\n", me, list.c_str());
    } else if (mode == "print") {
        for (int i = 0; i < arg(2); ++i) std::printf("line %d from rank %d\n", i, me);
        std::fprintf(stderr, "err line from rank %d\n", me);
        std::printf("partial from rank %d", me);
        std::fflush(stdout);
    } else if (mode == "stdin") {
        char line[256] = "";
        if (!std::fgets(line, sizeof line, stdin)) line[0] = '\0';
        line[std::strcspn(line, "\n")] = '\0';
        std::printf("rank %d stdin=%s\n", me, line);
    } else if (mode == "flood") {
        // Not reached: the flood breaks the connection and mpiexec kills us.
    } else {
        die("unknown mode");
    }
    if (failed(b.finalize())) die("finalize failed");
    return 0;
}
