// SPDX-License-Identifier: MIT
// Bootstrap over PMI-1 (or a singleton store). Binary values travel as hex,
// split over keys "<name>-<rank>-<i>" with a count key "<name>-<rank>-n"
// holding "<bytes>,<chunks>", so no PMI line exceeds 1024 bytes.
#include "device/bootstrap.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "device/pmi_client.hpp"
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

// A launcher that started us without a PMI-1 server: running on would give N
// singletons that never meet, so say how to launch instead. Returns the
// variable that gave it away, or null.
const char* foreign_launcher(const char*& who) {
    if (env("OMPI_COMM_WORLD_SIZE") || env("OMPI_COMM_WORLD_RANK")) {
        who = "Open MPI's mpirun (which speaks PMIx only)";
        return env("OMPI_COMM_WORLD_SIZE") ? "OMPI_COMM_WORLD_SIZE" : "OMPI_COMM_WORLD_RANK";
    }
    if (env("PMIX_RANK") || env("PMIX_NAMESPACE")) {
        who = "a PMIx launcher";
        return env("PMIX_RANK") ? "PMIX_RANK" : "PMIX_NAMESPACE";
    }
    // A batch script running the program directly is a legitimate singleton
    // (SLURM_PROCID=0, one task); srun without --mpi=pmi2 starting several
    // tasks is not.
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

bootstrap::~bootstrap() { delete pmi_; }

int bootstrap::fd() const noexcept { return pmi_ ? pmi_->fd() : -1; }

status bootstrap::init(std::string& error) {
    if (env("PMI_FD") || env("PMI_PORT")) {
        if (status st = init_pmi(error); failed(st)) return st;
    } else if (const char* who = nullptr, *var = foreign_launcher(who); var) {
        error = std::string("started by ") + who + " (" + var +
                " is set) but ch4lite needs a PMI-1 launcher";
        std::fprintf(stderr,
                     "ch4lite: this program was started by %s (%s is set), but ch4lite "
                     "bootstraps over PMI-1.\n"
                     "ch4lite: launch it with ch4lite's own mpiexec, with MPICH's "
                     "mpiexec.hydra, or under Slurm with 'srun --mpi=pmi2'.\n",
                     who, var);
        return status::unsupported;
    } else {
        singleton_ = true;
        launcher_ = "singleton";
        rank_ = 0;
        size_ = 1;
    }
    util::set_log_rank(rank_);
    job_key_ = make_job_key();
    if (status st = init_node_map(); failed(st)) {
        error = "cannot determine which ranks share a node";
        return st;
    }
    util::verbose("bootstrap: %s, rank %d of %d, %d node(s)", launcher_.c_str(), rank_, size_,
                  num_nodes_);
    return status::ok;
}

status bootstrap::init_pmi(std::string& error) {
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
    }
    if (status st = c->init(error); failed(st)) return st;
    pmi_ = c.release();
    rank_ = static_cast<int>(rank);
    size_ = static_cast<int>(size);
    appnum_ = pmi_->appnum();
    if (env("CH4LITE_JOB_KEY"))
        launcher_ = "mpiexec (ch4lite)";
    else if (env("SLURM_JOB_ID"))
        launcher_ = "slurm";
    else
        launcher_ = "hydra";
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
    if (failed(pmi_->get("PMI_process_mapping", mapping, found, error))) {
        util::warn("%s", error.c_str());
        return status::io;
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

status bootstrap::kv_put(const std::string& key, const std::string& value) {
    if (!pmi_) {
        for (auto& kv : local_kvs_)
            if (kv.first == key) {
                kv.second = value;
                return status::ok;
            }
        local_kvs_.emplace_back(key, value);
        return status::ok;
    }
    std::string error;
    const status st = pmi_->put(key, value, error);
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

status bootstrap::kv_get(const std::string& key, std::string& value, bool& found) {
    found = false;
    if (!pmi_) {
        for (const auto& kv : local_kvs_)
            if (kv.first == key) {
                value = kv.second;
                found = true;
            }
        return status::ok;
    }
    std::string error;
    const status st = pmi_->get(key, value, found, error);
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

status bootstrap::put(const char* name, const void* data, std::size_t len) {
    const std::string base = std::string(name) + "-" + std::to_string(rank_) + "-";
    // Longest key we make: base + chunk index (up to 10 digits).
    const std::size_t key_max = base.size() + 10;
    const std::size_t limit = pmi_ ? pmi_->max_key_len() : util::pmi_max_key;
    if (!util::pmi_valid_key(name) || key_max > limit) {
        util::warn("bootstrap: put name '%s' is not a short [A-Za-z0-9_-] word", name);
        return status::invalid;
    }
    std::size_t chunk = pmi_ ? pmi_->max_value_len(key_max) : 512;
    chunk &= ~std::size_t{1};  // whole bytes per key
    const std::string hex = util::hex_encode(data, len);
    const std::size_t n = (hex.size() + chunk - 1) / chunk;
    for (std::size_t i = 0; i < n; ++i)
        if (status st = kv_put(base + std::to_string(i), hex.substr(i * chunk, chunk)); failed(st))
            return st;
    return kv_put(base + "n", std::to_string(len) + "," + std::to_string(n));
}

status bootstrap::get(int rank, const char* name, std::vector<std::byte>& out) {
    if (rank < 0 || rank >= size_ || !util::pmi_valid_key(name)) return status::invalid;
    const std::string base = std::string(name) + "-" + std::to_string(rank) + "-";
    std::string count, hex, part;
    bool found = false;
    if (status st = kv_get(base + "n", count, found); failed(st)) return st;
    if (!found) return status::invalid;  // never published (or not fenced yet)
    std::size_t len = 0, n = 0;
    const std::size_t comma = count.find(',');
    const char* c = count.c_str();
    if (comma == std::string::npos ||
        std::from_chars(c, c + comma, len).ptr != c + comma ||
        std::from_chars(c + comma + 1, c + count.size(), n).ptr != c + count.size()) {
        util::warn("bootstrap: bad count '%s' for '%s' of rank %d", count.c_str(), name, rank);
        return status::io;
    }
    hex.reserve(2 * len);
    for (std::size_t i = 0; i < n; ++i) {
        if (status st = kv_get(base + std::to_string(i), part, found); failed(st)) return st;
        if (!found) return status::io;
        hex += part;
    }
    if (!util::hex_decode(hex, out) || out.size() != len) {
        util::warn("bootstrap: corrupt value '%s' of rank %d", name, rank);
        return status::io;
    }
    return status::ok;
}

status bootstrap::fence() { return barrier(); }

status bootstrap::barrier() {
    if (!pmi_) return status::ok;
    std::string error;
    const status st = pmi_->barrier(error);
    if (failed(st)) util::warn("%s", error.c_str());
    return st;
}

status bootstrap::finalize() {
    if (!pmi_) return status::ok;
    std::string error;
    const status st = pmi_->finalize(error);
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
    if (!pmi_ || !ours) say();
    if (pmi_ && !ours) {
        // Hydra kills the job as soon as it reads the abort and may drop
        // output still in its pipes: give it a moment to forward ours.
        const timespec pause{0, 100 * 1000 * 1000};
        ::nanosleep(&pause, nullptr);
    }
    if (pmi_ && !pmi_->send_abort(code, message) && ours) say();
    ::_exit(code);
}

}  // namespace ch4lite::dev
