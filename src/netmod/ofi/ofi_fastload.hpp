// SPDX-License-Identifier: MIT
// Loading libfabric without the costs of hardware this host does not have
// (docs/netmod-ofi.md, "Loading libfabric"). Used by ofi_lib.cpp only.
//
// Two costs of libfabric 1.17 (Debian 12) come from providers that cannot
// work without an adapter, yet are paid by every process:
//  - libpsm_infinipath.so.1 (through libinfinipath.so.4) and libpsm2.so.2,
//    which libfabric.so.1 links for its psm and psm2 providers, each
//    calibrate a cycle counter in a constructor: 100 ms of usleep(125)
//    calls, 0.2 s per process, on every dlopen of libfabric.
//  - the verbs provider's initialization, in the first fi_getinfo, reads
//    all of /proc/kallsyms (122 000 lines the kernel formats on each read)
//    twice, looking for two symbols of the kernel's RDMA core: 80-90 ms of
//    CPU time per process, whatever FI_PROVIDER says.
// Without an RDMA adapter neither buys anything, so:
//  - stand-ins: when the host has no TrueScale (qib) or Omni-Path (hfi1)
//    adapter and FI_PROVIDER does not ask for psm or psm2, two small
//    libraries (psm_stub/psm_stub.c, built into libmpi as images) are loaded
//    first under the sonames libpsm_infinipath.so.1 and libpsm2.so.2; the
//    dynamic linker then binds libfabric to them, and the two providers
//    report no device as they would with the real libraries;
//  - no kallsyms: when the host has no RDMA device at all, libfabric's own
//    reference to fopen (its GOT slot; nothing else in the process is
//    touched) answers ENOENT for /proc/kallsyms during the first
//    fi_getinfo, and is put back afterwards. The verbs provider then finds
//    no peer-memory or dma-buf support in the kernel; it finds no device
//    either.
// CH4LITE_OFI_FAST_LOAD=0 turns both off.
#pragma once
#include <string>

namespace ch4lite::nm::ofi::lib::fast {

// What this host allows, decided once per process from /sys/class/infiniband,
// /dev and FI_PROVIDER.
struct plan {
    bool psm_standins = false;  // load the stand-ins before libfabric
    bool hide_kallsyms = false; // during the first fi_getinfo
};
plan decide();

// Loads the two stand-in libraries (kept loaded for the process's life: a
// libfabric loaded after them uses them). False, with the reason, when
// they could not be loaded: then nothing was loaded.
bool load_standins(std::string& why);
// After a failed dlopen of libfabric over the stand-ins: unloads them, so
// that the next dlopen finds the real libraries.
void unload_standins();

// While alive: libfabric's (handle) calls of fopen("/proc/kallsyms") fail
// with ENOENT. Does nothing if its GOT slot for fopen cannot be found.
class kallsyms_hidden {
  public:
    explicit kallsyms_hidden(void* libfabric) noexcept;
    ~kallsyms_hidden();
    kallsyms_hidden(const kallsyms_hidden&) = delete;
    kallsyms_hidden& operator=(const kallsyms_hidden&) = delete;
    bool active() const noexcept { return slot_ != nullptr; }
    // How many opens of /proc/kallsyms were refused so far (all instances).
    static int refused() noexcept;

  private:
    void** slot_ = nullptr;
    void* saved_ = nullptr;
    bool relro_ = false;
};

}  // namespace ch4lite::nm::ofi::lib::fast
