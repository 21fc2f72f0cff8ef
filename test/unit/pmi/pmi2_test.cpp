// SPDX-License-Identifier: MIT
// PMI-2: the wire codec, base64, the client against a small PMI-2 server on
// a thread (what Slurm's mpi/pmi2 plugin answers), and the bootstrap picking
// PMI-2 from the environment.
#include <gtest/gtest.h>

#include <map>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "device/bootstrap.hpp"
#include "device/pmi2_client.hpp"
#include "util/pmi2_wire.hpp"

using namespace ch4lite;

TEST(Pmi2Wire, HeaderPaddedEitherWay) {
    EXPECT_EQ(util::pmi2_body_length("    12"), 12);  // Hydra: %6u
    EXPECT_EQ(util::pmi2_body_length("12    "), 12);  // Slurm: %-6d
    EXPECT_EQ(util::pmi2_body_length("000012"), 12);
    EXPECT_EQ(util::pmi2_body_length("      "), -1);
    EXPECT_EQ(util::pmi2_body_length("1 2   "), -1);
    EXPECT_EQ(util::pmi2_body_length("12x   "), -1);
    EXPECT_EQ(util::pmi2_body_length("999999"), -1);  // beyond pmi2_max_body
    EXPECT_EQ(util::pmi2_body_length("12"), -1);
}

TEST(Pmi2Wire, ParsesCommandsAndPairs) {
    util::pmi2_msg m;
    ASSERT_EQ(util::pmi2_parse("cmd=kvs-get-response;rc=0;found=TRUE;value=a,b(c) d;", m), status::ok);
    EXPECT_EQ(m.cmd(), "kvs-get-response");
    ASSERT_EQ(m.size(), 3u);
    long rc = -1;
    bool f = false;
    EXPECT_TRUE(m.get_int("rc", rc));
    EXPECT_EQ(rc, 0);
    EXPECT_TRUE(m.get_bool("found", f));
    EXPECT_TRUE(f);
    ASSERT_NE(m.find("value"), nullptr);
    EXPECT_EQ(*m.find("value"), "a,b(c) d");
    EXPECT_EQ(m.find("nothing"), nullptr);
    // An empty value and a missing final ';'.
    ASSERT_EQ(util::pmi2_parse("cmd=x;value=;found=false", m), status::ok);
    EXPECT_EQ(*m.find("value"), "");
    EXPECT_TRUE(m.get_bool("found", f));
    EXPECT_FALSE(f);
    std::string why;
    EXPECT_EQ(util::pmi2_parse("kvs-put;key=a;", m, &why), status::invalid);
    EXPECT_EQ(util::pmi2_parse("cmd=;", m, &why), status::invalid);
    EXPECT_EQ(util::pmi2_parse("cmd=a;=v;", m, &why), status::invalid);
    EXPECT_EQ(util::pmi2_parse("cmd=a;key;", m, &why), status::invalid);
    EXPECT_EQ(util::pmi2_parse(std::string("cmd=a;k=\x01;"), m, &why), status::invalid);
    EXPECT_FALSE(why.empty());
}

TEST(Pmi2Wire, EncoderFramesAndRejectsSemicolons) {
    std::string out;
    ASSERT_EQ(util::pmi2_cmd("kvs-put").add("key", "k1").add("value", "v+/").finish(out), status::ok);
    EXPECT_EQ(out, "    29cmd=kvs-put;key=k1;value=v+/;");
    util::pmi2_msg m;
    ASSERT_EQ(util::pmi2_parse(out.substr(6), m), status::ok);
    EXPECT_EQ(*m.find("value"), "v+/");
    std::string why;
    EXPECT_EQ(util::pmi2_cmd("kvs-put").add("value", "a;b").finish(out, &why), status::invalid);
    EXPECT_EQ(util::pmi2_cmd("kvs-put").add("bad key", "a").finish(out, &why), status::invalid);
    EXPECT_EQ(util::pmi2_cmd("bad cmd").finish(out, &why), status::invalid);
    ASSERT_EQ(util::pmi2_cmd("abort").add_bool("isworld", true).add("exitcode", 3L).finish(out), status::ok);
    EXPECT_NE(out.find("isworld=TRUE;exitcode=3;"), std::string::npos);
}

TEST(Base64, RoundTripsEveryLength) {
    std::vector<std::byte> in, out;
    for (std::size_t n = 0; n < 70; ++n) {
        in.resize(n);
        for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::byte>((i * 89 + n) & 0xff);
        const std::string t = util::b64_encode(in.data(), in.size());
        EXPECT_EQ(t.size(), (n * 4 + 2) / 3);
        EXPECT_EQ(t.find_first_of("= ;"), std::string::npos);
        ASSERT_TRUE(util::b64_decode(t, out)) << n;
        EXPECT_EQ(out, in);
    }
    EXPECT_EQ(util::b64_encode("Man", 3), "TWFu");
    EXPECT_EQ(util::b64_encode("Ma", 2), "TWE");
}

TEST(Base64, RejectsGarbage) {
    std::vector<std::byte> out;
    EXPECT_FALSE(util::b64_decode("TWF=", out));
    EXPECT_FALSE(util::b64_decode("T", out));      // impossible length
    EXPECT_FALSE(util::b64_decode("TWF u", out));
    EXPECT_FALSE(util::b64_decode("TWF", out));    // non-zero leftover bits
}

namespace {

// What Slurm's slurmstepd answers on a task's PMI_FD (src/plugins/mpi/pmi2):
// fullinit with pmijobid/pmirank/threaded, "%-6d" headers, appnum -1, a
// kvs-fence that answers every task at once when the last one fenced. One
// thread serves all tasks of the job; `puts_before_fence` records how many
// kvs-puts each task sent before each fence.
class fake_pmi2_server {
  public:
    fake_pmi2_server(int size, std::string mapping) : size_(size), mapping_(std::move(mapping)) {}
    ~fake_pmi2_server() {
        if (thread_.joinable()) thread_.join();
        for (int fd : fds_) ::close(fd);
    }
    int add_task() {
        int sv[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
        fds_.push_back(sv[0]);
        in_.emplace_back();
        return sv[1];
    }
    // Pre-published values, as if other tasks had put them.
    std::map<std::string, std::string> kvs;
    std::vector<std::string> log;  // "<task>:<cmd>"
    void start() {
        thread_ = std::thread([this] { run(); });
    }
    void join() { thread_.join(); }

  private:
    void reply(int t, const std::string& body) {
        char head[8];
        std::snprintf(head, sizeof head, "%-6zu", body.size());
        const std::string msg = std::string(head, 6) + body;
        if (::write(fds_[t], msg.data(), msg.size()) != static_cast<ssize_t>(msg.size())) failed_ = true;
    }
    // Handles every complete message of task t; false once it finalized or left.
    bool serve(int t) {
        std::string& b = in_[t];
        while (true) {
            if (!inited_[t]) {
                const std::size_t nl = b.find('\n');
                if (nl == std::string::npos) return true;
                const std::string line = b.substr(0, nl);
                b.erase(0, nl + 1);
                log.push_back(std::to_string(t) + ":" + line);
                const std::string r = line == "cmd=init pmi_version=2 pmi_subversion=0"
                                          ? "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n"
                                          : "cmd=response_to_init rc=-1\n";
                if (::write(fds_[t], r.data(), r.size()) < 0) failed_ = true;
                inited_[t] = true;
                continue;
            }
            if (b.size() < 6) return true;
            const long len = util::pmi2_body_length(b.substr(0, 6));
            if (len < 0) return false;
            if (b.size() < 6 + static_cast<std::size_t>(len)) return true;
            util::pmi2_msg m;
            if (failed(util::pmi2_parse(b.substr(6, static_cast<std::size_t>(len)), m))) return false;
            b.erase(0, 6 + static_cast<std::size_t>(len));
            const std::string cmd(m.cmd());
            log.push_back(std::to_string(t) + ":" + cmd);
            auto val = [&](const char* k) { return m.find(k) ? std::string(*m.find(k)) : std::string(); };
            if (cmd == "fullinit") {
                // Slurm also wants pmijobid, from PMI_JOBID, which it always sets.
                if (!m.find("pmirank") || !m.find("threaded")) return false;
                reply(t, "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=" + val("pmirank") +
                             ";size=" + std::to_string(size_) + ";appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
            } else if (cmd == "kvs-put") {
                kvs[val("key")] = val("value");
                reply(t, "cmd=kvs-put-response;rc=0;");
            } else if (cmd == "kvs-get") {
                auto it = kvs.find(val("key"));
                reply(t, it == kvs.end() ? "cmd=kvs-get-response;rc=0;found=FALSE;"
                                         : "cmd=kvs-get-response;rc=0;found=TRUE;value=" + it->second + ";");
            } else if (cmd == "info-getjobattr") {
                reply(t, val("key") == "PMI_process_mapping" && !mapping_.empty()
                             ? "cmd=info-getjobattr-response;rc=0;found=TRUE;value=" + mapping_ + ";"
                             : "cmd=info-getjobattr-response;rc=0;found=FALSE;");
            } else if (cmd == "kvs-fence") {
                if (++fenced_ == static_cast<int>(fds_.size())) {
                    fenced_ = 0;
                    for (int i = 0; i < static_cast<int>(fds_.size()); ++i) reply(i, "cmd=kvs-fence-response;rc=0;");
                }
            } else if (cmd == "finalize") {
                reply(t, "cmd=finalize-response;rc=0;");
                return false;
            } else if (cmd == "abort") {
                return false;
            } else {
                return false;
            }
        }
    }
    void run() {
        inited_.assign(fds_.size(), false);
        std::vector<bool> open(fds_.size(), true);
        int left = static_cast<int>(fds_.size());
        while (left > 0) {
            std::vector<pollfd> p;
            for (int fd : fds_) p.push_back({fd, POLLIN, 0});
            if (::poll(p.data(), p.size(), 10000) <= 0) return;
            for (std::size_t i = 0; i < p.size(); ++i) {
                if (!open[i] || !(p[i].revents & (POLLIN | POLLHUP))) continue;
                char buf[4096];
                const ssize_t n = ::read(fds_[i], buf, sizeof buf);
                if (n > 0) in_[i].append(buf, static_cast<std::size_t>(n));
                if (n <= 0 || !serve(static_cast<int>(i))) {
                    ::shutdown(fds_[i], SHUT_RDWR);  // the task sees EOF
                    open[i] = false;
                    --left;
                }
            }
        }
    }
    int size_;
    std::string mapping_;
    std::vector<int> fds_;
    std::vector<std::string> in_;
    std::vector<bool> inited_;
    int fenced_ = 0;
    bool failed_ = false;
    std::thread thread_;
};

}  // namespace

TEST(Pmi2Client, TwoTasksPutFenceGetFinalize) {
    fake_pmi2_server srv(2, "(vector,(0,1,2))");
    const int fd0 = srv.add_task(), fd1 = srv.add_task();
    srv.start();
    std::string e0, e1;
    std::thread t1([&] {
        auto c = dev::pmi2_client::from_fd(fd1);
        if (failed(c->init(1, "77.0", e1))) return;
        if (failed(c->put("k1", "one", e1)) || failed(c->fence(e1))) return;
        std::string v;
        bool found = false;
        if (failed(c->get("k0", v, found, e1))) return;
        if (!found || v != "zero") e1 = "k0 read as '" + v + "'";
        (void)c->finalize(e1);
    });
    auto c = dev::pmi2_client::from_fd(fd0);
    ASSERT_EQ(c->init(0, "77.0", e0), status::ok) << e0;
    EXPECT_EQ(c->rank(), 0);
    EXPECT_EQ(c->size(), 2);
    EXPECT_EQ(c->appnum(), 0);  // Slurm's -1 means "not tracked"
    ASSERT_EQ(c->put("k0", "zero", e0), status::ok) << e0;
    ASSERT_EQ(c->fence(e0), status::ok) << e0;
    std::string v;
    bool found = false;
    ASSERT_EQ(c->get("k1", v, found, e0), status::ok) << e0;
    EXPECT_TRUE(found);
    EXPECT_EQ(v, "one");
    ASSERT_EQ(c->get("nokey", v, found, e0), status::ok) << e0;
    EXPECT_FALSE(found);
    ASSERT_EQ(c->job_attr("PMI_process_mapping", v, found, e0), status::ok) << e0;
    EXPECT_TRUE(found);
    EXPECT_EQ(v, "(vector,(0,1,2))");
    EXPECT_EQ(c->finalize(e0), status::ok) << e0;
    t1.join();
    EXPECT_EQ(e1, "");
    srv.join();
}

TEST(Pmi2Client, RefusesAPmi1OnlyServer) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    std::thread srv([&] {
        char buf[256];
        if (::read(sv[0], buf, sizeof buf) > 0) {
            const char r[] = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n";
            if (::write(sv[0], r, sizeof r - 1) < 0) return;
        }
    });
    auto c = dev::pmi2_client::from_fd(sv[1]);
    std::string e;
    EXPECT_EQ(c->init(0, nullptr, e), status::unsupported);
    EXPECT_NE(e.find("PMI-2"), std::string::npos) << e;
    srv.join();
    ::close(sv[0]);
}

TEST(Pmi2Client, NoticesLauncherDeath) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    ::close(sv[0]);
    auto c = dev::pmi2_client::from_fd(sv[1]);
    std::string e;
    EXPECT_EQ(c->init(0, nullptr, e), status::proc_failed);
}

namespace {
const char* pmi_vars[] = {"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_JOBID",
                          "CH4LITE_PMI", "PMIX_RANK", "PMIX_NAMESPACE", "SLURM_JOB_ID",
                          "CH4LITE_JOB_KEY"};
void clear_env() {
    for (const char* v : pmi_vars) ::unsetenv(v);
}
}  // namespace

// Rank 0 under test; rank 1's values are pre-published in the fake server
// by a second bootstrap in the same format (its blob is read back).
TEST(Pmi2Bootstrap, PicksPmi2FromPmiJobidAndExchangesBlobs) {
    clear_env();
    fake_pmi2_server srv(1, "(vector,(0,1,1))");
    const int fd = srv.add_task();
    srv.start();
    ::setenv("PMI_FD", std::to_string(fd).c_str(), 1);
    ::setenv("PMI_RANK", "0", 1);
    ::setenv("PMI_SIZE", "1", 1);
    ::setenv("PMI_JOBID", "77.0", 1);
    ::setenv("SLURM_JOB_ID", "77", 1);
    {
        dev::bootstrap b;
        std::string e;
        ASSERT_EQ(b.init(e), status::ok) << e;
        EXPECT_EQ(b.pmi_kind(), dev::bootstrap::kind::pmi2);
        EXPECT_STREQ(b.pmi(), "PMI-2");
        EXPECT_STREQ(b.launcher(), "slurm");
        EXPECT_EQ(b.fd(), fd);
        std::vector<std::byte> big(3000), small{std::byte{9}}, out;
        for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::byte>(i * 7);
        ASSERT_EQ(b.put("big", big.data(), big.size()), status::ok);
        ASSERT_EQ(b.put("small", small.data(), 1), status::ok);
        ASSERT_EQ(b.fence(), status::ok);
        ASSERT_EQ(b.get(0, "big", out), status::ok);
        EXPECT_EQ(out, big);
        EXPECT_EQ(b.barrier(), status::ok);
        EXPECT_EQ(b.finalize(), status::ok);
    }
    srv.join();
    // Both values went out at the fence, as one blob over several keys
    // (3025 bytes are 4034 base64 characters; under 1000 per key).
    EXPECT_EQ(srv.kvs.count("c4-1-0"), 1u);
    EXPECT_EQ(srv.kvs.count("c4-1-0-4"), 1u);
    EXPECT_EQ(srv.kvs.count("c4-1-0-5"), 0u);
    EXPECT_EQ(srv.kvs["c4-1-0"].substr(0, 2), "5:");
    // Under Slurm a fence is a barrier: no extra get after it.
    int gets = 0;
    for (const auto& l : srv.log) gets += l == "0:kvs-get";
    EXPECT_EQ(gets, 0);
    clear_env();
}

TEST(Pmi2Bootstrap, NodeMapFromTheJobAttribute) {
    clear_env();
    fake_pmi2_server srv(3, "(vector,(0,2,1),(2,1,1))");
    const int fd = srv.add_task();
    srv.start();
    ::setenv("PMI_FD", std::to_string(fd).c_str(), 1);
    ::setenv("PMI_RANK", "1", 1);
    ::setenv("CH4LITE_PMI", "pmi2", 1);  // no PMI_JOBID: chosen by name
    {
        dev::bootstrap b;
        std::string e;
        ASSERT_EQ(b.init(e), status::ok) << e;
        EXPECT_EQ(b.rank(), 1);
        EXPECT_EQ(b.size(), 3);
        EXPECT_EQ(b.node_of(), (std::vector<int>{0, 1, 2}));
        EXPECT_EQ(b.num_nodes(), 3);
        EXPECT_EQ(b.finalize(), status::ok);
    }
    srv.join();
    clear_env();
}
