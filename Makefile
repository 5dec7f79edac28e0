# The book's only entry point.  `make` (= make pdf) weaves the book;
# `make test` proves every listing.  See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.DEFAULT_GOAL := pdf
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

# ---- what the book is ------------------------------------------------------
CHAPTERS := $(shell tools/chapters.sh)
NWFILES  := $(addprefix chapters/,$(addsuffix .nw,$(CHAPTERS)))
# The GPU whose measurements the book shows (book.yaml, or make pdf GPU=).
# make bench writes to the GPU it runs on, or to GPU= when given.
GPU      ?= $(shell tools/chapters.sh gpu)
WEAVING  := $(filter pdf instructor html bench build/book.% build/book-% build/html/%,$(or $(MAKECMDGOALS),pdf))
ifneq ($(WEAVING),)
ifeq ($(strip $(GPU)),)
$(error book.yaml: build: has no gpu: (the GPU whose data the book shows); or give GPU=)
endif
endif
ifneq ($(words $(GPU)),$(if $(strip $(GPU)),1,0))
$(error GPU=$(GPU): a folder name under figures/data/, such as h200 (tools/gpu-slug.sh makes one from a GPU's name))
endif
# Chapters with code are those with a folder in tangled/; CH= picks some.
CODE_CH  := $(foreach c,$(CHAPTERS),$(if $(wildcard tangled/$(c)/*),$(c)))
CH       ?= $(CODE_CH)

# ---- tools -------------------------------------------------------------------
comma := ,
# nvcc: NVCC= if given (a path, or a name on PATH), else the one on PATH,
# else $(CUDA_HOME)/bin/nvcc, else /usr/local/cuda/bin/nvcc (where NVIDIA's
# installer puts it).  The C tests take the CUDA headers of that same
# toolkit, whatever CUDA_HOME says.
NVCC_TRIED := nvcc on PATH$(if $(CUDA_HOME),$(comma) $(CUDA_HOME)/bin/nvcc)$(if $(filter /usr/local/cuda,$(CUDA_HOME)),,$(comma) /usr/local/cuda/bin/nvcc)
ifeq ($(origin NVCC),undefined)
NVCC     := $(or $(shell command -v nvcc 2>/dev/null),$(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc)),$(wildcard /usr/local/cuda/bin/nvcc))
else ifeq ($(findstring /,$(NVCC)),)
override NVCC := $(or $(shell command -v $(NVCC) 2>/dev/null),$(NVCC))
endif
export NVCC
# tools/cuda-top.sh sees through a wrapper script such as /usr/local/bin/nvcc.
CUDA_TOP := $(if $(NVCC),$(shell tools/cuda-top.sh '$(NVCC)'))
CUDA_INC := $(CUDA_TOP)/include
CC       := gcc
# cmocka from the system, or unpacked .deb files carried in .deps/cmocka.
CMOCKA_DIR ?= $(if $(wildcard .deps/cmocka/usr/include/cmocka.h),$(CURDIR)/.deps/cmocka/usr)
CMOCKA_LIB := $(if $(CMOCKA_DIR),$(patsubst %/,%,$(dir $(firstword $(wildcard $(CMOCKA_DIR)/lib/*/libcmocka.so* $(CMOCKA_DIR)/lib/libcmocka.so*)))))
CMOCKA_CFLAGS := $(if $(CMOCKA_DIR),-I$(CMOCKA_DIR)/include)
CMOCKA_LIBS   := $(if $(CMOCKA_LIB),-L$(CMOCKA_LIB) -Xlinker -rpath=$(CMOCKA_LIB)) -lcmocka

# ---- what is compiled --------------------------------------------------------
# One rule (tools/build-src.sh).  With noweb (and gawk) the build compiles
# build/src, tangled afresh from the chapters with #line directives into
# them, and stops if the committed tangled/ says anything else (make tangle
# mends that).  Without noweb (a bare GPU server) it compiles the committed
# tangled/, after checking that the chapters' code is what tangled/ was
# written from (tangled/.codesum).  Either way the object list is tangled/'s,
# which the check has just shown to be the same set of files.  It runs while
# make reads this file, for the goals that compile, so that make -n is true.
HAVE_NOWEB := $(shell command -v notangle >/dev/null 2>&1 && command -v gawk >/dev/null 2>&1 && echo yes)
SRC      := $(if $(HAVE_NOWEB),build/src,tangled)
NOCOMPILE := pdf instructor html programs build/book-% build/solutions.% tangle check clean deps deps-pdf deps-html deps-test readme nvcc-found build/book.% build/html/% build/html-src/% dist build/dist/%
ifneq ($(filter-out $(NOCOMPILE),$(or $(MAKECMDGOALS),pdf)),)
ifneq ($(shell SRC=$(SRC) tools/build-src.sh >&2; echo $$?),0)
$(error the build stops here)
endif
endif

# ---- architectures -----------------------------------------------------------
# Machine code for every architecture in book.yaml's archs (oldest first),
# plus PTX for the newest, which newer GPUs compile when they load it.
# ARCH=sm_86 builds for one; ARCH=native for the GPU in this machine.
ARCHS    ?= $(shell tools/chapters.sh archs)
ifneq ($(filter-out $(NOCOMPILE),$(or $(MAKECMDGOALS),pdf)),)
ifeq ($(strip $(ARCHS)),)
$(error book.yaml: build: has no archs: (the GPU architectures to compile for))
endif
endif
# ARCH only from the command line (an ARCH in the environment often means a
# CPU, arm64 say), and only sm_NN, sm_NNa or native.
ifneq ($(origin ARCH),command line)
override ARCH :=
endif
ifneq ($(ARCH),)
ifeq ($(filter native sm_%,$(ARCH)),)
$(error ARCH=$(ARCH): give sm_75, sm_86, sm_89, sm_90 ... or native)
endif
endif
NEWEST   := $(lastword $(ARCHS))
ifeq ($(ARCH),native)
GENCODE  := -arch=native
else ifneq ($(ARCH),)
GENCODE  := -gencode arch=compute_$(ARCH:sm_%=%),code=[$(ARCH),compute_$(ARCH:sm_%=%)]
else
GENCODE  := $(foreach a,$(ARCHS),-gencode arch=compute_$(a:sm_%=%),code=$(a)) \
            -gencode arch=compute_$(NEWEST:sm_%=%),code=compute_$(NEWEST:sm_%=%)
endif
BUILT_ARCHS := $(if $(ARCH),$(ARCH:sm_%=%),$(ARCHS:sm_%=%))

NVFLAGS  := -std=c++17 -O3 $(GENCODE) -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
            -I$(SRC) -Itests/common
CFLAGS   := -std=c11 -O2 -Wall -Wextra -Werror -I$(SRC) -Itests/common -I$(CUDA_INC) \
            $(CMOCKA_CFLAGS) -DTK_ARCHS='"$(BUILT_ARCHS)"'
LIBS     := -lcublas $(CMOCKA_LIBS) -lm

# Settings that are build inputs, each kept in a file that changes only when
# the setting does (tools/setting.sh): changing one rebuilds what uses it.
# A dry run (make -n) only compares, so that it changes nothing for later.
DRAFTING := $(if $(filter-out 0 no,$(DRAFT)),1,0)
# make's one-letter options are MAKEFLAGS' first word; the --no-builtin-rules
# this Makefile adds above is not one (its n once made every run look dry).
DRY      := $(if $(findstring n,$(filter-out --%,$(firstword -$(MAKEFLAGS)))),dry)
SET_NVCC  := $(shell tools/setting.sh build/nvcc.flags '$(NVCC) $(NVFLAGS)' $(DRY))
SET_CC    := $(shell tools/setting.sh build/cc.flags '$(CC) $(CFLAGS) $(LIBS)' $(DRY))
SET_WEAVE := $(shell tools/setting.sh build/weave.flags 'draft=$(DRAFTING) gpu=$(GPU)' $(DRY))
.PHONY: FORCE
build/nvcc.flags: $(if $(SET_NVCC),FORCE) ; @:
build/cc.flags: $(if $(SET_CC),FORCE) ; @:
build/weave.flags: $(if $(SET_WEAVE),FORCE) ; @:
ifneq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(filter-out clean,$(MAKECMDGOALS)),)
$(error make clean runs on its own: make clean, then make $(filter-out clean,$(MAKECMDGOALS)))
endif
endif

.PHONY: pdf instructor html programs test tangle check bench sanitize clean deps deps-pdf deps-html deps-test readme nvcc-found dist
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
deps-html:
	@tools/deps.sh html
deps-test:
	@tools/deps.sh test
readme:
	@tools/readme-deps.sh

# ---- tangle and check ----------------------------------------------------------
tangle: deps-test
	tools/tangle.sh tangled
	@tools/codesum.sh > tangled/.codesum
	@echo "tangle: tangled/ written from $(words $(NWFILES)) chapters"

check: deps-test
	@tools/check.sh

# ---- compile -------------------------------------------------------------------
build/obj/%.o: $(SRC)/%.cu build/nvcc.flags | nvcc-found
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -MMD -MP -MF build/obj/$*.d -c $< -o $@
# A file NAME.smNN.cu uses instructions that came with sm_NN (mma.sync
# and cp.async with sm_80): it is compiled only for the archs from sm_NN
# on, plus PTX for the newest (for sm_NN alone when ARCH is older: its
# tests skip on such a GPU).  NAME.sm90a.cu uses Hopper's arch-specific
# instructions (wgmma, setmaxnreg): compiled for sm_90a alone, which runs
# on compute capability 9.0 and nothing else.
# $(call from_arch,NN): the archs built (ARCH or book.yaml's) from sm_NN on;
# $(call gencode_for,LIST): machine code for each, PTX for the newest.
from_arch = $(shell for a in $(or $(ARCH),$(ARCHS)); do [ $${a#sm_} -ge $(1) ] && printf '%s ' $$a; done)
gencode_for = $(foreach a,$(1),-gencode arch=compute_$(a:sm_%=%),code=$(a)) \
  -gencode arch=compute_$(lastword $(1:sm_%=%)),code=compute_$(lastword $(1:sm_%=%))
define arch_rule
GENCODE_$(1) := $$(if $$(filter native,$$(ARCH)),-arch=native,$$(call gencode_for,$$(or $$(call from_arch,$(1)),sm_$(1))))
build/obj/%.sm$(1).o: $$(SRC)/%.sm$(1).cu build/nvcc.flags | nvcc-found
	@mkdir -p $$(dir $$@)
	$$(NVCC) $$(filter-out $$(GENCODE),$$(NVFLAGS)) $$(GENCODE_$(1)) -MMD -MP -MF build/obj/$$*.sm$(1).d -c $$< -o $$@
endef
$(foreach a,$(ARCHS:sm_%=%),$(eval $(call arch_rule,$(a))))
build/obj/%.sm90a.o: $(SRC)/%.sm90a.cu build/nvcc.flags | nvcc-found
	@mkdir -p $(dir $@)
	$(NVCC) $(filter-out $(GENCODE),$(NVFLAGS)) -gencode arch=compute_90a,code=sm_90a -MMD -MP -MF build/obj/$*.sm90a.d -c $< -o $@
build/obj/testkit.o: tests/common/testkit.c build/cc.flags | nvcc-found
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
# The stream gate of the tests, where the book has common/gate.cuh.
GATEKIT  := $(if $(wildcard tangled/common/gate.cuh),build/obj/gatekit.o)
build/obj/gatekit.o: tests/common/gatekit.cu build/nvcc.flags | nvcc-found
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -MMD -MP -MF build/obj/gatekit.d -c $< -o $@
build/obj/benchkit.o: tests/common/benchkit.cu build/nvcc.flags | nvcc-found
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -MMD -MP -MF build/obj/benchkit.d -c $< -o $@

# Per chapter: its tangled .cu files, its test program (tests/CH/*.c but the
# exercise drivers ex_*.c and pictures.c, a program of its own; C and
# cmocka) and its benchmark (tests/CH/bench*.cu).  Both link the objects of
# the chapters it links (book.yaml's links:, closed: tools/chapters.sh
# linked CH); what it only reads (reads:) is not linked.
define chapter_rules
$(1)_OBJ := $$(patsubst tangled/%.cu,build/obj/%.o,$$(wildcard tangled/$(1)/*.cu))
$(1)_TOBJ := $$(patsubst tests/$(1)/%.c,build/$(1)/%.o,$$(filter-out tests/$(1)/ex_% tests/$(1)/pictures.c,$$(wildcard tests/$(1)/*.c)))
$(1)_BENCH := $$(wildcard tests/$(1)/bench*.cu)
$(1)_LINK := $$($(1)_OBJ) $$(foreach u,$$(shell tools/chapters.sh linked $(1)),$$($$(u)_OBJ))
build/$(1)/%.o: tests/$(1)/%.c build/cc.flags | nvcc-found
	@mkdir -p build/$(1)
	$$(CC) $$(CFLAGS) -Itests/$(1) -MMD -MP -c $$< -o $$@
ifeq ($$($(1)_TOBJ),)
build/$(1)/test:
	@mkdir -p build/$(1)
	@printf '#!/bin/sh\necho "[ RUN      ] $(1)_has_tests"\necho "$(1) has code but no tests/$(1)/test_*.c"\necho "[  FAILED  ] $(1)_has_tests"\n' > $$@ && chmod +x $$@
else
build/$(1)/test: $$($(1)_LINK) $$($(1)_TOBJ) build/obj/testkit.o $$(GATEKIT)
	$$(NVCC) $$(GENCODE) -o $$@ $$(filter %.o,$$^) $$(LIBS)
endif
build/$(1)/bench: $$($(1)_BENCH) $$($(1)_LINK) build/obj/benchkit.o build/nvcc.flags | nvcc-found
	@mkdir -p build/$(1)
	$$(NVCC) $$(NVFLAGS) -Itests/$(1) -MMD -MP -MF build/$(1)/bench.d -o $$@ $$(filter %.cu %.o,$$^) -lcublas
endef
$(foreach c,$(CODE_CH),$(eval $(call chapter_rules,$(c))))
-include $(wildcard build/obj/*.d build/obj/*/*.d build/*/*.d)


# ---- exercises (the course kit) ----------------------------------------------------
# exercises/CH/NAME.cu is the student's file (a stub with a TODO until it is
# written), exercises/CH/solutions/NAME.cu its solution, tests/CH/ex_NAME.c
# the driver that tests either (tests/common/exkit.h), and
# exercises/CH/exercises.h declares the launchers.  An exercise program
# links what its chapter's test program links.  make test runs
# the solutions; make exercise EX=CH/NAME and make exercises the students'.
EXERCISES := $(foreach c,$(CODE_CH),$(patsubst exercises/%.cu,%,$(wildcard exercises/$(c)/*.cu)))
# $(1) = CH/NAME, $(2) = CH, $(3) = ex (the student's) or sol, $(4) = the .cu
define exercise_rules
build/$(3)/$(1).o: $(4) build/nvcc.flags | nvcc-found
	@mkdir -p $$(dir $$@)
	$$(NVCC) $$(NVFLAGS) -Iexercises -MMD -MP -MF build/$(3)/$(1).d -c $$< -o $$@
build/$(3)/$(1).drv.o: tests/$(2)/ex_$$(notdir $(1)).c build/cc.flags | nvcc-found
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) -Itests/$(2) -Iexercises -DEX_NAME='"$(1)"' -DEX_FILE='"$(4)"' -MMD -MP -c $$< -o $$@
build/$(3)/$(1): build/$(3)/$(1).o build/$(3)/$(1).drv.o $$($(2)_LINK) build/obj/testkit.o $$(GATEKIT)
	$$(NVCC) $$(GENCODE) -o $$@ $$(filter %.o,$$^) $$(LIBS)
endef
$(foreach e,$(EXERCISES),$(eval $(call exercise_rules,$(e),$(patsubst %/,%,$(dir $(e))),ex,exercises/$(e).cu)))
$(foreach e,$(EXERCISES),$(eval $(call exercise_rules,$(e),$(patsubst %/,%,$(dir $(e))),sol,exercises/$(dir $(e))solutions/$(notdir $(e)).cu)))
-include $(wildcard build/ex/*/*.d build/sol/*/*.d)
SOLUTIONS := $(foreach c,$(CH),$(addprefix build/sol/,$(filter $(c)/%,$(EXERCISES))))

.PHONY: exercise exercises
ifneq ($(filter exercise,$(MAKECMDGOALS)),)
ifeq ($(filter $(EX),$(EXERCISES)),)
$(error make exercise EX=CH/NAME, NAME one of the files in exercises/CH/: $(EXERCISES))
endif
endif
exercise: build/ex/$(EX)
	@tools/run-tests.sh build/ex/$(EX)
# Every student file, each built on its own (one that does not compile is
# reported, the others still run), then a table.
exercises: | nvcc-found
	@mkdir -p build/ex && rm -f $(addprefix build/ex/,$(EXERCISES))
	@$(MAKE) --no-print-directory -k $(addprefix build/ex/,$(EXERCISES)) > build/ex-build.log 2>&1 \
	  || echo "exercises: some did not build; build/ex-build.log says why"
	@tools/exercises.sh $(EXERCISES)

TESTS   := $(foreach c,$(CH),build/$(c)/test)
# Benchmarks run in book order whatever the order of CH, so that one that
# reads another's CSV (links: or reads:, tools/chapters.sh before) runs after it.
BENCHES := $(foreach c,$(filter $(CH),$(CHAPTERS)),$(if $(wildcard tests/$(c)/bench*.cu),build/$(c)/bench))
# The programs of the chapters in CH, one a line with its kind, for
# tools/gpu-pack.sh and tools/gpu-batch.sh.
.PHONY: programs
programs:
	@$(foreach t,$(TESTS),echo test $(t);) $(foreach b,$(BENCHES),echo bench $(b);) $(foreach s,$(SOLUTIONS),echo solution $(s);) :

# ---- test ------------------------------------------------------------------------
# Toolchain tests run with the whole book, not with CH=.
TOOLTESTS := $(if $(filter command line,$(origin CH)),,$(sort $(wildcard tests/tools/test_*.sh)))
test: deps-test $(TESTS) $(SOLUTIONS)
	@tools/run-tests.sh $(TESTS) $(SOLUTIONS) $(TOOLTESTS)

sanitize: $(TESTS)
	@tools/sanitize.sh $(TESTS)

# make bench writes figures/data/<gpu>/: the GPU it runs on (tools/gpu-slug.sh)
# unless GPU= names one.  Without a GPU it says so before compiling anything.
ifneq ($(filter bench sanitize,$(MAKECMDGOALS)),)
ifneq ($(shell nvidia-smi -L >/dev/null 2>&1 && echo yes),yes)
$(error make $(filter bench sanitize,$(MAKECMDGOALS)) needs an NVIDIA GPU and its driver; nvidia-smi finds none here)
endif
endif
bench: $(BENCHES)
	@tools/bench.sh "$(if $(filter command line environment,$(origin GPU)),$(GPU))" "$(CH)" $(BENCHES)

# ---- weave ---------------------------------------------------------------------
FIGURES := $(wildcard figures/*.tex) $(wildcard figures/data/$(GPU)/*.csv)
# Two editions from one weave: the student book (build/book.pdf, make pdf)
# and the instructor edition (build/book-instructor.pdf, make instructor or
# make pdf EDITION=instructor), which weaves the appendix of solutions
# (tools/solutions.sh, from exercises/*/answers.md and the tested
# solutions) after the chapters and links each exercise to its solution
# (tools/instructor.awk).  The web edition has no solutions.
EDITION  ?= student
ifeq ($(filter student instructor,$(EDITION)),)
$(error EDITION=$(EDITION): student (the default) or instructor)
endif
pdf: build/book$(if $(filter instructor,$(EDITION)),-instructor).pdf
instructor: build/book-instructor.pdf
ANSWERS  := $(wildcard exercises/*/answers.md exercises/*/solutions/*.cu)
# The one weave (tools/weave.sh), its inputs and its settings.
WEAVER   := tools/weave.sh tools/noweb.sh tools/csv.awk tools/nw2md.awk build/tested-by.tsv
WEAVE_VARS := -v draft=$(DRAFTING) -v gpu=$(GPU) -v testedby=build/tested-by.tsv
# Which tests reach each launcher, for the weave's "Tested by" notes.
build/tested-by.tsv: tools/tested-by.sh tools/tested-by.awk tools/chapters.sh book.yaml $(wildcard tangled/*/*.h tests/*/test_*.c tests/*/*.h)
	@mkdir -p build
	tools/tested-by.sh > $@
build/book.md: $(NWFILES) $(WEAVER) book.yaml $(wildcard figures/data/$(GPU)/*.csv) build/weave.flags | deps-pdf
	@mkdir -p build
	tools/weave.sh $(WEAVE_VARS) $(NWFILES) > $@
build/solutions.nw: tools/solutions.sh $(ANSWERS) $(NWFILES) book.yaml
	@mkdir -p build
	tools/solutions.sh $@ build/solutions.list
build/book-instructor.md: $(NWFILES) build/solutions.nw tools/instructor.awk $(WEAVER) book.yaml $(wildcard figures/data/$(GPU)/*.csv) build/weave.flags | deps-pdf
	tools/weave.sh $(WEAVE_VARS) $(NWFILES) build/solutions.nw \
	  | gawk -f tools/instructor.awk -v list=build/solutions.list > $@
# The GPU whose numbers the book shows, for the figures' \input paths.
build/gpu.tex: build/weave.flags
	@printf '\\newcommand{\\bookgpu}{%s}\n' '$(GPU)' > $@
# A chapter's pictures: tests/CH/pictures.c, plain C with libpng, run as
# pictures DIR, draws them into build/CH/pics/ (DIR), which its figures
# include.  It sees the chapters' headers (tangled/).
PICS := $(foreach c,$(CHAPTERS),$(if $(wildcard tests/$(c)/pictures.c),build/$(c)/pics/.done))
build/%/pics/.done: tests/%/pictures.c $(wildcard tangled/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -Itangled -o build/$*/pictures $< -lpng -lm
	build/$*/pictures $(dir $@)
	@touch $@
# $(1): the edition's suffix, empty for the student book.  The page and its
# fonts are book.yaml's, which pandoc reads as metadata.
# The figures alone, first: no text in them below the 7 pt floor at print
# size (tools/fig-fonts.sh).  Then the passes and the subject index
# (tools/pdf-passes.sh), and the checks of what came out: every index entry
# with its page (tools/pdf-index-check.sh), no markup left unrendered, such
# as [[code]] or $math$ (tools/unrendered-check.sh).  A PDF that fails a
# check is kept as build/book.failed.pdf (book-instructor.failed.pdf), to look at.
define pdf_rules
build/book$(1).tex: build/book$(1).md build/gpu.tex tools/preamble.tex tools/uses.awk tools/cuda.xml book.yaml
	pandoc $$< -f markdown -t latex -s --metadata-file=book.yaml --toc --toc-depth=2 \
	  --top-level-division=chapter --number-sections --syntax-definition=tools/cuda.xml --highlight-style=tango \
	  -H tools/preamble.tex -H build/gpu.tex | gawk -f tools/uses.awk > $$@
build/figfonts$(1)/ok: build/book$(1).tex $$(FIGURES) $$(PICS) tools/fig-fonts.sh
	@tools/fig-fonts.sh build/book$(1).tex
	@touch $$@
build/book$(1).pdf: build/book$(1).tex build/figfonts$(1)/ok $$(FIGURES) $$(PICS) tools/pdf-passes.sh tools/index.ist tools/pdf-index-check.sh tools/unrendered-check.sh
	tools/pdf-passes.sh book$(1)
	@tools/pdf-index-check.sh $$@ > build/pdf-index$(1).log || { cat build/pdf-index$(1).log; cp $$@ build/book$(1).failed.pdf; echo "pdf: index entries without a page (tools/pdf-index-check.sh); the PDF is build/book$(1).failed.pdf"; exit 1; }
	@tools/unrendered-check.sh $$@ || { cp $$@ build/book$(1).failed.pdf; echo "pdf: markup left unrendered (tools/unrendered-check.sh); the PDF is build/book$(1).failed.pdf"; exit 1; }
	@rm -f build/book$(1).failed.pdf
	@echo "pdf: build/book$(1).pdf ($$$$(grep -o 'Output written.*' build/xelatex$(1).log))"
endef
$(eval $(call pdf_rules,))
$(eval $(call pdf_rules,-instructor))

# ---- the source archive ----------------------------------------------------------
# make dist: build/dist/cuda-c-verified-src.tar.gz, the book's tree as
# committed (git archive of HEAD, with SOURCE naming the commit; in an
# unpacked archive, its own files again), for a reader to unpack and run
# make test in (tools/dist.sh; tests/tools/test_dist.sh does).  It runs every
# time and rewrites the file only when the tree changed.  The web edition
# ships it beside the PDF.
DIST := build/dist/cuda-c-verified-src.tar.gz
dist: $(DIST)
$(DIST): FORCE
	@tools/dist.sh $@

# ---- the web edition -------------------------------------------------------------
# The same weave as the PDF's, its chunk markup in HTML (nw2md.awk -v
# format=html); tools/html-pre.awk turns the LaTeX figures into HTML ones
# and resolves \ref; pandoc writes the whole book as one HTML body (MathML,
# the CUDA syntax definition); tools/html-site.awk cuts it into a page per
# chapter with working links across pages, the contents and the search
# index; tools/html-figs.sh draws the figures as SVG from the same TikZ
# sources and data.
HTML_SRC := build/html-src
html: build/html/index.html
$(HTML_SRC)/book.md: $(NWFILES) $(WEAVER) tools/html-pre.awk book.yaml $(wildcard figures/data/$(GPU)/*.csv) build/weave.flags | deps-html
	@mkdir -p $(HTML_SRC)
	tools/weave.sh -v format=html $(WEAVE_VARS) $(NWFILES) \
	  | gawk -f tools/html-pre.awk -v figlist=$(HTML_SRC)/figs.list -v macros=$(HTML_SRC)/macros.tex > $@
$(HTML_SRC)/body.html: $(HTML_SRC)/book.md tools/cuda.xml tools/pandoc-html.sh
	tools/pandoc-html.sh $< $@
build/html/fig/.done: $(HTML_SRC)/book.md build/gpu.tex tools/preamble.tex tools/html-figs.sh $(FIGURES) $(PICS)
	tools/html-figs.sh $(HTML_SRC) build/html/fig
	@touch $@
# The site ships the PDF and the source archive, linked from every page:
# the PDF when it is built (make pdf html, or make pdf first, as CI does;
# one that is there is remade first if it is out of date), the archive
# wherever make dist can make one (a git checkout, an unpacked archive).
HTML_PDF := $(if $(or $(wildcard build/book.pdf),$(filter pdf,$(MAKECMDGOALS))),build/book.pdf)
HTML_DIST := $(if $(wildcard .git .book-files),$(DIST))
build/html/index.html: $(HTML_SRC)/body.html build/html/fig/.done tools/html-site.awk tools/html/book.css tools/html/book.js tools/unrendered-check.sh book.yaml $(HTML_PDF) $(HTML_DIST)
	rm -f build/html/*.html build/html/book.pdf build/html/*.tar.gz
	$(if $(HTML_PDF),cp $(HTML_PDF) build/html/book.pdf)
	$(if $(HTML_DIST),cp $(HTML_DIST) build/html/)
	LC_ALL=C gawk -f tools/html-site.awk -v out=build/html -v title="$$(tools/chapters.sh title)" \
	  -v subtitle="$$(tools/chapters.sh subtitle)" -v edition="$$(tools/chapters.sh edition)" -v lang="$$(tools/chapters.sh lang)" \
	  -v textwidth="$$(tools/chapters.sh textwidth)" \
	  $(if $(HTML_PDF),-v pdf=book.pdf -v pdfpages="$$(pdfinfo $(HTML_PDF) | sed -n 's/^Pages: *//p')") \
	  $(if $(HTML_DIST),-v src=$(notdir $(DIST)) -v srckib="$$(du -k $(DIST) | cut -f1)" -v commit="$$(tar -xzOf $(DIST) cuda-c-verified/.book-commit)") $<
	cp tools/html/book.css tools/html/book.js build/html/
	@tools/unrendered-check.sh build/html/*.html || { echo "html: markup left unrendered in the pages (tools/unrendered-check.sh)"; exit 1; }
	@echo "html: build/html/index.html ($$(ls build/html/*.html | wc -l) pages, $$(ls build/html/fig/*.svg | wc -l) figures$(if $(HTML_PDF),$(comma) the PDF)$(if $(HTML_DIST),$(comma) the source archive))"

clean:
	rm -rf build

