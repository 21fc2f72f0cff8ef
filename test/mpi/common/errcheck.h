/* SPDX-License-Identifier: MIT */
/* Checks of the error a call returns under MPI_ERRORS_RETURN, for the tests
 * of bad arguments: EXPECT(call, class, func) wants that error class and a
 * message that names func (NULL: any message); EXPECT_LEAD wants the
 * message to start with func. A failed expectation is printed (file:line,
 * rank, the call, the message) and counted in mt_nerr instead of aborting,
 * so one run reports every wrong answer; the test ends with
 * CHECK(mt_nerr == 0, ...). */
#ifndef CH4LITE_ERRCHECK_H
#define CH4LITE_ERRCHECK_H
#include "mpitest.h"

static int mt_nerr = 0;

static void mt_expect(int rc, int cls, const char* func, int lead, const char* what, const char* file,
                      int line) {
    int got = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(rc, &got);
    MPI_Error_string(rc, msg, &len);
    if (got != cls) {
        fprintf(stderr, "FAIL %s:%d rank %d (%s): class %d, expected %d (%s)\n", file, line, mt_rank,
                what, got, cls, msg);
        ++mt_nerr;
    } else if (func && (lead ? strncmp(msg, func, strlen(func)) != 0 : !strstr(msg, func))) {
        fprintf(stderr, "FAIL %s:%d rank %d (%s): message '%s' does not %s %s\n", file, line, mt_rank,
                what, msg, lead ? "start with" : "name", func);
        ++mt_nerr;
    }
}
#define EXPECT(call, cls, func) mt_expect((call), (cls), (func), 0, #call, __FILE__, __LINE__)
#define EXPECT_LEAD(call, cls, func) mt_expect((call), (cls), (func), 1, #call, __FILE__, __LINE__)

#endif
