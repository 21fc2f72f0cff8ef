// SPDX-License-Identifier: MIT
// Bootstrap: choosing the process manager interface, the node map, finalize
// and abort. The key/value exchange is in bootstrap_kvs.cpp.
#include "device/bootstrap.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

#include "device/pmi2_client.hpp"
#include "device/pmi_client.hpp"
#include "device/pmix_client.hpp"
#include "util/log.hpp"
#include "util/pmi_wire.hpp"
#include "util/random.hpp"

namespace ch4lite::dev {

namespace {

bool parse_int(const char* s, long lo, long hi, long& out) {
    if (!s || !*s) return false;
    const char* e = s + std::strlen(s);
    auto [p, ec] = std::from_chars(s, e, out);
    return ec == std::errc() && p == e && out >= lo && out <= hi;
}

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

// A launcher that started us without any PMI we speak: running on would
// give N singletons that never meet, so say how to launch instead. Returns
// the variable that gave it away, or null.
const char* foreign_launcher(const char*& who) {
    if (env("OMPI_COMM_WORLD_SIZE") || env("OMPI_COMM_WORLD_RANK")) {
        who = "Open MPI's mpirun without a PMIx server in reach (no PMIX_NAMESPACE)";
        return env("OMPI_COMM_WORLD_SIZE") ? "OMPI_COMM_WORLD_SIZE" : "OMPI_COMM_WORLD_RANK";
    }
    // A batch script running the program directly is a legitimate singleton
    // (SLURM_PROCID=0, one task); srun without --mpi starting several tasks
    // is not.
    long procid = 0, ntasks = 1;
    if (env("SLURM_PROCID") && parse_int(env("SLURM_PROCID"), 0, 1L << 30, procid) &&
        (procid > 0 || (parse_int(env("SLURM_STEP_NUM_TASKS"), 0, 1L << 30, ntasks) && ntasks > 1))) {
        who = "Slurm's srun without a PMI plugin";
        return "SLURM_PROCID";
    }
    return nullptr;
}

uint64_t make_job_key() {
    if (const char* k = env("CH4LITE_JOB_KEY")) {
        uint64_t v = 0;
        const char* e = k + std::strlen(k);
        auto [p, ec] = std::from_chars(k, e, v, 16);
        if (ec == std::errc() && p == e && e - k <= 16) return v;
        util::warn("ignoring CH4LITE_JOB_KEY=%s: not a 64-bit hex number", k);
    }
    return util::random64();
}

}  // namespace

bootstrap::bootstrap() = default;

bootstrap::~bootstrap() = default;

int bootstrap::fd() const noexcept {
    if (pmi1_) return pmi1_->fd();
    if (pmi2_) return pmi2_->fd();
    return -1;
}

status bootstrap::init(std::string& error) {
    const char* want = env("CH4LITE_PMI") ? env("CH4LITE_PMI") : "auto";
    const bool is_auto = std::strcmp(want, "auto") == 0;
    if (!is_auto && std::strcmp(want, "pmix") != 0 && std::strcmp(want, "pmi2") != 0 &&
        std::strcmp(want, "pmi1") != 0) {
        error = std::string("CH4LITE_PMI='") + want + "': expected auto, pmix, pmi2 or pmi1";
        return status::invalid;
    }
    const bool have_pmix = env("PMIX_NAMESPACE") && env("PMIX_RANK");
    const bool have_fd = env("PMI_FD") != nullptr, have_port = env("PMI_PORT") != nullptr;
    status st = status::ok;
    if (std::strcmp(want, "pmix") == 0 || (is_auto && have_pmix)) {
        st = init_pmix(error);
    } else if (std::strcmp(want, "pmi2") == 0 || (is_auto && have_fd && env("PMI_JOBID"))) {
        st = init_pmi2(error);
    } else if (have_fd || have_port) {
        st = init_pmi1(error);
    } else if (const char* who = nullptr, *var = foreign_launcher(who); var) {
        error = std::string("started by ") + who + " (" + var +
                " is set) but no PMIx, PMI-2 or PMI-1 server";
        std::fprintf(stderr,
                     "ch4lite: this program was started by %s (%s is set), but ch4lite "
                     "bootstraps over PMIx, PMI-2 or PMI-1 and found none of them.\n"
                     "ch4lite: launch it with ch4lite's own mpiexec, with MPICH's "
                     "mpiexec.hydra, with Open MPI's mpirun, or under Slurm with "
                     "'srun --mpi=pmi2' or 'srun --mpi=pmix'.\n",
                     who, var);
        return status::unsupported;
    } else if (std::strcmp(want, "pmi1") == 0) {
        error = "CH4LITE_PMI=pmi1 but neither PMI_FD nor PMI_PORT is set";
        return status::invalid;
    } else {
        singleton_ = true;
        rank_ = 0;
        size_ = 1;
    }
    if (failed(st)) return st;
    name_launcher();
    util::set_log_rank(rank_);
    job_key_ = make_job_key();
    cache_.assign(static_cast<std::size_t>(size_), {});
    fetched_.assign(static_cast<std::size_t>(size_), 0);
    if (status s = init_node_map(); failed(s)) {
        error = "cannot determine which ranks share a node";
        return s;
    }
    util::verbose("bootstrap: %s from %s, rank %d of %d, %d node(s)", pmi_name_.c_str(),
                  launcher_.c_str(), rank_, size_, num_nodes_);
    return status::ok;
}

void bootstrap::name_launcher() {
    if (singleton_)
        launcher_ = "singleton";
    else if (env("CH4LITE_JOB_KEY"))
        launcher_ = "mpiexec (ch4lite)";
    else if (env("SLURM_JOB_ID") || env("SLURM_STEP_ID"))
        launcher_ = "slurm";
    else if (kind_ == kind::pmix && env("OMPI_COMM_WORLD_SIZE"))
        launcher_ = "mpirun (Open MPI)";
    else if (kind_ == kind::pmix)
        launcher_ = "PMIx server";
    else
        launcher_ = "hydra";
}

status bootstrap::init_pmi1(std::string& error) {
    singleton_ = false;
    std::unique_ptr<pmi_client> c;
    long rank = -1, size = -1;
    if (const char* fdv = env("PMI_FD")) {
        long fd = -1;
        if (!parse_int(fdv, 0, 1 << 20, fd)) {
            error = std::string("PMI_FD='") + fdv + "' is not a file descriptor";
            return status::invalid;
        }
        if (!parse_int(env("PMI_SIZE"), 1, 1L << 30, size) ||
            !parse_int(env("PMI_RANK"), 0, size - 1, rank)) {
            error = "PMI_FD is set but PMI_RANK / PMI_SIZE are missing or inconsistent";
            return status::invalid;
        }
        c = pmi_client::from_fd(static_cast<int>(fd));
    } else {
        long id = -1;
        if (!parse_int(env("PMI_ID"), 0, 1L << 30, id)) {
            error = "PMI_PORT is set but PMI_ID is missing or not a number";
            return status::invalid;
        }
        c = pmi_client::connect_port(env("PMI_PORT"), static_cast<int>(id), error);
        if (!c) return status::io;
        rank = c->handshake_rank();
        size = c->handshake_size();
        stats_.round_trips += 1;
    }
    if (status st = c->init(error); failed(st)) return st;
    stats_.round_trips += 4;  // init, maxes, appnum, kvsname
    pmi1_ = std::move(c);
    rank_ = static_cast<int>(rank);
    size_ = static_cast<int>(size);
    appnum_ = pmi1_->appnum();
    kind_ = kind::pmi1;
    pmi_name_ = "PMI-1";
    return status::ok;
}

status bootstrap::init_pmi2(std::string& error) {
    singleton_ = false;
    long fd = -1, rank = -1;
    if (!parse_int(env("PMI_FD"), 0, 1 << 20, fd)) {
        error = "PMI-2 needs PMI_FD, a file descriptor (PMI_PORT is not supported for PMI-2)";
        return status::invalid;
    }
    if (!parse_int(env("PMI_RANK"), 0, 1L << 30, rank)) {
        error = "PMI_FD is set but PMI_RANK is missing or not a number";
        return status::invalid;
    }
    auto c = pmi2_client::from_fd(static_cast<int>(fd));
    if (status st = c->init(rank, env("PMI_JOBID"), error); failed(st)) return st;
    stats_.round_trips += 2;  // init, fullinit
    pmi2_ = std::move(c);
    rank_ = pmi2_->rank();
    size_ = pmi2_->size();
    appnum_ = pmi2_->appnum();
    kind_ = kind::pmi2;
    pmi_name_ = "PMI-2";
    return status::ok;
}

status bootstrap::init_pmix(std::string& error) {
    singleton_ = false;
    pmix_ = pmix_client::create(error);
    if (!pmix_) return status::io;
    stats_.round_trips += 1;  // PMIx_Init (the job data then sits in the local store)
    rank_ = pmix_->rank();
    size_ = pmix_->size();
    appnum_ = pmix_->appnum();
    kind_ = kind::pmix;
    pmi_name_ = pmix_->version();
    return status::ok;
}

status bootstrap::init_node_map() {
    if (singleton_ || size_ == 1) {
        node_of_.assign(1, 0);
        num_nodes_ = 1;
        return status::ok;
    }
    std::string mapping, error;
    bool found = false;
    if (pmix_) {
        if (pmix_->node_map(node_of_, num_nodes_, error)) return status::ok;
        util::verbose("bootstrap: %s; exchanging host names instead", error.c_str());
    } else {
        const status st = pmi2_ ? pmi2_->job_attr("PMI_process_mapping", mapping, found, error)
                                : pmi1_->get("PMI_process_mapping", mapping, found, error);
        ++stats_.round_trips;
        if (failed(st)) {
            util::warn("%s", error.c_str());
            return status::io;
        }
    }
    if (found) {
        const int n = util::parse_process_mapping(mapping, size_, node_of_);
        if (n > 0) {
            num_nodes_ = n;
            return status::ok;
        }
        util::verbose("bootstrap: ignoring unparsable PMI_process_mapping '%s'", mapping.c_str());
    }
    // No usable mapping: ranks with the same host name share a node.
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown");
    if (status st = put("ch4lite_host", host, std::strlen(host)); failed(st)) return st;
    if (status st = fence(); failed(st)) return st;
    std::vector<std::string> names;
    node_of_.assign(static_cast<std::size_t>(size_), 0);
    std::vector<std::byte> v;
    for (int r = 0; r < size_; ++r) {
        if (status st = get(r, "ch4lite_host", v); failed(st)) return st;
        std::string h(reinterpret_cast<const char*>(v.data()), v.size());
        std::size_t id = 0;
        while (id < names.size() && names[id] != h) ++id;
        if (id == names.size()) names.push_back(std::move(h));
        node_of_[static_cast<std::size_t>(r)] = static_cast<int>(id);
    }
    num_nodes_ = static_cast<int>(names.size());
    return status::ok;
}

status bootstrap::finalize() {
    std::string error;
    status st = status::ok;
    if (pmi1_) st = pmi1_->finalize(error);
    else if (pmi2_) st = pmi2_->finalize(error);
    else if (pmix_) st = pmix_->finalize(error);
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

void bootstrap::abort(int code, const char* message) noexcept {
    if (!message) message = "";
    auto say = [&] {
        char buf[1024];
        const int n = std::snprintf(buf, sizeof buf, "ch4lite[%d]: abort (exit code %d): %s\n", rank_,
                                    code, message);
        if (n > 0) {
            ssize_t w = ::write(2, buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
            (void)w;
        }
    };
    // Our mpiexec prints the message in its banner. Other launchers may not,
    // and may kill us as soon as they read the abort: speak first.
    const bool ours = launcher_ == "mpiexec (ch4lite)";
    if (singleton_ || !ours) say();
    if (!singleton_ && !ours) {
        // Hydra kills the job as soon as it reads the abort and may drop
        // output still in its pipes: give it a moment to forward ours.
        const timespec pause{0, 100 * 1000 * 1000};
        ::nanosleep(&pause, nullptr);
    }
    if (pmi1_ && !pmi1_->send_abort(code, message) && ours) say();
    if (pmi2_) (void)pmi2_->send_abort(code, message);
    // Open MPI's mpirun ends the whole job when a rank exits non-zero, and
    // its handling of PMIx_Abort while other ranks wait in a fence hangs or
    // crashes it now and then (4.1.4 of Debian 12 with PMIx 4.2): exiting
    // is enough there. Other PMIx servers (Slurm) need the abort.
    if (pmix_ && launcher_ != "mpirun (Open MPI)") pmix_->abort(code, message);
    ::_exit(code);
}

}  // namespace ch4lite::dev
