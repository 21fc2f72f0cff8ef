// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace ch4lite::launch {

namespace {

bool to_int(std::string_view s, int lo, int hi, int& out) {
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
    out = v;
    return true;
}

bool valid_env_name(std::string_view k) {
    if (k.empty() || (k[0] >= '0' && k[0] <= '9')) return false;
    for (char c : k)
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    return true;
}

// "-foo" and "--foo" are the same option.
std::string_view name_of(const char* arg) {
    std::string_view a(arg);
    if (a.substr(0, 2) == "--") a.remove_prefix(1);
    return a;
}

}  // namespace

const char* usage_text() {
    return "usage: mpiexec [options] program [args...]\n"
           "  -n, -np N            number of ranks (default 1)\n"
           "  -l, --tag-output     prefix every output line with \"[rank] \"\n"
           "  -genv K V, -env K V  set K=V for every rank\n"
           "  -x K[=V]             export K (with value V, or mpiexec's own value)\n"
           "  -wdir DIR            working directory of the ranks\n"
           "  -maxtime N           kill the job after N seconds (exit code 124);\n"
           "                       default: $MPIEXEC_TIMEOUT, else no limit\n"
           "  -bind-to none|core   bind each rank to one core, round-robin (hwloc)\n"
           "  -ppn N               publish a process mapping of N ranks per node\n"
           "                       (testing aid: all ranks still run here)\n"
           "  -initial-errhandler H  the ranks' initial error handler (MPI-4):\n"
           "                       mpi_errors_are_fatal (default), mpi_errors_abort\n"
           "                       or mpi_errors_return\n"
           "  --oversubscribe      accepted; has no effect\n"
           "  -v, --verbose        log what mpiexec does; sets CH4LITE_VERBOSE=1\n"
           "  -h, --help           this text\n"
           "exit code: 0 if every rank exited 0; else the largest rank exit code,\n"
           "128+S for a rank killed by signal S, the MPI_Abort code, 124 on timeout,\n"
           "125 if mpiexec itself failed, 127 if the program was not found.\n"
           "See docs/mpiexec.md.\n";
}

parse_result parse_options(int argc, char** argv, options& opt, std::string& error) {
    opt = options{};
    bool have_maxtime = false;
    int i = 1;
    auto need = [&](int k, std::string_view name) {
        if (i + k < argc) return true;
        error = "option " + std::string(name) + " needs " + (k == 1 ? "a value" : "two values");
        return false;
    };
    for (; i < argc; ++i) {
        const std::string_view a = name_of(argv[i]);
        if (argv[i][0] != '-') break;
        if (a == "--" || std::string_view(argv[i]) == "--") {
            ++i;
            break;
        }
        if (a == "-h" || a == "-help") return parse_result::help;
        if (a == "-n" || a == "-np") {
            if (!need(1, a)) return parse_result::error;
            if (!to_int(argv[++i], 1, 1 << 20, opt.np)) {
                error = std::string("bad rank count '") + argv[i] + "': must be a positive integer";
                return parse_result::error;
            }
        } else if (a == "-l" || a == "-tag-output") {
            opt.tag_output = true;
        } else if (a == "-genv" || a == "-env") {
            if (!need(2, a)) return parse_result::error;
            if (!valid_env_name(argv[i + 1])) {
                error = std::string("bad variable name '") + argv[i + 1] + "' for " + std::string(a);
                return parse_result::error;
            }
            opt.env.emplace_back(argv[i + 1], argv[i + 2]);
            i += 2;
        } else if (a == "-x") {
            if (!need(1, a)) return parse_result::error;
            const std::string_view kv(argv[++i]);
            const std::size_t eq = kv.find('=');
            const std::string k(kv.substr(0, eq));
            if (!valid_env_name(k)) {
                error = "bad variable name '" + k + "' for -x";
                return parse_result::error;
            }
            if (eq != std::string_view::npos) {
                opt.env.emplace_back(k, std::string(kv.substr(eq + 1)));
            } else if (const char* v = std::getenv(k.c_str())) {
                opt.env.emplace_back(k, v);
            }  // -x of an unset variable exports nothing, as in Open MPI
        } else if (a == "-wdir" || a == "-wd") {
            if (!need(1, a)) return parse_result::error;
            opt.wdir = argv[++i];
        } else if (a == "-maxtime") {
            if (!need(1, a)) return parse_result::error;
            if (!to_int(argv[++i], 1, 1 << 30, opt.maxtime)) {
                error = std::string("bad -maxtime '") + argv[i] + "': must be a positive number of seconds";
                return parse_result::error;
            }
            have_maxtime = true;
        } else if (a == "-oversubscribe") {
            // Accepted for Open MPI users; ranks may always outnumber cores.
        } else if (a == "-bind-to") {
            if (!need(1, a)) return parse_result::error;
            const std::string_view b(argv[++i]);
            if (b == "none") opt.bind = binding::none;
            else if (b == "core") opt.bind = binding::core;
            else {
                error = "bad -bind-to '" + std::string(b) + "': must be none or core";
                return parse_result::error;
            }
        } else if (a == "-ppn") {
            if (!need(1, a)) return parse_result::error;
            if (!to_int(argv[++i], 1, 1 << 20, opt.ppn)) {
                error = std::string("bad -ppn '") + argv[i] + "': must be a positive integer";
                return parse_result::error;
            }
        } else if (a == "-initial-errhandler") {
            // MPI-4.1 §11.8.4 (mpi_initial_errhandler): the ranks' initial
            // error handler, passed as CH4LITE_INITIAL_ERRHANDLER.
            if (!need(1, a)) return parse_result::error;
            std::string v(argv[++i]);
            for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (v != "mpi_errors_are_fatal" && v != "mpi_errors_abort" && v != "mpi_errors_return") {
                error = "bad -initial-errhandler '" + std::string(argv[i]) +
                        "': must be mpi_errors_are_fatal, mpi_errors_abort or mpi_errors_return";
                return parse_result::error;
            }
            opt.env.emplace_back("CH4LITE_INITIAL_ERRHANDLER", v);
        } else if (a == "-v" || a == "-verbose") {
            opt.verbose = true;
        } else {
            error = std::string("unknown option '") + argv[i] + "'";
            return parse_result::error;
        }
    }
    if (i >= argc) {
        error = "no program to run";
        return parse_result::error;
    }
    for (; i < argc; ++i) opt.argv.emplace_back(argv[i]);
    if (!have_maxtime) {
        if (const char* t = std::getenv("MPIEXEC_TIMEOUT"); t && *t) {
            if (!to_int(t, 1, 1 << 30, opt.maxtime)) {
                error = std::string("bad MPIEXEC_TIMEOUT='") + t + "': must be a positive number of seconds";
                return parse_result::error;
            }
        }
    }
    return parse_result::run;
}

}  // namespace ch4lite::launch
