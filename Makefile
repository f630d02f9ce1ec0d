# portzero: the README's commands. The real build is CMake; this file only
# drives it (and the tests, the cross build, the fuzzers and the benchmarks).
#
#   make deps        install the Debian packages (scripts/install-deps.sh)
#   make build       native build in build/
#   make test        format-check, ctest, ASan+UBSan ctest, the Release build (+ unit tests),
#                    ThreadSanitizer on the IP plane (label tsan), arm64 ctest under qemu,
#                    the clang build (build-fuzz: unit tests, then 15 s of libFuzzer per target)
#   make test-loaded the native, ASan+UBSan and TSan ctest stages of make test with two CPU
#                    hogs (stress-ng --cpu 2) running beside them: timed checks on a loaded machine
#   make test-builds the Release build (gcc -O3) with its unit tests
#   make test-long   ctest -L long (the portzerod soak under valgrind, and under ASan in
#                    build-asan/), every IP-plane test (label ipplane) under ThreadSanitizer,
#                    + 10 min of libFuzzer per fuzz target
#   make test-asan   the sanitizer suite only (build-asan/)
#   make cross       aarch64 build in build-arm64/; cross-test runs its tests under qemu
#   make image       the switch image build-arm64/portzero-image-aarch64.tar.gz (image/),
#                    the files of the arm64 package;
#                    image-check inspects it
#   make deb         build-deb/portzero_<version>_amd64.deb and _arm64.deb (debian/,
#                    dpkg-buildpackage; the arm64 one with toolchain.cmake and the
#                    sysroot), each checked by lintian (scripts/make-deb.sh)
#   make fuzz        libFuzzer targets in build-fuzz/bin (clang)
#   make bench       run build/bin/bench_* and bench/bench_*.sh (bench_image.sh: the image's footprint)
#   make format      clang-format -i the C sources; format-check only checks
#   make clean       remove build*/

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

JOBS ?= 2
CMAKE ?= cmake
CTEST ?= ctest
CLANG_FORMAT ?= clang-format
FUZZ_CC ?= clang

BUILD_DIR := build
ASAN_DIR := build-asan
TSAN_DIR := build-tsan
ARM64_DIR := build-arm64
FUZZ_DIR := build-fuzz
RELEASE_DIR := build-release
CLANG_DIR := build-clang
CLANG ?= clang
# Development and CI builds treat warnings as errors; a plain CMake build does not.
WERROR := -DPZ_WERROR=ON
SYSROOT := $(CURDIR)/$(ARM64_DIR)/sysroot

CTEST_FLAGS := --output-on-failure --no-tests=error -j$(JOBS)
# Every target installs the packages first, so a test that finds a tool missing
# fails instead of skipping (tests/lib.sh pzt_require_tools); plain ctest skips.
export PZT_REQUIRE_ALL := 1
# Labels: `long` runs only in test-long; `native-only` never under qemu.
CTEST_SHORT := -LE '^long$$'
CTEST_CROSS := -LE '^(long|native-only)$$'

FUZZ_SHORT_SECONDS ?= 15
FUZZ_LONG_SECONDS ?= 600

# Sanitizer runtime options for the ASan suite and the fuzzers (a test's ENVIRONMENT
# property wins). halt_on_error makes UBSan findings fatal even in code built
# without -fno-sanitize-recover.
SAN_ENV := ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1} \
           UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

FORMAT_DIRS := $(wildcard util mad node board sma pma ipoib net snmp traffic agent tests bench tools fabric attach ssh cli dftree)
FORMAT_FILES = $(if $(FORMAT_DIRS),$(shell find $(FORMAT_DIRS) -path '*/corpus' -prune -o \
                 -type f \( -name '*.c' -o -name '*.h' \) -print | LC_ALL=C sort))

.PHONY: all deps build test test-loaded test-asan test-tsan test-builds test-clang test-long cross cross-test fuzz fuzz-short fuzz-long \
        bench demo format format-check clean image image-check deb deb-amd64 deb-arm64

all: build

deps:
	bash scripts/install-deps.sh

build: deps
	$(CMAKE) -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPZ_WITH_UMAD=ON $(WERROR)
	$(CMAKE) --build $(BUILD_DIR) -j$(JOBS)

# Each stage runs only if the previous one passed; any failure fails `make test`.
test: format-check build image deb
	@echo "== make test: native ctest ($$(date +%T))"
	$(CTEST) --test-dir $(BUILD_DIR) $(CTEST_FLAGS) $(CTEST_SHORT)
	@echo "== make test: ASan+UBSan ctest ($$(date +%T))"
	$(MAKE) --no-print-directory test-asan
	@echo "== make test: Release build (gcc -O3), unit tests ($$(date +%T))"
	$(MAKE) --no-print-directory test-builds
	@echo "== make test: ThreadSanitizer, IP plane ($$(date +%T))"
	$(MAKE) --no-print-directory test-tsan
	@echo "== make test: aarch64 ctest under qemu ($$(date +%T))"
	$(MAKE) --no-print-directory cross-test
	@echo "== make test: clang build (build-fuzz), its unit tests, libFuzzer $(FUZZ_SHORT_SECONDS) s per target ($$(date +%T))"
	$(MAKE) --no-print-directory fuzz-short
	@echo "== make test: all stages passed ($$(date +%T))"

# make test's stages with timed behaviour, with two CPU hogs beside them: the native
# ctest, the ASan+UBSan ctest (make test-asan) and the IP plane under ThreadSanitizer
# (make test-tsan), with make test's flags.  Every timed check must pass on a loaded
# machine (the suite counts a component's own samples and timestamps, not the test's
# clock; issue 22).  Not repeated: the Release build runs only unit tests (manual
# clocks, nothing timed), the arm64 ctest under qemu runs the same tests as the native
# stage minus the process tests (qemu is itself the slow machine), and the fuzzers run
# for a fixed time (load only means fewer executions).  The hogs' PID is stopped on
# exit, on a failure too (the trap).
STRESS_NG ?= stress-ng
test-loaded: build image deb
	@$(STRESS_NG) --cpu 2 --timeout 0 --quiet & hogs=$$!; \
	trap 'kill $$hogs 2> /dev/null || true; wait $$hogs 2> /dev/null || true' EXIT; \
	echo "== make test-loaded: stress-ng --cpu 2 running (PID $$hogs)"; \
	echo "== make test-loaded: native ctest"; \
	$(CTEST) --test-dir $(BUILD_DIR) $(CTEST_FLAGS) $(CTEST_SHORT); \
	echo "== make test-loaded: ASan+UBSan ctest"; \
	$(MAKE) --no-print-directory test-asan; \
	echo "== make test-loaded: ThreadSanitizer, IP plane"; \
	$(MAKE) --no-print-directory test-tsan; \
	echo "== make test-loaded: all stages passed under load"

test-asan: deps
	$(CMAKE) -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DPZ_SANITIZE=ON $(WERROR)
	$(CMAKE) --build $(ASAN_DIR) -j$(JOBS)
	$(SAN_ENV) $(CTEST) --test-dir $(ASAN_DIR) $(CTEST_FLAGS) $(CTEST_SHORT)

# A packager's optimisation level must build warning-free; its unit tests run (the
# process tests are the native build's).  The second compiler is clang: the fuzz
# build (build-fuzz, the whole tree with clang and -Werror) is that build, and
# fuzz-short runs its unit tests before the fuzzers.
test-builds: deps
	$(CMAKE) -S . -B $(RELEASE_DIR) -DCMAKE_BUILD_TYPE=Release $(WERROR)
	$(CMAKE) --build $(RELEASE_DIR) -j$(JOBS)
	$(CTEST) --test-dir $(RELEASE_DIR) $(CTEST_FLAGS) -L '^unit$$'

# The clang build without fuzzer instrumentation, for a packager who builds with clang.
test-clang: deps
	$(CMAKE) -S . -B $(CLANG_DIR) -DCMAKE_C_COMPILER=$(CLANG) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    $(WERROR)
	$(CMAKE) --build $(CLANG_DIR) -j$(JOBS)
	$(CTEST) --test-dir $(CLANG_DIR) $(CTEST_FLAGS) -L '^unit$$'

# The IP plane's two threads (the agent loop and lwIP's tcpip thread) under
# ThreadSanitizer: in make test the tests labelled tsan (the plane alone, and
# portzerod's ICMP/TCP, SNMP and SSH across the fabric); TSAN_LABEL=ipplane (what
# test-long runs) takes every IP-plane test.
TSAN_LABEL ?= tsan
test-tsan: deps
	$(CMAKE) -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DPZ_TSAN=ON $(WERROR)
	$(CMAKE) --build $(TSAN_DIR) -j$(JOBS)
	TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1} $(CTEST) --test-dir $(TSAN_DIR) $(CTEST_FLAGS) \
	    -L '^$(TSAN_LABEL)$$'

test-long: build
	$(CTEST) --test-dir $(BUILD_DIR) $(CTEST_FLAGS) -L '^long$$'
	$(CMAKE) -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DPZ_SANITIZE=ON $(WERROR)
	$(CMAKE) --build $(ASAN_DIR) -j$(JOBS)
	$(SAN_ENV) $(CTEST) --test-dir $(ASAN_DIR) $(CTEST_FLAGS) -L '^long$$' -R '^test_soak_'
	$(MAKE) --no-print-directory test-tsan TSAN_LABEL=ipplane
	$(MAKE) --no-print-directory fuzz-long

cross: deps
	bash scripts/make-sysroot-arm64.sh $(ARM64_DIR)/sysroot
	$(CMAKE) -S . -B $(ARM64_DIR) -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/toolchain.cmake \
	    -DPZ_SYSROOT=$(SYSROOT) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(WERROR)
	$(CMAKE) --build $(ARM64_DIR) -j$(JOBS)

# Test binaries run through CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64).
cross-test: cross
	$(CTEST) --test-dir $(ARM64_DIR) $(CTEST_FLAGS) $(CTEST_CROSS)

# The switch image: a root-filesystem tree for a Debian arm64 base (image/README.md),
# the arm64 package's files (dpkg-deb -x).
DEB_DIR := build-deb
IMAGE := $(ARM64_DIR)/portzero-image-aarch64.tar.gz
image: cross deb-arm64
	bash scripts/make-image.sh $(ARM64_DIR) $(DEB_DIR) $(IMAGE)

image-check: image
	bash scripts/image-check.sh $(IMAGE) $(ARM64_DIR)/sysroot

# The Debian packages (debian/README.packaging): amd64 natively, arm64 with the
# cross toolchain and the sysroot make cross uses.
deb: deb-amd64 deb-arm64
deb-amd64: deps
	bash scripts/make-deb.sh amd64 $(DEB_DIR)
deb-arm64: deps
	bash scripts/make-sysroot-arm64.sh $(ARM64_DIR)/sysroot
	bash scripts/make-deb.sh arm64 $(DEB_DIR)

fuzz: deps
	$(CMAKE) -S . -B $(FUZZ_DIR) -DCMAKE_C_COMPILER=$(FUZZ_CC) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DPZ_FUZZ=ON $(WERROR)
	$(CMAKE) --build $(FUZZ_DIR) -j$(JOBS)

# Run every $(FUZZ_DIR)/bin/fuzz_* for $(1) seconds, $(JOBS) at a time
# (scripts/run-fuzzers.sh: corpora, dictionaries; a crash, leak, timeout or OOM
# fails the target and the run, its input in $(FUZZ_DIR)/artifacts/).
define run_fuzzers
	$(SAN_ENV) JOBS=$(JOBS) bash scripts/run-fuzzers.sh $(FUZZ_DIR) $(1)
endef

fuzz-short: fuzz
	$(SAN_ENV) $(CTEST) --test-dir $(FUZZ_DIR) $(CTEST_FLAGS) -L '^unit$$'
	$(call run_fuzzers,$(FUZZ_SHORT_SECONDS))

fuzz-long: fuzz
	$(call run_fuzzers,$(FUZZ_LONG_SECONDS))

bench: build image
	bash scripts/install-deps.sh --bench
	@found=0; \
	for b in $(BUILD_DIR)/bin/bench_*; do \
	    [ -f "$$b" ] && [ -x "$$b" ] || continue; \
	    found=1; \
	    echo "== $$b"; \
	    "$$b"; \
	done; \
	if [ $$found = 0 ]; then echo "make bench: no $(BUILD_DIR)/bin/bench_* executables" >&2; exit 1; fi
	@for s in bench/bench_*.sh; do \
	    [ -f "$$s" ] || continue; \
	    echo "== $$s"; \
	    PZ_UMAD2SIM_FIX=$(CURDIR)/$(BUILD_DIR)/lib/portzero/libpzumad2sim.so \
	        bash "$$s" $(BUILD_DIR)/bin tests/integration/ft-2s4l.net; \
	done

demo: build
	bash scripts/demo.sh $(BUILD_DIR)/bin

format: deps
	$(if $(FORMAT_FILES),$(CLANG_FORMAT) -i $(FORMAT_FILES),@echo "make format: no C sources")

format-check: deps
	$(if $(FORMAT_FILES),$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES),@echo "make format-check: no C sources")
	@echo "make format-check: $(words $(FORMAT_FILES)) files OK"

clean:
	rm -rf $(BUILD_DIR) build-*
