// SPDX-License-Identifier: MIT
#include "api/errors.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "api/errhandler.hpp"
#include "api/errors_user.hpp"
#include "api/handles.hpp"
#include "device/comm.hpp"
#include "device/device.hpp"

namespace ch4lite::api {

namespace {

constexpr int detail_base = 0x2000;
constexpr int ring_slots = 128;
char g_ring[ring_slots][MPI_MAX_ERROR_STRING];
int g_ring_class[ring_slots];
unsigned g_next_slot = 0;

const char* class_text(int cls) noexcept {
    static const char* const texts[] = {
        "no error",                                       // 0
        "invalid buffer pointer",                         // MPI_ERR_BUFFER
        "invalid count argument",                         // MPI_ERR_COUNT
        "invalid datatype",                               // MPI_ERR_TYPE
        "invalid tag",                                    // MPI_ERR_TAG
        "invalid communicator",                           // MPI_ERR_COMM
        "invalid rank",                                   // MPI_ERR_RANK
        "invalid request",                                // MPI_ERR_REQUEST
        "invalid root",                                   // MPI_ERR_ROOT
        "invalid group",                                  // MPI_ERR_GROUP
        "invalid operation",                              // MPI_ERR_OP
        "invalid topology",                               // MPI_ERR_TOPOLOGY
        "invalid dimension argument",                     // MPI_ERR_DIMS
        "invalid argument",                               // MPI_ERR_ARG
        "unknown error",                                  // MPI_ERR_UNKNOWN
        "message truncated",                              // MPI_ERR_TRUNCATE
        "other error",                                    // MPI_ERR_OTHER
        "internal error",                                 // MPI_ERR_INTERN
        "pending request",                                // MPI_ERR_PENDING
        "error code is in status",                        // MPI_ERR_IN_STATUS
        "permission denied",                              // MPI_ERR_ACCESS
        "invalid amode",                                  // MPI_ERR_AMODE
        "invalid assert argument",                        // MPI_ERR_ASSERT
        "invalid file name",                              // MPI_ERR_BAD_FILE
        "invalid base",                                   // MPI_ERR_BASE
        "data conversion error",                          // MPI_ERR_CONVERSION
        "invalid displacement",                           // MPI_ERR_DISP
        "data representation already defined",           // MPI_ERR_DUP_DATAREP
        "file exists",                                    // MPI_ERR_FILE_EXISTS
        "file in use",                                    // MPI_ERR_FILE_IN_USE
        "invalid file",                                   // MPI_ERR_FILE
        "invalid info key",                               // MPI_ERR_INFO_KEY
        "info key not defined",                           // MPI_ERR_INFO_NOKEY
        "invalid info value",                             // MPI_ERR_INFO_VALUE
        "invalid info object",                            // MPI_ERR_INFO
        "I/O error",                                      // MPI_ERR_IO
        "invalid keyval",                                 // MPI_ERR_KEYVAL
        "invalid lock type",                              // MPI_ERR_LOCKTYPE
        "name not found",                                 // MPI_ERR_NAME
        "out of memory",                                  // MPI_ERR_NO_MEM
        "collective argument not identical on all processes",  // MPI_ERR_NOT_SAME
        "no space left",                                  // MPI_ERR_NO_SPACE
        "no such file",                                   // MPI_ERR_NO_SUCH_FILE
        "invalid port",                                   // MPI_ERR_PORT
        "quota exceeded",                                 // MPI_ERR_QUOTA
        "read-only file",                                 // MPI_ERR_READ_ONLY
        "RMA attach error",                               // MPI_ERR_RMA_ATTACH
        "conflicting RMA accesses",                       // MPI_ERR_RMA_CONFLICT
        "RMA target out of range",                        // MPI_ERR_RMA_RANGE
        "RMA shared-memory error",                        // MPI_ERR_RMA_SHARED
        "RMA synchronization error",                      // MPI_ERR_RMA_SYNC
        "service error",                                  // MPI_ERR_SERVICE
        "invalid size",                                   // MPI_ERR_SIZE
        "spawn error",                                    // MPI_ERR_SPAWN
        "unsupported data representation",                // MPI_ERR_UNSUPPORTED_DATAREP
        "unsupported operation",                          // MPI_ERR_UNSUPPORTED_OPERATION
        "invalid window",                                 // MPI_ERR_WIN
        "invalid RMA window flavor",                      // MPI_ERR_RMA_FLAVOR
        "process aborted",                                // MPI_ERR_PROC_ABORTED
        "value too large",                                // MPI_ERR_VALUE_TOO_LARGE
        "invalid session",                                // MPI_ERR_SESSION
        "invalid error handler",                          // MPI_ERR_ERRHANDLER
        "ABI error",                                      // MPI_ERR_ABI
    };
    if (cls >= 0 && cls < static_cast<int>(sizeof texts / sizeof texts[0])) return texts[cls];
    if (cls >= MPI_T_ERR_CANNOT_INIT && cls <= MPI_T_ERR_PVAR_NO_ATOMIC) return "MPI_T error";
    return nullptr;
}

}  // namespace

int error_code(int cls, const char* func, const char* fmt, ...) noexcept {
    const unsigned slot = g_next_slot++ % ring_slots;
    char* out = g_ring[slot];
    int n = std::snprintf(out, MPI_MAX_ERROR_STRING, "%s: ", func);
    if (n < 0) n = 0;
    va_list ap;
    va_start(ap, fmt);
    if (n < MPI_MAX_ERROR_STRING) std::vsnprintf(out + n, MPI_MAX_ERROR_STRING - n, fmt, ap);
    va_end(ap);
    g_ring_class[slot] = cls;
    return detail_base | static_cast<int>(slot << 6) | cls;
}

int class_of(int code) noexcept {
    if (code >= detail_base && code <= MPI_ERR_LASTCODE) return code & 63;
    if (code > MPI_ERR_LASTCODE) return user_class_of(code);
    return code;
}

bool valid_code(int code) noexcept {
    if (code >= detail_base && code <= MPI_ERR_LASTCODE) return true;
    if (code > MPI_ERR_LASTCODE) return user_code_valid(code);
    return class_text(code) != nullptr;
}

const char* text_of(int code) noexcept {
    if (code > MPI_ERR_LASTCODE) return user_text_of(code);
    if (code >= detail_base && code <= MPI_ERR_LASTCODE) {
        const unsigned slot = static_cast<unsigned>(code - detail_base) >> 6;
        if (g_ring_class[slot] == (code & 63)) return g_ring[slot];
        return class_text(code & 63);
    }
    const char* t = class_text(code);
    return t ? t : "unknown error code";
}

int class_of(status s) noexcept {
    switch (s) {
        case status::ok:
        case status::in_progress: return MPI_SUCCESS;
        case status::again: return MPI_ERR_OTHER;
        case status::no_mem: return MPI_ERR_NO_MEM;
        case status::exhausted: return MPI_ERR_OTHER;
        case status::unsupported: return MPI_ERR_UNSUPPORTED_OPERATION;
        case status::truncated: return MPI_ERR_TRUNCATE;
        case status::invalid: return MPI_ERR_ARG;
        case status::range: return MPI_ERR_RMA_RANGE;
        case status::io: return MPI_ERR_OTHER;
        case status::proc_failed: return MPI_ERR_PROC_ABORTED;
        case status::intern: return MPI_ERR_INTERN;
    }
    return MPI_ERR_UNKNOWN;
}

int raise(MPI_Comm comm, int code) noexcept {
    dev::comm* c = is_initialized() ? lookup_comm(comm) : nullptr;
    if (!c && is_initialized()) c = &dev::comm_self();
    // No MPI_COMM_SELF (before MPI_Init, after MPI_Finalize): the initial
    // error handler, on no object.
    if (!c) {
        run_errhandler(initial_errhandler(), nullptr, false, code);
        return code;
    }
    MPI_Comm target = reinterpret_cast<MPI_Comm>(c->handle);
    run_errhandler(c->errhandler, &target, false, code);
    return code;
}

int raise_self(int code) noexcept { return raise(MPI_COMM_SELF, code); }


int require_init(const char* func) noexcept {
    const int code = error_code(MPI_ERR_OTHER, func, "%s",
                                dev::g_dev.finalized ? "called after MPI_Finalize"
                                                     : "called before MPI_Init");
    run_errhandler(initial_errhandler(), nullptr, false, code);
    return code;
}

}  // namespace ch4lite::api
