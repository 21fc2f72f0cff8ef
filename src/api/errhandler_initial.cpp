// SPDX-License-Identifier: MIT
// The MPI-4 initial error handler (MPI-4.1 §9.3 and §11.8.4, the
// `mpi_initial_errhandler` launch key): the handler of MPI_COMM_WORLD and
// MPI_COMM_SELF when MPI starts, and the one errors raise while MPI_COMM_SELF
// does not exist (before MPI_Init, after MPI_Finalize). `mpiexec
// -initial-errhandler <name>` passes it to the ranks as
// CH4LITE_INITIAL_ERRHANDLER, which works under any launcher (-genv).
//
// And the text a fatal handler prints: which handler of which object ran,
// why that object, and how to get error codes back instead.
#include <strings.h>

#include <cstdio>
#include <cstdlib>

#include "api/errhandler.hpp"
#include "api/handles.hpp"
#include "device/comm.hpp"
#include "device/device.hpp"
#include "rma/rma.hpp"

namespace ch4lite::api {

namespace {

struct named {
    const char* name;  // the reserved info value
    MPI_Errhandler h;
};
const named g_names[] = {
    {"mpi_errors_are_fatal", MPI_ERRORS_ARE_FATAL},
    {"mpi_errors_abort", MPI_ERRORS_ABORT},
    {"mpi_errors_return", MPI_ERRORS_RETURN},
};

MPI_Errhandler parse() noexcept {
    const char* v = std::getenv("CH4LITE_INITIAL_ERRHANDLER");
    if (!v || !*v) return MPI_ERRORS_ARE_FATAL;
    for (const named& n : g_names)
        if (strcasecmp(v, n.name) == 0) return n.h;
    std::fprintf(stderr,
                 "ch4lite: warning: CH4LITE_INITIAL_ERRHANDLER=%s is none of mpi_errors_are_fatal, "
                 "mpi_errors_abort, mpi_errors_return: using mpi_errors_are_fatal\n", v);
    return MPI_ERRORS_ARE_FATAL;
}

}  // namespace

MPI_Errhandler initial_errhandler() noexcept {
    static const MPI_Errhandler h = parse();
    return h;
}

const char* initial_errhandler_name() noexcept {
    const MPI_Errhandler h = initial_errhandler();
    for (const named& n : g_names)
        if (n.h == h) return n.name;
    return "mpi_errors_are_fatal";
}

const char* errhandler_name(MPI_Errhandler h) noexcept {
    if (h == MPI_ERRORS_ARE_FATAL) return "MPI_ERRORS_ARE_FATAL";
    if (h == MPI_ERRORS_ABORT) return "MPI_ERRORS_ABORT";
    if (h == MPI_ERRORS_RETURN) return "MPI_ERRORS_RETURN";
    return "a user error handler";
}

int fatal_context(char* out, std::size_t n, MPI_Errhandler h, const void* target, bool is_win) noexcept {
    const char* eh = errhandler_name(h);
    if (!target) {
        return std::snprintf(out, n,
                             "the initial error handler %s ran: MPI is %s, so no communicator takes "
                             "the error. To get error codes back instead: mpiexec -initial-errhandler "
                             "mpi_errors_return (other launchers: CH4LITE_INITIAL_ERRHANDLER="
                             "mpi_errors_return)",
                             eh, dev::g_dev.finalized ? "finalized" : "not initialized");
    }
    if (is_win) {
        const MPI_Win w = *static_cast<const MPI_Win*>(target);
        const rma::win* wp = rma::lookup(reinterpret_cast<uintptr_t>(w));
        const bool named_win = wp && !wp->name.empty();
        return std::snprintf(out, n,
                             "error handler %s of window %s%s%s ran (windows start with "
                             "MPI_ERRORS_ARE_FATAL). To get error codes back instead: "
                             "MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN)",
                             eh, named_win ? "\"" : "", named_win ? wp->name.c_str() : "(unnamed)",
                             named_win ? "\"" : "");
    }
    const MPI_Comm c = *static_cast<const MPI_Comm*>(target);
    if (c == MPI_COMM_SELF)
        return std::snprintf(out, n,
                             "error handler %s of MPI_COMM_SELF ran: it takes the errors of MPI_COMM_SELF "
                             "and of every call without a valid communicator, window or file "
                             "(datatypes, groups, ops, MPI_Reduce_local, ...; MPI-4.1 §9.3). To get "
                             "error codes back instead: MPI_Comm_set_errhandler(MPI_COMM_SELF, "
                             "MPI_ERRORS_RETURN), or mpiexec -initial-errhandler mpi_errors_return",
                             eh);
    const dev::comm* cp = lookup_comm(c);
    const char* name = cp && !cp->name.empty() ? cp->name.c_str() : nullptr;
    return std::snprintf(out, n,
                         "error handler %s of communicator %s ran. To get error codes back instead: "
                         "MPI_Comm_set_errhandler(%s, MPI_ERRORS_RETURN)%s",
                         eh, name ? name : "(unnamed)", name ? name : "comm",
                         c == MPI_COMM_WORLD ? ", or mpiexec -initial-errhandler mpi_errors_return" : "");
}

}  // namespace ch4lite::api
