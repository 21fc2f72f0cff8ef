// SPDX-License-Identifier: MIT
// Loading libfabric without the costs of absent hardware (ofi_fastload.hpp).
#include "netmod/ofi/ofi_fastload.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/env.hpp"

// The stand-in images, embedded by ofi_standin_images.cpp (empty when the
// build did not make them: then the real libraries are loaded).
extern "C" {
extern const unsigned char ch4lite_psm1_image[];
extern const unsigned char ch4lite_psm1_image_end[];
extern const unsigned char ch4lite_psm2_image[];
extern const unsigned char ch4lite_psm2_image_end[];
}

namespace ch4lite::nm::ofi::lib::fast {

namespace {

#ifndef MFD_CLOEXEC
constexpr unsigned MFD_CLOEXEC = 1u;
#endif
constexpr unsigned mfd_exec = 0x10u;  // MFD_EXEC (Linux 6.3): needed under vm.memfd_noexec=1

// Names in /sys/class/infiniband: RDMA devices (any), and whether one of them
// is an adapter the psm (qib) or psm2 (hfi1) provider drives.
struct devices {
    bool any = false;
    bool psm = false;
};

devices scan_devices() {
    devices d;
    if (DIR* dir = ::opendir("/sys/class/infiniband")) {
        while (const dirent* e = ::readdir(dir)) {
            if (e->d_name[0] == '.') continue;
            d.any = true;
            if (std::strncmp(e->d_name, "qib", 3) == 0 || std::strncmp(e->d_name, "hfi1", 4) == 0) d.psm = true;
        }
        ::closedir(dir);
    }
    // The character devices the providers open, should sysfs be hidden (a
    // container may show /dev/infiniband without /sys/class/infiniband).
    if (::access("/dev/ipath", F_OK) == 0 || ::access("/dev/hfi1_0", F_OK) == 0 || ::access("/dev/hfi1", F_OK) == 0)
        d.any = d.psm = true;
    if (DIR* dir = ::opendir("/dev/infiniband")) {
        while (const dirent* e = ::readdir(dir))
            if (e->d_name[0] != '.') d.any = true;
        ::closedir(dir);
    }
    return d;
}

// FI_PROVIDER asks for psm or psm2 (a filter of names, or "^..." to exclude).
bool provider_wants_psm() {
    const char* p = std::getenv("FI_PROVIDER");
    return p && *p && *p != '^' && std::strstr(p, "psm") != nullptr;
}

void* g_standin[2] = {nullptr, nullptr};
int g_standin_fd[2] = {-1, -1};

// Writes an image to a memfd and opens it with dlopen. Null on failure. The
// memfd stays open while the library is loaded: the dynamic linker knows the
// library by its path, /proc/self/fd/N, and would take a later dlopen of
// the same path (another file under the same descriptor number) for it.
void* open_image(const char* soname, const unsigned char* begin, const unsigned char* end, int& fd_out,
                 std::string& why) {
    const std::size_t n = static_cast<std::size_t>(end - begin);
    if (n == 0) {
        why = "this build has no stand-in libraries";
        return nullptr;
    }
    int fd = static_cast<int>(::syscall(SYS_memfd_create, soname, MFD_CLOEXEC | mfd_exec));
    if (fd < 0 && errno == EINVAL) fd = static_cast<int>(::syscall(SYS_memfd_create, soname, MFD_CLOEXEC));
    if (fd < 0) {
        why.assign("memfd_create: ").append(std::strerror(errno));
        return nullptr;
    }
    std::size_t done = 0;
    while (done < n) {
        const ssize_t w = ::write(fd, begin + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            why.assign("cannot write a stand-in: ").append(std::strerror(errno));
            ::close(fd);
            return nullptr;
        }
        done += static_cast<std::size_t>(w);
    }
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    void* h = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = ::dlerror();
        why.assign("cannot load the stand-in for ").append(soname).append(": ").append(e ? e : "?");
        ::close(fd);
        return nullptr;
    }
    fd_out = fd;
    return h;
}

// ---- libfabric's GOT slot for fopen ----

std::FILE* (*g_real_fopen)(const char*, const char*) = nullptr;
int g_refused = 0;

std::FILE* fopen_without_kallsyms(const char* path, const char* mode) {
    if (path && std::strcmp(path, "/proc/kallsyms") == 0) {
        ++g_refused;
        errno = ENOENT;
        return nullptr;
    }
    return g_real_fopen(path, mode);
}

#if defined(__x86_64__)
constexpr unsigned r_jump_slot = R_X86_64_JUMP_SLOT;
constexpr unsigned r_glob_dat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr unsigned r_jump_slot = R_AARCH64_JUMP_SLOT;
constexpr unsigned r_glob_dat = R_AARCH64_GLOB_DAT;
#else
constexpr unsigned r_jump_slot = ~0u;  // elsewhere: never patched
constexpr unsigned r_glob_dat = ~0u;
#endif

struct relro_search {
    ElfW(Addr) base;
    uintptr_t lo = 0, hi = 0;
};

int find_relro(dl_phdr_info* info, size_t, void* arg) {
    auto* s = static_cast<relro_search*>(arg);
    if (info->dlpi_addr != s->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_GNU_RELRO) {
            s->lo = info->dlpi_addr + ph.p_vaddr;
            s->hi = s->lo + ph.p_memsz;
        }
    }
    return 1;
}

// The address of the slot through which `lm` calls `name`, or null.
void** find_slot(const link_map* lm, const char* name) {
    if (r_jump_slot == ~0u || !lm->l_ld) return nullptr;
    const ElfW(Addr) base = lm->l_addr;
    // glibc relocates the pointers of a loaded object's dynamic section in
    // place; be safe with both forms.
    auto abs = [base](ElfW(Addr) p) { return p < base ? p + base : p; };
    const ElfW(Sym)* symtab = nullptr;
    const char* strtab = nullptr;
    const ElfW(Rela)* tabs[2] = {nullptr, nullptr};
    std::size_t sizes[2] = {0, 0};
    bool rela_plt = true;
    for (const ElfW(Dyn)* d = lm->l_ld; d->d_tag != DT_NULL; ++d) {
        switch (d->d_tag) {
            case DT_SYMTAB: symtab = reinterpret_cast<const ElfW(Sym)*>(abs(d->d_un.d_ptr)); break;
            case DT_STRTAB: strtab = reinterpret_cast<const char*>(abs(d->d_un.d_ptr)); break;
            case DT_JMPREL: tabs[0] = reinterpret_cast<const ElfW(Rela)*>(abs(d->d_un.d_ptr)); break;
            case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
            case DT_PLTREL: rela_plt = d->d_un.d_val == DT_RELA; break;
            case DT_RELA: tabs[1] = reinterpret_cast<const ElfW(Rela)*>(abs(d->d_un.d_ptr)); break;
            case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
            default: break;
        }
    }
    if (!symtab || !strtab || !rela_plt) return nullptr;
    for (int t = 0; t < 2; ++t) {
        if (!tabs[t]) continue;
        const std::size_t count = sizes[t] / sizeof(ElfW(Rela));
        for (std::size_t i = 0; i < count; ++i) {
            const ElfW(Rela)& r = tabs[t][i];
            const unsigned type = static_cast<unsigned>(ELF64_R_TYPE(r.r_info));
            if (type != r_jump_slot && type != r_glob_dat) continue;
            const std::size_t sym = ELF64_R_SYM(r.r_info);
            if (sym == 0) continue;
            if (std::strcmp(strtab + symtab[sym].st_name, name) == 0)
                return reinterpret_cast<void**>(base + r.r_offset);
        }
    }
    return nullptr;
}

bool set_writable(void* addr, bool writable) {
    const long page = ::sysconf(_SC_PAGESIZE);
    const uintptr_t p = reinterpret_cast<uintptr_t>(addr) & ~static_cast<uintptr_t>(page - 1);
    return ::mprotect(reinterpret_cast<void*>(p), static_cast<std::size_t>(page),
                      writable ? PROT_READ | PROT_WRITE : PROT_READ) == 0;
}

}  // namespace

plan decide() {
    plan p;
    if (!util::env_bool("CH4LITE_OFI_FAST_LOAD", true)) return p;
    const devices d = scan_devices();
    p.psm_standins = !d.psm && !provider_wants_psm();
    p.hide_kallsyms = !d.any;
    return p;
}

bool load_standins(std::string& why) {
    if (g_standin[0] && g_standin[1]) return true;
    g_standin[0] = open_image("libpsm_infinipath.so.1", ch4lite_psm1_image, ch4lite_psm1_image_end,
                              g_standin_fd[0], why);
    if (g_standin[0])
        g_standin[1] = open_image("libpsm2.so.2", ch4lite_psm2_image, ch4lite_psm2_image_end, g_standin_fd[1], why);
    if (!g_standin[1]) {
        unload_standins();
        return false;
    }
    return true;
}

void unload_standins() {
    for (int i = 0; i < 2; ++i) {
        if (g_standin[i]) ::dlclose(g_standin[i]);
        if (g_standin_fd[i] >= 0) ::close(g_standin_fd[i]);
        g_standin[i] = nullptr;
        g_standin_fd[i] = -1;
    }
}

kallsyms_hidden::kallsyms_hidden(void* libfabric) noexcept {
    link_map* lm = nullptr;
    if (!libfabric || ::dlinfo(libfabric, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return;
    void** slot = find_slot(lm, "fopen");
    if (!slot) slot = find_slot(lm, "fopen64");
    if (!slot || !*slot) return;
    relro_search rs{lm->l_addr};
    ::dl_iterate_phdr(find_relro, &rs);
    const uintptr_t a = reinterpret_cast<uintptr_t>(slot);
    relro_ = a >= rs.lo && a < rs.hi;
    if (relro_ && !set_writable(slot, true)) return;
    saved_ = *slot;
    g_real_fopen = reinterpret_cast<std::FILE* (*)(const char*, const char*)>(saved_);
    *slot = reinterpret_cast<void*>(&fopen_without_kallsyms);
    slot_ = slot;
}

kallsyms_hidden::~kallsyms_hidden() {
    if (!slot_) return;
    *slot_ = saved_;
    if (relro_) set_writable(slot_, false);
}

int kallsyms_hidden::refused() noexcept { return g_refused; }

}  // namespace ch4lite::nm::ofi::lib::fast
