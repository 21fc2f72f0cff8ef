// SPDX-License-Identifier: MIT
// The netmod's optional services as the device calls them.
//
// `if constexpr (caps.native_tagged) nm.isend(...)` inside an ordinary
// (non-template) function does not help a netmod without isend: outside a
// template the discarded branch is still compiled, and a netmod that
// declares only the mandatory part would not build libmpi. Each call below
// is a function template over the netmod type, so its body is instantiated
// for the netmod actually used and the branch a netmod does not declare is
// never compiled (it answers unsupported / false / 0 instead, and the
// device never reaches it: every call site is itself behind the same
// capability). All inline and forwarding: no cost on the native path.
#pragma once
#include <cstddef>
#include <cstdint>

#include "netmod/netmod.hpp"

namespace ch4lite::nm::opt {

// ---- native tagged (caps.native_tagged) -------------------------------------
template <class NM>
[[gnu::always_inline]] inline status isend(NM& nm, int peer, match m, const void* buf,
                                           std::size_t n, unsigned flags,
                                           typename NM::request_state* st) noexcept {
    if constexpr (NM::caps.native_tagged)
        return nm.isend(peer, m, buf, n, flags, st);
    else
        return status::unsupported;
}
template <class NM>
[[gnu::always_inline]] inline status irecv(NM& nm, int peer, match m, void* buf, std::size_t n,
                                           typename NM::request_state* st) noexcept {
    if constexpr (NM::caps.native_tagged)
        return nm.irecv(peer, m, buf, n, st);
    else
        return status::unsupported;
}
template <class NM>
inline bool iprobe(NM& nm, int peer, match m, recv_info& info) noexcept {
    if constexpr (NM::caps.native_tagged)
        return nm.iprobe(peer, m, info);
    else
        return false;
}
template <class NM>
inline status isend_rts(NM& nm, int peer, match m, uint64_t data,
                        typename NM::request_state* st) noexcept {
    if constexpr (NM::caps.native_tagged)
        return nm.isend_rts(peer, m, data, st);
    else
        return status::unsupported;
}
template <class NM>
inline bool cancel_recv(NM& nm, typename NM::request_state* st) noexcept {
    if constexpr (NM::caps.native_tagged)
        return nm.cancel_recv(st);
    else
        return false;
}
template <class NM>
inline bool tagged_usable(const NM& nm) noexcept {
    if constexpr (NM::caps.native_tagged)
        return nm.tagged_usable();
    else
        return false;
}

// ---- scatter receive (caps.tagged_iov_limit > 0) ----------------------------
template <class NM>
inline std::size_t tagged_iov_max(const NM& nm) noexcept {
    if constexpr (NM::caps.tagged_iov_limit > 0)
        return nm.tagged_iov_max();
    else
        return 0;
}
template <class NM>
inline status irecvv(NM& nm, int peer, match m, const iov* v, int n,
                     typename NM::request_state* st) noexcept {
    if constexpr (NM::caps.tagged_iov_limit > 0)
        return nm.irecvv(peer, m, v, n, st);
    else
        return status::unsupported;
}

}  // namespace ch4lite::nm::opt
