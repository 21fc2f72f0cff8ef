# SPDX-License-Identifier: MIT
# Test registration helpers (STYLE.md #11). Suites live in test/<suite>/ or
# test/unit/<component>/, each with its own CMakeLists.txt; a suite never
# add_subdirectory()s its children (test/CMakeLists.txt finds them all).
#
# Tests call our tools by their build paths, never mpicc/mpiexec from PATH.
set(CH4LITE_MPIEXEC ${CMAKE_BINARY_DIR}/bin/mpiexec)
set(CH4LITE_AM_LIBDIR ${CMAKE_BINARY_DIR}/am/lib)
find_program(CH4LITE_HYDRA mpiexec.hydra)
include(GoogleTest)

# GoogleTest and the standard headers the tests use, precompiled once for
# every unit test: parsing them was 30 to
# 45 % of compiling a test file (-ftime-report of op_test.cpp,
# normalize_test.cpp, ring_test.cpp: 5.5-6 s each). A test whose flags the
# header does not fit (GCC checks) parses the headers as before.
# Its target is a (never run) program, so that it is compiled as the tests
# are (-fPIE; a library's -fPIC would not fit them).
set(pch_src ${CMAKE_BINARY_DIR}/generated/test_pch.cpp)
file(CONFIGURE OUTPUT ${pch_src} CONTENT "int main() { return 0; }\n")
add_executable(ch4lite_test_pch ${pch_src})
target_link_libraries(ch4lite_test_pch PRIVATE GTest::gtest)
target_compile_options(ch4lite_test_pch PRIVATE ${CH4LITE_WARNINGS})
target_precompile_headers(ch4lite_test_pch PRIVATE <gtest/gtest.h> <algorithm> <cstdint> <cstdlib>
  <cstring> <memory> <numeric> <random> <string> <thread> <vector>)

# ch4lite_unit_test(<name> SOURCES <files> [LIBS <targets>])
# A single-process GoogleTest binary; each TEST becomes a ctest test.
function(ch4lite_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;INCLUDES" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src
    ${PROJECT_SOURCE_DIR}/include ${T_INCLUDES})
  target_compile_options(${name} PRIVATE ${CH4LITE_WARNINGS})
  target_precompile_headers(${name} REUSE_FROM ch4lite_test_pch)
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main ${T_LIBS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin)
  gtest_discover_tests(${name} TEST_PREFIX "unit." DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 300)
endfunction()

# The (netmod path, shm) variants an MPI test runs in. "tagged" uses the
# default libmpi (native fi_tsend/fi_trecv), "am" swaps in the forced-AM build
# through LD_LIBRARY_PATH (same soname, same ABI). shm on/off is a runtime
# switch. The program can check which library it got: CH4LITE_EXPECT_PATH.
set(CH4LITE_TEST_PATHS tagged am CACHE STRING "netmod paths MPI tests run on")
# The ucx netmod's paths (test/mpi/ucx runs a subset of the programs on
# them, shm off so that every message crosses the netmod): "ucx" is the
# full netmod (native tagged), "ucx_am" the active-message-only stage; each
# over UCX's default transports (shared memory and cma on this node) and
# "_tcp" over tcp on loopback (UCX_TLS=tcp UCX_NET_DEVICES=lo).
# (CH4LITE_UCX_LIBDIR / CH4LITE_UCX_AM_LIBDIR: the top-level CMakeLists.txt.)
if(CH4LITE_NETMOD STREQUAL "ucx")
  set(ucx_targets mpi mpi_am)
else()
  set(ucx_targets mpi_ucx mpi_ucx_am)
endif()
set(CH4LITE_UCX_TEST_PATHS)
list(GET ucx_targets 0 t_full)
list(GET ucx_targets 1 t_am)
if(TARGET ${t_full})
  list(APPEND CH4LITE_UCX_TEST_PATHS ucx ucx_tcp)
endif()
if(TARGET ${t_am})
  list(APPEND CH4LITE_UCX_TEST_PATHS ucx_am ucx_am_tcp)
endif()
set(CH4LITE_TEST_SHM on off CACHE STRING "shm settings MPI tests run with")

# ch4lite_genv(<out var> K=V ...) -> "-genv K V ..." for a launcher command.
function(ch4lite_genv out)
  set(args)
  foreach(kv ${ARGN})
    string(FIND "${kv}" "=" eq)
    string(SUBSTRING "${kv}" 0 ${eq} k)
    math(EXPR eq1 "${eq} + 1")
    string(SUBSTRING "${kv}" ${eq1} -1 v)
    list(APPEND args -genv ${k} ${v})
  endforeach()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# ch4lite_mpi_program(<name> SOURCES <files> [LIBS ...])  -- builds only.
function(ch4lite_mpi_program name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE mpi ${T_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/test/mpi/common)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-bin)
endfunction()

# ch4lite_mpi_test(<name> SOURCES <files> | PROGRAM <existing target>
#                  [NP 2 3 4] [PATHS tagged am]
#                  [SHM on off] [ARGS ...] [ENV K=V ...] [TIMEOUT s]
#                  [WILL_FAIL] [PASS_REGEX re] [LABELS ...] [NO_HYDRA]
#                  [RESOURCE_LOCK name] [PPN p] [ALL_VARIANTS])
# Builds the program and registers mpi.<name>.np<N>.<path>.shm<on|off> tests
# run under our mpiexec, plus hydra.<name>.np<N> under mpiexec.hydra when
# installed (unless NO_HYDRA), at the largest N listed: the rank counts are
# covered under our mpiexec, the Hydra run checks the launcher contract
# (test/launch adds Hydra's modes: PMI port, mapping, abort, crash).
#
# Which variants `make check` runs (docs/testing.md): every rank count, and
# for each of them some (path, shm) pairs such that every pair of values of
# two dimensions -- (N, path), (N, shm), (path, shm) -- is run at least once
# (a pairwise covering: 6 of the 12 variants of NP 2 3 4 x tagged am x on off,
# half of them with shm off, which is what costs: opening libfabric is
# 0.3-1 s per rank). The other variants get the label "full": `make
# check-full` runs them too. ALL_VARIANTS: every variant in `make check`.
# The Hydra run of a registration without SOURCES (a variant of a program
# registered elsewhere) is labelled "full" too.
# A test that `make check` runs in a short form reads CH4LITE_TEST_FULL
# (mpitest.h: mt_full()), which `make check-full` sets; label it "soak" or
# "large".
function(ch4lite_mpi_test name)
  cmake_parse_arguments(T "WILL_FAIL;NO_HYDRA;ALL_VARIANTS" "TIMEOUT;PASS_REGEX;PROGRAM;RESOURCE_LOCK;PPN"
    "SOURCES;NP;PATHS;SHM;ARGS;ENV;LABELS;LIBS" ${ARGN})
  if(NOT T_PROGRAM)
    set(T_PROGRAM ${name})
  endif()
  if(NOT DEFINED T_NP)
    set(T_NP 2 3 4)
  endif()
  if(NOT DEFINED T_PATHS)
    set(T_PATHS ${CH4LITE_TEST_PATHS})
  endif()
  if(NOT DEFINED T_SHM)
    set(T_SHM ${CH4LITE_TEST_SHM})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(T_SOURCES)
    ch4lite_mpi_program(${name} SOURCES ${T_SOURCES} LIBS ${T_LIBS})
    # A program's own registration is a candidate for the ucx paths:
    # test/mpi/ucx (processed after the other suites) runs it there.
    set_property(GLOBAL APPEND PROPERTY CH4LITE_UCX_CANDIDATES ${name})
    foreach(k NP ARGS ENV TIMEOUT LABELS PASS_REGEX)
      set_property(GLOBAL PROPERTY CH4LITE_UCX_${name}_${k} "${T_${k}}")
    endforeach()
  endif()
  ch4lite_genv(genv ${T_ENV})
  if(T_PPN)
    # Nodes of PPN consecutive ranks (mpiexec -ppn): a job with node peers
    # (shm) and off-node peers (netmod) at once. Hydra has no such mode.
    list(APPEND genv -ppn ${T_PPN} -genv CH4LITE_TEST_PPN ${T_PPN})
    set(T_NO_HYDRA TRUE)
  endif()
  list(LENGTH T_NP n_np)
  list(LENGTH T_PATHS n_paths)
  list(LENGTH T_SHM n_shm)
  set(np_index 0)
  foreach(np ${T_NP})
    set(next_path 0)
    foreach(path ${T_PATHS})
      set(path_index ${next_path})
      math(EXPR next_path "${next_path} + 1")
      if(path STREQUAL "am")
        if(NOT TARGET mpi_am)
          continue()
        endif()
        set(penv -genv LD_LIBRARY_PATH ${CH4LITE_AM_LIBDIR} -genv CH4LITE_EXPECT_PATH am)
      elseif(path MATCHES "^ucx")
        if(NOT path IN_LIST CH4LITE_UCX_TEST_PATHS)
          continue()
        endif()
        if(path MATCHES "^ucx_am")
          set(penv -genv LD_LIBRARY_PATH ${CH4LITE_UCX_AM_LIBDIR} -genv CH4LITE_EXPECT_PATH ucx_am)
        else()
          set(penv -genv LD_LIBRARY_PATH ${CH4LITE_UCX_LIBDIR} -genv CH4LITE_EXPECT_PATH ucx)
        endif()
        if(path MATCHES "_tcp$")
          list(APPEND penv -genv UCX_TLS tcp -genv UCX_NET_DEVICES lo)
        endif()
      else()
        set(penv -genv CH4LITE_EXPECT_PATH ${path})
      endif()
      set(shm_index 0)
      foreach(shm ${T_SHM})
        # In the covering (see above): path index (np_index + j) mod n_paths
        # with shm index j mod n_shm, for some j < max(n_paths, n_shm).
        set(core FALSE)
        if(T_ALL_VARIANTS OR n_np EQUAL 1)
          set(core TRUE)
        else()
          if(n_paths GREATER n_shm)
            math(EXPR jlast "${n_paths} - 1")
          else()
            math(EXPR jlast "${n_shm} - 1")
          endif()
          foreach(j RANGE ${jlast})
            math(EXPR p "(${np_index} + ${j}) % ${n_paths}")
            math(EXPR q "${j} % ${n_shm}")
            if(p EQUAL path_index AND q EQUAL shm_index)
              set(core TRUE)
            endif()
          endforeach()
        endif()
        math(EXPR shm_index "${shm_index} + 1")
        if(core)
          set(vlabels "mpi;${T_LABELS}")
        else()
          set(vlabels "mpi;full;${T_LABELS}")
        endif()
        if(shm STREQUAL "on")
          set(senv -genv CH4LITE_SHM 1)
        else()
          set(senv -genv CH4LITE_SHM 0)
        endif()
        set(tname mpi.${name}.np${np}.${path}.shm${shm})
        add_test(NAME ${tname} COMMAND ${CH4LITE_MPIEXEC} -n ${np} -maxtime ${T_TIMEOUT}
          ${penv} ${senv} ${genv} $<TARGET_FILE:${T_PROGRAM}> ${T_ARGS})
        set_tests_properties(${tname} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${vlabels}"
          PROCESSORS 2)
        if(T_WILL_FAIL)
          set_tests_properties(${tname} PROPERTIES WILL_FAIL TRUE)
        endif()
        if(T_PASS_REGEX)
          set_tests_properties(${tname} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
        endif()
        if(T_RESOURCE_LOCK)
          set_tests_properties(${tname} PROPERTIES RESOURCE_LOCK ${T_RESOURCE_LOCK})
        endif()
      endforeach()
    endforeach()
    math(EXPR np_index "${np_index} + 1")
    list(GET T_NP -1 np_hydra)
    if(CH4LITE_HYDRA AND NOT T_NO_HYDRA AND np EQUAL np_hydra)
      set(tname hydra.${name}.np${np})
      ch4lite_genv(henv ${T_ENV})
      add_test(NAME ${tname} COMMAND ${CH4LITE_HYDRA} -n ${np} ${henv}
        -genv CH4LITE_EXPECT_PATH tagged $<TARGET_FILE:${T_PROGRAM}> ${T_ARGS})
      # One Hydra run per program in make check: that of its own
      # registration (SOURCES); variants of a program (PROGRAM, other ENV or
      # ARGS) test no more of the launcher contract: check-full only.
      if(T_SOURCES)
        set(hlabels "hydra;${T_LABELS}")
      else()
        set(hlabels "hydra;full;${T_LABELS}")
      endif()
      set_tests_properties(${tname} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${hlabels}"
        PROCESSORS 2)
      if(T_WILL_FAIL)
        set_tests_properties(${tname} PROPERTIES WILL_FAIL TRUE)
      endif()
      if(T_PASS_REGEX)
        set_tests_properties(${tname} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
      endif()
    endif()
  endforeach()
endfunction()
