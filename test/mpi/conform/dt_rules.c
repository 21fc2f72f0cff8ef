/* SPDX-License-Identifier: MIT */
/* The datatype chapter (MPI-4.1 §5) rule by rule: the rules checked here
 * carry a tag in main(); the others name the test that holds them.
 *
 * | tag | rule                                                               | check                                   |
 * |-----|--------------------------------------------------------------------|-----------------------------------------|
 * | D1  | MPI_Type_commit of a committed type is a no-op                     | here: twice, then used                  |
 * | D2  | freeing a predefined type is erroneous                             | datatype/dt_errors.c (MPI_ERR_TYPE)     |
 * | D3  | Type_free sets MPI_DATATYPE_NULL; types built from it and pending  | datatype/dt_basic.c, here               |
 * |     | operations using it are not affected                               |                                         |
 * | D4  | MPI_Type_dup: same type map; committed if the original was         | here: dup of committed is usable        |
 * |     |                                                                    | without commit; of uncommitted is not   |
 * | D5  | Type_size too large for an int: MPI_UNDEFINED                      | conform/alias_overflow.c O4             |
 * | D6  | envelope of a predefined type is MPI_COMBINER_NAMED; get_contents  | datatype/dt_basic.c, dt_errors.c        |
 * |     | of it is erroneous                                                 |                                         |
 * | D7  | get_contents returns predefined types as they are, derived ones as | here                                    |
 * |     | new handles the caller frees                                       |                                         |
 * | D8  | an uncommitted type in communication is erroneous (MPI_ERR_TYPE)   | here (MPI_Send), dt_errors.c (Pack)     |
 * | D9  | count 0 is valid: a type of size 0 and extent 0                    | here                                    |
 * | D10 | negative counts / blocklengths: MPI_ERR_COUNT; negative strides and| dt_errors.c, here                       |
 * |     | displacements are valid                                            |                                         |
 * | D11 | Type_create_resized: lb and extent as given, true extent unchanged | datatype/dt_basic.c                     |
 * | D12 | names: predefined "MPI_INT", derived "" until set                  | datatype/dt_name.c                      |
 * | D13 | Get_elements counts basic elements of partial types                | datatype/dt_basic.c                     |
 * | D14 | Pack/Unpack advance position; too small a buffer: MPI_ERR_TRUNCATE | datatype/dt_errors.c, dt_pack_quick.c   |
 * | D15 | external32 representation and its size                             | datatype/dt_external32.c                |
 * | D16 | subarray / darray constructors                                     | datatype/dt_darray.c, ddt/darray.c      |
 * | D17 | attributes on datatypes (§7.7.4)                                   | conform/attr_rules.c                    |
 * | D18 | Type_dup of a predefined type: combiner DUP, freeable              | here                                    |
 * | D19 | large-count constructors / _c queries                              | datatype/dt_basic.c                     | */
#include "mpitest.h"

static int cls_of(int rc) {
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char** argv) {
    mt_init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    const int peer = me ^ 1;
    const int active = peer < np;

    /* D1 */
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    CHECK_MPI(MPI_Type_commit(&v));
    int sz = 0;
    CHECK_MPI(MPI_Type_size(v, &sz));
    CHECK(sz == 12, "D1 size after two commits: %d", sz);

    /* D4: committed state travels with the dup */
    MPI_Datatype dc, du, u;
    CHECK_MPI(MPI_Type_dup(v, &dc));
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &u));
    CHECK_MPI(MPI_Type_dup(u, &du));
    int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
    if (active) {
        CHECK_MPI(MPI_Sendrecv(src, 1, dc, peer, 0, dst, 1, dc, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(dst[0] == 1 && dst[2] == 3 && dst[4] == 5 && dst[1] == 0, "D4 dup of a committed type");
        /* D8: an uncommitted type (the dup of one) is refused */
        const int rc = MPI_Send(src, 1, du, peer, 1, MPI_COMM_WORLD);
        CHECK(cls_of(rc) == MPI_ERR_TYPE, "D8/D4 uncommitted dup in MPI_Send: class %d", cls_of(rc));
    }
    CHECK_MPI(MPI_Type_free(&du));
    CHECK_MPI(MPI_Type_free(&u));

    /* D3: freeing v leaves dc (built from it) usable */
    CHECK_MPI(MPI_Type_free(&v));
    CHECK(v == MPI_DATATYPE_NULL, "D3 Type_free resets the handle");
    CHECK_MPI(MPI_Type_size(dc, &sz));
    CHECK(sz == 12, "D3 a dup outlives its original: %d", sz);

    /* D7 */
    MPI_Datatype c2, inner;
    CHECK_MPI(MPI_Type_contiguous(2, dc, &c2));
    int ni, na, nd, comb, ints[4];
    CHECK_MPI(MPI_Type_get_envelope(c2, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 1 && nd == 1, "D7 envelope");
    CHECK_MPI(MPI_Type_get_contents(c2, 1, 0, 1, ints, NULL, &inner));
    CHECK(ints[0] == 2 && inner != dc && inner != MPI_DATATYPE_NULL, "D7 a derived type comes as a new handle");
    CHECK_MPI(MPI_Type_free(&inner));
    MPI_Datatype ci, pre;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &ci));
    CHECK_MPI(MPI_Type_get_contents(ci, 1, 0, 1, ints, NULL, &pre));
    CHECK(pre == MPI_INT, "D7 a predefined type comes as itself");
    CHECK_MPI(MPI_Type_free(&ci));
    CHECK_MPI(MPI_Type_free(&c2));
    CHECK_MPI(MPI_Type_free(&dc));

    /* D9 */
    MPI_Datatype z;
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &z));
    CHECK_MPI(MPI_Type_commit(&z));
    MPI_Aint lb = -1, ext = -1;
    CHECK_MPI(MPI_Type_size(z, &sz));
    CHECK_MPI(MPI_Type_get_extent(z, &lb, &ext));
    CHECK(sz == 0 && ext == 0 && lb == 0, "D9 empty type: size %d extent %ld", sz, (long)ext);
    if (active)
        CHECK_MPI(MPI_Sendrecv(src, 5, z, peer, 2, dst, 5, z, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Type_free(&z));

    /* D10: a negative stride and a negative displacement */
    MPI_Datatype neg, negi;
    CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_INT, &neg));
    CHECK_MPI(MPI_Type_commit(&neg));
    CHECK_MPI(MPI_Type_get_extent(neg, &lb, &ext));
    CHECK(lb == -4 * (int)sizeof(int) && ext == 5 * (int)sizeof(int), "D10 negative stride: lb %ld extent %ld",
          (long)lb, (long)ext);
    int bl[2] = {1, 1}, dsp[2] = {-1, 2};
    CHECK_MPI(MPI_Type_indexed(2, bl, dsp, MPI_INT, &negi));
    CHECK_MPI(MPI_Type_commit(&negi));
    char packed[64];
    int pos = 0;
    CHECK_MPI(MPI_Pack(src + 4, 1, neg, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 12 && ((int*)packed)[0] == 5 && ((int*)packed)[1] == 3 && ((int*)packed)[2] == 1,
          "D10 negative stride packs 5 3 1: %d %d %d", ((int*)packed)[0], ((int*)packed)[1], ((int*)packed)[2]);
    pos = 0;
    CHECK_MPI(MPI_Pack(src + 4, 1, negi, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 8 && ((int*)packed)[0] == 4 && ((int*)packed)[1] == 7, "D10 negative displacement");
    CHECK(cls_of(MPI_Type_vector(-1, 1, 1, MPI_INT, &neg)) == MPI_ERR_COUNT, "D10 negative count");
    MPI_Type_free(&negi);
    MPI_Type_free(&neg);

    /* D18 */
    MPI_Datatype di;
    CHECK_MPI(MPI_Type_dup(MPI_INT, &di));
    CHECK_MPI(MPI_Type_get_envelope(di, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && nd == 1, "D18 dup of MPI_INT: combiner %d", comb);
    CHECK_MPI(MPI_Type_size(di, &sz));
    CHECK(sz == (int)sizeof(int), "D18 size");
    CHECK_MPI(MPI_Type_free(&di));

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) printf("dt_rules: OK\n");
    MPI_Finalize();
    return 0;
}
