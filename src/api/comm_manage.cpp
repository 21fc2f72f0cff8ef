// SPDX-License-Identifier: MIT
// MPI_Comm_dup(_with_info) / split / split_type / create / free /
// disconnect / compare / test_inter, for intra- and intercommunicators. The device builds
// communicators (device/comm_create.hpp, device/intercomm.hpp); here:
// checks, error-handler references and attribute callbacks.
#include "api/bsend.hpp"
#include "api/comm_attr.hpp"
#include "api/comm_util.hpp"
#include "api/errhandler.hpp"
#include "api/errors.hpp"
#include "api/group_handles.hpp"
#include "api/handles.hpp"
#include "api/info_obj.hpp"
#include "device/comm_create.hpp"
#include "device/device.hpp"
#include "device/intercomm.hpp"

using namespace ch4lite;

namespace ch4lite::api {

int creation_failed(const char* fn, MPI_Comm comm, status s) noexcept {
    if (s == status::no_mem)
        return api::raise(comm, api::error_code(MPI_ERR_NO_MEM, fn,
                                                "out of memory creating the communicator (every "
                                                "process of the parent fails this call)"));
    if (s == status::exhausted)
        return api::raise(comm, api::error_code(MPI_ERR_OTHER, fn,
                                                "cannot create a communicator: no context id is "
                                                "free on every process, or another process ran "
                                                "out of memory"));
    return api::raise(comm, api::error_code(api::class_of(s), fn,
                                            "communicator creation failed: %s", to_string(s)));
}

void hand_out(dev::comm* c, MPI_Comm* newcomm) noexcept {
    if (!c) {
        *newcomm = MPI_COMM_NULL;
        return;
    }
    api::errhandler_retain(c->errhandler);
    *newcomm = reinterpret_cast<MPI_Comm>(c->handle);
}

}  // namespace ch4lite::api

namespace {

using api::creation_failed;
using api::hand_out;

int dup(const char* fn, MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, bool with_info) noexcept {
    CH4_REQUIRE_INIT_IN(fn);
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(fn, comm, MPI_ERR_COMM, "invalid communicator");
    if (!api::info_is_valid(info))
        CH4_FAIL_IN(fn, comm, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    if (!newcomm) CH4_FAIL_IN(fn, comm, MPI_ERR_ARG, "newcomm (output) is NULL");
    dev::comm* out = nullptr;
    if (const status s = dev::comm_dup(*c, out); s != status::ok) return creation_failed(fn, comm, s);
    hand_out(out, newcomm);
    api::comm_hints_dup(*c, *out, info, with_info);
    if (const int rc = api::attrs_copy(fn, comm, *c, *out); rc != MPI_SUCCESS) {
        api::errhandler_release(out->errhandler);
        dev::comm_release(out);
        *newcomm = MPI_COMM_NULL;
        return api::raise(comm, rc);
    }
    return MPI_SUCCESS;
}

// What MPI_Comm_free and MPI_Comm_disconnect do once comm is known valid
// and not predefined: delete callbacks, then the handle.
int free_comm(const char* fn, MPI_Comm* comm, dev::comm& c) noexcept {
    if (const int rc = api::attrs_delete_all(fn, *comm, c); rc != MPI_SUCCESS) return api::raise(*comm, rc);
    api::bsend_comm_freed(*comm);  // its attached buffer, if any, is detached
    api::errhandler_release(c.errhandler);
    dev::comm_release(&c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Comm_dup)
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
    CH4_API_LOCK();
    return dup(__func__, comm, MPI_INFO_NULL, newcomm, false);
}

CH4_PMPI(MPI_Comm_dup_with_info)
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
    CH4_API_LOCK();
    // the hints in info replace those of comm (api/comm_info.cpp)
    return dup(__func__, comm, info, newcomm, true);
}

CH4_PMPI(MPI_Comm_split)
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!newcomm) CH4_FAIL(comm, MPI_ERR_ARG, "newcomm (output) is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        CH4_FAIL(comm, MPI_ERR_ARG, "invalid color %d: must be >= 0 or MPI_UNDEFINED", color);
    dev::comm* out = nullptr;
    const status s = c->is_inter() ? dev::intercomm_split(*c, color, key, out)
                                   : dev::comm_split(*c, color, key, out);
    if (s != status::ok) return creation_failed(__func__, comm, s);
    hand_out(out, newcomm);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_split_type)
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!api::info_is_valid(info))
        CH4_FAIL(comm, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    if (!newcomm) CH4_FAIL(comm, MPI_ERR_ARG, "newcomm (output) is NULL");
    if (c->is_inter())
        CH4_FAIL(comm, MPI_ERR_COMM, "not supported on an intercommunicator (split it with MPI_Comm_split)");
    int color = MPI_UNDEFINED;
    switch (split_type) {
        case MPI_COMM_TYPE_SHARED: {
            // Same node = same shared memory: the node id is the color.
            const auto& nodes = dev::g_dev.boot.node_of();
            const int me = c->lpid(c->rank);
            color = nodes.empty() ? 0 : nodes[static_cast<std::size_t>(me)];
            break;
        }
        // No hardware-level subdivision below a node is known here: MPI
        // then returns MPI_COMM_NULL (MPI-4.1 §7.4.2).
        case MPI_COMM_TYPE_HW_UNGUIDED:
        case MPI_COMM_TYPE_HW_GUIDED:
        case MPI_COMM_TYPE_RESOURCE_GUIDED:
        case MPI_UNDEFINED: break;
        default:
            CH4_FAIL(comm, MPI_ERR_ARG,
                     "invalid split_type %d: must be MPI_COMM_TYPE_SHARED, a hardware type or "
                     "MPI_UNDEFINED",
                     split_type);
    }
    dev::comm* out = nullptr;
    if (const status s = dev::comm_split(*c, color, key, out); s != status::ok)
        return creation_failed(__func__, comm, s);
    hand_out(out, newcomm);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_create)
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    const dev::group* g = api::lookup_group(group);
    if (!g) CH4_FAIL(comm, MPI_ERR_GROUP, "invalid group");
    if (!newcomm) CH4_FAIL(comm, MPI_ERR_ARG, "newcomm (output) is NULL");
    // On an intercommunicator the group is a subgroup of the local group.
    const dev::rank_map& members = c->is_inter() ? c->inter->local->map : c->map;
    for (int r = 0; r < g->size(); ++r)
        if (members.rank_of(g->lpid(r)) < 0)
            CH4_FAIL(comm, MPI_ERR_GROUP,
                     "group rank %d (world rank %d) is not a member of the communicator%s", r,
                     g->lpid(r), c->is_inter() ? "'s local group" : "");
    dev::comm* out = nullptr;
    const status s =
        c->is_inter() ? dev::intercomm_create_sub(*c, *g, out) : dev::comm_create(*c, *g, out);
    if (s != status::ok) return creation_failed(__func__, comm, s);
    hand_out(out, newcomm);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_free)
int MPI_Comm_free(MPI_Comm* comm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!comm) CH4_FAIL_SELF(MPI_ERR_ARG, "comm is NULL");
    dev::comm* c = api::lookup_comm(*comm);
    if (!c) CH4_FAIL(*comm, MPI_ERR_COMM, "invalid communicator");
    if (c->predefined())
        CH4_FAIL(*comm, MPI_ERR_COMM, "cannot free %s", c->context_id ? "MPI_COMM_SELF" : "MPI_COMM_WORLD");
    return free_comm(__func__, comm, *c);
}

// MPI-4.1 §11.10.4: waits for the pending communication on comm to
// complete, then frees it as MPI_Comm_free does; collective. Allowed on
// every communicator but the predefined ones (as in MPICH and Open MPI),
// not only on those of dynamic processes. The local wait
// (dev::comm_quiesce) completes this process's operations; the barrier
// after it makes the call collective, so when it returns every member has
// completed its operations on comm as well.
CH4_PMPI(MPI_Comm_disconnect)
int MPI_Comm_disconnect(MPI_Comm* comm) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!comm) CH4_FAIL_SELF(MPI_ERR_ARG, "comm is NULL");
    dev::comm* c = api::lookup_comm(*comm);
    if (!c) CH4_FAIL(*comm, MPI_ERR_COMM, "invalid communicator");
    if (c->predefined())
        CH4_FAIL(*comm, MPI_ERR_COMM, "cannot disconnect %s",
                 c->context_id ? "MPI_COMM_SELF" : "MPI_COMM_WORLD");
    dev::comm_quiesce(*c);
    if (const int rc = api::comm_barrier(__func__, *comm); rc != MPI_SUCCESS) return rc;
    return free_comm(__func__, comm, *c);
}

CH4_PMPI(MPI_Comm_compare)
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::comm* a = api::lookup_comm(comm1);
    const dev::comm* b = api::lookup_comm(comm2);
    if (!a) CH4_FAIL(comm1, MPI_ERR_COMM, "invalid comm1");
    if (!b) CH4_FAIL(comm2, MPI_ERR_COMM, "invalid comm2");
    if (!result) CH4_FAIL(comm1, MPI_ERR_ARG, "result (output) is NULL");
    *result = dev::comm_compare(*a, *b);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Comm_test_inter)
int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL(comm, MPI_ERR_COMM, "invalid communicator");
    if (!flag) CH4_FAIL(comm, MPI_ERR_ARG, "flag (output) is NULL");
    *flag = c->is_inter() ? 1 : 0;
    return MPI_SUCCESS;
}

}  // extern "C"
