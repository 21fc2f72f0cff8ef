// SPDX-License-Identifier: MIT
#include "binding.hpp"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

namespace ch4lite::launch {

std::vector<cpu_set_t> allowed_cores(std::string& error) {
    std::vector<cpu_set_t> cores;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        error = "hwloc_topology_init failed";
        return cores;
    }
    if (hwloc_topology_load(topo) != 0) {
        error = "hwloc_topology_load failed";
        hwloc_topology_destroy(topo);
        return cores;
    }
    // hwloc 2 keeps only what our affinity mask allows; intersect again in
    // case the topology was loaded from elsewhere (HWLOC_XMLFILE).
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) != 0)
        hwloc_bitmap_copy(mine, hwloc_topology_get_allowed_cpuset(topo));
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                                                : HWLOC_OBJ_PU;
    for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, nullptr); o;
         o = hwloc_get_next_obj_by_type(topo, type, o)) {
        hwloc_bitmap_and(set, o->cpuset, mine);
        if (hwloc_bitmap_iszero(set)) continue;
        cpu_set_t cs;
        CPU_ZERO(&cs);
        hwloc_cpuset_to_glibc_sched_affinity(topo, set, &cs, sizeof cs);
        if (CPU_COUNT(&cs) > 0) cores.push_back(cs);
    }
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(mine);
    hwloc_topology_destroy(topo);
    if (cores.empty()) error = "no usable core in this process's CPU affinity";
    return cores;
}

std::string cpu_list(const cpu_set_t& set) {
    std::string s;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (!CPU_ISSET(c, &set)) continue;
        if (!s.empty()) s += ',';
        s += std::to_string(c);
    }
    return s;
}

}  // namespace ch4lite::launch
