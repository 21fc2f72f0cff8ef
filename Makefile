# SPDX-License-Identifier: MIT
# Convenience front end over CMake. The README's quick start:
#   make demo    install what is missing, build, run the examples under mpiexec -n 4
#   make check   build and run the tests (the short form: docs/testing.md)
#   make check-full  every test variant, soak and large tests whole
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
CTEST_FLAGS ?=
# The checking build of `make sanitize` (not part of `make check`: ~2x slower).
SAN_BUILD ?= build-sanitize
SANITIZE ?= address,undefined
# handle_segv=0: some tests crash a rank on purpose and expect mpiexec to
# report SIGSEGV, not the sanitizer's exit status.
SAN_ENV ?= ASAN_OPTIONS=detect_leaks=1:handle_segv=0 UBSAN_OPTIONS=print_stacktrace=1

.PHONY: all deps configure build demo check check-full sanitize bench bench-doc install clean

all: build

deps:
	@sh scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@sh scripts/demo.sh $(BUILD)

# make check: every rank count and program, a pairwise covering of the
# (ranks, netmod path, shm) variants, soak and large tests in their short
# form. check-full: all variants (label "full" too), long forms
# (CH4LITE_TEST_FULL=1). docs/testing.md.
check: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE '^full$$' $(CTEST_FLAGS)

check-full: build
	@cd $(BUILD) && CH4LITE_TEST_FULL=1 ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

sanitize: deps
	@cmake -S . -B $(SAN_BUILD) -DCH4LITE_SANITIZE=$(SANITIZE) -DCH4LITE_BENCH=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)
	@cd $(SAN_BUILD) && env $(SAN_ENV) ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

bench: build
	@sh bench/run.sh $(BUILD)
	@echo "make bench-doc: copy $(BUILD)/bench-summary.tsv to docs/results/ and regenerate the headline table of docs/benchmarks.md"

# The headline table of docs/benchmarks.md from the last make bench
# (scripts/bench-table.sh; the test docs.bench_table checks they agree).
bench-doc:
	@test -s $(BUILD)/bench-summary.tsv || { echo "no $(BUILD)/bench-summary.tsv: run make bench first" >&2; exit 1; }
	@cp $(BUILD)/bench-summary.tsv docs/results/bench-summary.tsv
	@sh scripts/bench-table.sh --update docs/benchmarks.md docs/results/bench-summary.tsv

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	@rm -rf $(BUILD) $(SAN_BUILD)
