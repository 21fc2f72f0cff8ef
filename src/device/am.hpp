// SPDX-License-Identifier: MIT
// Active-message handler ids and wire headers of the device's protocols.
// Every netmod carries these opaquely: am_send(peer, handler, header, payload).
// Headers are plain structs (same binary on every rank of a job).
#pragma once
#include <cstdint>

namespace ch4lite::dev {

enum am_handler : uint8_t {
    am_eager = 1,     // eager point-to-point message: header + whole payload
    am_rts = 2,       // rendezvous request-to-send (no payload)
    am_cts = 3,       // rendezvous clear-to-send (receiver matched)
    am_data = 4,      // rendezvous payload chunk
    am_sync_ack = 5,  // synchronous eager send was matched
    am_tcts = 6,      // clear-to-send answering a native tagged RTS (sreq_id = pool index)
    am_split = 7,     // split single copy: receiver asks the sender to write a part
    am_split_done = 8,  // split single copy: the sender wrote it (or could not)
    am_cancel = 9,      // sender asks to withdraw its unmatched RTS / synchronous eager message
    am_cancel_ack = 10, // receiver: withdrawn (cancelled = 1) or already matched (0)
    // 16..63: reserved for RMA (src/rma registers its handlers here)
    am_rma_first = 16,
    am_rma_last = 63,
    // 64..95: reserved for collectives offload
    // 96..99: partitioned communication (device/part.hpp)
    am_part_first = 96,
    am_part_last = 99,
    // 100..: free
};

enum am_msg_flags : uint32_t {
    amf_sync = 1u << 0,  // sender waits for the match (Ssend)
};

struct eager_hdr {
    uint32_t context;
    int32_t src_rank;  // sender's rank in the communicator
    int32_t tag;
    uint32_t flags;
    uint32_t sreq_id;  // sender request (only for amf_sync)
};

struct rts_hdr {
    uint32_t context;
    int32_t src_rank;
    int32_t tag;
    uint32_t flags;
    uint32_t sreq_id;
    uint32_t pad;
    uint64_t size;
};

struct cts_hdr {
    uint32_t sreq_id;
    uint32_t rreq_id;
    uint64_t bytes;  // bytes the receiver accepts (<= size; less on truncation)
    uint64_t chunk = 0;  // native CTS asking for tagged data: bytes per tagged chunk (0: one message)
};

struct data_hdr {
    uint32_t rreq_id;
    uint32_t pad;
    uint64_t offset;
};

struct sync_ack_hdr {
    uint32_t sreq_id;
};

// MPI_Cancel of a send that waits for its receiver (docs/p2p.md, "Cancel"):
// CANCEL names the sender's request; the receiver removes the message from
// its unexpected queue if it is still there and answers CANCEL_ACK.
struct cancel_hdr {
    uint32_t sreq_id;
    uint32_t cancelled;  // CANCEL_ACK: 1 withdrawn, 0 matched already
};

// Split single copy (docs/shm-protocols.md, "Large messages"): the receiver of an RTS that offers the
// sender's buffer asks the sender to write bytes [offset, offset+bytes) of
// its message to the receiver's address `addr`, and reads the rest itself,
// at the same time. The answer echoes the ids and the part, with `addr`
// now the part's source in the sender's buffer and ok = 0 if the write
// failed (the receiver then reads that part too). 40 bytes: every AM header
// must fit am_header_max.
struct split_hdr {
    uint32_t sreq_id;
    uint32_t rreq_id;
    uint64_t offset;
    uint64_t bytes;
    uint64_t addr;  // SPLIT: the receiver's destination; SPLIT_DONE: the sender's source
    uint32_t ok;    // SPLIT_DONE: 1 written, 0 not
    uint32_t pad;
};
static_assert(sizeof(split_hdr) == 40);

}  // namespace ch4lite::dev
