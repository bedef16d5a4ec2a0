# placeto — build, test and benchmark. `make run` and `make test` install any
# missing Debian build packages first (see tests/deps.sh).

CC       ?= cc
PKGS     := libcjson libcgraph openblas
TUI_PKGS := ncursesw
OPT      ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wno-unused-parameter
ifdef CI
WARN     += -Werror
endif
DEPS_OK  := $(shell pkg-config --exists $(PKGS) $(TUI_PKGS) 2>/dev/null && echo yes)
PKG_CFLAGS = $(if $(DEPS_OK),$(shell pkg-config --cflags $(PKGS)),-I/usr/include/cjson -I/usr/include/graphviz)
PKG_LIBS   = $(if $(DEPS_OK),$(shell pkg-config --libs $(PKGS)),-lcjson -lcgraph -lcdt -lopenblas)
TUI_CFLAGS = $(if $(DEPS_OK),$(shell pkg-config --cflags $(TUI_PKGS)))
TUI_LIBS   = $(if $(DEPS_OK),$(shell pkg-config --libs $(TUI_PKGS)),-lncursesw -ltinfo)
CPPFLAGS := -D_POSIX_C_SOURCE=200809L -Icore -Ilayouts
CFLAGS   ?=
SAN      ?=
ALL_CFLAGS = $(WARN) $(OPT) $(SAN) $(CFLAGS) $(CPPFLAGS) $(PKG_CFLAGS)
LDLIBS   = $(PKG_LIBS) -lmetis -lscotch -lscotcherr -lm -lpthread

BUILD    ?= build
CORE_SRC := $(wildcard core/*.c)
LAY_SRC  := $(wildcard layouts/*.c)
TUI_SRC  := $(wildcard tui/*.c)
TEST_SRC := $(filter-out tests/bench.c,$(wildcard tests/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
LAY_OBJ  := $(LAY_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ  := $(TUI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
LIBCORE  := $(BUILD)/libplacetocore.a
LIBLAY   := $(BUILD)/libplacetolayouts.a
PROG     ?= placeto
UNIT     := $(BUILD)/unit
BENCH    := $(BUILD)/bench

.PHONY: all deps run test unit check-layers asan ubsan valgrind fuzz fuzz-build bench clean update-golden screenshots

all: check-layers $(PROG)

deps:
	@bash tests/deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./$(PROG)

test: deps
	@$(MAKE) --no-print-directory all $(UNIT)
	@bash tests/run.sh ./$(PROG) $(UNIT)

# core/ and layouts/ must never include curses (DESIGN.md §2).
check-layers:
	@if grep -rnE '#[[:space:]]*include[[:space:]]*[<"](n?curses|ncursesw/|panel|term)\.?h?' core layouts 2>/dev/null; then \
	  echo "error: core/ and layouts/ must not include curses (only tui/ may)"; exit 1; fi

# The network's element-wise loops run millions of times per training run:
# let the compiler vectorise them (a branchy ReLU costs more than the GEMMs).
$(BUILD)/core/nn.o $(BUILD)/core/policy.o: OPT += -O3

$(BUILD)/%.o: %.c $(wildcard core/*.h layouts/*.h tui/*.h tests/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) $(if $(filter tui/%,$<),$(TUI_CFLAGS)) -c $< -o $@

$(LIBCORE): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(LIBLAY): $(LAY_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(PROG): $(TUI_OBJ) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $(TUI_OBJ) $(LIBLAY) $(LIBCORE) $(TUI_LIBS) $(LDLIBS)

$(UNIT): $(TEST_OBJ) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $(TEST_OBJ) $(LIBLAY) $(LIBCORE) $(LDLIBS)

# the benchmark drives the explorer's App headless (no curses objects)
BENCH_TUI := $(BUILD)/tui/app.o $(BUILD)/tui/app_keys.o $(BUILD)/tui/app_train.o $(BUILD)/tui/draw.o $(BUILD)/tui/demo.o $(BUILD)/tui/cli.o
$(BENCH): $(BUILD)/tests/bench.o $(BUILD)/tests/testutil.o $(BENCH_TUI) $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -o $@ $^ $(LDLIBS)

# Sanitizer and valgrind runs of the whole suite, in their own build trees.
asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan PROG=build-asan/placeto OPT="-O1 -g" \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test

ubsan: deps
	@$(MAKE) --no-print-directory BUILD=build-ubsan PROG=build-ubsan/placeto OPT="-O1 -g" \
	  SAN="-fsanitize=undefined -fno-sanitize-recover=all" test

valgrind: deps
	@$(MAKE) --no-print-directory all $(UNIT)
	@VALGRIND=1 bash tests/run.sh ./$(PROG) $(UNIT)

# libFuzzer targets (tests/fuzz/fuzz_*.c): the loaders and the DAG layout,
# built with clang, ASan and UBSan in build-fuzz/ (core and layouts compiled
# there with the same flags), each run for FUZZ_SECONDS from the repository
# root on build-fuzz/corpus/TARGET, a copy of tests/fuzz/corpus/TARGET.
# Crash inputs land in build-fuzz/crashes/TARGET/ (see tests/fuzz/run.sh);
# fuzz-build is the internal build step (with BUILD=build-fuzz).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= graph_json graph_dot placement cluster policy episode dag
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

fuzz: deps
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) OPT="-g -O1" SAN="$(FUZZ_SAN)" \
	  FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)
	@:

$(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz/fuzz_%.o): tests/fuzz/fuzz.h

$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIBLAY) $(LIBCORE)
	@echo "  LINK    $@"
	@$(CC) $(OPT) $(SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Rewrites tests/golden/*.txt from the current layouts (review the diff).
update-golden: $(UNIT)
	@PLACETO_UPDATE_GOLDEN=1 ./$(UNIT) golden_
	@git status --short tests/golden 2>/dev/null || true

# PNG and SVG screenshots of the real program (tmux, rsvg-convert)
screenshots: deps
	@bash tests/deps.sh screenshots
	@$(MAKE) --no-print-directory all
	@bash screenshots/make.sh

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH)
	@bash tests/bench.sh ./$(PROG) $(BENCH)

clean:
	rm -rf build build-asan build-ubsan build-fuzz $(PROG)
