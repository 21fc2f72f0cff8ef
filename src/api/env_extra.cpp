// SPDX-License-Identifier: MIT
// MPI_Pcontrol (MPI-4.1 §15.2.4) and MPI_Get_hw_resource_info (MPI-4.1
// §11.2).
//
// MPI_Pcontrol is for profiling tools: the library itself does nothing with
// the level (a tool's MPI_Pcontrol wrapper sees the call through the
// profiling interface).
//
// MPI_Get_hw_resource_info returns a new info object with one key per
// hardware resource type hwloc knows on this machine, in the URI form that
// MPI_COMM_TYPE_RESOURCE_GUIDED takes ("hwloc://Package", "hwloc://Core",
// ...), whose value is "true" when the calling process, as it is bound at
// the moment of the call, runs within a single instance of that type and
// "false" when its binding spans several (MPI-5.0 §9.1.2 states the form;
// MPI-4.1 leaves the keys to the implementation).
#include <hwloc.h>

#include <string>
#include <utility>
#include <vector>

#include "api/errors.hpp"
#include "api/info_obj.hpp"

using namespace ch4lite;

namespace {

using kv_list = std::vector<std::pair<std::string, std::string>>;

// The keys, from this moment's binding; empty when hwloc cannot tell.
kv_list hw_resources() {
    kv_list kv;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return kv;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_bitmap_t set = nullptr;
    if (hwloc_topology_load(topo) == 0 && (set = hwloc_bitmap_alloc()) &&
        hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set)) {
        static constexpr hwloc_obj_type_t types[] = {
            HWLOC_OBJ_MACHINE, HWLOC_OBJ_PACKAGE, HWLOC_OBJ_DIE,     HWLOC_OBJ_NUMANODE,
            HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_CORE,
            HWLOC_OBJ_PU};
        for (hwloc_obj_type_t t : types) {
            const int n = hwloc_get_nbobjs_by_type(topo, t);
            if (n <= 0) continue;
            int touched = 0;  // instances the binding reaches
            for (int i = 0; i < n; ++i) {
                hwloc_obj_t o = hwloc_get_obj_by_type(topo, t, static_cast<unsigned>(i));
                if (o && o->cpuset && hwloc_bitmap_intersects(o->cpuset, set)) ++touched;
            }
            kv.emplace_back(std::string("hwloc://") + hwloc_obj_type_string(t),
                            touched == 1 ? "true" : "false");
        }
    }
    if (set) hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    return kv;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Pcontrol)
int MPI_Pcontrol(const int level, ...) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    (void)level;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Get_hw_resource_info)
int MPI_Get_hw_resource_info(MPI_Info* hw_info) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!hw_info) CH4_FAIL_SELF(MPI_ERR_ARG, "hw_info (output) is NULL");
    kv_list kv;
    try {
        kv = hw_resources();
    } catch (...) {
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot build the hardware resource list");
    }
    const MPI_Info out = api::info_make(std::move(kv));
    if (out == MPI_INFO_NULL) CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot create the info object");
    *hw_info = out;
    return MPI_SUCCESS;
}

}  // extern "C"
