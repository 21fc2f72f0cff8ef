/* SPDX-License-Identifier: MIT */
/* MPI_Pack/MPI_Unpack of contiguous types on MPI_COMM_WORLD, which take a
 * fast path of their own (src/api/pack.cpp), and of other committed types
 * (a second one): the bytes, the position and
 * the bytes around the packed ones must be what the checked path gives, for
 * every copy length class and for types whose data starts away from the
 * buffer (true_lb != 0, MPI_BOTTOM); every argument error must still be
 * raised, leave the position alone and leave MPI usable. The fast path
 * remembers the last type it moved: a freed handle must not pack from
 * memory, and types used in turn must each move their own size. Plain C: it
 * also builds against other MPIs. */
#include <stdint.h>
#include <string.h>

#include "dtcheck.h"

#define GUARD 64
#define MAXB ((1 << 20) + 256)

static unsigned char *src, *packed, *back, *want;

static void fill(unsigned char* p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)(seed + i * 131u + (i >> 8));
}

/* Packs count instances of t (data at base + data_off, nbytes bytes in all)
 * at position pos, in comm, and unpacks them again; checks both against
 * byte copies, the positions, and that nothing else was written. */
static void round_trip(const char* what, void* base, int data_off, MPI_Datatype t, int count,
                       int nbytes, int pos, MPI_Comm comm) {
    const int outsize = pos + nbytes + GUARD;
    memset(packed, 0xA5, (size_t)outsize + GUARD);
    memcpy(want, packed, (size_t)outsize + GUARD);
    memcpy(want + pos, src + data_off, (size_t)nbytes);
    int p = pos;
    OK(MPI_Pack(base, count, t, packed, outsize, &p, comm));
    EXPECT(p == pos + nbytes, "%s: pack position %d, want %d", what, p, pos + nbytes);
    EXPECT(memcmp(packed, want, (size_t)outsize + GUARD) == 0, "%s: packed bytes differ (%d at %d)",
           what, nbytes, pos);

    /* unpack into cleared typed memory: a copy of src, or src itself for
     * MPI_BOTTOM (the absolute addresses point there), then compare with
     * the saved bytes */
    const size_t span = (size_t)data_off + nbytes + GUARD;
    void* ubase = base;
    unsigned char *typed = back, *saved = src;
    if (base == MPI_BOTTOM) {
        typed = src;
        saved = back;
    } else {
        ubase = back;
    }
    memcpy(back, src, span);
    memset(typed + data_off, 0, (size_t)nbytes);
    p = pos;
    OK(MPI_Unpack(packed, outsize, &p, ubase, count, t, comm));
    EXPECT(p == pos + nbytes, "%s: unpack position %d, want %d", what, p, pos + nbytes);
    EXPECT(memcmp(typed, saved, span) == 0, "%s: unpacked bytes differ", what);
}

static void errors(MPI_Datatype t, int size);

/* Frees *t, which a fast path may remember: a pack or unpack through the
 * freed handle is MPI_ERR_TYPE and leaves the position alone. */
static void free_and_expect_gone(MPI_Datatype* t, const char* what) {
    const MPI_Datatype stale = *t;
    OK(MPI_Type_free(t));
    int sp = 0;
    EXPECT_CLASS(MPI_Pack(src, 1, stale, packed, 64, &sp, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Unpack(packed, 64, &sp, back, 1, stale, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(sp == 0, "a pack through a freed %s moved the position to %d", what, sp);
}

/* count elements of t (each n blocks of bl bytes, stride bytes apart, the
 * next element extent bytes on) at position pos: the packed bytes against
 * block copies, and unpack into zeroed blocks of a copy of src restores
 * exactly those blocks. One element of such a type takes the second fast
 * path (one kernel call); more take the checked path. */
static void round_trip_blocks(const char* what, MPI_Datatype t, int count, int n, int bl, int stride,
                              int extent, int pos, MPI_Comm comm) {
    const int nbytes = count * n * bl, outsize = pos + nbytes + GUARD;
    memset(packed, 0xA5, (size_t)outsize + GUARD);
    memcpy(want, packed, (size_t)outsize + GUARD);
    for (int e = 0, w = pos; e < count; ++e)
        for (int i = 0; i < n; ++i, w += bl) memcpy(want + w, src + e * extent + i * stride, (size_t)bl);
    int p = pos;
    OK(MPI_Pack(src, count, t, packed, outsize, &p, comm));
    EXPECT(p == pos + nbytes, "%s: pack position %d, want %d", what, p, pos + nbytes);
    EXPECT(memcmp(packed, want, (size_t)outsize + GUARD) == 0, "%s: packed bytes differ", what);

    const size_t span = (size_t)(count - 1) * extent + (size_t)(n - 1) * stride + bl + GUARD;
    memcpy(back, src, span);
    for (int e = 0; e < count; ++e)
        for (int i = 0; i < n; ++i) memset(back + e * extent + i * stride, 0, (size_t)bl);
    p = pos;
    OK(MPI_Unpack(packed, outsize, &p, back, count, t, comm));
    EXPECT(p == pos + nbytes, "%s: unpack position %d, want %d", what, p, pos + nbytes);
    EXPECT(memcmp(back, src, span) == 0, "%s: unpacked bytes differ", what);
}

/* The second fast path (src/api/pack.cpp, quick_typed): vectors of each
 * block class, a 2-D face and an index list (one kernel call per element),
 * a struct of two kernels (dame::pack), with the same argument errors, types
 * used in turn and a freed handle. */
static void kernel_types(void) {
    static const int bls[] = {1, 8, 13, 40, 64, 300, 2000};
    char what[96];
    for (size_t i = 0; i < sizeof bls / sizeof bls[0]; ++i) {
        const int bl = bls[i], stride = bl + 24, n = 12;
        MPI_Datatype v;
        OK(MPI_Type_vector(n, bl, stride, MPI_BYTE, &v));
        OK(MPI_Type_commit(&v));
        for (int pos = 0; pos < 3; ++pos) {
            snprintf(what, sizeof what, "vector(%d, %d bytes, %d) at %d", n, bl, stride, pos * 5);
            round_trip_blocks(what, v, 1, n, bl, stride, 0, pos * 5, MPI_COMM_WORLD);
        }
        snprintf(what, sizeof what, "2 x vector(%d, %d bytes, %d)", n, bl, stride);
        round_trip_blocks(what, v, 2, n, bl, stride, (n - 1) * stride + bl, 3, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "vector(%d, %d bytes, %d), MPI_COMM_SELF", n, bl, stride);
        round_trip_blocks(what, v, 1, n, bl, stride, 0, 1, MPI_COMM_SELF);
        snprintf(what, sizeof what, "vector(%d, %d bytes, %d), again", n, bl, stride);
        round_trip_blocks(what, v, 1, n, bl, stride, 0, 0, MPI_COMM_WORLD);
        OK(MPI_Type_free(&v));
    }

    /* a 2-D face: 6 rows of 5 blocks of 8 bytes (one nested kernel) */
    MPI_Datatype row, face;
    OK(MPI_Type_vector(5, 1, 3, MPI_DOUBLE, &row));
    OK(MPI_Type_create_hvector(6, 1, 400, row, &face));
    OK(MPI_Type_commit(&face));
    for (int k = 0; k < 2; ++k) { /* the second time from the fast path */
        const int outsize = 240 + GUARD;
        int p = 0;
        memset(packed, 0xA5, (size_t)outsize);
        OK(MPI_Pack(src, 1, face, packed, outsize, &p, MPI_COMM_WORLD));
        EXPECT(p == 240, "2-D face: pack position %d", p);
        for (int r = 0, w = 0; r < 6; ++r)
            for (int c = 0; c < 5; ++c, w += 8)
                EXPECT(memcmp(packed + w, src + r * 400 + c * 24, 8) == 0, "2-D face: block %d,%d differs", r, c);
        EXPECT(packed[240] == 0xA5, "2-D face: pack wrote past its bytes");
    }
    OK(MPI_Type_free(&face));
    OK(MPI_Type_free(&row));

    /* an index list: 9 blocks of 3 ints at scattered places */
    static const int idx[9] = {40, 3, 77, 12, 150, 0, 99, 61, 120};
    MPI_Datatype ib;
    OK(MPI_Type_create_indexed_block(9, 3, idx, MPI_INT, &ib));
    OK(MPI_Type_commit(&ib));
    for (int k = 0; k < 3; ++k) {
        const int outsize = 108 + GUARD;
        int p = 2;
        memset(packed, 0xA5, (size_t)outsize);
        OK(MPI_Pack(src, 1, ib, packed, outsize, &p, MPI_COMM_WORLD));
        EXPECT(p == 110, "index list: pack position %d", p);
        for (int b = 0; b < 9; ++b)
            EXPECT(memcmp(packed + 2 + b * 12, src + idx[b] * 4, 12) == 0, "index list: block %d differs", b);
        memcpy(back, src, 800);
        for (int b = 0; b < 9; ++b) memset(back + idx[b] * 4, 0, 12);
        p = 2;
        OK(MPI_Unpack(packed, outsize, &p, back, 1, ib, MPI_COMM_WORLD));
        EXPECT(p == 110 && memcmp(back, src, 800) == 0, "index list: unpack differs (position %d)", p);
    }
    OK(MPI_Type_free(&ib));

    /* a struct of two vectors over different basic types: more than one
     * kernel, so dame::pack through the remembered type from the second
     * call on; and three of them (extent 96: the doubles' alignment) */
    MPI_Datatype vi, vd, st, parts[2];
    OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vi));
    OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &vd));
    parts[0] = vi, parts[1] = vd;
    int sbl[2] = {1, 1};
    MPI_Aint sd[2] = {0, 64};
    OK(MPI_Type_create_struct(2, sbl, sd, parts, &st));
    OK(MPI_Type_commit(&st));
    for (int k = 0; k < 2; ++k) {
        int p = 0;
        memset(packed, 0xA5, 64);
        OK(MPI_Pack(src, 1, st, packed, 64, &p, MPI_COMM_WORLD));
        EXPECT(p == 28, "struct: pack position %d", p);
        EXPECT(memcmp(packed, src, 4) == 0 && memcmp(packed + 4, src + 8, 4) == 0 &&
                   memcmp(packed + 8, src + 16, 4) == 0 && memcmp(packed + 12, src + 64, 8) == 0 &&
                   memcmp(packed + 20, src + 88, 8) == 0 && packed[28] == 0xA5,
               "struct: packed bytes differ");
    }
    for (int k = 0; k < 2; ++k) {
        int p = 1;
        memset(packed, 0xA5, 128);
        OK(MPI_Pack(src, 3, st, packed, 128, &p, MPI_COMM_WORLD));
        EXPECT(p == 85, "3 structs: pack position %d", p);
        for (int e = 0; e < 3; ++e) {
            const unsigned char* q = packed + 1 + 28 * e;
            const unsigned char* b = src + 96 * e;
            EXPECT(memcmp(q, b, 4) == 0 && memcmp(q + 4, b + 8, 4) == 0 && memcmp(q + 8, b + 16, 4) == 0 &&
                       memcmp(q + 12, b + 64, 8) == 0 && memcmp(q + 20, b + 88, 8) == 0,
                   "3 structs: element %d differs", e);
        }
        EXPECT(packed[0] == 0xA5 && packed[85] == 0xA5, "3 structs: pack wrote outside its bytes");
        memcpy(back, src, 400);
        for (int e = 0; e < 3; ++e) {
            memset(back + 96 * e, 0, 4), memset(back + 96 * e + 8, 0, 4), memset(back + 96 * e + 16, 0, 4);
            memset(back + 96 * e + 64, 0, 8), memset(back + 96 * e + 88, 0, 8);
        }
        p = 1;
        OK(MPI_Unpack(packed, 128, &p, back, 3, st, MPI_COMM_WORLD));
        EXPECT(p == 85 && memcmp(back, src, 400) == 0, "3 structs: unpack differs (position %d)", p);
    }
    OK(MPI_Type_free(&st));
    OK(MPI_Type_free(&vd));
    OK(MPI_Type_free(&vi));

    /* a predefined type with a gap (double + int: 12 bytes, extent 16) */
    for (int k = 0; k < 3; ++k)
        round_trip_blocks("3 MPI_DOUBLE_INT", MPI_DOUBLE_INT, 3, 1, 12, 16, 16, k, MPI_COMM_WORLD);

    /* two types in turn, then a freed handle */
    MPI_Datatype va, vb;
    OK(MPI_Type_vector(4, 8, 20, MPI_BYTE, &va));
    OK(MPI_Type_vector(3, 16, 40, MPI_BYTE, &vb));
    OK(MPI_Type_commit(&va));
    OK(MPI_Type_commit(&vb));
    for (int k = 0; k < 4; ++k) {
        snprintf(what, sizeof what, "alternating vectors, round %d, 32 bytes", k);
        round_trip_blocks(what, va, 1, 4, 8, 20, 0, k, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "alternating vectors, round %d, 48 bytes", k);
        round_trip_blocks(what, vb, 1, 3, 16, 40, 0, k, MPI_COMM_WORLD);
    }
    free_and_expect_gone(&vb, "vector");
    /* a new type may reuse the freed handle: it must move its own bytes */
    MPI_Datatype vc;
    OK(MPI_Type_vector(2, 24, 30, MPI_BYTE, &vc));
    OK(MPI_Type_commit(&vc));
    round_trip_blocks("vector after the freed one", vc, 1, 2, 24, 30, 0, 1, MPI_COMM_WORLD);
    OK(MPI_Type_free(&vc));

    /* the argument errors, once the fast path remembers the type; the _c forms */
    MPI_Count pc = 7;
    OK(MPI_Pack_c(src, 1, va, packed, 7 + 32 + GUARD, &pc, MPI_COMM_WORLD));
    EXPECT(pc == 39 && memcmp(packed + 7, src, 8) == 0 && memcmp(packed + 15, src + 20, 8) == 0,
           "vector, _c: pack position %lld or bytes differ", (long long)pc);
    pc = 7;
    memset(back, 0, 100);
    OK(MPI_Unpack_c(packed, 7 + 32 + GUARD, &pc, back, 1, va, MPI_COMM_WORLD));
    EXPECT(pc == 39 && memcmp(back + 60, src + 60, 8) == 0 && back[8] == 0,
           "vector, _c: unpack position %lld or bytes differ", (long long)pc);
    errors(va, 32);
    OK(MPI_Type_free(&va));
}

/* The _c forms, on the same data. */
static void round_trip_c(const char* what, MPI_Datatype t, MPI_Count count, MPI_Count nbytes,
                         MPI_Count pos) {
    const MPI_Count outsize = pos + nbytes + GUARD;
    memset(packed, 0x5A, (size_t)outsize);
    MPI_Count p = pos;
    OK(MPI_Pack_c(src, count, t, packed, outsize, &p, MPI_COMM_WORLD));
    EXPECT(p == pos + nbytes, "%s: pack_c position %lld", what, (long long)p);
    EXPECT(memcmp(packed + pos, src, (size_t)nbytes) == 0, "%s: pack_c bytes differ", what);
    EXPECT(packed[pos + nbytes] == 0x5A && (pos == 0 || packed[pos - 1] == 0x5A),
           "%s: pack_c wrote outside its bytes", what);
    memset(back, 0, (size_t)nbytes);
    p = pos;
    OK(MPI_Unpack_c(packed, outsize, &p, back, count, t, MPI_COMM_WORLD));
    EXPECT(p == pos + nbytes, "%s: unpack_c position %lld", what, (long long)p);
    EXPECT(memcmp(back, src, (size_t)nbytes) == 0, "%s: unpack_c bytes differ", what);
}

/* Every argument error on a committed contiguous type and MPI_COMM_WORLD. */
static void errors(MPI_Datatype t, int size) {
    char buf[256];
    int p = 0;
    int big = 4 * size;
    p = 0;
    EXPECT_CLASS(MPI_Pack(src, 4, t, buf, big - 1, &p, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    EXPECT(p == 0, "truncated pack moved the position to %d", p);
    p = 8;
    EXPECT_CLASS(MPI_Pack(src, 4, t, buf, big + 7, &p, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    EXPECT(p == 8, "truncated pack at 8 moved the position to %d", p);
    p = -1;
    EXPECT_CLASS(MPI_Pack(src, 1, t, buf, big, &p, MPI_COMM_WORLD), MPI_ERR_ARG);
    p = big + 1;
    EXPECT_CLASS(MPI_Pack(src, 1, t, buf, big, &p, MPI_COMM_WORLD), MPI_ERR_ARG);
    p = 0;
    EXPECT_CLASS(MPI_Pack(src, 1, t, buf, -5, &p, MPI_COMM_WORLD), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pack(src, -1, t, buf, big, &p, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Pack(src, 1, t, buf, big, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Pack(src, 1, t, NULL, big, &p, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Pack(src, 1, MPI_DATATYPE_NULL, buf, big, &p, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Pack(src, 1, (MPI_Datatype)(uintptr_t)0x18765431, buf, big, &p, MPI_COMM_WORLD),
                 MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Pack(src, 1, t, buf, big, &p, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(p == 0, "a failed pack moved the position to %d", p);

    p = 0;
    EXPECT_CLASS(MPI_Unpack(buf, big - 1, &p, back, 4, t, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    p = big;
    EXPECT_CLASS(MPI_Unpack(buf, big, &p, back, 1, t, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    EXPECT(p == big, "truncated unpack moved the position to %d", p);
    p = -3;
    EXPECT_CLASS(MPI_Unpack(buf, big, &p, back, 1, t, MPI_COMM_WORLD), MPI_ERR_ARG);
    p = 0;
    EXPECT_CLASS(MPI_Unpack(buf, -1, &p, back, 1, t, MPI_COMM_WORLD), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Unpack(buf, big, &p, back, -2, t, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Unpack(buf, big, NULL, back, 1, t, MPI_COMM_WORLD), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Unpack(NULL, big, &p, back, 1, t, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Unpack(buf, big, &p, back, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(p == 0, "a failed unpack moved the position to %d", p);

    /* count 0 moves nothing, even with NULL buffers */
    p = 3;
    OK(MPI_Pack(NULL, 0, t, NULL, 3, &p, MPI_COMM_WORLD));
    OK(MPI_Unpack(NULL, 3, &p, NULL, 0, t, MPI_COMM_WORLD));
    EXPECT(p == 3, "count 0 moved the position to %d", p);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    src = malloc(MAXB + 4 * GUARD);
    packed = malloc(MAXB + 4 * GUARD);
    back = malloc(MAXB + 4 * GUARD);
    want = malloc(MAXB + 4 * GUARD);
    if (!src || !packed || !back || !want) MPI_Abort(MPI_COMM_WORLD, 2);
    fill(src, MAXB + 4 * GUARD, 7);

    /* every copy class: 1..3 (bytes), 4..31 (two overlapping moves), 32..255
     * (32-byte steps), memcpy from 256 (baseline); with the x86-64-v4
     * kernels 32-byte moves to 64, 128 and in 128-byte steps below 16 KiB,
     * memcpy from there; the last just under and at the streaming floor
     * (1 MiB), where the checked path takes over */
    static const int lens[] = {1,    2,    3,    5,    8,     9,     15,    16,    17,
                               31,   32,   33,   63,   64,    65,    100,   127,   128,
                               129,  255,  256,  257,  480,   1320,  4096,  8191,  16383,
                               16384, 16385, 65535, (1 << 20) - 1, 1 << 20};
    char what[96];
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; ++i) {
        const int n = lens[i];
        MPI_Datatype c;
        OK(MPI_Type_contiguous(n, MPI_BYTE, &c));
        OK(MPI_Type_commit(&c));
        for (int pos = 0; pos < 3; ++pos) {
            snprintf(what, sizeof what, "contiguous(%d bytes) at %d", n, pos * 13);
            round_trip(what, src, 0, c, 1, n, pos * 13, MPI_COMM_WORLD);
        }
        snprintf(what, sizeof what, "contiguous(%d bytes) on MPI_COMM_SELF", n);
        round_trip(what, src, 0, c, 1, n, 5, MPI_COMM_SELF);
        if (n <= 4096) { /* count > 1 */
            snprintf(what, sizeof what, "3 x contiguous(%d bytes)", n);
            round_trip(what, src, 0, c, 3, 3 * n, 1, MPI_COMM_WORLD);
        }
        snprintf(what, sizeof what, "contiguous(%d bytes), _c", n);
        round_trip_c(what, c, 1, n, 7);
        OK(MPI_Type_free(&c));
    }

    /* predefined types, several counts */
    round_trip("1 MPI_DOUBLE", src, 0, MPI_DOUBLE, 1, 8, 0, MPI_COMM_WORLD);
    round_trip("60 MPI_DOUBLE", src, 0, MPI_DOUBLE, 60, 480, 4, MPI_COMM_WORLD);
    round_trip("7 MPI_SHORT", src, 0, MPI_SHORT, 7, 14, 2, MPI_COMM_WORLD);

    /* data away from the buffer: one block of 40 ints 24 bytes in (true_lb 24) */
    MPI_Datatype off;
    int bl = 40;
    MPI_Aint disp = 24;
    OK(MPI_Type_create_hindexed(1, &bl, &disp, MPI_INT, &off));
    OK(MPI_Type_commit(&off));
    round_trip("hindexed 40 ints at 24", src, 24, off, 1, 160, 3, MPI_COMM_WORLD);
    round_trip("hindexed 40 ints at 24, MPI_COMM_SELF", src, 24, off, 1, 160, 3, MPI_COMM_SELF);
    OK(MPI_Type_free(&off));

    /* MPI_BOTTOM with an absolute address */
    MPI_Datatype abs_t;
    MPI_Aint addr;
    int blk = 300;
    OK(MPI_Get_address(src + 40, &addr));
    OK(MPI_Type_create_hindexed(1, &blk, &addr, MPI_BYTE, &abs_t));
    OK(MPI_Type_commit(&abs_t));
    round_trip("MPI_BOTTOM, 300 bytes", MPI_BOTTOM, 40, abs_t, 1, 300, 9, MPI_COMM_WORLD);
    fill(src, MAXB + 4 * GUARD, 7);
    OK(MPI_Type_free(&abs_t));

    /* the remembered type: two types in turn, each moving its own bytes;
     * then a freed handle, used right after a pack through it, is an error */
    MPI_Datatype ta, tb;
    OK(MPI_Type_contiguous(2, MPI_DOUBLE, &ta));
    OK(MPI_Type_contiguous(3, MPI_DOUBLE, &tb));
    OK(MPI_Type_commit(&ta));
    OK(MPI_Type_commit(&tb));
    for (int k = 0; k < 4; ++k) {
        snprintf(what, sizeof what, "alternating types, round %d, 16 bytes", k);
        round_trip(what, src, 0, ta, 1, 16, k, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "alternating types, round %d, 48 bytes", k);
        round_trip(what, src, 0, tb, 2, 48, k, MPI_COMM_WORLD);
    }
    free_and_expect_gone(&ta, "type");
    round_trip("after the freed type", src, 0, tb, 1, 24, 0, MPI_COMM_WORLD);
    free_and_expect_gone(&tb, "type");

    /* errors */
    MPI_Datatype e;
    OK(MPI_Type_contiguous(10, MPI_INT, &e));
    EXPECT_CLASS(MPI_Pack(src, 1, e, packed, 64, &(int){0}, MPI_COMM_WORLD), MPI_ERR_TYPE); /* uncommitted */
    EXPECT_CLASS(MPI_Unpack(packed, 64, &(int){0}, back, 1, e, MPI_COMM_WORLD), MPI_ERR_TYPE);
    OK(MPI_Type_commit(&e));
    errors(e, 40);
    errors(MPI_INT, 4);
    OK(MPI_Type_free(&e));
    /* count times size overflows 64 bits */
    MPI_Datatype huge;
    MPI_Count p = 0;
    OK(MPI_Type_contiguous_c((MPI_Count)1 << 40, MPI_BYTE, &huge));
    OK(MPI_Type_commit(&huge));
    EXPECT_CLASS(MPI_Pack_c(src, (MPI_Count)1 << 30, huge, packed, 64, &p, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Unpack_c(packed, 64, &p, back, (MPI_Count)1 << 30, huge, MPI_COMM_WORLD),
                 MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Pack(src, 1, huge, packed, 64, &(int){0}, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    /* the same once the second fast path remembers the type (the failed
     * call above did): the product still overflows, not wraps to 64 */
    p = 0;
    EXPECT_CLASS(MPI_Pack_c(src, (MPI_Count)1 << 24, huge, packed, 64, &p, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Unpack_c(packed, 64, &p, back, (MPI_Count)1 << 24, huge, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(p == 0, "an overflowing count moved the position to %lld", (long long)p);
    OK(MPI_Type_free(&huge));

    kernel_types();

    /* still usable */
    round_trip("after the errors", src, 0, MPI_DOUBLE, 60, 480, 0, MPI_COMM_WORLD);
    free(src);
    free(packed);
    free(back);
    free(want);
    return dt_finish("dt_pack_quick");
}
