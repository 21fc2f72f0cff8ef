// SPDX-License-Identifier: MIT
// The PMI client against mpiexec's PMI server, in one process: well-behaved
// ranks on threads, and raw sockets sending what a broken client would.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "device/pmi_client.hpp"
#include "server_thread.hpp"

using namespace ch4lite;
using dev::pmi_client;

namespace {

launch::pmi_server_config config(int size, std::string mapping = "") {
    launch::pmi_server_config c;
    c.size = size;
    c.kvsname = "kvs_test_0";
    c.process_mapping = std::move(mapping);
    return c;
}

// Sends raw bytes and reads one reply line (5 s at most).
std::string raw_call(int fd, const std::string& bytes) {
    if (!bytes.empty() && ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        return "write failed";
    std::string line;
    char c;
    while (line.empty() || line.back() != '\n') {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 5000) != 1) return "timeout:" + line;
        if (::read(fd, &c, 1) != 1) return "eof:" + line;
        line += c;
    }
    return line;
}

}  // namespace

TEST(PmiClientServer, ThreeRanksPutBarrierGet) {
    constexpr int n = 3;
    test::server_thread srv(config(n, "(vector,(0,1,3))"));
    int fds[n];
    for (int r = 0; r < n; ++r) fds[r] = srv.add_rank(r);
    srv.start();
    std::vector<std::thread> ranks;
    std::vector<std::string> errors(n);
    for (int r = 0; r < n; ++r)
        ranks.emplace_back([&, r] {
            auto c = pmi_client::from_fd(fds[r]);
            std::string& e = errors[r];
            if (failed(c->init(e))) return;
            if (c->kvsname() != "kvs_test_0") e = "kvsname " + c->kvsname();
            if (failed(c->put("k-" + std::to_string(r), "v" + std::to_string(10 * r), e))) return;
            if (failed(c->barrier(e))) return;
            for (int q = 0; q < n; ++q) {
                std::string v;
                bool found = false;
                if (failed(c->get("k-" + std::to_string(q), v, found, e))) return;
                if (!found || v != "v" + std::to_string(10 * q)) e = "bad value for rank " + std::to_string(q);
            }
            std::string v;
            bool found = true;
            if (failed(c->get("PMI_process_mapping", v, found, e))) return;
            if (!found || v != "(vector,(0,1,3))") e = "mapping " + v;
            if (failed(c->get("no-such-key", v, found, e))) return;
            if (found) e = "missing key found";
            if (failed(c->finalize(e))) return;
        });
    for (auto& t : ranks) t.join();
    srv.stop();
    for (int r = 0; r < n; ++r) {
        EXPECT_EQ(errors[r], "") << "rank " << r;
        EXPECT_TRUE(srv.server().conn(r).finalized);
    }
}

TEST(PmiClientServer, MalformedRequestsGetErrorRepliesNotHangs) {
    test::server_thread srv(config(1));
    const int fd = srv.add_rank(0);
    srv.start();
    EXPECT_EQ(raw_call(fd, "hello world\n"), "cmd=error rc=-1 msg=line_does_not_start_with_'cmd_'\n");
    EXPECT_EQ(raw_call(fd, "cmd=frobnicate\n").substr(0, 19), "cmd=error rc=-1 msg");
    EXPECT_EQ(raw_call(fd, "cmd=put key=a key=b\n").substr(0, 15), "cmd=error rc=-1");
    EXPECT_EQ(raw_call(fd, "cmd=put key=a\n"), "cmd=put_result rc=-1 msg=put_needs_key__and_value_\n");
    EXPECT_EQ(raw_call(fd, "cmd=put kvsname=other key=a value=b\n").substr(0, 22), "cmd=put_result rc=-1 m");
    // A PMI-2 client sends no newline and waits: it must still get an answer.
    EXPECT_EQ(raw_call(fd, "    22cmd=fullinit;pmijob").substr(0, 15), "cmd=error rc=-1");
    // The rest of that line is skipped without a second error.
    EXPECT_EQ(raw_call(fd, "id=1;\ncmd=get_appnum\n"), "cmd=appnum appnum=0\n");
    // An overlong line is answered once, then the connection resynchronises.
    EXPECT_EQ(raw_call(fd, "cmd=put value=" + std::string(3000, 'x')).substr(0, 15), "cmd=error rc=-1");
    EXPECT_EQ(raw_call(fd, std::string(500, 'y').append("\ncmd=get_appnum\n")), "cmd=appnum appnum=0\n");
    EXPECT_EQ(raw_call(fd, "cmd=init pmi_version=2 pmi_subversion=0\n").substr(0, 28),
              "cmd=response_to_init rc=-1 m");
    EXPECT_EQ(raw_call(fd, "cmd=init pmi_version=1 pmi_subversion=1\n"),
              "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    EXPECT_EQ(raw_call(fd, "cmd=get_universe_size\n"), "cmd=universe_size size=1\n");
    ::close(fd);
    srv.stop();
    EXPECT_FALSE(srv.server().conn(0).broken);
    EXPECT_TRUE(srv.server().conn(0).eof);
}

TEST(PmiClientServer, TooManyBadRequestsBreakTheConnection) {
    test::server_thread srv(config(1));
    const int fd = srv.add_rank(0);
    srv.start();
    std::string junk;
    for (int i = 0; i < 40; ++i) junk += "garbage\n";
    ASSERT_EQ(::write(fd, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
    srv.stop();
    EXPECT_TRUE(srv.server().conn(0).broken);
    EXPECT_NE(srv.server().conn(0).why.find("too many"), std::string::npos);
    ::close(fd);
}

TEST(PmiClientServer, KeysBelongToTheirRank) {
    test::server_thread srv(config(2, "(vector,(0,1,2))"));
    const int a = srv.add_rank(0), b = srv.add_rank(1);
    srv.start();
    EXPECT_EQ(raw_call(a, "cmd=put key=x value=1\n"), "cmd=put_result rc=0 msg=success\n");
    EXPECT_EQ(raw_call(a, "cmd=put key=x value=2\n"), "cmd=put_result rc=0 msg=success\n");
    EXPECT_EQ(raw_call(b, "cmd=put key=x value=3\n").substr(0, 24), "cmd=put_result rc=-1 msg");
    EXPECT_EQ(raw_call(b, "cmd=get key=x\n"), "cmd=get_result rc=0 msg=success value=2\n");
    EXPECT_EQ(raw_call(b, "cmd=put key=PMI_process_mapping value=3\n").substr(0, 24),
              "cmd=put_result rc=-1 msg");
    srv.stop();
    ::close(a);
    ::close(b);
}

TEST(PmiClientServer, AbortCarriesCodeAndMessage) {
    test::server_thread srv(config(1));
    const int fd = srv.add_rank(0);
    srv.start();
    auto c = pmi_client::from_fd(fd);
    std::string e;
    ASSERT_EQ(c->init(e), status::ok) << e;
    EXPECT_TRUE(c->send_abort(7, "something went\nwrong"));
    srv.stop();
    EXPECT_EQ(srv.server().aborts(), 1);
    EXPECT_TRUE(srv.server().conn(0).aborted);
    EXPECT_EQ(srv.server().conn(0).abort_code, 7);
    EXPECT_EQ(srv.server().conn(0).abort_message, "something went wrong");
}

TEST(PmiClientServer, ClientNoticesLauncherDeath) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    auto c = pmi_client::from_fd(sv[0]);
    ::close(sv[1]);
    std::string e;
    EXPECT_EQ(c->init(e), status::proc_failed);
    EXPECT_NE(e.find("closed"), std::string::npos) << e;
}

TEST(PmiClientServer, ClientRejectsGarbageReplies) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    auto c = pmi_client::from_fd(sv[0]);
    const std::string junk = "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n" +
                             std::string(2000, 'q');
    ASSERT_EQ(::write(sv[1], junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
    std::string e;
    EXPECT_EQ(c->init(e), status::unsupported) << e;
    EXPECT_NE(c->barrier(e), status::ok);  // the 2000-byte line
    EXPECT_NE(e.find("longer than 1024"), std::string::npos) << e;
    ::close(sv[1]);
}

TEST(PmiClientServer, AcceptsAnyOneDotXVersion) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    auto c = pmi_client::from_fd(sv[0]);
    const std::string replies =
        "cmd=response_to_init pmi_version=1 pmi_subversion=2 rc=0\n"
        "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n"
        "cmd=appnum appnum=3\n"
        "cmd=my_kvsname kvsname=kvs_9_0\n";
    ASSERT_EQ(::write(sv[1], replies.data(), replies.size()), static_cast<ssize_t>(replies.size()));
    std::string e;
    EXPECT_EQ(c->init(e), status::ok) << e;
    EXPECT_EQ(c->appnum(), 3);
    EXPECT_EQ(c->kvsname(), "kvs_9_0");
    EXPECT_LE(c->max_value_len(20) + 29 + 7 + 20, 1024u);
    ::close(sv[1]);
}

TEST(PmiClientServer, PortModeHandshake) {
    const int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(lfd, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(lfd, 8), 0);
    socklen_t len = sizeof a;
    ASSERT_EQ(::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len), 0);
    const std::string port = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    test::server_thread srv(config(2));
    srv.listen_on(lfd);
    srv.start();
    std::string e0, e1;
    std::thread t([&] {
        auto c = pmi_client::connect_port(port.c_str(), 0, e0);
        if (c && c->handshake_rank() == 0 && !failed(c->init(e0))) (void)c->barrier(e0);
    });
    auto c = pmi_client::connect_port(port.c_str(), 1, e1);
    ASSERT_TRUE(c) << e1;
    EXPECT_EQ(c->handshake_rank(), 1);
    EXPECT_EQ(c->handshake_size(), 2);
    ASSERT_EQ(c->init(e1), status::ok) << e1;
    EXPECT_EQ(c->barrier(e1), status::ok) << e1;
    t.join();
    EXPECT_EQ(e0, "");
    EXPECT_FALSE(pmi_client::connect_port(port.c_str(), 1, e1)) << "pmiid 1 connected twice";
    EXPECT_FALSE(pmi_client::connect_port("no-colon", 0, e1));
    srv.stop();
}
