// SPDX-License-Identifier: MIT
// MPI_Win_set_info, MPI_Win_get_info and the window hints ch4lite uses
// (docs/parameters.md, "Info hints"):
//   accumulate_ordering  "none": an accumulate on a node peer's memory may
//                        be done at the call although earlier operations to
//                        that target wait in a fence epoch's queue (MPI
//                        orders accumulates only among themselves);
//                        default "rar,raw,war,waw" keeps them in order.
//   accumulate_ops       "same_op_no_op" (default): a MPI_NO_OP read of one
//                        aligned element of 1-8 bytes on a mapped node peer
//                        is one atomic load, without the accumulate lock;
//                        "same_op": no such read can race, it takes the lock.
//   no_locks             "true": the window is never locked. Accepted and
//                        reported; nothing in ch4lite costs anything for a
//                        window nobody locks, so there is nothing to skip.
//   alloc_shared_noncontig  read by MPI_Win_allocate_shared (win_create.cpp).
// Other keys are ignored, as the standard allows; get_info reports the
// hints in effect, with their defaults.
#include <string>
#include <utility>
#include <vector>

#include "api/info_obj.hpp"
#include "api/win_common.hpp"

using namespace ch4lite;

namespace ch4lite::api {

void win_hints(rma::win& w, MPI_Info info) noexcept {
    std::string v;
    if (info_get(info, "no_locks", v)) w.hint_no_locks = v == "true";
    if (info_get(info, "accumulate_ordering", v)) w.hint_acc_unordered = v == "none";
    if (info_get(info, "accumulate_ops", v)) w.hint_same_op = v == "same_op";
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Win_set_info)
int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!api::info_is_valid(info))
        CH4_FAIL_WIN(win, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    api::win_hints(*w, info);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Win_get_info)
int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!info_used) CH4_FAIL_WIN(win, MPI_ERR_ARG, "info_used (output) is NULL");
    std::vector<std::pair<std::string, std::string>> kv;
    try {
        kv.emplace_back("no_locks", w->hint_no_locks ? "true" : "false");
        kv.emplace_back("accumulate_ordering", w->hint_acc_unordered ? "none" : "rar,raw,war,waw");
        kv.emplace_back("accumulate_ops", w->hint_same_op ? "same_op" : "same_op_no_op");
        if (w->fl == rma::flavor::shared)
            kv.emplace_back("alloc_shared_noncontig", w->hint_noncontig ? "true" : "false");
    } catch (...) {
        CH4_FAIL_WIN(win, MPI_ERR_NO_MEM, "out of memory building the info object");
    }
    const MPI_Info out = api::info_make(std::move(kv));
    if (out == MPI_INFO_NULL) CH4_FAIL_WIN(win, MPI_ERR_NO_MEM, "out of memory or info handles");
    *info_used = out;
    return MPI_SUCCESS;
}

}  // extern "C"
