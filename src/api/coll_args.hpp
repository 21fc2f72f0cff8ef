// SPDX-License-Identifier: MIT
// What every collective entry point shares: argument checks with messages
// that name the function and the rule, the conversion of user buffers
// (buf, count, datatype) to the packed byte streams the device algorithms
// move (coll/coll.hpp), and the op + datatype binding of reductions.
//
// A contiguous datatype's stream is the user memory itself (no copy);
// anything else is packed into / unpacked from a temporary with DAME.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "api/errors.hpp"
#include "dame/type.hpp"
#include "coll/coll.hpp"
#include "device/comm.hpp"
#include "util/pool_buffer.hpp"

#define COLL_FAIL(cls, ...) \
    return ::ch4lite::api::raise(comm, ::ch4lite::api::error_code((cls), fn, __VA_ARGS__))
#define COLL_TRY(expr)                                 \
    do {                                               \
        if (const int rc_ = (expr); rc_ != 0) return rc_; \
    } while (0)

namespace ch4lite::api::coll {

inline bool in_place(const void* p) noexcept { return p == MPI_IN_PLACE; }

// MPI_Init done and comm valid (MPI_ERR_COMM); *out the communicator.
// Starts the call's argument checks (clears check_buf's aliasing memo).
int check_comm(const char* fn, MPI_Comm comm, dev::comm*& out) noexcept;
// For a function that checks buffers without check_comm (MPI_Reduce_local).
void alias_reset() noexcept;
int check_root(const char* fn, MPI_Comm comm, const dev::comm& c, int root) noexcept;
// count >= 0, datatype valid and committed, buffer non-null when it holds
// data; `what` names the argument ("sendbuf"). MPI_IN_PLACE is rejected
// here: callers test for it first where MPI allows it. The second of a
// pair "sendbuf"/"recvbuf" ("inbuf"/"inoutbuf") checked in one call of
// `fn` must not be the same pointer as the first when both carry data
// (MPI_ERR_BUFFER): every collective that checks both buffers gets the
// aliasing rule, in either order.
int check_buf(const char* fn, MPI_Comm comm, const char* what, const void* buf, int64_t count,
              MPI_Datatype dt, const dame::type*& t) noexcept;
// A per-rank count array: non-null, every entry >= 0.
template <class C>
int check_counts(const char* fn, MPI_Comm comm, const char* what, const C* counts, int n) noexcept;
// The bytes a (count, type) pair carries, with overflow checked (MPI_ERR_COUNT).
int stream_bytes(const char* fn, MPI_Comm comm, int64_t count, const dame::type& t,
                 std::size_t& out) noexcept;
// An op valid for the datatype (MPI_ERR_OP otherwise), bound to it.
int make_reduction(const char* fn, MPI_Comm comm, MPI_Op op, const dame::type& t,
                   MPI_Datatype dt, ch4lite::coll::reduction& out) noexcept;
// A device status after a collective, as an MPI error on comm.
int fail(const char* fn, MPI_Comm comm, status s) noexcept;

// A user buffer seen as its packed stream.
class stream {
  public:
    // Data to send: the stream of (buf, count, t).
    status load(const void* buf, int64_t count, const dame::type& t) noexcept;
    // Memory to receive count instances into; store() moves it to buf.
    status prepare(void* buf, int64_t count, const dame::type& t) noexcept;
    // Both: the current contents are loaded, store() writes the result back.
    status prepare_inout(void* buf, int64_t count, const dame::type& t) noexcept;
    // prepare(), then the stream bytes [off, off + len) of the current
    // contents loaded (the caller's own block of an in-place gather).
    status prepare_keep(void* buf, int64_t count, const dame::type& t, std::size_t off,
                        std::size_t len) noexcept;
    // Unpacks the first `count` instances (all by default) if staged.
    void store(int64_t count = -1) noexcept;
    std::byte* data() const noexcept { return p_; }
    std::size_t bytes() const noexcept { return n_; }

  private:
    status setup(const void* buf, int64_t count, const dame::type& t, bool load_all) noexcept;
    util::scratch tmp_;
    std::byte* p_ = nullptr;
    std::size_t n_ = 0;
    void* user_ = nullptr;  // non-null when staged and store() must unpack
    int64_t count_ = 0;
    const dame::type* t_ = nullptr;
};

// A v-collective buffer: one block per rank at displs[i] * extent with
// counts[i] instances. Blocks point into the user buffer for contiguous
// types, into one packed temporary otherwise.
class vstream {
  public:
    // Send side: the blocks' data (packed when staged).
    template <class C, class D>
    status load(const void* buf, const C* counts, const D* displs, const dame::type& t,
                int p) noexcept;
    // Receive side; block `keep` (or none: -1) is loaded with its current contents.
    template <class C, class D>
    status prepare(void* buf, const C* counts, const D* displs, const dame::type& t, int p,
                   int keep) noexcept;
    void store() noexcept;  // unpack every block if staged
    ch4lite::coll::block* blocks() const noexcept { return b_; }
    const ch4lite::coll::cblock* cblocks() const noexcept { return reinterpret_cast<const ch4lite::coll::cblock*>(b_); }

  private:
    template <class C, class D>
    status setup(const void* buf, const C* counts, const D* displs, const dame::type& t, int p,
                 int load) noexcept;  // load: -2 all, -1 none, else that block
    util::scratch desc_, tmp_;
    ch4lite::coll::block* b_ = nullptr;
    int p_ = 0;
    void* user_ = nullptr;
    const dame::type* t_ = nullptr;
    const int64_t* counts_ = nullptr;  // copies, for store()
    const int64_t* displs_ = nullptr;
};

}  // namespace ch4lite::api::coll
