// SPDX-License-Identifier: MIT
// The RMA wire format (docs/rma.md, "Wire format"). Every rank of a job runs
// the same binary, so these are plain structs copied byte for byte.
//
//   am_rma_batch   origin -> target: the operations of one epoch, many per
//                  message. Header batch_hdr; payload = records, each 8-byte
//                  aligned. The origin's last message of an epoch to a target
//                  carries bf_final and the number of counted messages it sent
//                  there; a target with nothing to receive gets a bare final.
//                  A target of native puts / gets first gets a bare
//                  bf_arrive, and the final once they completed (native.hpp).
//   am_rma_resp    target -> origin: replies (get data, old values, CAS),
//                  many per message: resp_rec + data, 8-byte aligned.
//   am_rma_resp_data  target -> origin: one piece of a large contiguous get,
//                  zero copy from the window (header resp_data_hdr).
//   am_rma_ctl     either way, outside any epoch order (ctl_hdr): the
//                  answer to a passive-target flush or unlock, a lock grant,
//                  a PSCW post (docs/rma-passive.md).
//
// Batches of passive-target and PSCW epochs carry bf_async: they are not
// counted by any fence, and they may carry synchronization with the
// records: take the origin's lock first (bf_lock_*), release it after
// (bf_unlock), acknowledge once applied (bf_ack), end a PSCW access epoch
// (bf_complete). They keep the epoch order of fences (win::future).
//
// Record (payload of am_rma_batch), 8-byte aligned:
//   rec                          16 bytes
//   rec_resp                     8 bytes, when the kind replies
//   uint64 nseg, nseg x seg      when rf_segs: target pieces (byte offsets
//                                in the target window), in stream order
//   data                         put/acc/getacc: `bytes`; cas: 2 x `bytes`
//                                (new value, compare value); padded to 8
#pragma once
#include <cstddef>
#include <cstdint>

#include "device/am.hpp"

namespace ch4lite::rma {

inline constexpr uint8_t am_rma_batch = dev::am_rma_first + 0;
inline constexpr uint8_t am_rma_resp = dev::am_rma_first + 1;
inline constexpr uint8_t am_rma_resp_data = dev::am_rma_first + 2;
inline constexpr uint8_t am_rma_ctl = dev::am_rma_first + 3;
static_assert(am_rma_ctl <= dev::am_rma_last);

enum batch_flags : uint16_t {
    bf_final = 1u << 0,  // `total` = counted messages the origin sent this epoch
    bf_bare = 1u << 1,   // no records: a final alone, not counted itself
    // (bare) the origin entered the closing fence of `epoch`; its final
    // follows once its native puts / gets to this target completed
    bf_arrive = 1u << 2,
    // ---- passive target and PSCW (bf_async set; `total` unused)
    bf_async = 1u << 3,     // not counted by a fence; applied under the rules below
    bf_lock_sh = 1u << 4,   // the origin takes a shared lock before the records apply
    bf_lock_ex = 1u << 5,   // ... an exclusive one
    bf_unlock = 1u << 6,    // ... and releases its lock after them
    bf_ack = 1u << 7,       // answer ctl_ack once everything before is applied
    bf_complete = 1u << 8,  // PSCW: the origin's access epoch to us ends here
    bf_grant = 1u << 9,     // answer ctl_grant once the lock is held (native RMA waits for it)
};

struct batch_hdr {
    uint32_t ctx;    // context id of the window's communicator
    uint32_t epoch;  // origin's epoch number
    uint32_t total;  // with bf_final
    uint16_t flags;
    uint16_t pad;
    int32_t src;     // origin's rank in the window's communicator
    uint32_t nrec;   // records in the payload
};

struct resp_hdr {
    uint32_t nrec;
};

enum ctl_kind : uint8_t {
    ctl_ack = 1,    // target -> origin: what came before the bf_ack is applied
    ctl_grant = 2,  // target -> origin: the lock it asked for (bf_grant) is held
    ctl_post = 3,   // target -> origin: MPI_Win_post naming the origin
    ctl_remap = 4,  // origin -> target: remap your Win_create memory now (win_remap.cpp)
};

struct ctl_hdr {
    uint32_t ctx;      // the window's context id
    int32_t src;       // sender's rank in the window's communicator
    uint8_t kind;      // ctl_kind
    uint8_t pad[3];
    uint32_t refused;  // ctl_ack: records of this origin the target refused since its last ack
};

// rk_pull: a put the target copies itself: `bytes` from the origin's
// address (8 bytes of data: uint64) into `disp`, by single copy; the reply
// (no data) says it is done, or rsf_pull: the target could not read, the
// origin copies it (docs/rma.md, "Split single copy").
enum rec_kind : uint8_t { rk_put = 1, rk_get, rk_acc, rk_getacc, rk_cas, rk_pull };
enum rec_flags : uint8_t {
    rf_segs = 1u << 0,    // a segment list replaces `disp`
    rf_nodata = 1u << 1,  // getacc with MPI_NO_OP: nothing to apply
};

struct rec {
    uint8_t kind;
    uint8_t flags;
    uint8_t op;     // dev::op_id (acc, getacc)
    uint8_t basic;  // dame::basic_kind (acc, getacc, cas)
    uint32_t bytes; // stream bytes this record covers at the target
    uint64_t disp;  // target byte offset (without rf_segs)
};
static_assert(sizeof(rec) == 16);

struct rec_resp {
    uint32_t id;      // origin's response slot
    uint32_t pad;
    uint64_t offset;  // where this record's reply goes in the result stream
};

struct seg {
    uint64_t off;  // byte offset in the target window
    uint64_t len;
};

enum resp_flags : uint32_t {
    rsf_range = 1u << 0,  // the target refused the record: outside its window
    rsf_bad = 1u << 1,    // the target refused the record: malformed / invalid op
    rsf_pull = 1u << 2,   // rk_pull: the target could not read the origin's memory
};

struct resp_rec {
    uint32_t id;
    uint32_t bytes;
    uint64_t offset;
    uint32_t flags;  // resp_flags; the data is then zeros
    uint32_t pad;
};

struct resp_data_hdr {
    uint32_t id;
    uint32_t pad;
    uint64_t offset;
};

inline constexpr bool rec_replies(uint8_t kind) noexcept {
    return kind == rk_get || kind == rk_getacc || kind == rk_cas || kind == rk_pull;
}
inline constexpr std::size_t pad8(std::size_t n) noexcept { return (n + 7) & ~std::size_t{7}; }

}  // namespace ch4lite::rma
