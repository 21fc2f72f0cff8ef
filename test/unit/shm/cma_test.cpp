// SPDX-License-Identifier: MIT
// Under Yama ptrace_scope 1 the shm transport declares a tracer so that
// node peers may read its memory (cross-memory attach): only its launcher
// (its parent, whose descendants are the job's ranks on the node), never
// PR_SET_PTRACER_ANY, which let any process of the uid attach (issue 46).
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "shm/cma.hpp"

using namespace ch4lite;

TEST(ShmCma, TracerIsTheLauncherNeverAny) {
    EXPECT_EQ(shm::cma::tracer_for_scope(1), static_cast<unsigned long>(::getppid()));
    EXPECT_NE(shm::cma::tracer_for_scope(1), static_cast<unsigned long>(PR_SET_PTRACER_ANY));
    for (int scope : {-1, 0, 2, 3}) EXPECT_EQ(shm::cma::tracer_for_scope(scope), 0u) << scope;
}
