// SPDX-License-Identifier: MIT
// PMIx client over libpmix, loaded at run time (dlopen), so libmpi has no
// hard dependency on it: a job launched by our mpiexec, Hydra or Slurm's
// pmi2 plugin never loads it. Used when the launcher is a PMIx server: Open
// MPI's mpirun, Slurm's `srun --mpi=pmix`, PRRTE.
//
// Values are PMIx byte objects under "ch4lite.<name>" in the GLOBAL scope;
// fence() is PMIx_Commit + PMIx_Fence with PMIX_COLLECT_DATA, after which
// every PMIx_Get is answered by the local library (its shared-memory data
// store), without a round trip to the server.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "util/status.hpp"

namespace ch4lite::dev {

class pmix_client {
  public:
    ~pmix_client();
    pmix_client(const pmix_client&) = delete;
    pmix_client& operator=(const pmix_client&) = delete;

    // Loads libpmix (CH4LITE_PMIX_LIB, default libpmix.so.2) and calls
    // PMIx_Init. Null with the reason in `error` when ch4lite was built
    // without the PMIx headers, the library cannot be loaded, or the server
    // cannot be reached.
    static std::unique_ptr<pmix_client> create(std::string& error);

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    int appnum() const noexcept { return appnum_; }
    // "PMIx 4.2.2" (the library's own version string, shortened).
    const std::string& version() const noexcept { return version_; }

    status put(const std::string& name, const void* data, std::size_t len, std::string& error);
    // Commit + fence; with `collect`, everyone's values come back with it.
    status fence(bool collect, std::string& error);
    // status::invalid when `rank` never published `name`.
    status get(int rank, const std::string& name, std::vector<std::byte>& out, std::string& error);
    // Node of every rank, from the host names (PMIX_HOSTNAME) the server
    // gives for every rank. False when it does not.
    bool node_map(std::vector<int>& node_of, int& num_nodes, std::string& error);
    status finalize(std::string& error);
    // PMIx_Abort for the whole namespace. Blocks until the server acted.
    void abort(int code, const char* message) noexcept;

  private:
    pmix_client() = default;
    struct impl;
    std::unique_ptr<impl> p_;
    int rank_ = -1, size_ = 0, appnum_ = 0;
    std::string version_;
    bool initialized_ = false;
};

}  // namespace ch4lite::dev
