# placeto — build, test, install and benchmark. `make run` and `make test`
# install any missing Debian packages first (`make deps`, mk/deps.sh: the
# run set for `make run`, the run and test sets for the rest).

# The release; `placeto --version` adds `git describe` when built from a
# checkout (both passed to tui/cli/cmd_meta.c alone as -D).
VERSION  := 0.4.0
GIT_DESC := $(shell git describe --always --dirty 2>/dev/null)

CC       ?= cc
PKGS     := libcjson libgvc libcgraph openblas
TUI_PKGS := ncursesw
OPT      ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wno-unused-parameter -Wconversion -Wsign-conversion \
            -Wmissing-prototypes -Wstrict-prototypes
ifdef CI
WARN     += -Werror
endif
DEPS_OK  := $(shell pkg-config --exists $(PKGS) $(TUI_PKGS) 2>/dev/null && echo yes)
PKG_CFLAGS = $(if $(DEPS_OK),$(shell pkg-config --cflags $(PKGS)),-I/usr/include/cjson -I/usr/include/graphviz)
# OpenBLAS is opened at run time (core/agent/nn.c), not linked: only its header is needed here
PKG_LIBS   = $(if $(DEPS_OK),$(shell pkg-config --libs $(filter-out openblas,$(PKGS))),-lcjson -lgvc -lcgraph -lcdt) -ldl
TUI_CFLAGS = $(if $(DEPS_OK),$(shell pkg-config --cflags $(TUI_PKGS)))
TUI_LIBS   = $(if $(DEPS_OK),$(shell pkg-config --libs $(TUI_PKGS)),-lncursesw -ltinfo)
CFLAGS   ?=
SAN      ?=
LDLIBS   = $(PKG_LIBS) -lmetis -lscotch -lscotcherr -lm -lpthread

# The layers, lowest first. A folder is compiled with the include paths of
# its own layer and the layers below it only, so an include that points up
# or sideways does not compile (and `make check-layers` names it):
#   core (util, jdoc) <- core/model <- core/sim <- core/place <- core/agent
#   <- core/agents/NAME (one folder per learned placer, each seeing core/agent
#   and itself only: no agent includes a sibling) <- core/agents (the
#   registry, agents.c) <- layouts <- tui/explorer <- tui/cli; tests and bench
#   see everything. core/mpi (dist.h's MPI backend, placeto-mpi only) sits on
#   core/agent.
AGENTS     := $(notdir $(patsubst %/,%,$(wildcard core/agents/*/)))
LAYERS     := core core/model core/sim core/place core/agent $(AGENTS:%=core/agents/%) core/agents core/mpi layouts tui/explorer tui/cli
INC_core        := -Icore
INC_core/model  := $(INC_core) -Icore/model
INC_core/sim    := $(INC_core/model) -Icore/sim
INC_core/place  := $(INC_core/sim) -Icore/place
INC_core/agent  := $(INC_core/place) -Icore/agent
$(foreach a,$(AGENTS),$(eval INC_core/agents/$(a) := $(INC_core/agent) -Icore/agents/$(a)))
INC_core/agents := $(INC_core/agent)
INC_core/mpi    := $(INC_core/agent)
INC_layouts     := $(INC_core/agent) -Ilayouts
INC_tui/explorer := $(INC_layouts) -Icore/agents/placeto -Itui/explorer
INC_tui/cli     := $(INC_tui/explorer) -Itui/cli
INC_tests       := $(INC_tui/cli) $(AGENTS:%=-Icore/agents/%) -Itests/unit
layer_of = $(if $(filter tests/% bench/% mk/%,$(1)),tests,$(patsubst %/,%,$(dir $(1))))
ALL_CFLAGS = $(WARN) $(OPT) $(SAN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L $(PKG_CFLAGS) -MMD -MP

BUILD    ?= build
# no git description (not a checkout, or git refusing the tree under sudo
# make install): the one the build recorded for this VERSION, so that
# installing does not rebuild the program
STAMP_WORDS := $(shell cat $(BUILD)/version.stamp 2>/dev/null)
ifeq ($(GIT_DESC),)
ifeq ($(word 1,$(STAMP_WORDS)),$(VERSION))
GIT_DESC := $(word 2,$(STAMP_WORDS))
endif
endif
CORE_SRC := $(wildcard core/*.c core/model/*.c core/sim/*.c core/place/*.c core/agent/*.c core/agents/*.c core/agents/*/*.c)
LAY_SRC  := $(wildcard layouts/*.c)
TUI_SRC  := $(wildcard tui/explorer/*.c tui/cli/*.c)
TEST_SRC := $(wildcard tests/unit/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
LAY_OBJ  := $(LAY_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ  := $(TUI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
LIBCORE  := $(BUILD)/libplacetocore.a
LIBLAY   := $(BUILD)/libplacetolayouts.a
PROG     ?= placeto
UNIT     := $(BUILD)/unit
BENCH    := $(BUILD)/placeto-bench

# placeto-mpi: the same program with dist.h's MPI backend (core/mpi, Open
# MPI from libopenmpi-dev: pkg-config ompi-c, else mpicc's flags), for
# `mpirun -np R placeto-mpi train ...`. Built by `make mpi`, and by `make`
# when MPI is installed; the plain program links no MPI library (its
# dist_serial.o is the archive member the MPI object displaces).
MPI_PROG   := $(PROG)-mpi
MPI_OK     := $(shell (pkg-config --exists ompi-c || command -v mpicc) >/dev/null 2>&1 && echo yes)
MPI_CFLAGS  = $(shell pkg-config --cflags ompi-c 2>/dev/null || mpicc --showme:compile)
MPI_LIBS    = $(shell pkg-config --libs ompi-c 2>/dev/null || mpicc --showme:link)
MPI_OBJ    := $(BUILD)/core/mpi/dist_mpi.o

.PHONY: strip-policies all deps deps-run run test check unit install uninstall man FORCE check-layers asan ubsan valgrind fuzz fuzz-build bench clean update-golden screenshots tour-cast

all: check-layers $(PROG) $(BUILD)/placeto.1 $(if $(MPI_OK),$(MPI_PROG))

mpi: $(if $(MPI_OK),$(MPI_PROG),mpi-missing)
mpi-missing:
	@echo "make mpi: no MPI found (pkg-config ompi-c, mpicc): sudo apt-get install libopenmpi-dev openmpi-bin" >&2
	@exit 1

# Debian packages: installed by mk/deps.sh; run and install call `make
# deps-run` (what building and running needs), test, bench and the
# sanitizer runs `make deps` (that and what the tests need), each only when
# a package is missing.
deps:
	@bash mk/deps.sh

deps-run:
	@bash mk/deps.sh run

NEED_DEPS := $(shell bash mk/deps.sh --check >/dev/null 2>&1 || echo deps)
NEED_RUN_DEPS := $(shell bash mk/deps.sh --check run >/dev/null 2>&1 || echo deps-run)

# `make run` says what it waits for: the build starts with the layer check,
# seconds without output, and from clean compiles every file (the times:
# a 2-core machine, `make all` one file at a time as run calls it), then
# how long the build took.
RUN_BUILD_SAYS = $(if $(wildcard $(PROG)),bringing placeto up to date (about 10 s on 2 cores: the layer \
  check, then any file changed),building placeto from clean (about 40 s on 2 cores; a line per file compiled))
run: $(NEED_RUN_DEPS)
	@echo "make run: $(RUN_BUILD_SAYS)..."
	@start=$$(date +%s); $(MAKE) --no-print-directory all && \
	  echo "make run: placeto built in $$(( $$(date +%s) - start )) s; starting ./$(PROG)"
	./$(PROG)

test: $(NEED_DEPS)
	@$(MAKE) --no-print-directory all $(UNIT) $(COIN)
	@PLACETO_COIN=$(COIN) bash tests/run.sh ./$(PROG) $(UNIT)

# The everyday subset, under a minute on 2 cores: the unit tests and the
# command-line scripts of the loaders, the commands and the files they write.
CHECK_SCRIPTS := cli_bad cli_commands cli_io cli_small cli_export cli_trace
check: $(NEED_DEPS)
	@$(MAKE) --no-print-directory $(PROG) $(UNIT)
	@PLACETO_TESTS="$(CHECK_SCRIPTS)" bash tests/run.sh ./$(PROG) $(UNIT)

# The dependency rule, checked on the sources: every #include "x.h" must
# name a header of the file's own layer or one below it, and core/ and
# layouts/ never include curses.
check-layers:
	@bash mk/check_layers.sh

# The network's element-wise loops run millions of times per training run:
# let the compiler vectorise them (a branchy ReLU costs more than the GEMMs).
$(BUILD)/core/agent/nn.o $(BUILD)/core/agent/nn_vec.o $(BUILD)/core/agent/policy.o $(BUILD)/core/agents/gdp/gdp.o: OPT += -O3

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) $(INC_$(call layer_of,$<)) $(if $(filter tui/% tests/% bench/%,$<),$(TUI_CFLAGS)) \
	  $(if $(filter tui/cli/cmd_meta.c,$<),$(VERSION_DEFS)) -c $< -o $@

# the version's object is rebuilt when the version or the checkout changes
VERSION_DEFS := -DPLACETO_VERSION='"$(VERSION)"' -DPLACETO_GIT='"$(GIT_DESC)"'
$(BUILD)/tui/cli/cmd_meta.o: $(BUILD)/version.stamp
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(GIT_DESC)' | cmp -s - $@ || echo '$(VERSION) $(GIT_DESC)' > $@
FORCE:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

$(LIBCORE): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(LIBLAY): $(LAY_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(PROG): $(TUI_OBJ) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $(TUI_OBJ) $(LIBLAY) $(LIBCORE) $(TUI_LIBS) $(LDLIBS)

$(MPI_OBJ): ALL_CFLAGS += $(MPI_CFLAGS)
$(MPI_PROG): $(MPI_OBJ) $(TUI_OBJ) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $(MPI_OBJ) $(TUI_OBJ) $(LIBLAY) $(LIBCORE) $(TUI_LIBS) $(LDLIBS) $(MPI_LIBS)

# The man page, written by the program from the tables of its --help (and
# the explorer's key table): `man -l build/placeto.1`.
man: $(BUILD)/placeto.1
$(BUILD)/placeto.1: $(PROG)
	@echo "  MAN     $@"
	@./$(PROG) --man > $@.tmp && mv $@.tmp $@

# `make install` (PREFIX, DESTDIR as usual): the program in PREFIX/bin, the
# bundled graphs, clusters, placements and policies in PREFIX/share/placeto
# (where the installed program finds them, or at $$PLACETO_DATA), the man
# page and the bash completion. `make uninstall` removes them.
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share/placeto
MANDIR   ?= $(PREFIX)/share/man/man1
COMPDIR  ?= $(PREFIX)/share/bash-completion/completions
DATA_FILES = $(shell cd graphs && find . -path ./import -prune -o -type f -name '*.json' -print | sort)

install: $(NEED_RUN_DEPS)
	@$(MAKE) --no-print-directory $(PROG) $(BUILD)/placeto.1
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(DATADIR)' '$(DESTDIR)$(MANDIR)' '$(DESTDIR)$(COMPDIR)'
	install -m 755 $(PROG) '$(DESTDIR)$(BINDIR)/placeto'
	install -m 644 $(BUILD)/placeto.1 '$(DESTDIR)$(MANDIR)/placeto.1'
	install -m 644 completions/placeto.bash '$(DESTDIR)$(COMPDIR)/placeto'
	@echo "install -m 644 graphs/... '$(DESTDIR)$(DATADIR)/'"
	@cd graphs && for f in $(DATA_FILES); do \
	  install -D -m 644 "$$f" '$(DESTDIR)$(DATADIR)/'"$${f#./}" || exit 1; done
	@# the importers, and a command for each (placeto-import-torch, placeto-import-onnx)
	install -d '$(DESTDIR)$(DATADIR)/import'
	install -m 644 graphs/import/*.py '$(DESTDIR)$(DATADIR)/import/'
	@# the interpreter: $$PLACETO_PYTHON, else python3 on PATH if it has torch / onnx, else /usr/bin/python3
	@for w in torch onnx; do \
	  sed -e "s/@KIND@/$$w/g" -e "s/@MODULE@/$$w/g" graphs/import/wrapper.sh > '$(DESTDIR)$(BINDIR)/placeto-import-'$$w && \
	  chmod 755 '$(DESTDIR)$(BINDIR)/placeto-import-'$$w || exit 1; done

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/placeto' '$(DESTDIR)$(BINDIR)/placeto-import-torch' '$(DESTDIR)$(BINDIR)/placeto-import-onnx' \
	  '$(DESTDIR)$(MANDIR)/placeto.1' '$(DESTDIR)$(COMPDIR)/placeto'
	rm -rf '$(DESTDIR)$(DATADIR)'

# the unit tests also cover the explorer headless, as the benchmark drives it (its App through the
# controller, the recordings' and the slides' writers): the explorer without the commands, main and the
# curses backend; and the test-only "coin" agent (below), so that the contract test (test_contract.c)
# covers an agent the program does not ship
UNIT_TUI := $(filter-out $(BUILD)/tui/cli/% $(BUILD)/tui/explorer/term.o,$(TUI_OBJ))
COIN_OBJ := $(BUILD)/tests/agent/coin_agent.o
$(UNIT): $(TEST_OBJ) $(COIN_OBJ) $(UNIT_TUI) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $(TEST_OBJ) $(COIN_OBJ) $(UNIT_TUI) $(LIBLAY) $(LIBCORE) $(LDLIBS)

# The test build of the program with one more agent, the test-only "coin"
# placer (tests/agent/coin_agent.c registers itself): tests/cli/cli_agents.sh
# shows the registry alone drives place, compare, train and the explorer.
COIN := $(BUILD)/placeto-coin
$(COIN): $(COIN_OBJ) $(TUI_OBJ) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $(COIN_OBJ) $(TUI_OBJ) $(LIBLAY) $(LIBCORE) $(TUI_LIBS) $(LDLIBS)

# Rewrites the bundled policies without their optimizer state (mk/policy_strip.c).
STRIP := $(BUILD)/placeto-strip
$(STRIP): $(BUILD)/mk/policy_strip.o $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $^ $(LDLIBS)
strip-policies: $(STRIP)
	@./$(STRIP) graphs/policies/*.json
	@du -sb graphs/policies

# the benchmark drives the explorer's App headless (the unit tests' part of the explorer)
BENCH_TUI := $(UNIT_TUI)
$(BENCH): $(BUILD)/bench/bench.o $(BUILD)/bench/bench_sim.o $(BUILD)/bench/bench_minsched.o $(BUILD)/bench/bench_gdp.o $(BUILD)/bench/bench_hsdag.o $(BUILD)/bench/bench_lsched.o $(BUILD)/tests/unit/testutil.o $(BUILD)/tests/unit/gen.o $(BENCH_TUI) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $^ $(LDLIBS)

# Sanitizer and valgrind runs of the whole suite, in their own build trees.
asan: $(NEED_DEPS)
	@$(MAKE) --no-print-directory BUILD=build-asan PROG=build-asan/placeto OPT="-O1 -g" \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

ubsan: $(NEED_DEPS)
	@$(MAKE) --no-print-directory BUILD=build-ubsan PROG=build-ubsan/placeto OPT="-O1 -g" \
	  SAN="-fsanitize=undefined -fno-sanitize-recover=all" test

valgrind: $(NEED_DEPS)
	@$(MAKE) --no-print-directory all $(UNIT) $(COIN)
	@VALGRIND=1 PLACETO_COIN=$(COIN) bash tests/run.sh ./$(PROG) $(UNIT)

# libFuzzer targets (tests/fuzz/fuzz_*.c): the loaders and the DAG layout,
# built with clang, ASan and UBSan in build-fuzz/ (core and layouts compiled
# there with the same flags), each run for FUZZ_SECONDS from the repository
# root on build-fuzz/corpus/TARGET, a copy of tests/fuzz/corpus/TARGET.
# Crash inputs land in build-fuzz/crashes/TARGET/ (see tests/fuzz/run.sh);
# fuzz-build is the internal build step (with BUILD=build-fuzz).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= graph_json graph_dot placement cluster policy checkpoint episode dag timeline
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

fuzz: $(NEED_DEPS)
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) OPT="-g -O1" SAN="$(FUZZ_SAN)" \
	  FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)
	@:

$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Rewrites the goldens in tests/data/golden/ from the current layouts,
# explorer screens and DOT exports (review the diff).
update-golden: $(UNIT) $(PROG)
	@PLACETO_UPDATE_GOLDEN=1 ./$(UNIT) golden_
	@PLACETO_UPDATE_GOLDEN=1 PLACETO_PROG=./$(PROG) bash tests/cli/cli_explore.sh > /dev/null
	@PLACETO_UPDATE_GOLDEN=1 PLACETO_PROG=./$(PROG) bash tests/cli/cli_explore_hsdag.sh > /dev/null
	@PLACETO_UPDATE_GOLDEN=1 PLACETO_PROG=./$(PROG) bash tests/cli/cli_export.sh > /dev/null
	@PLACETO_UPDATE_GOLDEN=1 PLACETO_PROG=./$(PROG) bash tests/cli/cli_tour.sh > /dev/null
	@git status --short tests/data/golden 2>/dev/null || true

# PNG and SVG screenshots of the real program (its own SVG writer, tmux for
# the training screen, rsvg-convert), and the tour as an asciinema recording
# (screenshots/tour.cast)
screenshots: deps
	@bash mk/deps.sh screenshots
	@$(MAKE) --no-print-directory all
	@bash screenshots/make.sh
	@$(MAKE) --no-print-directory tour-cast

# The guided tour recorded headless: every stage held for 6 s (the race,
# stage 12, at its start and, after wait, at its end), the same bytes on
# every run (play it with `asciinema play screenshots/tour.cast`)
TOUR_KEYS := space space space space j space space space space space space space space space wait space space space space
tour-cast: all
	@./$(PROG) demo --headless --size 120x36 --keys '$(TOUR_KEYS)' --record screenshots/tour.cast --record-step 6 > /dev/null
	@echo "screenshots/tour.cast"

# the communication figures of `make bench PARTS=mpi` (bench/mpi_ping.c)
MPI_PING := $(BUILD)/mpi-ping
$(MPI_PING): bench/mpi_ping.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(WARN) $(OPT) $(CFLAGS) $(MPI_CFLAGS) -o $@ $< $(MPI_LIBS)

# make bench PARTS="sim agent" runs only those parts (bench/bench.sh lists them);
# it is the experiment `bench/run speed` (bench/run --list names the others)
bench: $(NEED_DEPS)
	@$(MAKE) --no-print-directory all $(BENCH) $(if $(MPI_OK),$(MPI_PING))
	@MPI_PING=$(MPI_PING) bench/run speed ./$(PROG) $(BENCH) $(PARTS)

clean:
	rm -rf build build-asan build-ubsan build-fuzz $(PROG) $(MPI_PROG)
