// SPDX-License-Identifier: MIT
// The forms of a collective (api/coll_sched.hpp) and persistent collective
// requests: the recipe owns the schedule built at MPI_<coll>_init; every
// MPI_Start runs it again with a fresh coll request (the activation).
#include "api/coll_sched.hpp"

#include <new>

#include "api/info_obj.hpp"
#include "api/p2p_common.hpp"
#include "api/persistent.hpp"

namespace ch4lite::api {

namespace {

// The activation request is allocated once, with the recipe, and re-armed
// at every MPI_Start: a start allocates nothing.
struct coll_recipe : persistent {
    coll_recipe() noexcept : persistent(persist_kind::coll) { owns_inner = true; }
    ~coll_recipe() override {
        if (act) dev::request_release(act);  // complete (inactive): freed now
    }
    std::unique_ptr<ch4lite::coll::sched> s;
    dev::request* act = nullptr;
};

}  // namespace

int start_coll(const char* func, dev::request* r, persistent& base) noexcept {
    auto& p = static_cast<coll_recipe&>(base);
    dev::request* a = p.act;
    a->cc = 1;
    a->flags = 0;
    a->result = status::ok;
    p.inner = a;
    p.active = true;
    (void)r;
    (void)func;
    p.s->start(a);
    return MPI_SUCCESS;
}

int wait_coll(const char* func, persistent& base, MPI_Status* st) noexcept {
    auto& p = static_cast<coll_recipe&>(base);
    dev::request* a = p.inner;
    ch4lite::coll::wait(a);
    p.inner = nullptr;
    p.active = false;
    if (a->result == status::ok) {  // as settle() would, without its dispatch
        fill_status(st, a);
        return MPI_SUCCESS;
    }
    MPI_Comm c = p.comm;
    return settle_request(func, a, st, c, false);
}

namespace coll {

int check_form(const char* fn, MPI_Comm comm, form f, MPI_Info info, MPI_Request* request) noexcept {
    if (f == form::blocking) return MPI_SUCCESS;
    if (!request) COLL_FAIL(MPI_ERR_ARG, "request (output) is NULL");
    *request = MPI_REQUEST_NULL;
    if (f == form::persistent && info != MPI_INFO_NULL && !info_is_valid(info))
        COLL_FAIL(MPI_ERR_INFO, "invalid info object");
    return MPI_SUCCESS;
}

std::unique_ptr<ch4lite::coll::sched> new_sched(dev::comm& c) noexcept {
    return std::unique_ptr<ch4lite::coll::sched>(
        new (std::nothrow) ch4lite::coll::sched(c, ch4lite::coll::next_tag(c)));
}

int issue(const char* fn, MPI_Comm comm, form f, std::unique_ptr<ch4lite::coll::sched> s,
          MPI_Request* request) noexcept {
    if (!s) return fail(fn, comm, status::no_mem);
    switch (f) {
        case form::blocking: {
            const status st = ch4lite::coll::run(*s);
            return st == status::ok ? MPI_SUCCESS : fail(fn, comm, st);
        }
        case form::nonblocking: {
            dev::request* r = nullptr;
            const status st = ch4lite::coll::launch(std::move(s), r);
            if (st != status::ok) return fail(fn, comm, st);
            *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
            return MPI_SUCCESS;
        }
        case form::persistent: {
            if (const status st = s->commit(); st != status::ok) return fail(fn, comm, st);
            auto* p = new (std::nothrow) coll_recipe;
            if (!p) return fail(fn, comm, status::no_mem);
            dev::comm& c = s->owner();
            p->act = ch4lite::coll::coll_request(c);
            if (!p->act) {
                delete p;
                return fail(fn, comm, status::no_mem);
            }
            p->act->cc = 0;  // inactive
            p->s = std::move(s);
            p->comm = comm;
            dev::request* r = persistent_alloc(p);
            if (!r) return fail(fn, comm, status::no_mem);
            // Keeps the communicator (freed by the user meanwhile) alive
            // while the request exists (device/comm_create.cpp, reap()).
            r->c = &c;
            *request = reinterpret_cast<MPI_Request>(dev::request_handle(r));
            return MPI_SUCCESS;
        }
    }
    return fail(fn, comm, status::unsupported);
}

template <class C, class D>
ch4lite::coll::block* sched_blocks(ch4lite::coll::sched& s, const void* buf, const C* counts,
                                   const D* displs, const dame::type& t, int p, int load) noexcept {
    const std::size_t psz = static_cast<std::size_t>(p);
    auto* b = reinterpret_cast<ch4lite::coll::block*>(s.scratch(psz * sizeof(ch4lite::coll::block)));
    if (!b) return nullptr;
    auto* base = const_cast<std::byte*>(static_cast<const std::byte*>(buf));
    std::size_t total = 0;
    for (int i = 0; i < p; ++i) total += static_cast<std::size_t>(static_cast<int64_t>(counts[i]) * t.size());
    if (t.contiguous() || total == 0) {
        for (int i = 0; i < p; ++i)
            b[i] = {base + static_cast<int64_t>(displs[i]) * t.extent() + t.true_lb(),
                    static_cast<std::size_t>(static_cast<int64_t>(counts[i]) * t.size())};
        return b;
    }
    std::byte* tmp = s.scratch(total);
    if (!tmp) return nullptr;
    for (int i = 0; i < p; ++i) {
        b[i] = {tmp, static_cast<std::size_t>(static_cast<int64_t>(counts[i]) * t.size())};
        if ((load == -2 || load == i) && b[i].n)
            s.pack(base + static_cast<int64_t>(displs[i]) * t.extent(), counts[i], t, tmp);
        tmp += b[i].n;
    }
    return b;
}

template <class C, class D>
void sched_store_blocks(ch4lite::coll::sched& s, const ch4lite::coll::block* b, void* buf,
                        const C* counts, const D* displs, const dame::type& t, int p,
                        int skip) noexcept {
    if (!b || t.contiguous()) return;
    s.fence();
    auto* base = static_cast<std::byte*>(buf);
    for (int i = 0; i < p; ++i)
        if (i != skip && b[i].n) s.unpack(b[i].p, base + static_cast<int64_t>(displs[i]) * t.extent(), counts[i], t);
}

template ch4lite::coll::block* sched_blocks(ch4lite::coll::sched&, const void*, const int*, const int*,
                                            const dame::type&, int, int) noexcept;
template ch4lite::coll::block* sched_blocks(ch4lite::coll::sched&, const void*, const MPI_Count*,
                                            const MPI_Aint*, const dame::type&, int, int) noexcept;
template void sched_store_blocks(ch4lite::coll::sched&, const ch4lite::coll::block*, void*, const int*,
                                 const int*, const dame::type&, int, int) noexcept;
template void sched_store_blocks(ch4lite::coll::sched&, const ch4lite::coll::block*, void*,
                                 const MPI_Count*, const MPI_Aint*, const dame::type&, int, int) noexcept;

bool blocking_sched() noexcept { return ch4lite::coll::g_tuning.blocking_sched; }

}  // namespace coll
}  // namespace ch4lite::api
