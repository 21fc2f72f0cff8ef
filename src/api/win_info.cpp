// SPDX-License-Identifier: MIT
// MPI_Win_set_info, MPI_Win_get_info and the window hints ch4lite uses
// (docs/parameters.md, "Info hints"):
//   accumulate_ordering  "none": an accumulate on a node peer's memory may
//                        be done at the call although earlier operations to
//                        that target wait in a fence epoch's queue (MPI
//                        orders accumulates only among themselves);
//                        default "rar,raw,war,waw" keeps them in order, and
//                        so does any other list of rar, raw, war, waw (more
//                        order than asked); get_info reports the list given.
//   same_size, same_disp_unit  "true"/"false": accepted and reported (every
//                        member's size and unit are exchanged anyway).
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
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "api/info_obj.hpp"
#include "api/win_common.hpp"

using namespace ch4lite;

namespace ch4lite::api {

namespace {

// "none", or a comma-separated list of distinct rar, raw, war, waw.
bool valid_ordering(const std::string& v) noexcept {
    if (v == "none") return true;
    std::size_t pos = 0;
    unsigned seen = 0;
    static const char* const names[] = {"rar", "raw", "war", "waw"};
    while (pos <= v.size()) {
        const std::size_t end = std::min(v.find(',', pos), v.size());
        const std::string item = v.substr(pos, end - pos);
        unsigned bit = 0;
        for (unsigned i = 0; i < 4; ++i)
            if (item == names[i]) bit = 1u << i;
        if (!bit || (seen & bit)) return false;
        seen |= bit;
        pos = end + 1;
    }
    return true;
}

uint8_t tristate(const std::string& v, uint8_t old) noexcept {
    return v == "true" ? 2 : v == "false" ? 1 : old;
}

}  // namespace

void win_hints(rma::win& w, MPI_Info info) noexcept {
    std::string v;
    if (info_get(info, "no_locks", v)) w.hint_no_locks = v == "true";
    if (info_get(info, "accumulate_ordering", v) && valid_ordering(v)) {
        w.hint_acc_unordered = v == "none";
        try {
            w.hint_acc_order = v;
        } catch (...) {
            w.hint_acc_order.clear();  // reported as the default, which is what applies
            w.hint_acc_unordered = false;
        }
    }
    if (info_get(info, "accumulate_ops", v)) w.hint_same_op = v == "same_op";
    if (info_get(info, "same_size", v)) w.hint_same_size = tristate(v, w.hint_same_size);
    if (info_get(info, "same_disp_unit", v)) w.hint_same_disp = tristate(v, w.hint_same_disp);
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Win_set_info)
int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
    CH4_API_LOCK();
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
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    rma::win* w = api::lookup_win(win);
    if (!w) CH4_FAIL_SELF(MPI_ERR_WIN, "invalid window");
    if (!info_used) CH4_FAIL_WIN(win, MPI_ERR_ARG, "info_used (output) is NULL");
    std::vector<std::pair<std::string, std::string>> kv;
    try {
        kv.emplace_back("no_locks", w->hint_no_locks ? "true" : "false");
        kv.emplace_back("accumulate_ordering",
                        w->hint_acc_order.empty() ? "rar,raw,war,waw" : w->hint_acc_order);
        kv.emplace_back("accumulate_ops", w->hint_same_op ? "same_op" : "same_op_no_op");
        if (w->hint_same_size) kv.emplace_back("same_size", w->hint_same_size == 2 ? "true" : "false");
        if (w->hint_same_disp)
            kv.emplace_back("same_disp_unit", w->hint_same_disp == 2 ? "true" : "false");
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
