// SPDX-License-Identifier: MIT
// MPI_Group_size / rank / translate_ranks / compare / free / toint / fromint.
#include "api/errors.hpp"
#include "api/group_handles.hpp"

using namespace ch4lite;

namespace {
#define GROUP_FAIL(cls, ...) return api::raise_self(api::error_code((cls), __func__, __VA_ARGS__))
}

extern "C" {

CH4_PMPI(MPI_Group_size)
int MPI_Group_size(MPI_Group group, int* size) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::group* g = api::lookup_group(group);
    if (!g) GROUP_FAIL(MPI_ERR_GROUP, "invalid group");
    if (!size) GROUP_FAIL(MPI_ERR_ARG, "size (output) is NULL");
    *size = g->size();
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Group_rank)
int MPI_Group_rank(MPI_Group group, int* rank) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::group* g = api::lookup_group(group);
    if (!g) GROUP_FAIL(MPI_ERR_GROUP, "invalid group");
    if (!rank) GROUP_FAIL(MPI_ERR_ARG, "rank (output) is NULL");
    *rank = g->my_rank() >= 0 ? g->my_rank() : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Group_translate_ranks)
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::group* a = api::lookup_group(group1);
    const dev::group* b = api::lookup_group(group2);
    if (!a) GROUP_FAIL(MPI_ERR_GROUP, "invalid group1");
    if (!b) GROUP_FAIL(MPI_ERR_GROUP, "invalid group2");
    if (n < 0) GROUP_FAIL(MPI_ERR_ARG, "invalid n %d: must be >= 0", n);
    if (n > 0 && (!ranks1 || !ranks2)) GROUP_FAIL(MPI_ERR_ARG, "ranks1 or ranks2 is NULL");
    for (int i = 0; i < n; ++i)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size()))
            GROUP_FAIL(MPI_ERR_RANK, "invalid ranks1[%d] = %d: must be in [0, %d) or MPI_PROC_NULL",
                       i, ranks1[i], a->size());
    for (int i = 0; i < n; ++i) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        const int r = b->rank_of(a->lpid(ranks1[i]));
        ranks2[i] = r >= 0 ? r : MPI_UNDEFINED;
    }
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Group_compare)
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    const dev::group* a = api::lookup_group(group1);
    const dev::group* b = api::lookup_group(group2);
    if (!a) GROUP_FAIL(MPI_ERR_GROUP, "invalid group1");
    if (!b) GROUP_FAIL(MPI_ERR_GROUP, "invalid group2");
    if (!result) GROUP_FAIL(MPI_ERR_ARG, "result (output) is NULL");
    *result = dev::group_compare(*a, *b);
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Group_free)
int MPI_Group_free(MPI_Group* group) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!group) GROUP_FAIL(MPI_ERR_ARG, "group is NULL");
    if (!api::lookup_group(*group)) GROUP_FAIL(MPI_ERR_GROUP, "invalid group");
    api::release_group(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Group_toint)
int MPI_Group_toint(MPI_Group group) { CH4_API_LOCK(); return static_cast<int>(reinterpret_cast<uintptr_t>(group)); }
CH4_PMPI(MPI_Group_fromint)
MPI_Group MPI_Group_fromint(int group) {
    CH4_API_LOCK();
    return reinterpret_cast<MPI_Group>(static_cast<uintptr_t>(static_cast<unsigned>(group)));
}

}  // extern "C"
