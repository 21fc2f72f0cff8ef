// SPDX-License-Identifier: MIT
// Intercommunicators: MPI_Intercomm_create(_from_groups), MPI_Intercomm_merge,
// MPI_Comm_remote_size / remote_group, and MPI_Comm_create_group (which
// shares their parentless agreement, device/group_comm.hpp). The device
// builds them (device/intercomm.hpp); here: checks and handles.
#include <cstring>

#include "api/comm_util.hpp"
#include "api/errhandler.hpp"
#include "api/group_handles.hpp"
#include "api/handles.hpp"
#include "api/info_obj.hpp"
#include "device/comm_create.hpp"
#include "device/device.hpp"
#include "device/group_comm.hpp"
#include "device/intercomm.hpp"

using namespace ch4lite;

namespace {

// A failed intercommunicator creation. invalid: the groups overlap; range:
// the local leader could not name the remote leader (its peer arguments).
int inter_failed(const char* fn, MPI_Comm comm, status s) noexcept {
    if (s == status::invalid)
        CH4_FAIL_IN(fn, comm, MPI_ERR_GROUP,
                    "the local and remote groups overlap: an intercommunicator needs disjoint "
                    "groups");
    if (s == status::range)
        CH4_FAIL_IN(fn, comm, MPI_ERR_ARG,
                    "the local leader's peer_comm or remote_leader is invalid: no remote group");
    return api::creation_failed(fn, comm, s);
}

int check_tag(const char* fn, MPI_Comm comm, int tag) noexcept {
    if (tag < 0 || tag > dev::tag_ub)
        CH4_FAIL_IN(fn, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d] (no wildcard)", tag,
                    dev::tag_ub);
    return MPI_SUCCESS;
}

// The stringtag of MPI_Intercomm_create_from_groups as a tag (FNV-1a).
int tag_of(const char* s) noexcept {
    uint32_t h = 2166136261u;
    for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 16777619u;
    return static_cast<int>(h & static_cast<uint32_t>(dev::tag_ub));
}

dev::comm* inter_of(MPI_Comm comm) noexcept {
    dev::comm* c = api::lookup_comm(comm);
    return c && c->is_inter() ? c : nullptr;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Intercomm_create)
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm* newintercomm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    MPI_Comm comm = local_comm;
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid local_comm");
    if (c->is_inter()) CH4_FAIL(comm, MPI_ERR_COMM, "local_comm is an intercommunicator");
    if (local_leader < 0 || local_leader >= c->size)
        CH4_FAIL(comm, MPI_ERR_RANK, "invalid local_leader %d: must be in [0, %d)", local_leader,
                 c->size);
    if (const int rc = check_tag(__func__, comm, tag)) return rc;
    if (!newintercomm) CH4_FAIL(comm, MPI_ERR_ARG, "newintercomm (output) is NULL");
    // peer_comm and remote_leader matter at the local leader only. When they
    // are bad it tells its group (which fails too) and reports them here.
    dev::leader_link link{dev::ctx_intercomm_leaders, -1, tag};
    int leader_rc = MPI_SUCCESS;
    if (c->rank == local_leader) {
        dev::comm* p = api::lookup_comm(peer_comm);
        if (!p)
            leader_rc = api::error_code(MPI_ERR_COMM, __func__, "invalid peer_comm (at the local leader)");
        else if (remote_leader < 0 || remote_leader >= p->size)
            leader_rc = api::error_code(MPI_ERR_RANK, __func__,
                                        "invalid remote_leader %d: must be a rank of peer_comm "
                                        "[0, %d)",
                                        remote_leader, p->size);
        else {
            link.remote_lpid = p->lpid(remote_leader);
            if (!p->is_inter()) {
                link.peer = p;
                link.remote_rank = remote_leader;
            }
        }
    }
    dev::comm* out = nullptr;
    const status s = dev::intercomm_create(*c, local_leader, link, c->errhandler, out);
    if (leader_rc != MPI_SUCCESS) return api::raise(comm, leader_rc);
    if (s != status::ok) return inter_failed(__func__, comm, s);
    api::hand_out(out, newintercomm);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Intercomm_create_from_groups)
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                     MPI_Group remote_group, int remote_leader,
                                     const char* stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::group* lg = api::lookup_group(local_group);
    const dev::group* rg = api::lookup_group(remote_group);
    if (!lg || !rg) CH4_FAIL_SELF(MPI_ERR_GROUP, "invalid %s", !lg ? "local_group" : "remote_group");
    if (lg->my_rank() < 0)
        CH4_FAIL_SELF(MPI_ERR_GROUP, "the calling process is not a member of local_group");
    if (local_leader < 0 || local_leader >= lg->size())
        CH4_FAIL_SELF(MPI_ERR_RANK, "invalid local_leader %d: must be in [0, %d)", local_leader,
                      lg->size());
    if (remote_leader < 0 || remote_leader >= rg->size())
        CH4_FAIL_SELF(MPI_ERR_RANK, "invalid remote_leader %d: must be in [0, %d)", remote_leader,
                      rg->size());
    if (!stringtag) CH4_FAIL_SELF(MPI_ERR_ARG, "stringtag is NULL");
    if (!api::info_is_valid(info))
        CH4_FAIL_SELF(MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    const api::errhandler_obj* eo = api::lookup_errhandler(errhandler);
    if (!api::errhandler_valid(errhandler) || (eo && eo->k != api::errhandler_obj::kind::comm))
        CH4_FAIL_SELF(MPI_ERR_ARG, "invalid errhandler: a communicator error handler is needed");
    if (!newintercomm) CH4_FAIL_SELF(MPI_ERR_ARG, "newintercomm (output) is NULL");
    for (int r = 0; r < rg->size(); ++r)
        if (lg->rank_of(rg->lpid(r)) >= 0)
            CH4_FAIL_SELF(MPI_ERR_GROUP,
                          "the local and remote groups overlap (world rank %d is in both): an "
                          "intercommunicator needs disjoint groups",
                          rg->lpid(r));
    // The local group's own communicator first (agreed among its members
    // only), then the usual construction over it; then it goes.
    const int tag = tag_of(stringtag);
    dev::comm* local = nullptr;
    if (const status s = dev::comm_create_group(*lg, tag, dev::ctx_groups_members, errhandler, local);
        s != status::ok)
        return inter_failed(__func__, MPI_COMM_SELF, s);
    const dev::leader_link link{dev::ctx_groups_leaders, rg->lpid(remote_leader), tag};
    dev::comm* out = nullptr;
    const status s = dev::intercomm_create(*local, local_leader, link, errhandler, out);
    dev::comm_release(local);
    if (s != status::ok) return inter_failed(__func__, MPI_COMM_SELF, s);
    api::hand_out(out, newintercomm);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Intercomm_merge)
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    MPI_Comm comm = intercomm;
    if (!api::lookup_comm(comm)) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    dev::comm* c = inter_of(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "intercomm is an intracommunicator");
    if (!newintracomm) CH4_FAIL(comm, MPI_ERR_ARG, "newintracomm (output) is NULL");
    dev::comm* out = nullptr;
    if (const status s = dev::intercomm_merge(*c, high != 0, out); s != status::ok)
        return api::creation_failed(__func__, comm, s);
    api::hand_out(out, newintracomm);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_remote_size)
int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!api::lookup_comm(comm)) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    const dev::comm* c = inter_of(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "not an intercommunicator: it has no remote group");
    if (!size) CH4_FAIL(comm, MPI_ERR_ARG, "size (output) is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_remote_group)
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!api::lookup_comm(comm)) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    const dev::comm* c = inter_of(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "not an intercommunicator: it has no remote group");
    if (!group) CH4_FAIL(comm, MPI_ERR_ARG, "group (output) is NULL");
    MPI_Group h = MPI_GROUP_NULL;
    try {
        h = api::new_group_handle(dev::comm_remote_group(*c));
    } catch (const std::bad_alloc&) {
    }
    if (h == MPI_GROUP_NULL) CH4_FAIL(comm, MPI_ERR_NO_MEM, "out of memory or group handles");
    *group = h;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_create_group)
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (c->is_inter()) CH4_FAIL(comm, MPI_ERR_COMM, "comm is an intercommunicator");
    const dev::group* g = api::lookup_group(group);
    if (!g) CH4_FAIL(comm, MPI_ERR_GROUP, "invalid group");
    if (const int rc = check_tag(__func__, comm, tag)) return rc;
    if (!newcomm) CH4_FAIL(comm, MPI_ERR_ARG, "newcomm (output) is NULL");
    for (int r = 0; r < g->size(); ++r)
        if (c->map.rank_of(g->lpid(r)) < 0)
            CH4_FAIL(comm, MPI_ERR_GROUP,
                     "group rank %d (world rank %d) is not a member of the communicator", r,
                     g->lpid(r));
    // Collective over the group only: a process outside it (MPI_GROUP_EMPTY
    // included) gets MPI_COMM_NULL at once.
    if (g->my_rank() < 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    dev::comm* out = nullptr;
    if (const status s = dev::comm_create_group(*g, tag, dev::ctx_create_group, c->errhandler, out);
        s != status::ok)
        return api::creation_failed(__func__, comm, s);
    api::hand_out(out, newcomm);
    return MPI_SUCCESS;
}

}  // extern "C"
