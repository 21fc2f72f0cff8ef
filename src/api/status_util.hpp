// SPDX-License-Identifier: MIT
// Our use of MPI_Status's five implementation slots:
//   MPI_internal[0], [1]  received byte count (int64, low and high 32 bits)
//   MPI_internal[2]       cancelled flag
// Get_count / Get_elements / Test_cancelled / Status_set_* read and write them.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace ch4lite::api {

inline int64_t status_bytes(const MPI_Status* s) noexcept {
    return static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint32_t>(s->MPI_internal[0])) |
                                (static_cast<uint64_t>(static_cast<uint32_t>(s->MPI_internal[1])) << 32));
}
inline void set_status_bytes(MPI_Status* s, int64_t bytes) noexcept {
    s->MPI_internal[0] = static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(bytes)));
    s->MPI_internal[1] = static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(bytes) >> 32));
}
inline bool status_cancelled(const MPI_Status* s) noexcept { return s->MPI_internal[2] != 0; }
inline void set_status_cancelled(MPI_Status* s, bool c) noexcept { s->MPI_internal[2] = c ? 1 : 0; }

// Fills a status for an empty / PROC_NULL completion (MPI 3.7.3). Not its
// MPI_ERROR: calls that return one status leave that field alone (MPI-4.1
// 3.2.5; MPICH and Open MPI do not touch it either); the calls that return
// several set it themselves.
inline void set_status_empty(MPI_Status* s) noexcept {
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    set_status_bytes(s, 0);
    set_status_cancelled(s, false);
}

}  // namespace ch4lite::api
