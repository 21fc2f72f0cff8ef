// SPDX-License-Identifier: MIT
// Bootstrap: who am I, how many are we, which ranks share my node, and a
// key/value exchange to publish addresses. Backed by a PMI-1 client
// (device/pmi_client.hpp) under our mpiexec or MPICH's Hydra, or by an
// in-process table when the program runs as a singleton.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.hpp"

namespace ch4lite::dev {

class pmi_client;

class bootstrap {
  public:
    bootstrap();
    ~bootstrap();
    bootstrap(const bootstrap&) = delete;
    bootstrap& operator=(const bootstrap&) = delete;

    // Detects the launcher from the environment:
    //  - PMI_FD (+PMI_RANK, PMI_SIZE) or PMI_PORT (+PMI_ID): PMI-1 client;
    //  - nothing: singleton (rank 0 of 1);
    //  - PMIx / Open MPI / Slurm-without-PMI variables: fails with
    //    status::unsupported after printing how to launch instead.
    // On failure, `error` holds a one-line explanation.
    status init(std::string& error);
    // PMI finalize (after the device's last barrier).
    status finalize();

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    int appnum() const noexcept { return appnum_; }
    bool singleton() const noexcept { return singleton_; }
    // "mpiexec (ch4lite)", "hydra" or "singleton", for -v and the version string.
    const char* launcher() const noexcept { return launcher_.c_str(); }
    // Descriptor of the PMI connection (-1 for a singleton); EOF on it means the
    // launcher died, and the device then ends the process.
    int fd() const noexcept;

    // Publishes a binary value under (name, my rank); any length, split over
    // several PMI keys. Visible to others after fence().
    status put(const char* name, const void* data, std::size_t len);
    // Makes every put visible everywhere: a PMI barrier.
    status fence();
    // Reads (name, rank) published before the last fence().
    status get(int rank, const char* name, std::vector<std::byte>& out);
    // A plain barrier of all ranks through the launcher (init/finalize only).
    status barrier();

    // Node of every world rank (dense ids 0..num_nodes-1), from
    // PMI_process_mapping when the launcher publishes it, else from an
    // exchange of host names. Valid after init().
    const std::vector<int>& node_of() const noexcept { return node_of_; }
    int num_nodes() const noexcept { return num_nodes_; }
    // Job key from mpiexec (CH4LITE_JOB_KEY) or random; used to name shm
    // segments so they cannot be guessed.
    uint64_t job_key() const noexcept { return job_key_; }

    // Asks the launcher to kill the job (PMI abort), then exits the process
    // with `code`. Never returns.
    [[noreturn]] void abort(int code, const char* message) noexcept;

  private:
    status init_node_map();
    status init_pmi(std::string& error);
    // One PMI key (or one entry of the singleton store).
    status kv_put(const std::string& key, const std::string& value);
    status kv_get(const std::string& key, std::string& value, bool& found);

    pmi_client* pmi_ = nullptr;  // owned; null for a singleton
    int rank_ = 0, size_ = 1, appnum_ = 0;
    bool singleton_ = true;
    std::string launcher_ = "singleton";
    std::vector<int> node_of_;
    int num_nodes_ = 1;
    uint64_t job_key_ = 0;
    std::vector<std::pair<std::string, std::string>> local_kvs_;  // singleton store
};

}  // namespace ch4lite::dev
