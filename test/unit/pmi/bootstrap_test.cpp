// SPDX-License-Identifier: MIT
// dev::bootstrap: launcher detection from the environment, the singleton
// store, and binary values split over PMI keys against mpiexec's server.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>
#include <unistd.h>

#include "device/bootstrap.hpp"
#include "device/pmi_client.hpp"
#include "server_thread.hpp"
#include "util/pmi2_wire.hpp"
#include "util/pmi_wire.hpp"

using namespace ch4lite;

namespace {

const char* launcher_vars[] = {"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_JOBID",
                               "CH4LITE_PMI",
                               "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                               "PMIX_NAMESPACE", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS",
                               "CH4LITE_JOB_KEY", "SLURM_JOB_ID"};

class Bootstrap : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const char* v : launcher_vars) ::unsetenv(v);
    }
    void TearDown() override { SetUp(); }
};

std::vector<std::byte> pattern(std::size_t n) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + 7) & 0xff);
    return v;
}

launch::pmi_server_config config(int size, std::string mapping) {
    launch::pmi_server_config c;
    c.size = size;
    c.kvsname = "kvs_boot_0";
    c.process_mapping = std::move(mapping);
    return c;
}

}  // namespace

TEST_F(Bootstrap, SingletonWithoutLauncher) {
    dev::bootstrap b;
    std::string e;
    ASSERT_EQ(b.init(e), status::ok) << e;
    EXPECT_TRUE(b.singleton());
    EXPECT_EQ(b.rank(), 0);
    EXPECT_EQ(b.size(), 1);
    EXPECT_EQ(b.fd(), -1);
    EXPECT_STREQ(b.launcher(), "singleton");
    EXPECT_EQ(b.node_of(), std::vector<int>{0});
    const auto data = pattern(10000);
    ASSERT_EQ(b.put("addr", data.data(), data.size()), status::ok);
    ASSERT_EQ(b.fence(), status::ok);
    std::vector<std::byte> out;
    ASSERT_EQ(b.get(0, "addr", out), status::ok);
    EXPECT_EQ(out, data);
    ASSERT_EQ(b.put("empty", nullptr, 0), status::ok);
    ASSERT_EQ(b.get(0, "empty", out), status::ok);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(b.get(0, "never", out), status::ok);
    EXPECT_NE(b.get(1, "addr", out), status::ok);
    EXPECT_NE(b.put("bad name", data.data(), 1), status::ok);
    EXPECT_EQ(b.finalize(), status::ok);
}

TEST_F(Bootstrap, JobKeyFromMpiexec) {
    ::setenv("CH4LITE_JOB_KEY", "00ab00cd00ef0012", 1);
    dev::bootstrap b;
    std::string e;
    ASSERT_EQ(b.init(e), status::ok) << e;
    EXPECT_EQ(b.job_key(), 0x00ab00cd00ef0012ull);
}

TEST_F(Bootstrap, RandomJobKeysDiffer) {
    dev::bootstrap a, b;
    std::string e;
    ASSERT_EQ(a.init(e), status::ok);
    ASSERT_EQ(b.init(e), status::ok);
    EXPECT_NE(a.job_key(), b.job_key());
}

TEST_F(Bootstrap, RefusesForeignLaunchers) {
    const std::pair<const char*, const char*> cases[][2] = {
        {{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "1"}},
        {{"SLURM_PROCID", "2"}, {"SLURM_JOB_ID", "77"}},
        {{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "4"}},
    };
    for (const auto& vars : cases) {
        SetUp();
        for (const auto& [k, v] : vars) ::setenv(k, v, 1);
        dev::bootstrap b;
        std::string e;
        testing::internal::CaptureStderr();
        EXPECT_EQ(b.init(e), status::unsupported) << vars[0].first;
        const std::string said = testing::internal::GetCapturedStderr();
        EXPECT_NE(e.find(vars[0].first), std::string::npos) << e;
        EXPECT_NE(said.find("mpiexec.hydra"), std::string::npos) << said;
        EXPECT_NE(said.find("srun --mpi=pmi2"), std::string::npos) << said;
        EXPECT_NE(said.find("srun --mpi=pmix"), std::string::npos) << said;
    }
    // A batch script running the program directly is a singleton.
    SetUp();
    ::setenv("SLURM_PROCID", "0", 1);
    ::setenv("SLURM_STEP_NUM_TASKS", "1", 1);
    dev::bootstrap b;
    std::string e;
    EXPECT_EQ(b.init(e), status::ok) << e;
}

// PMIx variables without a server behind them: a clear failure, fast.
TEST_F(Bootstrap, PmixWithoutServerFailsClearly) {
    ::setenv("PMIX_RANK", "0", 1);
    ::setenv("PMIX_NAMESPACE", "ch4lite-test-nowhere", 1);
    dev::bootstrap b;
    std::string e;
    EXPECT_NE(b.init(e), status::ok);
    EXPECT_NE(e.find("PMIx"), std::string::npos) << e;
}

TEST_F(Bootstrap, PmiChoiceFromTheEnvironment) {
    std::string e;
    ::setenv("CH4LITE_PMI", "pmi3", 1);
    {
        dev::bootstrap b;
        EXPECT_EQ(b.init(e), status::invalid);
        EXPECT_NE(e.find("CH4LITE_PMI"), std::string::npos) << e;
    }
    ::setenv("CH4LITE_PMI", "pmi1", 1);
    {
        dev::bootstrap b;  // no PMI_FD nor PMI_PORT: nothing to speak PMI-1 to
        EXPECT_EQ(b.init(e), status::invalid);
    }
    ::setenv("CH4LITE_PMI", "auto", 1);
    {
        dev::bootstrap b;
        EXPECT_EQ(b.init(e), status::ok) << e;
        EXPECT_EQ(b.pmi_kind(), dev::bootstrap::kind::none);
        EXPECT_STREQ(b.pmi(), "none");
    }
    ::unsetenv("CH4LITE_PMI");
}

TEST_F(Bootstrap, RejectsBrokenPmiVariables) {
    std::string e;
    ::setenv("PMI_FD", "abc", 1);
    {
        dev::bootstrap b;
        EXPECT_NE(b.init(e), status::ok);
    }
    ::setenv("PMI_FD", "3", 1);
    ::setenv("PMI_RANK", "2", 1);
    ::setenv("PMI_SIZE", "2", 1);
    {
        dev::bootstrap b;
        EXPECT_NE(b.init(e), status::ok);
        EXPECT_NE(e.find("PMI_RANK"), std::string::npos) << e;
    }
    ::unsetenv("PMI_FD");
    ::setenv("PMI_PORT", "127.0.0.1:1", 1);
    {
        dev::bootstrap b;
        EXPECT_NE(b.init(e), status::ok);  // no PMI_ID
    }
}

TEST_F(Bootstrap, LargeValuesOverPmiAndProcessMapping) {
    test::server_thread srv(config(1, "(vector,(0,1,1))"));
    const int fd = srv.add_rank(0);
    srv.start();
    ::setenv("PMI_FD", std::to_string(fd).c_str(), 1);
    ::setenv("PMI_RANK", "0", 1);
    ::setenv("PMI_SIZE", "1", 1);
    ::setenv("CH4LITE_JOB_KEY", "1f", 1);
    {
        dev::bootstrap b;
        std::string e;
        ASSERT_EQ(b.init(e), status::ok) << e;
        EXPECT_FALSE(b.singleton());
        EXPECT_STREQ(b.launcher(), "mpiexec (ch4lite)");
        EXPECT_EQ(b.fd(), fd);
        EXPECT_EQ(b.job_key(), 0x1fu);
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{400}, std::size_t{4321}}) {
            const auto data = pattern(n);
            const std::string name = "v" + std::to_string(n);
            ASSERT_EQ(b.put(name.c_str(), data.data(), data.size()), status::ok);
            ASSERT_EQ(b.fence(), status::ok);
            std::vector<std::byte> out;
            ASSERT_EQ(b.get(0, name.c_str(), out), status::ok);
            EXPECT_EQ(out, data) << n;
        }
        EXPECT_EQ(b.finalize(), status::ok);
    }
    srv.stop();
    EXPECT_TRUE(srv.server().conn(0).finalized);
}

// The bootstrap's blob for one value at its first fence: key "c4-1-<rank>",
// value "1:" + base64 of (u32 name length, name, u32 value length, value).
static std::string blob_value(const std::string& name, const std::string& value) {
    std::vector<unsigned char> b;
    auto u32 = [&](std::size_t v) {
        for (int i = 0; i < 4; ++i) b.push_back(static_cast<unsigned char>((v >> (8 * i)) & 0xff));
    };
    u32(name.size());
    b.insert(b.end(), name.begin(), name.end());
    u32(value.size());
    b.insert(b.end(), value.begin(), value.end());
    return "1:" + util::b64_encode(b.data(), b.size());
}

// Rank 0 is the bootstrap under test; rank 1 is a raw client publishing its
// host name in the bootstrap's format (blob_value).
static void node_map_case(const char* mapping, const std::string& peer_host, std::vector<int> expect) {
    test::server_thread srv(config(2, mapping));
    const int fd0 = srv.add_rank(0), fd1 = srv.add_rank(1);
    srv.start();
    std::string peer_error;
    std::thread peer([&] {
        auto c = dev::pmi_client::from_fd(fd1);
        std::string& e = peer_error;
        if (failed(c->init(e))) return;
        if (!*mapping && failed(c->put("c4-1-1", blob_value("ch4lite_host", peer_host), e))) return;
        if (!*mapping && failed(c->barrier(e))) return;
        (void)c->finalize(e);
    });
    ::setenv("PMI_FD", std::to_string(fd0).c_str(), 1);
    ::setenv("PMI_RANK", "0", 1);
    ::setenv("PMI_SIZE", "2", 1);
    {
        dev::bootstrap b;
        std::string e;
        EXPECT_EQ(b.init(e), status::ok) << e;
        EXPECT_EQ(b.node_of(), expect);
        EXPECT_EQ(b.num_nodes(), expect.back() + 1);
    }
    peer.join();
    EXPECT_EQ(peer_error, "");
    srv.stop();
}

TEST_F(Bootstrap, NodeMapFromProcessMapping) {
    node_map_case("(vector,(0,2,1))", "", {0, 1});
    node_map_case("(vector,(0,1,2))", "", {0, 0});
}

TEST_F(Bootstrap, NodeMapFromHostNamesWithoutMapping) {
    char host[256] = {};
    ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
    node_map_case("", host, {0, 0});
    node_map_case("", std::string(host) + "-elsewhere", {0, 1});
}
