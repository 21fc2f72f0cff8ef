// SPDX-License-Identifier: MIT
// Bootstrap: who am I, how many are we, which ranks share my node, and a
// key/value exchange to publish addresses. Backed by whichever process
// manager interface the launcher offers, picked from the environment in this
// order (docs/mpiexec.md, "Launchers and PMI"):
//   PMIx   (device/pmix_client.hpp: libpmix, loaded at run time) — Open MPI's
//          mpirun, Slurm's srun --mpi=pmix;
//   PMI-2  (device/pmi2_client.hpp) — Slurm's srun --mpi=pmi2, Hydra on request;
//   PMI-1  (device/pmi_client.hpp) — our mpiexec, MPICH's Hydra;
// or by an in-process table when the program runs as a singleton.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/status.hpp"

namespace ch4lite::dev {

class pmi_client;
class pmi2_client;
class pmix_client;

class bootstrap {
  public:
    enum class kind { none, pmi1, pmi2, pmix };
    // Server round trips this process made (a call answered by the local
    // PMIx library does not count), for -v and the start-up benchmark.
    struct counters {
        uint64_t puts = 0, fences = 0, gets = 0, barriers = 0, round_trips = 0;
    };

    bootstrap();
    ~bootstrap();
    bootstrap(const bootstrap&) = delete;
    bootstrap& operator=(const bootstrap&) = delete;

    // Detects the launcher from the environment (CH4LITE_PMI=pmix|pmi2|pmi1
    // forces a choice; default auto):
    //  - PMIX_NAMESPACE and PMIX_RANK: PMIx;
    //  - PMI_FD with PMI_JOBID (Slurm's pmi2 plugin sets it): PMI-2;
    //  - PMI_FD (+PMI_RANK, PMI_SIZE) or PMI_PORT (+PMI_ID): PMI-1;
    //  - nothing: singleton (rank 0 of 1);
    //  - Open MPI / Slurm variables without a PMI: fails with
    //    status::unsupported after printing how to launch instead.
    // On failure, `error` holds a one-line explanation.
    status init(std::string& error);
    // PMI finalize (after the device's last barrier).
    status finalize();

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    int appnum() const noexcept { return appnum_; }
    bool singleton() const noexcept { return singleton_; }
    // "mpiexec (ch4lite)", "hydra", "slurm", "mpirun (Open MPI)", "PMIx
    // server" or "singleton", for -v and the version string.
    const char* launcher() const noexcept { return launcher_.c_str(); }
    kind pmi_kind() const noexcept { return kind_; }
    // "PMI-1", "PMI-2", "PMIx 4.2.2" (the library's version) or "none".
    const char* pmi() const noexcept { return pmi_name_.c_str(); }
    // Descriptor of the PMI connection (-1 for a singleton and under PMIx,
    // whose library watches its own connection); EOF on it means the
    // launcher died, and the device then ends the process.
    int fd() const noexcept;

    // Publishes a binary value under (name, my rank); any length. Visible to
    // others after fence(). Under PMI-1/PMI-2 nothing is sent before the
    // fence: all of a rank's values travel as one blob per fence.
    status put(const char* name, const void* data, std::size_t len);
    // Makes every put visible everywhere: a PMI barrier (PMIx: a fence that
    // collects the data).
    status fence();
    // Reads (name, rank) published before the last fence(). status::invalid
    // if that rank never published `name`.
    status get(int rank, const char* name, std::vector<std::byte>& out);
    // A plain barrier of all ranks through the launcher (init/finalize only).
    status barrier();

    // Node of every world rank (dense ids 0..num_nodes-1), from the
    // launcher's map (PMI_process_mapping, PMIx's job map) when it has one,
    // else from an exchange of host names. Valid after init().
    const std::vector<int>& node_of() const noexcept { return node_of_; }
    int num_nodes() const noexcept { return num_nodes_; }
    // Job key from mpiexec (CH4LITE_JOB_KEY) or random; used to name shm
    // segments so they cannot be guessed.
    uint64_t job_key() const noexcept { return job_key_; }
    const counters& stats() const noexcept { return stats_; }

    // Asks the launcher to kill the job (PMI abort), then exits the process
    // with `code`. Never returns.
    [[noreturn]] void abort(int code, const char* message) noexcept;

  private:
    using entry = std::pair<std::string, std::vector<std::byte>>;
    status init_node_map();
    status init_pmi1(std::string& error);
    status init_pmi2(std::string& error);
    status init_pmix(std::string& error);
    void name_launcher();
    // One PMI key (PMI-1 / PMI-2 only).
    status kv_put(const std::string& key, const std::string& value);
    status kv_get(const std::string& key, std::string& value, bool& found);
    status kv_fence();
    // The blob `rank` published at the last fence, decoded into cache_.
    status fetch_blob(int rank);

    std::unique_ptr<pmi_client> pmi1_;
    std::unique_ptr<pmi2_client> pmi2_;
    std::unique_ptr<pmix_client> pmix_;
    kind kind_ = kind::none;
    int rank_ = 0, size_ = 1, appnum_ = 0;
    bool singleton_ = true;
    std::string launcher_ = "singleton", pmi_name_ = "none";
    std::vector<int> node_of_;
    int num_nodes_ = 1;
    uint64_t job_key_ = 0;
    counters stats_;
    // Every value this rank put, by name (the singleton's whole store).
    std::vector<entry> mine_;
    int epoch_ = 0;        // fences so far
    int barrier_seq_ = 0;  // PMI-2 barriers so far
    // Blobs of other ranks read since the last fence: cache_[rank] holds the
    // entries, fetched_[rank] whether it was read (it may have been empty).
    std::vector<std::vector<entry>> cache_;
    std::vector<char> fetched_;
};

}  // namespace ch4lite::dev
