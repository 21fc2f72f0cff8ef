// SPDX-License-Identifier: MIT
// MPI_Alloc_mem and MPI_Free_mem (MPI-4.1 §8.2): ordinary process memory,
// aligned to 64 bytes (4 KiB from 4 KiB up, so a window over it covers
// whole pages), or to the info hint mpi_minimum_memory_alignment when it is
// a larger power of two; other hints are ignored. It is usable everywhere
// memory is, an RMA window's included. Each block is recorded, so
// MPI_Free_mem of anything else is MPI_ERR_BASE, not a crash.
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "api/errors.hpp"
#include "api/info_obj.hpp"

using namespace ch4lite;

namespace {

std::unordered_map<void*, std::size_t> g_blocks;

std::size_t alignment_for(MPI_Aint size, MPI_Info info) noexcept {
    std::size_t a = size >= 4096 ? 4096 : 64;
    std::string v;
    if (api::info_get(info, "mpi_minimum_memory_alignment", v)) {
        char* end = nullptr;
        const unsigned long long want = std::strtoull(v.c_str(), &end, 10);
        if (end && *end == '\0' && want > a && want <= (1ull << 30) && (want & (want - 1)) == 0)
            a = static_cast<std::size_t>(want);
    }
    return a;
}

}  // namespace

extern "C" {

CH4_PMPI(MPI_Alloc_mem)
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (size < 0) CH4_FAIL_SELF(MPI_ERR_SIZE, "invalid size %lld: must be >= 0", static_cast<long long>(size));
    if (!baseptr) CH4_FAIL_SELF(MPI_ERR_ARG, "baseptr (output) is NULL");
    if (!api::info_is_valid(info)) CH4_FAIL_SELF(MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    const std::size_t align = alignment_for(size, info);
    void* p = nullptr;
    // Size 0 still gives a distinct block (MPI_Free_mem takes it back).
    const std::size_t n = size > 0 ? static_cast<std::size_t>(size) : 1;
    if (posix_memalign(&p, align, n) != 0 || !p)
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot allocate %lld bytes", static_cast<long long>(size));
    try {
        g_blocks.emplace(p, n);
    } catch (...) {
        std::free(p);
        CH4_FAIL_SELF(MPI_ERR_NO_MEM, "cannot record the %lld-byte block", static_cast<long long>(size));
    }
    *static_cast<void**>(baseptr) = p;
    return MPI_SUCCESS;
}

CH4_PMPI(MPI_Free_mem)
int MPI_Free_mem(void* base) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    auto it = g_blocks.find(base);
    if (it == g_blocks.end())
        CH4_FAIL_SELF(MPI_ERR_BASE, "%p was not returned by MPI_Alloc_mem (or is already freed)", base);
    g_blocks.erase(it);
    std::free(base);
    return MPI_SUCCESS;
}

}  // extern "C"
