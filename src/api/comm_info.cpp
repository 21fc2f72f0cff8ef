// SPDX-License-Identifier: MIT
// Communicator info hints: MPI_Comm_set_info, MPI_Comm_get_info and what
// MPI_Comm_dup / MPI_Comm_dup_with_info pass on (MPI-4.1 §7.4.4). The hints
// we understand are the standard's point-to-point assertions
// (mpi_assert_no_any_tag, mpi_assert_no_any_source, mpi_assert_exact_length,
// mpi_assert_allow_overtaking); each is kept as one bit of the communicator
// (dev::comm::hints), and MPI_Comm_get_info reports all four as "true" or
// "false". They are stored and returned only: no path takes a shortcut from
// them yet, which the standard allows (a hint only permits). Other keys are
// ignored, as the standard says (docs/parameters.md, "Info hints").
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "api/errors.hpp"
#include "api/handles.hpp"
#include "api/info_obj.hpp"
#include "device/comm.hpp"

using namespace ch4lite;

namespace {

struct hint_key {
    const char* key;
    uint8_t bit;
};
constexpr hint_key g_keys[] = {
    {"mpi_assert_no_any_tag", 1u << 0},
    {"mpi_assert_no_any_source", 1u << 1},
    {"mpi_assert_exact_length", 1u << 2},
    {"mpi_assert_allow_overtaking", 1u << 3},
};

// Applies the hints of info to `bits` ("true" sets, "false" clears; other
// values and keys are ignored).
uint8_t apply(uint8_t bits, MPI_Info info) noexcept {
    for (const hint_key& k : g_keys) {
        std::string v;
        if (!api::info_get(info, k.key, v)) continue;
        if (v == "true")
            bits = static_cast<uint8_t>(bits | k.bit);
        else if (v == "false")
            bits = static_cast<uint8_t>(bits & ~k.bit);
    }
    return bits;
}

}  // namespace

namespace ch4lite::api {

void comm_hints_dup(const dev::comm& from, dev::comm& to, MPI_Info info, bool with_info) noexcept {
    to.hints = with_info ? apply(0, info) : from.hints;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Comm_set_info)
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!api::info_is_valid(info)) CH4_FAIL(comm, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    c->hints = apply(c->hints, info);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_get_info)
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!info_used) CH4_FAIL(comm, MPI_ERR_ARG, "info_used (output) is NULL");
    std::vector<std::pair<std::string, std::string>> kv;
    try {
        for (const hint_key& k : g_keys) kv.emplace_back(k.key, (c->hints & k.bit) ? "true" : "false");
    } catch (...) {
        CH4_FAIL(comm, MPI_ERR_NO_MEM, "cannot build the info object");
    }
    const MPI_Info out = api::info_make(std::move(kv));
    if (out == MPI_INFO_NULL) CH4_FAIL(comm, MPI_ERR_NO_MEM, "cannot create the info object");
    *info_used = out;
    return MPI_SUCCESS;
}

}  // extern "C"
