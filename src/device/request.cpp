// SPDX-License-Identifier: MIT
#include "device/request.hpp"

#include "device/am_p2p.hpp"
#include "device/device.hpp"
#include "device/p2p.hpp"
#include "device/progress.hpp"
#include "device/typed.hpp"
#include "dame/type.hpp"

namespace ch4lite::dev {

util::object_pool<request> g_request_pool;

void request_free_now(request* r) noexcept {
    if (__builtin_expect(r->dt != nullptr, 0)) request_drop_typed(r);
    if (__builtin_expect(r->ext != nullptr, 0)) {
        delete r->ext;
        r->ext = nullptr;
    }
    g_request_pool.free(r);
}

void request_drop_typed(request* r) noexcept {
    if (r->stage) stage_free(r);
    r->dt->release();
    r->dt = nullptr;
}

bool cancel_recv(request* r) noexcept {
    if (r->kind != req_kind::recv || r->cc == 0) return false;
    if (r->flags & rf_queued) return false;  // not yet posted; completes normally
    if (r->flags & rf_rndv) return false;    // matched a native RTS: the data is coming
    if constexpr (native_tagged) {
        if (!g_dev.device_matching) {
            if (!nm::opt::cancel_recv(g_dev.nm, &r->nm)) return false;
            r->cancelled = true;
            request_complete(r);
            return true;
        }
    }
    return am_cancel_recv(r);
}

bool cancel_send(request* r) noexcept {
    if (r->kind != req_kind::send || r->cc == 0) return false;
    if (!g_dev.device_matching) return false;  // the netmod matches: its message cannot be withdrawn
    return am_cancel_send(r);
}

}  // namespace ch4lite::dev
