# damka: one entry point. `make` builds, `make test` runs the suite, `make test-sanitize` runs it
# under AddressSanitizer and UndefinedBehaviorSanitizer, `make bench` measures speed.
# Missing Debian packages are installed by scripts/install-deps.

BUILD    ?= build
CC       ?= gcc
# Link-time optimisation lets the generator's inner loops inline across files; fat objects keep
# libdamka.a usable by a linker without it. What each of these options gains: docs/measurements.md.
OPT      ?= -O3 -march=x86-64-v2 -flto=auto -ffat-lto-objects
CFLAGS   ?= $(OPT) -g
BASEFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP
LDLIBS   += -lzstd -lpthread
# DK_CHECKS: the invariants of the inner loops (DK_ASSERT_HOT, rules/check.h) are checked too.
SANFLAGS  = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -DDK_CHECKS

# MPI is for gen/ and the executable only: the probe layers never see it.
MPI_CFLAGS = $(shell pkg-config --cflags ompi-c)
MPI_LIBS   = $(shell pkg-config --libs ompi-c)
# libmicrohttpd and zlib (gzip): the HTTP server of `damka serve` (cli/serve*.c), linked by the
# executable only.
MHD_LIBS   = $(shell pkg-config --libs libmicrohttpd zlib)

# libdamka: the layers an engine links; the generator (gen/) and the executable (cli/) sit above
# them, and `make test` checks that no lower layer reaches up (scripts/check-layers).
LAYERS   := rules index query
LIB_SRC  := $(foreach d,$(LAYERS),$(wildcard $(d)/*.c))
# gen/'s rooms, from low to high: each includes only its own and lower ones (scripts/check-layers
# reads this list; docs/design.md, section 1, says what each owns).
GEN_ROOMS := sched store check solve plan finish run
GEN_SRC  := $(foreach r,$(GEN_ROOMS),$(wildcard gen/$(r)/*.c))
GEN_OBJ  := $(GEN_SRC:%.c=$(BUILD)/%.o)
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
TSUP_SRC := $(filter-out $(TEST_SRC),$(wildcard tests/*.c))
TSUP_OBJ := $(TSUP_SRC:%.c=$(BUILD)/%.o)
TOOL_SRC := $(wildcard tests/tools/*.c)

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TOOLS    := $(TOOL_SRC:tests/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libdamka_core.a
GENLIB   := $(BUILD)/libdamka_gen.a
DAMKA    := $(BUILD)/damka
DEPS_OK  := $(BUILD)/.deps-ok

.PHONY: all deps test test-sanitize bench bench-index bench-probe bench-blocks run clean lib install FORCE
.SECONDARY:
all: $(DAMKA) lib

$(DEPS_OK): scripts/install-deps
	@scripts/install-deps
	@mkdir -p $(@D) && touch $@
deps: $(DEPS_OK)

$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(XFLAGS) $(PGO_FLAGS) -c $< -o $@

# Profile-guided optimisation, on by default when CFLAGS are this file's own (PGO=0: off; the
# sanitizer build passes its own CFLAGS, so it is off there). The objects are first built
# instrumented, in their own places (gcc finds a static function's profile by the object's
# path), a short training runs (scripts/pgo-train: small generations), then every object is
# compiled again (see below which with the profile). A changed source or header trains again. The profiled compilation is silent (-w): gcc warns there about its own profile
# (counts missing for a function it inlined differently while instrumenting), while every
# warning of the code has already failed the instrumented build, the same sources with the same
# flags and -Werror.
PGO ?= $(if $(filter file,$(origin CFLAGS)),1,0)
ifeq ($(PGO),1)
PGO_OBJ   := $(LIB_OBJ) $(GEN_OBJ) $(CLI_OBJ)
PGO_STAMP := $(BUILD)/.pgo-profile
PGO_SRC   := $(LIB_SRC) $(GEN_SRC) $(CLI_SRC) $(foreach d,$(LAYERS) $(GEN_ROOMS:%=gen/%) cli,$(wildcard $(d)/*.h))
$(PGO_STAMP): $(PGO_SRC) scripts/pgo-train Makefile | $(DEPS_OK)
	@rm -f $(PGO_OBJ)
	$(MAKE) --no-print-directory PGO=0 CFLAGS="$(CFLAGS) -fprofile-generate" $(DAMKA)
	scripts/pgo-train $(BUILD)
	@touch $@
# Every object is compiled again after the training, but only the generator's and the
# command's with the profile: the library layers (libdamka) are built as without it, since the
# generator's profile made warm probes slower (scripts/bench-probe). On the executable's
# link too: with link-time optimisation the code is made there, and -fprofile-use turns on
# optimisations of its own (loop peeling, unrolling).
$(PGO_OBJ): $(PGO_STAMP)
$(GEN_OBJ) $(CLI_OBJ): PGO_FLAGS = -fprofile-use -fprofile-partial-training -w
PGO_LINK := -fprofile-use -fprofile-partial-training -w
endif

$(BUILD)/gen/%.o $(BUILD)/cli/%.o: XFLAGS = $(MPI_CFLAGS)

# The library layers are compiled once, position-independent, for the executable and for both
# libdamka libraries; only the damka_ API (DAMKA_API in query/damka.h) is exported by the .so.
# Objects built before with other flags (an older build tree) are rebuilt: the stamp changes
# only when LIB_XFLAGS do.
LIB_XFLAGS = -fPIC -fvisibility=hidden
$(LIB_OBJ): XFLAGS = $(LIB_XFLAGS)
$(LIB_OBJ): $(BUILD)/.lib-flags
$(BUILD)/.lib-flags: FORCE
	@mkdir -p $(@D)
	@echo '$(LIB_XFLAGS)' | cmp -s - $@ || echo '$(LIB_XFLAGS)' >$@
FORCE:

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The generator's objects, for tests that check its parts (a static archive: a test pulls in
# only what it uses, so MPI is linked only where gen/run/generate.o or gen/run/transport.o is).
$(GENLIB): $(GEN_OBJ)
	@rm -f $@
	ar rcs $@ $^

# libdamka: what engines link (no MPI). `make install PREFIX=...` (default /usr/local) installs
# include/damka.h, lib/libdamka.a, lib/libdamka.so (soname libdamka.so.0), lib/pkgconfig/damka.pc.
PREFIX      ?= /usr/local
# The version is defined once, in query/damka.h (DAMKA_VERSION_MAJOR, DAMKA_VERSION_MINOR).
VERSION_OF   = $(shell sed -n 's/^\#define DAMKA_VERSION_$(1) \([0-9]*\)$$/\1/p' query/damka.h)
SO_MAJOR    := $(call VERSION_OF,MAJOR)
SO_VERSION  := $(SO_MAJOR).$(call VERSION_OF,MINOR)
SONAME      := libdamka.so.$(SO_MAJOR)
STATIC_LIB  := $(BUILD)/libdamka.a
SHARED_LIB  := $(BUILD)/libdamka.so
lib: $(STATIC_LIB) $(SHARED_LIB)

$(STATIC_LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libdamka.so.$(SO_VERSION): $(LIB_OBJ)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) $^ -o $@ -lzstd -lpthread

$(SHARED_LIB): $(BUILD)/libdamka.so.$(SO_VERSION)
	ln -sf libdamka.so.$(SO_VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

install: lib query/damka.h query/damka.pc.in
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 query/damka.h $(DESTDIR)$(PREFIX)/include/damka.h
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(PREFIX)/lib/libdamka.a
	install -m 755 $(BUILD)/libdamka.so.$(SO_VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libdamka.so.$(SO_VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libdamka.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SO_VERSION)|' query/damka.pc.in \
		>$(DESTDIR)$(PREFIX)/lib/pkgconfig/damka.pc

# The web page of `damka serve` (cli/serve_page.html), built into the executable as the C
# string serve_page_html ('?' escaped, so that no trigraph is read). Data only: compiled without
# CFLAGS, so that no build (profiling, sanitizers, fuzzing) instruments it.
PAGE_OBJ := $(BUILD)/page/serve_page.o
EMBED_PAGE = @mkdir -p $(@D); \
	{ echo '/* made from cli/serve_page.html by the Makefile */'; echo 'const char serve_page_html[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';'; } >$@
$(BUILD)/page/serve_page.c: cli/serve_page.html
	$(EMBED_PAGE)
$(PAGE_OBJ): $(BUILD)/page/serve_page.c
	$(CC) -std=c11 -Wall -Wextra -Werror -c $< -o $@

$(DAMKA): $(CLI_OBJ) $(PAGE_OBJ) $(GEN_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(PGO_LINK) $^ -o $@ $(LDLIBS) $(MPI_LIBS) $(MHD_LIBS)

# The executable the shell tests run: the same objects but those of HOOKS_SRC (the hooks, and the
# solver's altered exit read), compiled with -DDK_TEST_HOOKS in a folder of its own, so that the
# test hooks (gen/store/testhooks.h) work there and nowhere else; `make test` checks that the release executable holds none of them
# (scripts/check-hooks).
HOOKS_SRC  := gen/store/testhooks.c gen/solve/solve.c
HOOKS_OBJ  := $(HOOKS_SRC:%.c=$(BUILD)/hooks/%.o)
DAMKA_TEST := $(BUILD)/damka-test
$(BUILD)/hooks/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(MPI_CFLAGS) -DDK_TEST_HOOKS -c $< -o $@

$(DAMKA_TEST): $(CLI_OBJ) $(PAGE_OBJ) $(filter-out $(HOOKS_SRC:%.c=$(BUILD)/%.o),$(GEN_OBJ)) $(HOOKS_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(PGO_LINK) $^ -o $@ $(LDLIBS) $(MPI_LIBS) $(MHD_LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TSUP_OBJ) $(GENLIB) $(LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) -lcmocka

# Helpers of the shell tests (tests/tools/): no cmocka.
$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(GENLIB) $(LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The fault-injection library of tests/faults.sh (LD_PRELOAD; tests/faults/faultinject.c): built
# with flags of its own, never instrumented, so that one library serves both builds (under the
# sanitizers faults.sh preloads it after libasan).
FAULT_LIB := $(BUILD)/tests/faults/faultinject.so
$(FAULT_LIB): tests/faults/faultinject.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -g -fPIC -shared $< -o $@ -ldl

# Suites that need generated tables run from the shell test that makes them (once, with their
# tables), not also on their own, where they would skip everything: a suite run on its own that
# skips a test fails `make test`, and so does a TABLE_TESTS suite no shell test runs.
TABLE_TESTS := $(addprefix $(BUILD)/tests/,test_probe test_three_kings test_russian_endings test_intl_kings test_drawrule test_replace test_finished)
# TEST_SCALE: small (the default, a few minutes: International and the simulated cluster up to 3
# and 4 pieces) or full (`make test-full`: up to 4 and 5 pieces). The fault-injection test runs
# at FAULTS_SCALE: full (Brazilian up to 4 pieces, every fault chain, about 80 s) in every plain
# `make test`, small (3 pieces) under the sanitizers. TEST_SHELL: the shell tests to run.
TEST_SCALE ?= small
TEST_SHELL ?= cli gen probe drawrule cluster reliability faults serve verdict
FAULTS_SCALE ?= full
test: $(TESTS) $(TOOLS) $(FAULT_LIB) $(DAMKA) $(DAMKA_TEST) lib
	@scripts/check-layers $(STATIC_LIB) $(GEN_OBJ)
	@scripts/check-hooks $(DAMKA) $(DAMKA_TEST)
	@scripts/check-exports $(LIB_OBJ) $(GEN_OBJ) $(CLI_OBJ) $(PAGE_OBJ) -- $(TEST_SRC:%.c=$(BUILD)/%.o) $(TSUP_OBJ) $(TOOL_SRC:%.c=$(BUILD)/%.o)
	@set -e; for t in $(filter-out $(TABLE_TESTS),$(TESTS)); do echo "== $$t"; \
		$$t >$$t.out 2>&1 || { cat $$t.out; exit 1; }; cat $$t.out; \
		if grep -q '^\[  SKIPPED \]' $$t.out; then echo "$$t skips tests: run it from the shell test that makes its tables (TABLE_TESTS)"; exit 1; fi; \
	done
	@for t in $(notdir $(TABLE_TESTS)); do grep -q "tests/$$t\b" tests/*.sh || { echo "no shell test runs $$t"; exit 1; }; done
	@set -e; for t in $(TEST_SHELL); do echo "== tests/$$t.sh"; start=$$(date +%s); \
		scale=$(TEST_SCALE); [ $$t = faults ] && scale=$(FAULTS_SCALE); \
		DK_GEN_SCALE=$$scale MAKE="$(MAKE)" CC="$(CC)" CFLAGS="$(CFLAGS)" tests/$$t.sh $(DAMKA_TEST); \
		echo "== tests/$$t.sh: $$(($$(date +%s) - start)) s"; done
	@echo "all tests passed ($(BUILD), TEST_SCALE=$(TEST_SCALE), $(words $(TEST_SHELL)) shell tests)"

# The whole suite at full scale (about 12 minutes on 2 cores).
.PHONY: test-full
test-full:
	$(MAKE) test TEST_SCALE=full

# The Python binding (python/damka) against `damka query --json` on generated tables, the
# package installed with pip and its type hints checked by mypy, and the figures of
# scripts/plot-stats. Debian's pytest-3 (python3-pytest), python3-matplotlib
# (`scripts/install-deps --plots`, for this target and `make figures` only) and python3-pip,
# python3-setuptools, python3-mypy (`scripts/install-deps --python`, for this target only).
PLOTS_OK := $(BUILD)/.deps-plots-ok
$(PLOTS_OK): scripts/install-deps | $(DEPS_OK)
	@scripts/install-deps --plots
	@touch $@

PYDEPS_OK := $(BUILD)/.deps-python-ok
$(PYDEPS_OK): scripts/install-deps | $(DEPS_OK)
	@scripts/install-deps --python
	@touch $@
.PHONY: python-test
python-test: $(DAMKA) lib | $(DEPS_OK) $(PLOTS_OK) $(PYDEPS_OK)
	DAMKA=$(abspath $(DAMKA)) DAMKA_LIB=$(abspath $(SHARED_LIB)) pytest-3 -q -p no:cacheprovider python/tests

# The web page of `damka serve` in headless Chromium (tests/browser/page.test.mjs): Debian's
# chromium (`scripts/install-deps --browser`, for this target only) driven by playwright-core
# from the npm registry (`npm ci` in tests/browser, from its package-lock.json; it downloads no
# browser), over the Brazilian and Russian tables up to 4 pieces and the International ones up
# to 3, made into $(BUILD)/browser-tables (once: gen does nothing on a finished directory).
# SHOTS=DIR keeps the screenshots (SHOTS=docs/figures renews those docs/api.md shows).
BROWSER_OK := $(BUILD)/.deps-browser-ok
$(BROWSER_OK): scripts/install-deps tests/browser/package-lock.json | $(DEPS_OK)
	@scripts/install-deps --browser
	cd tests/browser && npm ci --no-audit --no-fund
	@touch $@
.PHONY: browser-test
browser-test: $(DAMKA) | $(BROWSER_OK)
	$(DAMKA) gen --pieces 4 --out $(BUILD)/browser-tables --quiet
	$(DAMKA) gen --variant international --pieces 3 --out $(BUILD)/browser-tables --quiet
	$(DAMKA) gen --variant russian --pieces 4 --out $(BUILD)/browser-tables --quiet
	node tests/browser/page.test.mjs $(DAMKA) $(BUILD)/browser-tables $(SHOTS)

# The figures of a table directory (scripts/plot-stats): `make figures TABLES=DIR` writes the
# PNG files into FIGURES, by default $(BUILD)/figures, so that the committed docs/figures (the
# 6-piece ones docs/measurements.md shows) change only when asked: FIGURES=docs/figures.
FIGURES ?= $(BUILD)/figures
.PHONY: figures
figures: $(DAMKA) | $(PLOTS_OK)
	@mkdir -p $(FIGURES)
	DAMKA=$(abspath $(DAMKA)) scripts/plot-stats $(TABLES) $(FIGURES)
	@echo "figures of $(TABLES) in $(FIGURES)"

# Open MPI keeps memory until exit: its leaks are suppressed (full unwinding lets the
# suppressions see through its plugins), damka's are not. Under the sanitizers every cmocka suite
# runs, and the shell tests that parse, generate, restart, split units over 8 ranks, probe and
# serve over HTTP; the draw-rule and fault-injection tests run in the plain build only, to keep CI
# short (`make test-sanitize SANITIZE_SHELL="cli gen probe drawrule cluster reliability faults
# serve"` runs all).
SANITIZE_SHELL ?= cli gen probe cluster reliability serve
# intercept_tls_get_addr=0: LeakSanitizer takes a dynamic TLS block whose address happens to
# sit 16 bytes into a page for glibc 2.19's layout and scans a bogus range; its tracer then
# crashes at exit (seen in a gen run that makes a damaged table again). Our code keeps no
# pointers in dlopen'ed modules' TLS, so nothing is lost by not scanning it.
test-sanitize:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	ASAN_OPTIONS=fast_unwind_on_malloc=0:intercept_tls_get_addr=0 OMPI_MCA_mca_base_component_disable_dlclose=1 \
	$(MAKE) BUILD=build-san CFLAGS="$(SANFLAGS)" LDLIBS="-lzstd -lpthread -fsanitize=address,undefined" \
	TEST_SCALE=small FAULTS_SCALE=small TEST_SHELL="$(SANITIZE_SHELL)" test

# Fuzzing with libFuzzer (clang, installed by `scripts/install-deps --fuzz` for this target
# only): `make fuzz` builds every harness of tests/fuzz/ into build-fuzz/, replays the committed
# regression inputs, then runs each harness for FUZZ_SECONDS seconds (quick: FUZZ_SECONDS=10),
# one at a time; any crash, leak, undefined behaviour or timeout fails (scripts/fuzz). The
# harnesses link the library layers, the generator but gen/run/generate.c and gen/run/transport.c (the
# files that need MPI) and the query command, all instrumented; MPI is not involved.
FUZZ_BUILD   := build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS    = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DDK_CHECKS
FUZZ_HARNESS := $(filter-out tests/fuzz/support.c,$(wildcard tests/fuzz/*.c))
FUZZERS      := $(FUZZ_HARNESS:tests/fuzz/%.c=$(FUZZ_BUILD)/%)
FUZZ_SRC     := $(LIB_SRC) $(filter-out gen/run/generate.c gen/run/transport.c,$(GEN_SRC)) cli/cli.c cli/cmd_query.c cli/answer.c cli/serve_route.c \
                cli/serve_answer.c cli/serve_uci.c cli/serve_headers.c \
                tests/fuzz/support.c
FUZZ_OBJ     := $(FUZZ_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_LIB     := $(FUZZ_BUILD)/libfuzzed.a

$(FUZZ_BUILD)/.deps-ok: scripts/install-deps
	@scripts/install-deps --fuzz
	@mkdir -p $(@D) && touch $@

$(FUZZ_BUILD)/obj/%.o: %.c | $(FUZZ_BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(FUZZ_CC) $(BASEFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# the web page serve_route.c serves, made as for the executable
$(FUZZ_BUILD)/page/serve_page.c: cli/serve_page.html
	$(EMBED_PAGE)
$(FUZZ_BUILD)/page/serve_page.o: $(FUZZ_BUILD)/page/serve_page.c | $(FUZZ_BUILD)/.deps-ok
	$(FUZZ_CC) -std=c11 -Wall -Wextra -Werror -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJ) $(FUZZ_BUILD)/page/serve_page.o
	@rm -f $@
	ar rcs $@ $^

$(FUZZERS): $(FUZZ_BUILD)/%: $(FUZZ_BUILD)/obj/tests/fuzz/%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $^ -o $@ -lzstd -lpthread

.PHONY: fuzz
fuzz: $(FUZZERS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz $(FUZZ_BUILD) $(FUZZ_HARNESS:tests/fuzz/%.c=%)

bench: $(DAMKA) bench-index bench-probe
	scripts/bench-perft $(DAMKA)
	DAMKA=$(DAMKA) scripts/bench-gen 5 "1 2"

# Generation speed against another commit, as a ratio (scripts/bench-against):
# `make bench-against AGAINST=89874bc [BENCH_PIECES=5 BENCH_RANKS=2 BENCH_ROUNDS=3]`;
# BENCH_PAIRED=1: both builds at once on a core each, by processor time (far less noisy).
BENCH_RANKS ?= 2
BENCH_ROUNDS ?= 3
.PHONY: bench-against
bench-against: $(DAMKA)
	@[ -n "$(AGAINST)" ] || { echo "make bench-against: say AGAINST=COMMIT"; exit 1; }
	DAMKA=$(DAMKA) scripts/bench-against $(AGAINST) $(BENCH_PIECES) $(BENCH_RANKS) $(BENCH_ROUNDS)

# Size and speed of the compressed tables in BENCH_TABLES (default: the Brazilian tables up to
# BENCH_PIECES=5 pieces, generated with --keep-work into $(BUILD)/bench-tables if missing).
BENCH_PIECES ?= 5
BENCH_TABLES ?= $(BUILD)/bench-tables-$(BENCH_PIECES)
bench-probe: $(BUILD)/bench-probe $(DAMKA)
	@[ -e $(BENCH_TABLES)/manifest.json ] || $(DAMKA) gen --pieces $(BENCH_PIECES) --out $(BENCH_TABLES) --keep-work --quiet
	$(BUILD)/bench-probe $(BENCH_TABLES)

$(BUILD)/bench-probe: $(BUILD)/scripts/bench-probe.o $(GENLIB) $(LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The block size of compressed tables against their size and decoding cost: `make bench-blocks
# BLOCKS="32768 65536" SUBS=2048,4096` rewrites the WLD files of BENCH_TABLES with each block and
# sub-block size (scripts/bench-blocks.c; METRIC=dtw for the others, with BLOCKS in positions and
# SUBS unused; BLOCKS_OUT=DIR keeps the last setting's files for bench-probe).
BLOCKS ?= 65536
SUBS ?= 1024,2048,4096,8192,16384,65536
METRIC ?= wld
bench-blocks: $(BUILD)/bench-blocks $(DAMKA)
	@[ -e $(BENCH_TABLES)/manifest.json ] || $(DAMKA) gen --pieces $(BENCH_PIECES) --out $(BENCH_TABLES) --keep-work --quiet
	$(BUILD)/bench-blocks --metric $(METRIC) --sub $(SUBS) $(if $(BLOCKS_OUT),--out $(BLOCKS_OUT)) $(BENCH_TABLES) $(BLOCKS)

$(BUILD)/bench-blocks: $(BUILD)/scripts/bench-blocks.o $(GENLIB) $(LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# Rank/unrank throughput of the perfect index.
bench-index: $(BUILD)/bench-index
	$(BUILD)/bench-index

$(BUILD)/bench-index: $(BUILD)/scripts/bench-index.o $(LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The main job on a small default: Brazilian tables up to 4 pieces, then a few queries.
TABLES ?= tables
run: $(DAMKA)
	$(DAMKA) gen --pieces 4 --out $(TABLES)
	$(DAMKA) stats $(TABLES) | head -12
	$(DAMKA) query --tables $(TABLES) W:WK25,K26,K27:BK29
	$(DAMKA) query --tables $(TABLES) W:Wb6:Bc7,e7
	$(DAMKA) query --tables $(TABLES) --json B:W18:BK1

clean:
	rm -rf build build-san build-fuzz

-include $(BUILD)/scripts/bench-probe.d
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(GEN_OBJ:.o=.d) $(HOOKS_OBJ:.o=.d) $(TEST_SRC:%.c=$(BUILD)/%.d) $(TSUP_OBJ:.o=.d) \
	$(TOOL_SRC:%.c=$(BUILD)/%.d)
-include $(FUZZ_OBJ:.o=.d) $(FUZZ_HARNESS:%.c=$(FUZZ_BUILD)/obj/%.d)
