// SPDX-License-Identifier: MIT
// The attribute operations communicators, datatypes and windows share
// (MPI-4.1 §7.7): set, delete, delete all, copy. Each object kind keeps its
// attribute list where it likes (a communicator in itself, datatypes and
// windows in a table of the API layer), so these take a function that
// finds the list again, and one that runs the kind's callback.
//
// User callbacks may call MPI, and may set or delete attributes of the same
// object (a delete callback of a library that deletes its other
// attributes), or of other objects (which can move a table's lists). So no
// pointer into a list is held across a callback: an attribute is taken out
// of its list before its delete callback runs, put back at its place when
// the callback fails (the attribute stays, the call fails with the
// callback's code), and the list is looked up again afterwards.
//
// A keyval lives while the user holds it or an attribute uses it
// (dev::keyval::refs): every attribute stored takes a reference, every
// attribute deleted drops it, so a keyval freed by the user keeps working
// for the attributes set under it until the last of them is deleted.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <new>

#include "api/errors.hpp"
#include "device/attr.hpp"

namespace ch4lite::api::attr {

// Index of keyval k in l, or -1.
inline std::ptrdiff_t find(const dev::attr_list& l, int k) noexcept {
    for (std::size_t i = 0; i < l.size(); ++i)
        if (l[i].keyval == k) return static_cast<std::ptrdiff_t>(i);
    return -1;
}

// A callback's return value as the code of the call that ran it: the
// callback's own code when it is one MPI knows (a class, a code MPI
// returned, a user code), else MPI_ERR_OTHER with a message saying what the
// callback returned.
int callback_code(const char* fn, const char* which, int rc) noexcept;

// Deletes the attribute of keyval k (present in *list()): out of the list,
// then its delete callback `del(k, value)`; on an error it goes back at its
// place and the error is returned.
template <class List, class Del>
int delete_one(List&& list, int k, Del&& del) noexcept {
    dev::attr_list* l = list();
    const std::ptrdiff_t i = l ? find(*l, k) : -1;
    if (i < 0) return MPI_SUCCESS;
    const dev::attr_entry e = (*l)[static_cast<std::size_t>(i)];
    l->erase(l->begin() + i);
    if (const int rc = del(k, e.value); rc != MPI_SUCCESS) {
        // Back where it was. The erase left the capacity, so unless the
        // callback filled the list, this does not allocate.
        if ((l = list())) {
            try {
                l->insert(l->begin() + std::min<std::ptrdiff_t>(i, static_cast<std::ptrdiff_t>(l->size())), e);
            } catch (const std::bad_alloc&) {
                dev::keyval_release(k);  // lost with its value: no leak of the keyval
            }
        }
        return rc;
    }
    dev::keyval_release(k);
    return MPI_SUCCESS;
}

// Deletes every attribute, last set first (MPI_COMM_SELF at MPI_Finalize:
// reverse order of setting, MPI-4.1 §11.2.4). Stops at and returns the
// first error; the attributes not yet deleted stay. Attributes a callback
// sets on the object meanwhile are deleted too.
template <class List, class Del>
int delete_all(List&& list, Del&& del) noexcept {
    while (true) {
        dev::attr_list* l = list();
        if (!l || l->empty()) return MPI_SUCCESS;
        if (const int rc = delete_one(list, l->back().keyval, del); rc != MPI_SUCCESS) return rc;
    }
}

// Sets keyval k (kv) to `value`: an existing value first goes through the
// delete callback (as if deleted first; the attribute keeps its place in
// the order of setting). `make_list()` finds or creates the list (nullptr:
// out of memory). Returns MPI_SUCCESS, the callback's error, or -1 when
// out of memory (the caller reports it).
template <class MakeList, class Del>
int set(MakeList&& make_list, dev::keyval& kv, int k, void* value, Del&& del) noexcept {
    dev::attr_list* l = make_list();
    if (!l) return -1;
    std::ptrdiff_t i = find(*l, k);
    if (i >= 0) {
        const dev::attr_entry e = (*l)[static_cast<std::size_t>(i)];
        l->erase(l->begin() + i);
        const int rc = del(k, e.value);
        if (!(l = make_list())) {
            dev::keyval_release(k);
            return rc != MPI_SUCCESS ? rc : -1;
        }
        if (const std::ptrdiff_t j = find(*l, k); j >= 0) {
            // The callback set k again: that value stays unless ours wins.
            if (rc == MPI_SUCCESS) (*l)[static_cast<std::size_t>(j)].value = value;
            dev::keyval_release(k);  // one entry, one reference
            return rc;
        }
        i = std::min<std::ptrdiff_t>(i, static_cast<std::ptrdiff_t>(l->size()));
        try {
            l->insert(l->begin() + i, {k, rc == MPI_SUCCESS ? value : e.value});
        } catch (const std::bad_alloc&) {
            dev::keyval_release(k);  // the old value is gone, the new has no room
            return rc != MPI_SUCCESS ? rc : -1;
        }
        return rc;
    }
    try {
        l->push_back({k, value});
    } catch (const std::bad_alloc&) {
        return -1;
    }
    ++kv.refs;
    return MPI_SUCCESS;
}

// Copies the attributes of one object to a new one (MPI_Comm_dup,
// MPI_Type_dup): for each attribute of `from()` (as it was when the copy
// began, and still set when its turn comes) whose keyval has a copy
// callback, `copy(kv, k, value, &out, &flag)` (0 = NULL_COPY_FN: not
// copied; 1 = DUP_FN: the value itself); flag set: cached on `to`. On an
// error what was copied is deleted again (`del`) and the error returned;
// -1: out of memory.
template <class From, class MakeTo, class Copy, class Del>
int copy_all(From&& from, MakeTo&& make_to, Copy&& copy, Del&& del,
             void* (*copy_fn_of)(const dev::keyval&) noexcept) noexcept {
    dev::attr_list snapshot;
    try {
        if (const dev::attr_list* l = from()) snapshot = *l;
    } catch (const std::bad_alloc&) {
        return -1;
    }
    auto undo = [&] { (void)delete_all(make_to, del); };
    for (const dev::attr_entry& s : snapshot) {
        const dev::attr_list* l = from();
        const std::ptrdiff_t i = l ? find(*l, s.keyval) : -1;
        if (i < 0) continue;  // deleted by an earlier copy callback
        void* const in = (*l)[static_cast<std::size_t>(i)].value;
        dev::keyval* kv = dev::keyval_lookup(s.keyval);
        if (!kv) continue;
        const auto fnv = reinterpret_cast<uintptr_t>(copy_fn_of(*kv));
        if (fnv == 0) continue;  // *_NULL_COPY_FN
        void* out = nullptr;
        int flag = 0;
        if (fnv == 1) {  // *_DUP_FN
            out = in;
            flag = 1;
        } else if (const int rc = copy(*kv, s.keyval, in, &out, &flag); rc != MPI_SUCCESS) {
            undo();
            return rc;
        }
        if (!flag) continue;
        dev::attr_list* t = make_to();
        try {
            if (!t) throw std::bad_alloc();
            t->push_back({s.keyval, out});
        } catch (const std::bad_alloc&) {
            undo();
            return -1;
        }
        ++kv->refs;
    }
    return MPI_SUCCESS;
}

}  // namespace ch4lite::api::attr
