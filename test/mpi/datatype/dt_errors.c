/* SPDX-License-Identifier: MIT */
/* Bad input to the datatype functions gives the right error class, never a crash. */
#include "dtcheck.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = MPI_DATATYPE_NULL, v;
    int bl[2] = {1, -1}, d[2] = {0, 4};
    char buf[64];
    int pos = 0;
    EXPECT_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_vector(2, -1, 2, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_contiguous(2, (MPI_Datatype)0x12345678, &t), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_indexed(2, NULL, d, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_indexed(2, bl, d, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_free(&(MPI_Datatype){MPI_INT}), MPI_ERR_TYPE);
    /* absurd sizes: 2^40 elements of 2^40 bytes overflow 64 bits */
    MPI_Datatype huge, huger;
    OK(MPI_Type_contiguous_c((MPI_Count)1 << 40, MPI_BYTE, &huge));
    EXPECT_CLASS(MPI_Type_contiguous_c((MPI_Count)1 << 40, huge, &huger), MPI_ERR_ARG);
    OK(MPI_Type_free(&huge));
    /* uncommitted type in Pack */
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    int src[4] = {1, 2, 3, 4};
    EXPECT_CLASS(MPI_Pack(src, 1, v, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    OK(MPI_Type_commit(&v));
    /* buffers too small */
    pos = 0;
    EXPECT_CLASS(MPI_Pack(src, 1, v, buf, 4, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 60;
    EXPECT_CLASS(MPI_Unpack(buf, 64, &pos, src, 1, v, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 0;
    EXPECT_CLASS(MPI_Pack(src, -1, v, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Pack(src, 1, v, buf, sizeof buf, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Pack(src, 1, v, buf, sizeof buf, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    int sz;
    EXPECT_CLASS(MPI_Pack_size(-3, v, MPI_COMM_WORLD, &sz), MPI_ERR_COUNT);
    OK(MPI_Type_free(&v));
    EXPECT_CLASS(MPI_Type_commit(&v), MPI_ERR_TYPE); /* freed: now MPI_DATATYPE_NULL */
    int ints[4];
    EXPECT_CLASS(MPI_Type_get_contents(MPI_INT, 4, 0, 0, ints, NULL, NULL), MPI_ERR_TYPE);
    return dt_finish("dt_errors");
}
