# The book's only entry point.  `make` (= make pdf) weaves the book;
# `make test` proves every listing.  See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.DEFAULT_GOAL := pdf

# ---- what the book is ------------------------------------------------------
CHAPTERS := $(shell tools/chapters.sh)
NWFILES  := $(addprefix chapters/,$(addsuffix .nw,$(CHAPTERS)))
ARCHS    := $(shell tools/chapters.sh archs)
GPU      ?= $(shell tools/chapters.sh gpu)
# Chapters with code are those with a folder in tangled/; CH= picks some.
CODE_CH  := $(foreach c,$(CHAPTERS),$(if $(wildcard tangled/$(c)/*),$(c)))
CH       ?= $(CODE_CH)

# ---- tools -------------------------------------------------------------------
# nvcc: NVCC= if given, else the one on PATH, else $(CUDA_HOME)/bin/nvcc,
# else /usr/local/cuda/bin/nvcc (where NVIDIA's installer puts it).
NVCC_TRIED := nvcc on PATH,$(if $(CUDA_HOME), $(CUDA_HOME)/bin/nvcc,) /usr/local/cuda/bin/nvcc
ifeq ($(origin NVCC),undefined)
NVCC     := $(or $(shell command -v nvcc 2>/dev/null),$(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc)),$(wildcard /usr/local/cuda/bin/nvcc))
endif
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))
CC       := gcc
HAVE_NOWEB := $(shell command -v notangle >/dev/null 2>&1 && command -v gawk >/dev/null 2>&1 && echo yes)
# With noweb the build compiles copies with #line directives into the
# chapters; without it (the GPU machine) it compiles the committed tangled/.
SRC      := $(if $(HAVE_NOWEB),build/src,tangled)
SRCSTAMP := $(if $(HAVE_NOWEB),build/src.stamp)
# cmocka from the system, or unpacked .deb files carried in .deps/cmocka.
CMOCKA_DIR ?= $(if $(wildcard .deps/cmocka/usr/include/cmocka.h),$(CURDIR)/.deps/cmocka/usr)
CMOCKA_CFLAGS := $(if $(CMOCKA_DIR),-I$(CMOCKA_DIR)/include)
CMOCKA_LIBS   := $(if $(CMOCKA_DIR),-L$(CMOCKA_DIR)/lib/x86_64-linux-gnu -Xlinker -rpath=$(CMOCKA_DIR)/lib/x86_64-linux-gnu) -lcmocka

GENCODE  := $(foreach a,$(ARCHS),-gencode arch=compute_$(a:sm_%=%),code=$(a))
NVFLAGS  := -std=c++17 -O3 $(GENCODE) -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
            -I$(SRC) -Itests/common
CFLAGS   := -std=c11 -O2 -Wall -Wextra -Werror -I$(SRC) -Itests/common -I$(CUDA_HOME)/include $(CMOCKA_CFLAGS)
LIBS     := -lcublas $(CMOCKA_LIBS) -lm

# Settings that are build inputs, each kept in a file that changes only when
# the setting does (tools/setting.sh).
$(shell tools/setting.sh build/weave.flags 'draft=$(DRAFT) gpu=$(GPU)')

.PHONY: pdf test tangle check bench sanitize clean deps deps-pdf deps-test readme nvcc-found
.DELETE_ON_ERROR:
.SECONDARY:

# Only the targets that compile need nvcc; tangle, check and pdf do not.
nvcc-found:
	@$(if $(NVCC),test -x "$(NVCC)" || { echo "NVCC=$(NVCC): no such program; install the CUDA toolkit or point NVCC at nvcc"; exit 1; },\
	  echo "nvcc not found (tried $(NVCC_TRIED)); install the CUDA toolkit, or run make NVCC=/path/to/nvcc or CUDA_HOME=/path/to/cuda"; exit 1)

deps:
	@tools/deps.sh all asked
deps-pdf:
	@tools/deps.sh pdf
deps-test:
	@tools/deps.sh test
readme:
	@tools/readme-deps.sh

# ---- tangle and check ----------------------------------------------------------
tangle: deps-test
	tools/tangle.sh tangled
	@echo "tangle: tangled/ written from $(words $(NWFILES)) chapters"

check: deps-test
	@tools/check.sh

build/src.stamp: $(NWFILES) tools/tangle.awk tools/tangle.sh tools/noweb.sh book.yaml
	@mkdir -p build
	tools/tangle.sh build/src lines
	@touch $@

# ---- compile -------------------------------------------------------------------
build/src/%.cu build/src/%.h: build/src.stamp ;
build/obj/%.o: $(SRC)/%.cu $(SRCSTAMP) $(wildcard tangled/*/*.h) | nvcc-found
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $(SRC)/$*.cu -o $@

build/obj/testkit.o: tests/common/testkit.c tests/common/testkit.h | nvcc-found
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
build/obj/benchkit.o: tests/common/benchkit.cu tests/common/benchkit.h | nvcc-found
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $< -o $@

# Per chapter: its tangled .cu files, its test program (tests/CH/*.c, C and
# cmocka) and its benchmark (tests/CH/bench*.cu).
define chapter_rules
$(1)_OBJ := $$(patsubst tangled/%.cu,build/obj/%.o,$$(wildcard tangled/$(1)/*.cu))
$(1)_TESTC := $$(wildcard tests/$(1)/*.c)
$(1)_BENCH := $$(wildcard tests/$(1)/bench*.cu)
ifeq ($$($(1)_TESTC),)
build/$(1)/test:
	@mkdir -p build/$(1)
	@printf '#!/bin/sh\necho "[ RUN      ] $(1)_has_tests"\necho "$(1) has code but no tests/$(1)/test_*.c"\necho "[  FAILED  ] $(1)_has_tests"\n' > $$@ && chmod +x $$@
else
build/$(1)/test: $$($(1)_OBJ) $$($(1)_TESTC) $$(wildcard tests/$(1)/*.h) build/obj/testkit.o $(SRCSTAMP)
	@mkdir -p build/$(1)
	$$(CC) $$(CFLAGS) -Itests/$(1) -c $$($(1)_TESTC) && mv $$(notdir $$($(1)_TESTC:.c=.o)) build/$(1)/
	$$(NVCC) $$(GENCODE) -o $$@ $$($(1)_OBJ) $$(addprefix build/$(1)/,$$(notdir $$($(1)_TESTC:.c=.o))) build/obj/testkit.o $$(LIBS)
endif
build/$(1)/bench: $$($(1)_OBJ) $$($(1)_BENCH) build/obj/benchkit.o $(SRCSTAMP)
	@mkdir -p build/$(1)
	$$(NVCC) $$(NVFLAGS) -Itests/$(1) -o $$@ $$($(1)_BENCH) $$($(1)_OBJ) build/obj/benchkit.o -lcublas
endef
$(foreach c,$(CODE_CH),$(eval $(call chapter_rules,$(c))))

TESTS   := $(foreach c,$(CH),build/$(c)/test)
BENCHES := $(foreach c,$(CH),$(if $(wildcard tests/$(c)/bench*.cu),build/$(c)/bench))

# ---- test ------------------------------------------------------------------------
# Toolchain tests run with the whole book, not with CH=.
TOOLTESTS := $(if $(filter command line,$(origin CH)),,tests/tools/test_toolchain.sh tests/tools/test_deps.sh)
test: deps-test $(TESTS)
	@tools/run-tests.sh $(TESTS) $(TOOLTESTS)

sanitize: $(TESTS)
	@tools/sanitize.sh $(TESTS)

bench: $(BENCHES)
	@mkdir -p figures/data/$(GPU)
	@st=0; for b in $(BENCHES); do \
	  BOOK_GPU=$(GPU) BOOK_COMMIT=$${BOOK_COMMIT:-$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)} \
	  BOOK_DRIVER=$$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1) \
	  $$b || { echo "bench: $$b failed"; st=1; }; done; \
	for c in $(CH); do if [ -x tests/$$c/gpu-extra.sh ]; then \
	  BOOK_GPU=$(GPU) tests/$$c/gpu-extra.sh || { echo "bench: tests/$$c/gpu-extra.sh failed"; st=1; }; fi; done; \
	exit $$st

# ---- weave ---------------------------------------------------------------------
FIGURES := $(wildcard figures/*.tex) $(wildcard figures/data/$(GPU)/*.csv)
pdf: build/book.pdf
build/book.md: $(NWFILES) tools/nw2md.awk tools/noweb.sh book.yaml $(wildcard figures/data/$(GPU)/*.csv) build/weave.flags | deps-pdf
	@mkdir -p build
	tools/noweb.sh weave $(NWFILES) | gawk -f tools/nw2md.awk -v draft=$(if $(DRAFT),1,0) -v gpu=$(GPU) > $@
# The GPU whose numbers the book shows, for the figures' \input paths.
build/gpu.tex: build/weave.flags
	@printf '\\newcommand{\\bookgpu}{%s}\n' '$(GPU)' > $@
build/book.tex: build/book.md build/gpu.tex tools/preamble.tex tools/uses.awk tools/cuda.xml book.yaml
	pandoc $< -f markdown -t latex -s --metadata-file=book.yaml --toc --toc-depth=1 \
	  --top-level-division=chapter --number-sections --syntax-definition=tools/cuda.xml --highlight-style=tango \
	  -V documentclass=book -V classoption=oneside -V geometry:textwidth=6.3in,textheight=9in \
	  -V mainfont="DejaVu Serif" -V sansfont="DejaVu Sans" -V monofont="DejaVu Sans Mono" \
	  -V monofontoptions=Scale=0.85 -V fontsize=10pt -V colorlinks=true -V linkcolor=blue \
	  -H tools/preamble.tex -H build/gpu.tex | gawk -f tools/uses.awk > $@
build/book.pdf: build/book.tex $(FIGURES)
	cd build && for pass in 1 2; do \
	  TEXINPUTS=..:../figures: xelatex -interaction=nonstopmode -halt-on-error book.tex > xelatex.log 2>&1 \
	  || { grep -A5 '^!' xelatex.log; echo "xelatex failed: see build/xelatex.log"; exit 1; }; done
	@grep -q 'There were undefined references' build/xelatex.log && { echo "pdf: undefined references"; exit 1; } || true
	@echo "pdf: build/book.pdf ($$(grep -o 'Output written.*' build/xelatex.log))"

clean:
	rm -rf build
