// SPDX-License-Identifier: MIT
// mpiexec's command line: `mpiexec [options] prog [args]`. Options end at the
// first word that is not an option (or at "--"); docs/mpiexec.md lists them.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ch4lite::launch {

enum class binding { none, core };

struct options {
    int np = 1;
    bool tag_output = false;
    // Variables set for every rank, in command-line order (later wins).
    std::vector<std::pair<std::string, std::string>> env;
    std::string wdir;
    int maxtime = 0;  // seconds; 0: no limit
    binding bind = binding::none;
    int ppn = 0;      // 0: all ranks on one node
    bool verbose = false;
    std::vector<std::string> argv;  // program and its arguments
};

enum class parse_result { run, help, error };

// Fills `opt` from argv (and MPIEXEC_TIMEOUT). On error, `error` says which
// option and why.
parse_result parse_options(int argc, char** argv, options& opt, std::string& error);
const char* usage_text();

}  // namespace ch4lite::launch
