// SPDX-License-Identifier: MIT
// Internal status codes. Every fallible internal function returns one; only
// src/api/ turns them into MPI error classes (see api/errors.cpp).
#pragma once

namespace ch4lite {

enum class [[nodiscard]] status : int {
    ok = 0,
    in_progress,   // started, completes later through progress
    again,         // back-pressure: retry after progress
    no_mem,        // a pool or the heap is exhausted
    exhausted,     // a collective creation failed everywhere: no context id free on
                   // every process, or another member ran out of memory
    unsupported,   // the layer does not implement this
    truncated,     // message longer than the receive buffer
    invalid,       // bad argument detected below the API
    range,         // value out of range (e.g. RMA displacement)
    io,            // a system call or the fabric failed
    proc_failed,   // a peer or the launcher went away
    intern,        // an invariant broke
};

constexpr bool failed(status s) noexcept {
    return s != status::ok && s != status::in_progress;
}

const char* to_string(status s) noexcept;

}  // namespace ch4lite
