// SPDX-License-Identifier: MIT
// The ucx netmod's own messages (stage B), on UCP AM id am_id_internal:
// the whole message is this header (+ a payload for rkey_reply).
#pragma once
#include <cstdint>

namespace ch4lite::nm::ucx {

struct internal_msg {
    enum : uint8_t {
        rts_note = 1,      // a = the RTS's match bits, b = its value
        rkey_request = 2,  // a = key: send me its packed rkey
        rkey_reply = 3,    // a = key; ok = 1: payload = packed rkey, 0: no such key
    };
    uint8_t kind;
    uint8_t ok;
    uint16_t reserved;
    int32_t src;  // sender's world rank
    uint64_t a;
    uint64_t b;
};
static_assert(sizeof(internal_msg) == 24);

}  // namespace ch4lite::nm::ucx
