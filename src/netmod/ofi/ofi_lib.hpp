// SPDX-License-Identifier: MIT
// libfabric, loaded at run time (docs/netmod-ofi.md, "Loading libfabric").
//
// libmpi does not link libfabric: loading it costs about 0.3 s per process
// on Debian 12 (libraries of its psm and psm2 providers calibrate a clock
// with sleeps in their constructors, and the first fi_getinfo reads all of
// /proc/kallsyms for the verbs provider; ofi_fastload.hpp avoids both on
// hosts without such hardware), and a job whose ranks all share one node's
// memory never uses it. The netmod opens it in init(), which the device
// calls only when some peer is outside that memory.
//
// Of libfabric's API only these five functions are exported symbols; every
// other call (fi_domain, fi_tsend, fi_cq_read, ...) is an inline function of
// its headers that goes through the object's operation table.
#pragma once
#include <rdma/fabric.h>

#include <string>

namespace ch4lite::nm::ofi::lib {

struct api {
    int (*getinfo)(uint32_t, const char*, const char*, uint64_t, const fi_info*, fi_info**);
    void (*freeinfo)(fi_info*);
    fi_info* (*dupinfo)(const fi_info*);
    int (*fabric)(fi_fabric_attr*, fid_fabric**, void*);
    const char* (*strerror)(int);
};

// The functions, once load() has succeeded.
extern api fns;

// Opens libfabric (CH4LITE_OFI_LIB, default libfabric.so.1) once per
// process. False, with the reason in why, when the library cannot be opened,
// lacks a function or has another major version than the headers we were
// built with.
bool load(std::string& why);

// fi_getinfo, through which the netmod makes every call: the first one
// initializes libfabric's providers, with /proc/kallsyms hidden from them
// when the host has no RDMA device (ofi_fastload.hpp).
int getinfo(uint32_t version, const char* node, const char* service, uint64_t flags, const fi_info* hints,
            fi_info** info);

// fi_strerror, also before (or without) a successful load().
const char* strerror(int err);

}  // namespace ch4lite::nm::ofi::lib
