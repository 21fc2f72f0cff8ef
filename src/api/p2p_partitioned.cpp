// SPDX-License-Identifier: MIT
// Partitioned communication (MPI-4.1 chapter 4): MPI_Psend_init,
// MPI_Precv_init, MPI_Pready, MPI_Pready_range, MPI_Pready_list,
// MPI_Parrived. A partitioned request is a persistent request (kinds psend,
// precv: api/persistent.hpp) whose recipe holds the device endpoint
// (device/part.hpp: protocol); MPI_Start begins a round, the completion
// functions end it. Errors: Pready on a receive, on an inactive request, of
// a partition out of range or marked twice in a round, and wildcards in
// MPI_Precv_init are MPI_ERR_REQUEST / MPI_ERR_ARG / MPI_ERR_RANK /
// MPI_ERR_TAG; senders and receivers whose totals differ fail each round
// with MPI_ERR_TRUNCATE.
#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "api/info_obj.hpp"
#include "api/p2p_common.hpp"
#include "api/persistent.hpp"
#include "device/part.hpp"
#include "device/progress.hpp"

using namespace ch4lite;

namespace {

struct part_recipe final : api::persistent {
    explicit part_recipe(bool send) noexcept
        : persistent(send ? api::persist_kind::psend : api::persist_kind::precv) {}
    ~part_recipe() override {
        if (ep) dev::part_destroy(ep);
    }
    dev::part_ep* ep = nullptr;  // nullptr: MPI_PROC_NULL
    int parts = 0;
};

int init(const char* func, bool send, const void* buf, int partitions, int64_t count, MPI_Datatype dt,
         int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_REQUIRE_INIT_IN(func);
    if (!request) CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "request (output) is NULL");
    dev::comm* c = api::lookup_comm(comm);
    if (!c) CH4_FAIL_IN(func, comm, MPI_ERR_COMM, "invalid communicator");
    if (partitions < 0)
        CH4_FAIL_IN(func, comm, MPI_ERR_ARG, "invalid partitions %d: must be >= 0", partitions);
    if (count < 0)
        CH4_FAIL_IN(func, comm, MPI_ERR_COUNT, "invalid count %lld: must be >= 0",
                    static_cast<long long>(count));
    int64_t total_count = 0;
    if (__builtin_mul_overflow(count, static_cast<int64_t>(partitions), &total_count))
        CH4_FAIL_IN(func, comm, MPI_ERR_COUNT, "%d partitions of %lld elements overflow", partitions,
                    static_cast<long long>(count));
    api::dt_info d;
    std::size_t bytes = 0;
    const void* start = nullptr;
    if (const int rc = api::check_message_buffer(func, comm, buf, total_count, dt, d, bytes, start))
        return rc;
    if (send) {
        if (peer != MPI_PROC_NULL && (peer < 0 || peer >= c->size))
            CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                        "invalid destination rank %d: must be in [0, %d) or MPI_PROC_NULL", peer, c->size);
        if (tag < 0 || tag > dev::tag_ub)
            CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d]", tag, dev::tag_ub);
    } else {
        if (peer == MPI_ANY_SOURCE)
            CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                        "MPI_ANY_SOURCE is not allowed: a partitioned receive names its source");
        if (peer != MPI_PROC_NULL && (peer < 0 || peer >= c->size))
            CH4_FAIL_IN(func, comm, MPI_ERR_RANK,
                        "invalid source rank %d: must be in [0, %d) or MPI_PROC_NULL", peer, c->size);
        if (tag == MPI_ANY_TAG)
            CH4_FAIL_IN(func, comm, MPI_ERR_TAG,
                        "MPI_ANY_TAG is not allowed: a partitioned receive names its tag");
        if (tag < 0 || tag > dev::tag_ub)
            CH4_FAIL_IN(func, comm, MPI_ERR_TAG, "invalid tag %d: must be in [0, %d]", tag, dev::tag_ub);
    }
    if (!api::info_is_valid(info))
        CH4_FAIL_IN(func, comm, MPI_ERR_INFO, CH4_INFO_MSG, static_cast<void*>(info));
    auto* p = new (std::nothrow) part_recipe(send);
    if (!p) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "cannot allocate the partitioned request");
    p->comm = comm;
    p->parts = partitions;
    if (peer != MPI_PROC_NULL) {
        dev::part_args a;
        a.send = send;
        a.c = c;
        a.peer_rank = peer;
        a.tag = tag;
        a.total = bytes;
        a.parts = partitions;
        if (d.contig || bytes == 0) {
            a.buf = const_cast<void*>(start);
        } else {
            a.buf = const_cast<void*>(buf);
            a.dt = d.t;
            a.count = total_count;
        }
        if (const status s = dev::part_create(a, p->ep); s != status::ok) {
            delete p;
            CH4_FAIL_IN(func, comm, api::class_of(s), "cannot set up the partitioned %s: %s",
                        send ? "send" : "receive", to_string(s));
        }
    }
    dev::request* r = api::persistent_alloc(p);
    if (!r) CH4_FAIL_IN(func, comm, MPI_ERR_NO_MEM, "request pool exhausted");
    *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
    return MPI_SUCCESS;
}

// The partitioned recipe behind a request handle, with the checks every
// Pready / Parrived makes. nullptr after raising the error.
part_recipe* recipe_of(const char* func, MPI_Request request, api::persist_kind want, int& rc) {
    rc = MPI_SUCCESS;
    dev::request* r = request == MPI_REQUEST_NULL
                          ? nullptr
                          : dev::request_from_handle(reinterpret_cast<uintptr_t>(request));
    api::persistent* p = r ? api::persistent_of(r) : nullptr;
    if (!p || (p->kind != api::persist_kind::psend && p->kind != api::persist_kind::precv)) {
        rc = api::raise(MPI_COMM_SELF, api::error_code(MPI_ERR_REQUEST, func,
                                                       "the request is not a partitioned request "
                                                       "(MPI_Psend_init / MPI_Precv_init)"));
        return nullptr;
    }
    if (p->kind != want) {
        rc = api::raise(p->comm, api::error_code(MPI_ERR_REQUEST, func, "the request is a partitioned %s",
                                                 want == api::persist_kind::psend ? "receive" : "send"));
        return nullptr;
    }
    return static_cast<part_recipe*>(p);
}

// Marks partitions lo..hi (or list[0..n)) ready after checking all of them.
template <class Get>
int ready(const char* func, MPI_Request request, int n, bool list, Get get) {
    CH4_REQUIRE_INIT_IN(func);
    int rc;
    part_recipe* p = recipe_of(func, request, api::persist_kind::psend, rc);
    if (!p) return rc;
    if (!p->active)
        CH4_FAIL_IN(func, p->comm, MPI_ERR_REQUEST,
                    "the partitioned send is not active: call MPI_Start first");
    for (int i = 0; i < n; ++i) {
        const int k = get(i);
        if (k < 0 || k >= p->parts)
            CH4_FAIL_IN(func, p->comm, MPI_ERR_ARG, "invalid partition %d: must be in [0, %d)", k,
                        p->parts);
        if (p->ep && dev::part_is_ready(p->ep, k))
            CH4_FAIL_IN(func, p->comm, MPI_ERR_ARG,
                        "partition %d is already marked ready in this round", k);
    }
    if (list && n > 1) {  // the same partition twice in one list
        std::vector<int> v;
        try {
            v.resize(static_cast<std::size_t>(n));
        } catch (const std::bad_alloc&) {
            CH4_FAIL_IN(func, p->comm, MPI_ERR_NO_MEM, "cannot check a list of %d partitions", n);
        }
        for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = get(i);
        std::sort(v.begin(), v.end());
        if (auto it = std::adjacent_find(v.begin(), v.end()); it != v.end())
            CH4_FAIL_IN(func, p->comm, MPI_ERR_ARG, "partition %d is listed twice", *it);
    }
    if (p->ep)
        for (int i = 0; i < n; ++i) (void)dev::part_ready(p->ep, get(i));
    return MPI_SUCCESS;
}

}  // namespace

namespace ch4lite::api {

int start_part(const char* func, dev::request* r, persistent& base) noexcept {
    auto& p = static_cast<part_recipe&>(base);
    (void)r;
    dev::request* act = nullptr;
    if (!p.ep) {
        act = null_request(p.kind == persist_kind::psend ? dev::req_kind::send : dev::req_kind::recv);
        if (!act) CH4_FAIL_IN(func, p.comm, MPI_ERR_NO_MEM, "request pool exhausted");
    } else if (const status s = dev::part_start(p.ep, act); s != status::ok) {
        CH4_FAIL_IN(func, p.comm, class_of(s), "cannot start the partitioned operation: %s", to_string(s));
    }
    p.inner = act;
    p.active = true;
    return MPI_SUCCESS;
}

}  // namespace ch4lite::api

extern "C" {

CH4_PMPI(MPI_Psend_init)
int MPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, true, buf, partitions, count, datatype, dest, tag, comm, info, request);
}
CH4_PMPI(MPI_Precv_init)
int MPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
    CH4_API_LOCK();
    return init(__func__, false, buf, partitions, count, datatype, source, tag, comm, info, request);
}
CH4_PMPI(MPI_Pready)
int MPI_Pready(int partition, MPI_Request request) {
    CH4_API_LOCK();
    return ready(__func__, request, 1, false, [partition](int) { return partition; });
}
CH4_PMPI(MPI_Pready_range)
int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
    CH4_API_LOCK();
    if (partition_high < partition_low) {
        CH4_REQUIRE_INIT();
        CH4_FAIL_SELF(MPI_ERR_ARG, "partition_high %d is below partition_low %d", partition_high,
                      partition_low);
    }
    const int64_t n = int64_t{partition_high} - partition_low + 1;
    return ready(__func__, request, static_cast<int>(n > INT32_MAX ? INT32_MAX : n), false,
                 [partition_low](int i) { return partition_low + i; });
}
CH4_PMPI(MPI_Pready_list)
int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
    CH4_API_LOCK();
    if (length < 0 || (length > 0 && !array_of_partitions)) {
        CH4_REQUIRE_INIT();
        if (length < 0) CH4_FAIL_SELF(MPI_ERR_ARG, "invalid length %d: must be >= 0", length);
        CH4_FAIL_SELF(MPI_ERR_ARG, "array_of_partitions is NULL");
    }
    return ready(__func__, request, length, true, [array_of_partitions](int i) { return array_of_partitions[i]; });
}
CH4_PMPI(MPI_Parrived)
int MPI_Parrived(MPI_Request request, int partition, int* flag) {
    CH4_API_LOCK();
    CH4_REQUIRE_INIT();
    if (!flag) CH4_FAIL_SELF(MPI_ERR_ARG, "flag (output) is NULL");
    if (request == MPI_REQUEST_NULL) {  // a null or inactive request: true (MPI-4.1 §4.2.2)
        *flag = 1;
        return MPI_SUCCESS;
    }
    int rc;
    part_recipe* p = recipe_of(__func__, request, api::persist_kind::precv, rc);
    if (!p) return rc;
    if (partition < 0 || partition >= p->parts)
        CH4_FAIL(p->comm, MPI_ERR_ARG, "invalid partition %d: must be in [0, %d)", partition, p->parts);
    if (!p->active || !p->ep || p->inner->cc == 0 || dev::part_arrived(p->ep, partition)) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    dev::progress();
    *flag = p->inner->cc == 0 || dev::part_arrived(p->ep, partition);
    return MPI_SUCCESS;
}

}  // extern "C"
