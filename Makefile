# fieldpack: the make-driven pipeline. `make bundle`, then `make test`; `make help` lists the rest.
SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:

PIPELINE ?= pipelines/sample.json
BUILD ?= build
# One spelling of the build folder: make names its targets by it, and the stages' depfiles name
# theirs by the spelling of the build that wrote them, so `build/`, `./build`, an absolute path or
# one through a link would find no dependencies and call a stale bundle up to date. Relative when under this folder,
# absolute otherwise, and never starting with '-' (a stage would read it as an option: such a
# folder is written as its absolute path). make cannot name a file with spaces: such a folder is
# refused before anything runs (`make clean` would have removed each word). In a checkout whose
# own path has a space the folder is taken as written.
ifneq ($(words $(BUILD)),1)
$(error BUILD="$(BUILD)" must be one folder without spaces or be left out: make cannot name files with spaces)
endif
# Nor with characters make or the recipes' shell read as syntax: `%` made the grouped targets
# pattern rules (make deleted the records and articles after every build), `'` broke the
# recipes' quoting, `$` was expanded (the build went to another folder, silently).
ifneq ($(value BUILD),$(BUILD))
$(error BUILD=$(value BUILD) holds a '$$', which make expands: name a folder without one)
endif
hash_sign := \#
comma := ,
open_paren := (
close_paren := )
# $(call syntax-in,PATH): the characters of PATH that make or the recipes' shell read as syntax.
syntax-in = $(strip $(foreach c,% ' " : ; $(hash_sign) * ? [ ] { } $(open_paren) $(close_paren) $(comma) ~ ! ^ = ` & | < > \,$(if $(findstring $(c),$(1)),$(c))))
BUILD_SYNTAX := $(call syntax-in,$(BUILD))
ifneq ($(BUILD_SYNTAX),)
$(error BUILD="$(BUILD)" holds $(BUILD_SYNTAX), which make or the shell reads as syntax: name a folder of letters, digits, '/', '.', '-', '_' and the like)
endif
# The pipeline file likewise: every stage names it in its rule and on its command line, where a
# space split it in two ("pipelines/my: cannot open") and a quote broke the recipe.
ifneq ($(words $(PIPELINE)),1)
$(error PIPELINE="$(PIPELINE)" must be one file without spaces: make cannot name files with spaces)
endif
ifneq ($(value PIPELINE),$(PIPELINE))
$(error PIPELINE=$(value PIPELINE) holds a '$$', which make expands: name a file without one)
endif
PIPELINE_SYNTAX := $(call syntax-in,$(PIPELINE))
ifneq ($(PIPELINE_SYNTAX),)
$(error PIPELINE="$(PIPELINE)" holds $(PIPELINE_SYNTAX), which make or the shell reads as syntax: copy or link it to a name of letters, digits, '/', '.', '-', '_' and the like)
endif
ifeq ($(words $(CURDIR)),1)
# Links resolved too (`realpath -m`: the folder need not exist yet, its existing parents' links
# are followed), so that a folder reached through a link (`/shared` on one host, its target on
# another) is the same spelling.
BUILD_SPELLED := $(patsubst $(CURDIR)/%,%,$(or $(shell realpath -m -- '$(BUILD)' 2>/dev/null),$(abspath $(BUILD))))
# `make clean` removes it whole: never this source folder or a folder holding it.
ifneq ($(filter $(BUILD_SPELLED) $(patsubst %/,%,$(BUILD_SPELLED))/%,$(CURDIR)),)
$(error BUILD="$(BUILD)" is this source folder or holds it: name a folder of its own, such as build)
endif
override BUILD := $(if $(filter -%,$(BUILD_SPELLED)),$(CURDIR)/$(BUILD_SPELLED),$(BUILD_SPELLED))
endif
SWIFT ?= swift
BIN := .build/release
TOOLS_STAMP := .build/fieldpack-tools.stamp
EXECUTABLES := inat dedupe wiki bundle report manifest verify synth sanitize pipeline
# Your own data without writing a pipeline file: INAT=… (and WIKIPEDIA=…) make one, named NAME,
# at $(BUILD)/$(NAME)/pipeline.json. Several paths are separated by spaces.
INAT ?=
WIKIPEDIA ?=
MAX_REJECT_RATE ?=
ifneq ($(origin NAME),command line)
NAME := own
endif
# The Debian packages: to build and test (deps; help2man because the tests run make install),
# to benchmark (bench-deps), to make the manual pages (man, for a make install without deps).
DEB_PACKAGES := libsqlite3-dev libxml2-dev libssl-dev libisal-dev libsimdjson-dev libarchive-dev libjemalloc-dev pkg-config sqlite3 openssl python3-html5lib python3-pip help2man
# What `make bench` needs besides the build's packages: python3-venv and pip for the baselines'
# virtual environment (DuckDB, selectolax, lxml, nh3, pysimdjson from PyPI, pinned in
# Tests/Bench/requirements.txt, installed by run-bench.sh), GNU time for wall time and peak RSS,
# openssl for the SHA-256 peer, sqlite3 for the row-count check.
DEB_BENCH_PACKAGES := python3-venv python3-pip time openssl sqlite3 make
DEB_MAN_PACKAGES := help2man
# Not hidden files (an editor's swap file, .DS_Store), which no build reads.
SWIFT_SOURCES := Package.swift $(shell find Sources -type f ! -name '.*' 2>/dev/null)
# Their list, rewritten only when a source is added, removed or renamed: one deleted leaves
# every other older than the tools, which kept its code. Sources only (`x.swift~`, an editor's
# backup, is not one). Not in a dry run (-n) or a question (-q), which write nothing.
SOURCES_RECORD := .build/fieldpack-sources.list
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS)))$(findstring q,$(firstword -$(MAKEFLAGS))),)
$(shell mkdir -p .build && printf '%s\n' $(sort $(filter Package.swift %.swift %.c %.cpp %.h %.modulemap,$(SWIFT_SOURCES))) >'$(SOURCES_RECORD).new-'$$$$ && { cmp -s '$(SOURCES_RECORD).new-'$$$$ '$(SOURCES_RECORD)' && rm -f '$(SOURCES_RECORD).new-'$$$$ || mv '$(SOURCES_RECORD).new-'$$$$ '$(SOURCES_RECORD)'; })
endif
# The shared hostile-HTML corpus and its oracle, which judge fieldpack-sanitize in `make test`:
# ../shared/corpus/xss beside the repository, else the team's shared folder.
XSS_CORPUS ?= $(firstword $(wildcard ../shared/corpus/xss /work/shared/corpus/xss) ../shared/corpus/xss)
# make fuzz: seconds per target, and which targets (default all: ingest sanitizer article archive markup exportPruning).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
# make test's fuzz smoke: seconds per target, on an unoptimized fuzz build (.build/fuzz-smoke: about
# a minute to build where the optimized one takes four).
FUZZ_SMOKE_SECONDS ?= 4
BENCH_N ?= 1000000
BENCH_DIR ?= $(BUILD)/bench
# make install: the executables into $(DESTDIR)$(PREFIX)/bin, their manual pages (made from
# their --help by help2man) into $(DESTDIR)$(PREFIX)/share/man/man1.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
MAN_BUILD ?= .build/man
MAN_PAGES := $(EXECUTABLES:%=$(MAN_BUILD)/fieldpack-%.1)
# ENGINE=slurm (with SHARDS=N): the sharded stages run as Slurm job arrays, the single-writer steps
# as one job after them (pipelines/engines/slurm.sh; docs/pipeline.md). The sbatch options: the
# partition, account and time limit per task, and any others (split at spaces); SLURM_POLL is the
# seconds between squeue polls. The build folder and the repository must be on a filesystem
# the cluster's nodes share.
ENGINE ?=
SLURM_PARTITION ?=
SLURM_ACCOUNT ?=
SLURM_TIME ?=
SBATCH_OPTIONS ?=
SLURM_POLL ?= 2
SLURM_STAGES := inat dedupe wiki
ifneq ($(filter-out slurm,$(ENGINE)),)
$(error ENGINE=$(ENGINE) is not an engine: leave it empty (make runs the stages) or give ENGINE=slurm)
endif
ifeq ($(ENGINE)$(SHARDS),slurm)
$(error ENGINE=slurm runs the sharded rules: give SHARDS=N too (N >= 1))
endif
comma := ,
space := $(subst ,, )
# `make -n …` (a dry run): the rules print their commands and run none.
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))

.PHONY: all help bundle test check bench clean deps test-deps bench-deps tools man install uninstall pipeline-bundle report-check fuzz FORCE

all: bundle

help:
	@echo 'fieldpack: make targets (see README.md and docs/)'
	@echo
	@echo '  make bundle      build the tools, run the pipeline, publish build/<name>/bundle/ (the default)'
	@echo '  make test        unit, golden-file and end-to-end tests; the sanitizer judged by the hostile-HTML oracle; the sample'
	@echo '                   with SHARDS=4 against the unsharded bundle; report.html in Chromium; a fuzz smoke; the fault'
	@echo '                   script; and, as root, the sample under ENGINE=slurm on a one-node Slurm cluster'
	@echo '  make check       the same as make test'
	@echo '  make fuzz        libFuzzer + AddressSanitizer on the fuzz targets, FUZZ_SECONDS ($(FUZZ_SECONDS)) each; crashes to Tests/Fuzz/crashes/'
	@echo '  make shard-inat-I shard-dedupe-J shard-wiki-K  with SHARDS=N: one shard of a stage (0…N-1), as an engine'"'"'s array task runs it'
	@echo '  make report-check  the sample bundle'"'"'s report.html in headless Chromium; screenshot at $(BUILD)/report.png'
	@echo '  make bench       the throughput benchmark (minutes; 1M synthetic observations, several GB)'
	@echo '  make tools       only build the executables (swift build -c release) into .build/release'
	@echo '  make man         the manual pages, from each tool'"'"'s --help, into $(MAN_BUILD)'
	@echo '  make install     the executables and manual pages into $$(DESTDIR)$$(PREFIX)'
	@echo '  make uninstall   removes what make install put there'
	@echo '  make deps        installs the Debian packages the build and the tests need (when root)'
	@echo '  make test-deps   installs Chromium (when root) and bagit (the BagIt validator the tests use) into .build/python'
	@echo '  make bench-deps  installs what make bench needs from Debian (GNU time, python3-venv, openssl, sqlite3); the baselines install themselves into $(BENCH_DIR)/venv'
	@echo '  make pipeline-bundle PIPELINE=FILE PIPELINE_NAME=NAME  the stages alone, with the tools already in BIN (what an engine'"'"'s job or a container runs)'
	@echo '  make clean       removes $(BUILD)/ and .build/'
	@echo '  make help        this list'
	@echo
	@echo 'variables (make bundle VAR=value):'
	@echo '  PIPELINE=FILE       the pipeline file ($(PIPELINE)); its "name" names $(BUILD)/<name>/'
	@echo '  INAT=PATHS          your own iNaturalist dumps (files, folders, globs), instead of PIPELINE'
	@echo '  WIKIPEDIA=PATHS     with INAT: your Wikipedia dumps or pages'
	@echo '  NAME=NAME           with INAT: the pipeline'"'"'s name ($(NAME)), so the bundle is $(BUILD)/$(NAME)/bundle/'
	@echo '  MAX_REJECT_RATE=R   with INAT: the share of records ingest may reject (0.01)'
	@echo '  BUILD=DIR           where the outputs go ($(BUILD))'
	@echo '  BAGIT=1             also publish the bundle as a BagIt bag, $(BUILD)/<name>/bag/'
	@echo '  SHARDS=N            ingest, dedupe and wiki as N shards (targets shard-inat-I, shard-dedupe-J, shard-wiki-K; make -j runs them side by side); the same bundle'
	@echo '  SIGNING_KEY=FILE    signs the manifest (Ed25519 private key, PEM)'
	@echo '  PUBLIC_KEY=FILE     checks that signature after publishing, as the app does'
	@echo '  PREVIOUS=DIR        a previous bundle: adds delta.json, what changed since it'
	@echo '  SOURCE_DATE_EPOCH=S the build date (default: the newest record'"'"'s)'
	@echo '  SKIP_TOOLS=1        do not build the tools; use those in BIN ($(BIN))'
	@echo '  ENGINE=slurm        with SHARDS=N: the shards as Slurm job arrays (SLURM_PARTITION, SLURM_ACCOUNT, SLURM_TIME, SBATCH_OPTIONS;'
	@echo '                      SLURM_POLL=S, the seconds between checks of a job ($(SLURM_POLL)))'
	@echo '  XSS_CORPUS=DIR      make test: the shared hostile-HTML corpus ($(XSS_CORPUS)); required when CI=true'
	@echo '  FUZZ_SECONDS=S      make fuzz: seconds per target ($(FUZZ_SECONDS)); FUZZ_TARGETS=LIST, which targets (all);'
	@echo '                      FUZZ_SMOKE_SECONDS=S, make test'"'"'s smoke run per target ($(FUZZ_SMOKE_SECONDS))'
	@echo '  BENCH_N=N           make bench: synthetic observations ($(BENCH_N)); BENCH_DIR=DIR ($(BENCH_DIR))'
	@echo '  BENCH_RUNS=N        make bench: runs of every measurement (3); BENCH_WIKI_N, BENCH_SEED, BENCH_DAMAGE, BENCH_SCALE,'
	@echo '                      BENCH_OPEN_DATA_N, BENCH_OPEN_DATA_SCALE, BENCH_DUCKDB_MEMORY: see docs/benchmark.md'
	@echo '  BENCH_PARTS=LIST    make bench: only these sections, a comma list of runs, scale (with BENCH_SCALE=1), opendata, slurm (root) (all)'
	@echo '  PREFIX=DIR          make install: where to ($(PREFIX)); DESTDIR=DIR stages it (for packaging)'
	@echo '  MAN_BUILD=DIR       make man: where the pages go ($(MAN_BUILD))'
	@echo '  SWIFT=PATH          the swift to build with ($(SWIFT))'

# --- Set-up: the Debian packages --------------------------------------------------------------
# $(call debian-packages,LIST): installs what is missing of LIST when root; otherwise prints the
# exact apt-get command and stops.
define debian-packages
@missing=""; for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    echo "installing:$$missing"; \
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null; \
  else \
    echo "fieldpack needs Debian packages:$$missing"; \
    echo "run: sudo apt-get install -y$$missing"; exit 1; \
  fi; \
fi
endef

deps:
	$(call debian-packages,$(DEB_PACKAGES))

# The Python packages the tests check fieldpack's outputs with that Debian does not package:
# bagit, the Library of Congress's reference BagIt validator. Installed from PyPI into
# .build/python (pip --target: no system or user site touched, so Debian's externally managed
# Python allows it); the tests put that folder on PYTHONPATH.
PY_TEST_PACKAGES := bagit
PY_TEST_DIR := .build/python
# Debian's Chromium renders report.html in `make test` (Tests/Report/check-report.py).
TEST_DEB_PACKAGES := chromium
test-deps: | deps
	@for p in $(TEST_DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" && continue; \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing: $$p"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$p >/dev/null || exit 1; \
	  else \
	    echo "the report check needs $$p; run: sudo apt-get install -y $$p (without it the check is skipped, and fails when CI=true)"; \
	  fi; \
	done
	@for p in $(PY_TEST_PACKAGES); do \
	  PYTHONPATH=$(PY_TEST_DIR) python3 -c "import $$p" 2>/dev/null && continue; \
	  echo "installing from PyPI into $(PY_TEST_DIR): $$p"; \
	  python3 -m pip install --quiet --root-user-action=ignore --target $(PY_TEST_DIR) $$p \
	    || { echo "the tests need $$p; run: python3 -m pip install --target $(PY_TEST_DIR) $$p"; exit 1; }; \
	done

# The benchmark's packages: GNU time (wall time and peak RSS), and a virtual environment of its
# own for the baselines it compares with (DuckDB; lxml + nh3), from PyPI.
bench-deps: | deps
	$(call debian-packages,$(DEB_BENCH_PACKAGES))

# --- The executables (one swift build for all; skipped when SKIP_TOOLS=1, as tests do) ----
ifeq ($(SKIP_TOOLS),1)
tools:
else
tools: $(TOOLS_STAMP)
# The tree the tools are built from, recorded beside them for make bench's report
# (Tests/Bench/source-label.sh): taken before the build, so an edit made while it runs is not
# credited to them; rebuilt when the record is missing.
$(TOOLS_STAMP): $(SWIFT_SOURCES) $(wildcard $(SOURCES_RECORD)) $(if $(wildcard $(BIN)/fieldpack-source.txt),,FORCE) | deps
	@mkdir -p .build && (git describe --always --dirty 2>/dev/null || echo unknown) >.build/fieldpack-source.new
	$(SWIFT) build -c release
	@for tool in $(EXECUTABLES); do test -x $(BIN)/fieldpack-$$tool || { echo "missing $(BIN)/fieldpack-$$tool"; exit 1; }; done
	@mv .build/fieldpack-source.new $(BIN)/fieldpack-source.txt
	@# Newer than the tools it names (mv keeps the time the record was taken, before the build):
	@# a tool newer than it was rebuilt by hand since (Tests/Bench/source-label.sh).
	@touch $(BIN)/fieldpack-source.txt $@
endif

# --- The pipeline -------------------------------------------------------------------------
# One make bundle at a time builds a pipeline's folder: the outer make holds FOLDER/.make.lock
# (flock, an open descriptor its inner make and the stages inherit, so it is let go whenever the
# last of them ends, a kill included) and a second one stops at once, naming the folder, where
# the two ran every stage side by side (a nightly job still running when the next starts, a
# person's make beside a scheduled one) and raced to publish. Not a shard's target, whose makes
# run side by side by design (make -j, an engine's array tasks), nor a run that runs no recipe
# (-n, -q, -t). A file system that takes no locks (NFSv3 without lockd, Lustre without flock)
# is said, and the build goes on without one.
# $(call build-lock,FOLDER): shell words that take FOLDER's lock, or stop; then the command.
# The inner make is exec'd, not a child of the recipe's shell: make sends its SIGTERM to its
# children, and a shell killed so left the inner make (and an engine's submitted jobs) running
# on its own, holding the lock, where `kill <make's pid>` (a CI runner's timeout, Python's
# Popen.terminate) is to stop the build and cancel its jobs.
NO_RECIPES := $(strip $(foreach flag,n q t,$(findstring $(flag),$(firstword -$(MAKEFLAGS)))))
build-lock = $(if $(NO_RECIPES),,mkdir -p "$(1)" && exec 9>>"$(1)/.make.lock" && { flock --nonblock --conflict-exit-code 75 9; \
  case $$? in (0) ;; (75) echo "make: another make is building $(1)/ now (it holds $(1)/.make.lock): wait for it to end, or stop it" >&2; exit 1 ;; \
  (*) echo "make: warning: cannot lock $(1)/.make.lock (a file system without locks?): building without it; run one make bundle of this pipeline at a time" >&2 ;; esac; } &&)

# The outer make builds the tools and reads the pipeline's name; the inner make (PIPELINE_NAME
# set) runs the stages as file-to-file rules under $(BUILD)/<name>/. With INAT=…, the name is
# NAME and the inner make writes the pipeline file first.
ifeq ($(PIPELINE_NAME),)
ifneq ($(INAT)$(WIKIPEDIA),)
ifeq ($(INAT),)
$(error WIKIPEDIA=… needs INAT=… too: a bundle is built from iNaturalist records)
endif
ifneq ($(origin PIPELINE),file)
$(error give PIPELINE=… or INAT=… (and WIKIPEDIA=…), not both)
endif
# The name becomes a folder under $(BUILD) before fieldpack-pipeline can refuse it, so make
# checks it first (Pipeline.isValidName's rule): NAME=../x would write beside $(BUILD).
NAME_CHARACTERS := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9 . - _
without-characters = $(if $(2),$(call without-characters,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
ifneq ($(words $(NAME))$(call without-characters,$(NAME),$(NAME_CHARACTERS))$(filter .%,$(NAME)),1)
$(error NAME="$(NAME)" cannot name a pipeline: it must be letters, digits, '.', '-' or '_', not starting with '.' (it names $(BUILD)/<name>/))
endif
bundle: tools
	@$(call build-lock,$(BUILD)/$(NAME)) \
	exec $(MAKE) --no-print-directory pipeline-bundle PIPELINE_NAME=$(NAME) PIPELINE=$(BUILD)/$(NAME)/pipeline.json OWN_PIPELINE=1 BUILD=$(BUILD) SKIP_TOOLS=1
# One shard of a stage (SHARDS=N): shard-inat-I, shard-dedupe-J, built by the inner make.
shard-%: tools
	@$(MAKE) --no-print-directory $@ PIPELINE_NAME=$(NAME) PIPELINE=$(BUILD)/$(NAME)/pipeline.json OWN_PIPELINE=1 BUILD=$(BUILD) SKIP_TOOLS=1
else
# A dry run before the tools are built cannot read the name: it shows <name> instead.
bundle: tools
	@if [ -x $(BIN)/fieldpack-inat ]; then \
	  name="$$($(BIN)/fieldpack-inat --pipeline $(PIPELINE) --print-name)" || exit 1; \
	elif [ -n "$(DRY_RUN)" ]; then \
	  name='<name>'; echo "# make -n: the tools are not built yet, so <name> stands for the name in $(PIPELINE)"; \
	else \
	  echo "make: $(BIN)/fieldpack-inat is missing: build the tools (make tools), or give BIN=… with SKIP_TOOLS=1" >&2; exit 1; \
	fi; \
	$(call build-lock,$(BUILD)/$$name) \
	exec $(MAKE) --no-print-directory pipeline-bundle PIPELINE_NAME="$$name" PIPELINE=$(PIPELINE) BUILD=$(BUILD) SKIP_TOOLS=1
# One shard of a stage (SHARDS=N): shard-inat-I, shard-dedupe-J, shard-wiki-K, built by the inner make.
shard-%: tools
	@name="$$($(BIN)/fieldpack-inat --pipeline $(PIPELINE) --print-name)" || exit 1; \
	exec $(MAKE) --no-print-directory $@ PIPELINE_NAME="$$name" PIPELINE=$(PIPELINE) BUILD=$(BUILD) SKIP_TOOLS=1
endif
else
OUT := $(BUILD)/$(PIPELINE_NAME)
RECORDS := $(OUT)/inat/records.jsonl
DEDUPED := $(OUT)/dedupe/records.jsonl
CONFLICTS := $(OUT)/dedupe/conflicts.json
ARTICLES := $(OUT)/wiki/articles.jsonl
COSTS_REPORT := $(OUT)/costs-report.json
REPORT := $(OUT)/report.html
RUN_REPORT := $(OUT)/run-report.html
INPUTS := $(OUT)/inputs.json
DATABASE := $(OUT)/content.sqlite
MANIFEST := $(OUT)/bundle/manifest.json
VERIFIED := $(OUT)/bundle.verified
BAG_MANIFEST := $(OUT)/bag/manifest.json
BAG_VERIFIED := $(OUT)/bag.verified
# The tools the stages run: the build's stamp for this checkout's own (which moves only when a
# tool changed), the executables themselves for tools built elsewhere (BIN=…), so that a newer
# release there rebuilds what they make.
TOOL_DEPS := $(if $(filter 1,$(SKIP_TOOLS)),,$(TOOLS_STAMP)) $(wildcard $(TOOLS_STAMP)) \
	$(if $(filter .build/release,$(BIN)),,$(wildcard $(EXECUTABLES:%=$(BIN)/fieldpack-%)))

# Every stage writes its time and peak memory to $(OUT)/timings/<stage>.json, a shard to
# <stage>.shard-I-of-N.json (run-report.html).
export FIELDPACK_TIMINGS := $(OUT)/timings

ifeq ($(ENGINE),slurm)
# The tools are built (the outer make did); the engine submits what make -q finds out of date and
# waits (exec'd: make's SIGTERM reaches it, not only a shell, and it cancels what it submitted).
# Its tasks run this Makefile's shard-<stage>-<i> and pipeline-bundle targets with these
# variables: add here any variable the stage rules read. ENGINE= and OWN_PIPELINE= are given
# because this make's command-line variables reach the tasks' environment too: the tasks neither
# start the engine again nor rewrite the pipeline file written here.
ENGINE_VARIABLES := PIPELINE PIPELINE_NAME BUILD SHARDS BIN BAGIT SIGNING_KEY PUBLIC_KEY PREVIOUS SOURCE_DATE_EPOCH
shell-quote = '$(subst ','\'',$(1))'
pipeline-bundle: $(if $(filter 1,$(OWN_PIPELINE)),$(PIPELINE))
	@SLURM_STAGES=$(call shell-quote,$(SLURM_STAGES)) SLURM_PARTITION=$(call shell-quote,$(SLURM_PARTITION)) \
	  SLURM_ACCOUNT=$(call shell-quote,$(SLURM_ACCOUNT)) SLURM_TIME=$(call shell-quote,$(SLURM_TIME)) \
	  SBATCH_OPTIONS=$(call shell-quote,$(SBATCH_OPTIONS)) SLURM_POLL=$(call shell-quote,$(SLURM_POLL)) \
	  exec pipelines/engines/slurm.sh run $(call shell-quote,$(OUT)) $(call shell-quote,$(SHARDS)) -- \
	  $(foreach v,$(ENGINE_VARIABLES),$(if $($(v)),$(call shell-quote,$(v)=$($(v))))) SKIP_TOOLS=1 ENGINE= OWN_PIPELINE=
else
pipeline-bundle: $(VERIFIED) $(RUN_REPORT) $(CONFLICTS) $(if $(filter 1,$(BAGIT)),$(BAG_VERIFIED))
endif

# INAT=… (and WIKIPEDIA=…): the pipeline file, written from them on every run but replaced only
# when it changes, so the stages rerun only when the inputs named do.
ifeq ($(OWN_PIPELINE),1)
shell-words = $(foreach word,$(2),$(1) '$(subst ','\'',$(word))')
$(PIPELINE): FORCE $(TOOL_DEPS)
	@$(BIN)/fieldpack-pipeline init $(call shell-words,--inat,$(INAT)) $(call shell-words,--wikipedia,$(WIKIPEDIA))$(if $(MAX_REJECT_RATE), --max-reject-rate $(MAX_REJECT_RATE)) --output $@ -- $(PIPELINE_NAME)
endif

# A stage's depfile gone (a cleanup of *.d files) runs it again: it alone says which inputs, and
# which of the pipeline's keys, the outputs were made from (`missing-any`, below).
# The stages before the bundle (ingest, dedupe, the wiki stage) name the pipeline file in their
# depfiles by the keys they read of it (PipelineReader), which fieldpack-pipeline changed-inputs
# compares: an edit of another key (a display target, a licence, a cost) reruns the bundle and
# what follows it, not ingest of the whole dump. A pipeline written from INAT=… holds only keys
# ingest and the wiki stage read, and is rewritten during this make, after that check: there the
# file itself is their prerequisite.
STAGE_PIPELINE := $(if $(filter 1,$(OWN_PIPELINE)),$(PIPELINE))

# Both outputs are targets: a rejects file gone missing runs ingest again, where the report's
# next run failed on it until something else did.
# (With SHARDS the rejects are the shards' joined, by their own rule below.)
UNSHARDED_REJECTS := $(if $(SHARDS),,$(OUT)/inat/rejects.jsonl)
# Kept when ingest fails: its error (over the reject threshold) points at it.
.PRECIOUS: $(UNSHARDED_REJECTS)
$(RECORDS) $(UNSHARDED_REJECTS) &: $(STAGE_PIPELINE) $(TOOL_DEPS) $(call missing-any,$(OUT)/inat/records.d)
	$(BIN)/fieldpack-inat --pipeline $(PIPELINE) --output $(RECORDS) --rejects $(OUT)/inat/rejects.jsonl --depfile $(OUT)/inat/records.d

-include $(OUT)/inat/records.d

# Dedupe applies the pipeline's select rules that read one observation's own values;
# records.d names the GeoJSON files they come from.
# conflicts.json is a target too: one removed is written again (with SHARDS, merged below).
$(DEDUPED) $(if $(SHARDS),,$(CONFLICTS)) &: $(RECORDS) $(TOOL_DEPS) $(call missing-any,$(OUT)/dedupe/records.d)
	$(BIN)/fieldpack-dedupe $< --pipeline $(PIPELINE) --output $(DEDUPED) --conflicts $(CONFLICTS) --depfile $(OUT)/dedupe/records.d

-include $(OUT)/dedupe/records.d

# SHARDS=N: ingest and dedupe run as N shards each, one make target per shard (shard-inat-I,
# shard-dedupe-J: what `make -j` or an engine's array tasks build), and the bundle merges the
# N dedupe parts by key into the bundle an unsharded build makes, byte for byte. Ingest shard I
# writes $(OUT)/inat/shard-I-of-N/ (part-J.jsonl by dedupe key, rejects.jsonl, summary.json
# last); dedupe shard J reads part J of every ingest shard into $(OUT)/dedupe/shard-J-of-N/.
# A shard's rule has one target, its main file (ingest's summary.json and the wiki's
# articles.jsonl, written last; dedupe's records.jsonl, whose sidecar follows it and is removed
# before the run starts); its other files that a later step reads (rejects, the sidecar, the
# conflicts, a report) come after it (order only: most are written before it, older, and
# `make -q` took them as out of date) with no recipe of their own, and what reads one reads the
# rule's target too. One of them missing (removed, or a shard killed between its last writes)
# makes its rule run (`missing-any`, when make reads this file). One target per rule, not a
# group (`&:`): make 4.3's dry run, which the Slurm engine plans by, does not take a group as
# remade, and planned no later stage after one.
# Without SHARDS, the rules above run and these do not exist.

# FORCE when any of the files named is missing: a rule with it as a prerequisite runs.
missing-any = $(if $(strip $(foreach file,$(1),$(if $(wildcard $(file)),,$(file)))),FORCE)
ifneq ($(SHARDS),)
# Written plainly (1, 4, 16; not 04 or +4): the shard folders are named by it, and the tools
# name them by the number.
ifeq ($(shell [[ "$(SHARDS)" =~ ^[1-9][0-9]{0,5}$$ ]] && echo ok),)
$(error SHARDS must be a whole number of at least 1 written plainly (4, not 04 or +4) and at most 999999, not "$(SHARDS)")
endif
SHARD_INDEXES := $(shell seq 0 $$(( $(SHARDS) - 1 )))
inat-shard = $(OUT)/inat/shard-$(1)-of-$(SHARDS)
dedupe-shard = $(OUT)/dedupe/shard-$(1)-of-$(SHARDS)
INAT_SUMMARIES := $(foreach i,$(SHARD_INDEXES),$(call inat-shard,$(i))/summary.json)
DEDUPED_PARTS := $(foreach j,$(SHARD_INDEXES),$(call dedupe-shard,$(j))/records.jsonl)
# What each part was made from, which the bundle and the conflicts' merge check.
DEDUPED_SIDECARS := $(DEDUPED_PARTS:%=%.made-from.json)
INAT_REJECTS := $(OUT)/inat/rejects.jsonl

# The other files of ingest shard I and of dedupe shard J (see above). Not ingest's N parts:
# written before its summary, a killed shard never leaves them missing, and N per shard made
# every parse of this file grow with N² (1.5–1.8 s against 0.74 s at SHARDS=1000, by hand; a
# parse per Slurm task and per plan).
inat-shard-files = $(call inat-shard,$(1))/rejects.jsonl
dedupe-shard-files = $(call dedupe-shard,$(1))/conflicts.json $(call dedupe-shard,$(1))/records.jsonl.made-from.json

define shard-rules
.PHONY: shard-inat-$(1) shard-dedupe-$(1)
shard-inat-$(1): $(call inat-shard,$(1))/summary.json
$(call inat-shard,$(1))/summary.json: $(STAGE_PIPELINE) $(TOOL_DEPS) $(call missing-any,$(call inat-shard-files,$(1)) $(call inat-shard,$(1))/summary.d)
	$(BIN)/fieldpack-inat --pipeline $(PIPELINE) --shard $(1)/$(SHARDS) --output-folder $(call inat-shard,$(1)) --depfile $(call inat-shard,$(1))/summary.d
$(call inat-shard-files,$(1)): | $(call inat-shard,$(1))/summary.json ;
-include $(call inat-shard,$(1))/summary.d
shard-dedupe-$(1): $(call dedupe-shard,$(1))/records.jsonl $(call dedupe-shard,$(1))/conflicts.json
$(call dedupe-shard,$(1))/records.jsonl: $(INAT_SUMMARIES) $(TOOL_DEPS) $(call missing-any,$(call dedupe-shard-files,$(1)) $(call dedupe-shard,$(1))/records.d)
	$(BIN)/fieldpack-dedupe $(OUT)/inat --shard $(1)/$(SHARDS) --pipeline $(PIPELINE) --output $(call dedupe-shard,$(1))/records.jsonl --conflicts $(call dedupe-shard,$(1))/conflicts.json --depfile $(call dedupe-shard,$(1))/records.d
$(call dedupe-shard-files,$(1)): | $(call dedupe-shard,$(1))/records.jsonl ;
-include $(call dedupe-shard,$(1))/records.d
endef
$(foreach i,$(SHARD_INDEXES),$(eval $(call shard-rules,$(i))))

# The shards' rejects in input order, as an unsharded ingest writes them (for report.html).
$(INAT_REJECTS): $(INAT_SUMMARIES) $(foreach i,$(SHARD_INDEXES),$(call inat-shard,$(i))/rejects.jsonl) $(TOOL_DEPS)
	$(BIN)/fieldpack-inat --merge-rejects $(OUT)/inat --shards $(SHARDS) --rejects $@
# The dedupe shards' conflicts reports joined into the one an unsharded dedupe writes.
$(CONFLICTS): $(DEDUPED_PARTS) $(DEDUPED_SIDECARS) $(foreach j,$(SHARD_INDEXES),$(call dedupe-shard,$(j))/conflicts.json) $(TOOL_DEPS)
	$(BIN)/fieldpack-dedupe --merge-conflicts $(DEDUPED_PARTS) --conflicts $@
endif
# What the wiki stage and the bundle read: the deduped records, or the N dedupe parts.
DEDUPED_INPUTS := $(if $(SHARDS),$(DEDUPED_PARTS),$(DEDUPED))

# The Wikipedia articles the taxa and destinations need, as blurbs; articles.d lists the dumps.
# make's "restat" idiom: the stage's rule makes the stamp, and leaves an output whose bytes come
# out the same as before untouched (--stamp), so after a touched or copied dump with the same
# bytes nothing after the stage reruns. The outputs' own rule runs when the stamp is newer than
# one of them, that is after a run that left one as it was (a test for each file, nothing more),
# and reruns the stage if one of them was removed. After such a run `make -q` says out of date,
# and `make -n` after a changed dump shows the wiki stage but not what its new outputs rebuild.
WIKI_STAMP := $(OUT)/wiki/articles.stamp
WIKI_OUTPUTS := $(ARTICLES) $(OUT)/wiki/wiki-report.json $(OUT)/wiki/rejects.jsonl
WIKI_COMMAND = $(BIN)/fieldpack-wiki --pipeline $(PIPELINE)$(foreach part,$(DEDUPED_INPUTS), --records $(part)) --output $(ARTICLES) --report $(OUT)/wiki/wiki-report.json --rejects $(OUT)/wiki/rejects.jsonl --depfile $(OUT)/wiki/articles.d --stamp $(WIKI_STAMP)
$(WIKI_STAMP): $(DEDUPED_INPUTS) $(STAGE_PIPELINE) $(TOOL_DEPS) $(call missing-any,$(OUT)/wiki/articles.d)
	$(WIKI_COMMAND)

$(WIKI_OUTPUTS) &: $(WIKI_STAMP)
	@for file in $(WIKI_OUTPUTS); do [ -e "$$file" ] || { echo "$$file is missing: running the wiki stage again" >&2; echo '$(subst ','\'',$(WIKI_COMMAND))'; exec $(WIKI_COMMAND); }; done

-include $(OUT)/wiki/articles.d

# SHARDS=N, the wiki stage: shard-wiki-K builds $(OUT)/wiki/shard-K-of-N/ (articles.jsonl,
# wiki-report.json, rejects.jsonl) from shard K's share of the dumps and every dedupe part; the
# bundle and the report merge the N wiki parts into what one whole run gives, byte for byte.
ifneq ($(SHARDS),)
WIKI_PARTS := $(foreach index,$(SHARD_INDEXES),$(OUT)/wiki/shard-$(index)-of-$(SHARDS))
# Wiki shard K's folder, and its files besides its articles (one rule, one target, as above).
# A pattern rule, so that the N dedupe parts are listed once, not once per shard (N² as make
# reads this); a shard with one of its other files missing gets FORCE as well.
wiki-shard = $(OUT)/wiki/shard-$(1)-of-$(SHARDS)
wiki-shard-files = $(call wiki-shard,$(1))/wiki-report.json $(call wiki-shard,$(1))/rejects.jsonl
$(OUT)/wiki/shard-%-of-$(SHARDS)/articles.jsonl: $(DEDUPED_INPUTS) $(STAGE_PIPELINE) $(TOOL_DEPS)
	$(BIN)/fieldpack-wiki --pipeline $(PIPELINE)$(foreach part,$(DEDUPED_INPUTS), --records $(part)) --shard $*/$(SHARDS) --output-folder $(@D) --depfile $(@D)/articles.d
define wiki-shard-rules
.PHONY: shard-wiki-$(1)
shard-wiki-$(1): $(call wiki-shard,$(1))/articles.jsonl
$(if $(call missing-any,$(call wiki-shard-files,$(1)) $(call wiki-shard,$(1))/articles.d),$(call wiki-shard,$(1))/articles.jsonl: FORCE)
$(call wiki-shard-files,$(1)): | $(call wiki-shard,$(1))/articles.jsonl ;
endef
$(foreach index,$(SHARD_INDEXES),$(eval $(call wiki-shard-rules,$(index))))
-include $(addsuffix /articles.d,$(WIKI_PARTS))
ARTICLES_INPUT := $(addsuffix /articles.jsonl,$(WIKI_PARTS))
# The parts' reports: the bundle checks the parts are of one build by them, the report merges them.
WIKI_REPORT_INPUT := $(addsuffix /wiki-report.json,$(WIKI_PARTS))
ARTICLES_OPTION := $(addprefix --articles ,$(WIKI_PARTS))
WIKI_REPORT_OPTION := $(addprefix --wiki-report ,$(WIKI_PARTS))
else
ARTICLES_INPUT := $(ARTICLES)
WIKI_REPORT_INPUT := $(OUT)/wiki/wiki-report.json
ARTICLES_OPTION := --articles $(ARTICLES)
WIKI_REPORT_OPTION := --wiki-report $(OUT)/wiki/wiki-report.json
endif

# The settings that change what the bundle and its publishing write, and that make does not see
# as files: a record of each, rewritten only when they change, which those steps depend on, so
# that a build date pinned, a previous bundle given, or a key given or rotated rebuilds what it
# changes instead of doing nothing.
# $(call record-settings,FILE,VARIABLES): FILE lists the VARIABLES' values, rewritten only when
# one changes (by name, so a value may hold a comma).
record-settings = $(shell mkdir -p '$(OUT)' && printf '%s\n' $(foreach variable,$(2),'$(variable)=$($(variable))') >'$(1).new-'$$$$ && { cmp -s '$(1).new-'$$$$ '$(1)' && rm -f '$(1).new-'$$$$ || mv '$(1).new-'$$$$ '$(1)'; })
BUNDLE_SETTINGS := $(OUT)/.bundle-settings
# A previous bundle is known by what its manifest says (the digest of every file) too, recorded
# with the bundle's settings: a release copied in with its own times kept (`cp -a`, `rsync -a`)
# is older than the build, and its files' times would not rebuild the delta.
PREVIOUS_MANIFEST_SHA256 := $(if $(PREVIOUS),$(firstword $(shell sha256sum '$(PREVIOUS)/manifest.json' 2>/dev/null)))
# A previous bundle given as its database file has no manifest: it is known by the file itself
# (inode, size, change time), so one put in its place with an older time (`cp -p`) rebuilds the
# delta too. (Its digest would be read on every make, a no-op included.)
# (Not its device number: on NFS or Lustre it differs from node to node, and each Slurm task's
# make would record it otherwise.)
PREVIOUS_FILE_IDENTITY := $(if $(PREVIOUS),$(shell [ -f '$(PREVIOUS)' ] && stat -L -c '%i:%s:%.9Y:%.9Z' '$(PREVIOUS)' 2>/dev/null))
PUBLISH_SETTINGS := $(OUT)/.publish-settings
BAG_SETTINGS := $(OUT)/.bag-settings
# Two pipeline files of one name would share $(OUT) (and a build from one would pass for the
# other's): the first to build it is recorded, by its path from here, and another is refused.
PIPELINE_RECORD := $(OUT)/.pipeline
THIS_PIPELINE := $(patsubst $(CURDIR)/%,%,$(abspath $(PIPELINE)))
# The folder is the pipeline's own name: PIPELINE_NAME given by hand (an engine's job, a
# container running pipeline-bundle) must be it, or the bundle lands in another pipeline's
# folder under this one's name. (A pipeline file that does not load is left to the stages.)
ifneq ($(OWN_PIPELINE),1)
PIPELINE_FILE_NAME := $(if $(wildcard $(BIN)/fieldpack-inat),$(shell '$(BIN)/fieldpack-inat' --pipeline '$(PIPELINE)' --print-name 2>/dev/null))
ifneq ($(PIPELINE_FILE_NAME),)
ifneq ($(PIPELINE_FILE_NAME),$(PIPELINE_NAME))
$(error PIPELINE_NAME="$(PIPELINE_NAME)", but $(PIPELINE) names its pipeline "$(PIPELINE_FILE_NAME)": its build folder is $(BUILD)/$(PIPELINE_FILE_NAME)/; give PIPELINE_NAME=$(PIPELINE_FILE_NAME), or run make bundle, which reads it)
endif
endif
endif
RECORDED_PIPELINE := $(shell cat '$(PIPELINE_RECORD)' 2>/dev/null)
ifneq ($(RECORDED_PIPELINE),)
ifneq ($(RECORDED_PIPELINE),$(THIS_PIPELINE))
$(error $(OUT)/ was built from $(RECORDED_PIPELINE), and $(THIS_PIPELINE) has the same name "$(PIPELINE_NAME)": give one of them another name, or remove $(OUT)/)
endif
endif
# Not in a dry run (-n) or a question (-q), which write nothing; a record not there yet is then
# taken as changed (its empty rule). Each make writes its own temp name (Slurm array tasks run
# side by side on one build folder).
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS)))$(findstring q,$(firstword -$(MAKEFLAGS))),)
# The record is claimed in one step (a hard link, which fails when the name exists), then read
# back: of two pipelines of one name started together, the one that did not claim it is
# refused here, where a look then a write let both through.
# An empty record (a write cut short) is claimed again; a file system without hard links falls
# back to a rename when no record is there.
CLAIMED_PIPELINE := $(shell mkdir -p '$(OUT)' && { printf '%s\n' '$(THIS_PIPELINE)' >'$(PIPELINE_RECORD).new-'$$$$ && { ln '$(PIPELINE_RECORD).new-'$$$$ '$(PIPELINE_RECORD)' 2>/dev/null || [ -s '$(PIPELINE_RECORD)' ] || mv '$(PIPELINE_RECORD).new-'$$$$ '$(PIPELINE_RECORD)'; }; rm -f '$(PIPELINE_RECORD).new-'$$$$; cat '$(PIPELINE_RECORD)' 2>/dev/null; })
ifeq ($(CLAIMED_PIPELINE),)
$(error cannot record the pipeline this build is made from in $(PIPELINE_RECORD) (a full disk, a read-only folder?))
endif
ifneq ($(CLAIMED_PIPELINE),$(THIS_PIPELINE))
$(error $(OUT)/ was built from $(CLAIMED_PIPELINE), and $(THIS_PIPELINE) has the same name "$(PIPELINE_NAME)": give one of them another name, or remove $(OUT)/)
endif
$(call record-settings,$(BUNDLE_SETTINGS),PREVIOUS PREVIOUS_MANIFEST_SHA256 PREVIOUS_FILE_IDENTITY SOURCE_DATE_EPOCH)
$(call record-settings,$(PUBLISH_SETTINGS),SIGNING_KEY PUBLIC_KEY)
$(call record-settings,$(BAG_SETTINGS),BAGIT)
# The bag of an earlier build with BAGIT=1, now left out, is not of this build: it verified
# as the bundle it no longer is, and the run report listed its rows. It goes, with its stamp and
# timings (the run report is made again: it depends on the setting).
ifneq ($(BAGIT),1)
ifneq ($(wildcard $(OUT)/bag $(OUT)/bag.verified),)
$(info make: removing $(OUT)/bag/, the BagIt bag of an earlier build with BAGIT=1 (this build makes none))
$(shell rm -rf '$(OUT)/bag' '$(OUT)/bag.verified' '$(OUT)/timings/manifest-bag.json' '$(OUT)/timings/verify-bag.json')
endif
endif
endif
$(BUNDLE_SETTINGS) $(PUBLISH_SETTINGS) $(BAG_SETTINGS): ;
# A previous bundle inside this build's folder (its own published bundle/) changes with every
# build, so the build would never be up to date, and the delta would be taken against itself.
ifneq ($(PREVIOUS),)
# Where they really are: a link to the build's bundle is the build's bundle.
ifneq ($(filter $(or $(realpath $(OUT)),$(abspath $(OUT)))/%,$(or $(realpath $(PREVIOUS)),$(abspath $(PREVIOUS)))/),)
$(error PREVIOUS=$(PREVIOUS) is inside this build's folder $(OUT)/, which every build rewrites: copy the previous bundle out of it first (cp -r $(PREVIOUS) previous-bundle) and give PREVIOUS=previous-bundle)
endif
endif

# One run writes both (a grouped target): the photo shipping rules and costs are decided as the
# records load. content.d names the pipeline's measured sizes file, if any.
# PREVIOUS=path/to/previous/bundle adds delta.json: what changed since that bundle. Its files,
# not only its folder: another release copied over the folder's files leaves the folder's time
# (and its manifest's digest, in the bundle's settings, when the copy kept the files' times).
PREVIOUS_FILES = $(wildcard $(PREVIOUS) $(addprefix $(PREVIOUS)/,manifest.json content.sqlite data/content.sqlite))
$(DATABASE) $(COSTS_REPORT) $(INPUTS) &: $(DEDUPED_INPUTS) $(DEDUPED_SIDECARS) $(ARTICLES_INPUT) $(if $(SHARDS),$(WIKI_REPORT_INPUT)) $(PIPELINE) $(BUNDLE_SETTINGS) $(PREVIOUS_FILES) $(TOOL_DEPS) $(call missing-any,$(OUT)/content.d)
	$(BIN)/fieldpack-bundle $(DEDUPED_INPUTS) --pipeline $(PIPELINE) --output $(DATABASE) $(ARTICLES_OPTION) --costs-report $(COSTS_REPORT) --inputs $(INPUTS) --depfile $(OUT)/content.d $(if $(PREVIOUS),--previous $(PREVIOUS) --delta $(OUT)/delta.json)

-include $(OUT)/content.d

# Each stage's depfile also keeps its inputs as the stage read them (size, modification and
# change times, following links): a target whose inputs are no longer those files is made
# again, whatever their times say. make compares modification times alone, and a new dump copied
# in with its old time kept (cp -p, rsync -a), or a link turned to another month's folder, was
# taken as read already and the last guide shipped again. A stage that failed or was killed
# left its depfile pending, and runs again too. One process for the build folder's depfiles
# (which it lists: a thousand shards' would not fit one command line), none before the first
# build; a dry run (-n) and a question (-q) see it too (it writes nothing). The stages before the
# bundle know a pipeline edit by it alone: when it fails (tools built elsewhere, older than this
# Makefile, lack the command), make says so and makes every stage again rather than guess.
ifneq ($(and $(wildcard $(OUT)/inat),$(wildcard $(BIN)/fieldpack-pipeline)),)
CHANGED_INPUTS := $(shell '$(BIN)/fieldpack-pipeline' changed-inputs '$(OUT)' $(if $(SHARDS),--shards $(SHARDS)) 2>/dev/null)
ifneq ($(.SHELLSTATUS),0)
$(warning $(BIN)/fieldpack-pipeline changed-inputs failed (tools older than this Makefile?): every stage of $(OUT)/ is made again)
CHANGED_INPUTS := $(if $(SHARDS),$(INAT_SUMMARIES) $(DEDUPED_PARTS) $(WIKI_PARTS:%=%/articles.jsonl),$(RECORDS) $(DEDUPED) $(WIKI_STAMP)) $(DATABASE)
endif
endif
$(if $(CHANGED_INPUTS),$(eval $(CHANGED_INPUTS): FORCE))

# report.html: the bundle explained on one self-contained page (in the manifest: its bytes
# follow from the inputs, like the costs report's).
$(REPORT): $(DATABASE) $(if $(SHARDS),$(INAT_REJECTS),$(RECORDS) $(UNSHARDED_REJECTS)) $(ARTICLES_INPUT) $(WIKI_REPORT_INPUT) $(TOOL_DEPS)
	$(BIN)/fieldpack-report $(DATABASE) --output $@ --rejects $(OUT)/inat/rejects.jsonl $(WIKI_REPORT_OPTION)

# SIGNING_KEY=key.pem signs the manifest (Ed25519); PUBLIC_KEY=key.pub.pem makes the checks
# verify that signature, as the app does. fieldpack-manifest checks the assembled folder before
# it swaps it in (in one step), so a failed check or an interrupt leaves the previous bundle;
# the folder is never partial, so make must not delete its manifest on an error (.PRECIOUS).
# BAGIT=1 publishes the same files as a BagIt bag too, in bag/ (checked the same way).
PUBLISH_OPTIONS = --inputs $(INPUTS) --include $(COSTS_REPORT) --include $(REPORT) $(if $(PREVIOUS),--include $(OUT)/delta.json) $(if $(SIGNING_KEY),--sign $(SIGNING_KEY)) $(if $(PUBLIC_KEY),--public-key $(PUBLIC_KEY))
# Every file of the published folder is a target of its publishing, so one that goes missing
# (removed by hand, a cleanup) is published again; and the check below depends on them all, so
# one changed in place after its check is checked again, and fails the build.
PUBLISHED_NAMES = content.sqlite costs-report.json report.html manifest-sha256.txt $(if $(PREVIOUS),delta.json) $(if $(SIGNING_KEY),manifest.json.sig)
PUBLISHED := $(MANIFEST) $(PUBLISHED_NAMES:%=$(OUT)/bundle/%)
BAG_PUBLISHED := $(BAG_MANIFEST) $(addprefix $(OUT)/bag/,bagit.txt bag-info.txt tagmanifest-sha256.txt manifest-sha256.txt $(if $(SIGNING_KEY),manifest.json.sig)) \
	$(addprefix $(OUT)/bag/data/,content.sqlite costs-report.json report.html $(if $(PREVIOUS),delta.json))
.PRECIOUS: $(PUBLISHED) $(BAG_PUBLISHED)
$(PUBLISHED) &: $(DATABASE) $(COSTS_REPORT) $(REPORT) $(INPUTS) $(PUBLISH_SETTINGS) $(SIGNING_KEY) $(PUBLIC_KEY) $(TOOL_DEPS)
	$(BIN)/fieldpack-manifest $< --output $(OUT)/bundle $(PUBLISH_OPTIONS)

$(BAG_PUBLISHED) &: $(DATABASE) $(COSTS_REPORT) $(REPORT) $(INPUTS) $(PUBLISH_SETTINGS) $(SIGNING_KEY) $(PUBLIC_KEY) $(TOOL_DEPS)
	$(BIN)/fieldpack-manifest $< --output $(OUT)/bag --bagit $(PUBLISH_OPTIONS)

# The published folder, checked again where the app will find it and as the app checks it
# (quick_check; fieldpack-manifest ran the full integrity_check before it published); the stamp
# says it passed.
$(VERIFIED): $(PUBLISHED)
	$(BIN)/fieldpack-verify $(OUT)/bundle $(if $(PUBLIC_KEY),--public-key $(PUBLIC_KEY))
	@touch $@

$(BAG_VERIFIED): $(BAG_PUBLISHED)
	$(BIN)/fieldpack-verify $(OUT)/bag $(if $(PUBLIC_KEY),--public-key $(PUBLIC_KEY))
	@touch $@

# The run's time and memory per stage: beside the bundle, never in it (they vary per run).
# After every check that writes a timing: the bundle's, and with BAGIT=1 the bag's (make -j).
$(RUN_REPORT): $(VERIFIED) $(if $(filter 1,$(BAGIT)),$(BAG_VERIFIED)) $(BAG_SETTINGS)
	$(BIN)/fieldpack-report --timings $(OUT)/timings --output $@ --pipeline-name $(PIPELINE_NAME)
endif

# --- Tests, benchmark, install, clean -----------------------------------------------------
# CI=true: a missing hostile-HTML corpus fails the run instead of warning. The Swift tests that
# read the corpus get the same folder the oracle does (else they look only beside the clone).
test: tools test-deps
	FIELDPACK_BIN="$(abspath $(BIN))" XSS_CORPUS="$(abspath $(XSS_CORPUS))" $(SWIFT) test -c release
	Tests/Sanitizer/run-oracle.sh $(BIN) $(XSS_CORPUS)
	Tests/Shards/check-shards.sh $(BIN)
	Tests/Shards/check-shards.sh $(BIN) pipelines/open-data-sample.json
	Tests/Shards/check-shards.sh $(BIN) pipelines/select-sample.json
	@$(MAKE) --no-print-directory report-check SKIP_TOOLS=1
	@FUZZ_BUILD=.build/fuzz-smoke FUZZ_OPT=-Onone Tests/Fuzz/run.sh --smoke $(FUZZ_SMOKE_SECONDS); status=$$?; \
	  if [ $$status -eq 2 ]; then echo "fuzz smoke skipped (no libFuzzer/ASan runtime)"; elif [ $$status -ne 0 ]; then exit $$status; fi
	Tests/Faults/run-faults.sh $(BIN)
	Tests/Slurm/check-slurm.sh $(BIN)

# Fuzzing (libFuzzer + AddressSanitizer, built apart in .build/fuzz): see Tests/Fuzz/run.sh.
fuzz: deps
	Tests/Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The sample bundle's report.html rendered in headless Chromium, at a desktop's width and at a
# phone's (390 px): loads without errors, fetches nothing, every chart drawn, nothing wider than
# the window; the screenshots stay at $(BUILD)/report.png and report-phone.png. Then the same
# bundle's report with its findings' files named as real dumps are (long, dated, with
# underscores), which must wrap too ($(BUILD)/report-long-names.png), and the run's report.
report-check: bundle
	@name="$$($(BIN)/fieldpack-inat --pipeline $(PIPELINE) --print-name)" && \
	Tests/Report/check-report.py "$(BUILD)/$$name/bundle/report.html" "$(BUILD)/report.png" && \
	sed 's#"file":"[^"]*/#&srv_inaturalist_dumps/inaturalist_api_2024_07_15T02_00_00Z_observations_page_000001_of_005050_#' \
	  "$(BUILD)/$$name/inat/rejects.jsonl" >"$(BUILD)/long-names-rejects.jsonl" && \
	$(BIN)/fieldpack-report "$(BUILD)/$$name/content.sqlite" --rejects "$(BUILD)/long-names-rejects.jsonl" \
	  --output "$(BUILD)/report-long-names.html" --quiet && \
	Tests/Report/check-report.py "$(BUILD)/report-long-names.html" "$(BUILD)/report-long-names.png" && \
	Tests/Report/check-report.py "$(BUILD)/$$name/run-report.html" "$(BUILD)/run-report.png"

check: test

# BENCH_RUNS, BENCH_WIKI_N, BENCH_SEED, BENCH_DAMAGE, BENCH_SCALE, BENCH_DUCKDB_MEMORY: see
# Tests/Bench/run-bench.sh. The table also goes to $(BENCH_DIR)/results.md.
bench: tools bench-deps
	@BENCH_N=$(BENCH_N) BENCH_DIR=$(BENCH_DIR) BIN=$(BIN) Tests/Bench/run-bench.sh

# The manual pages, made by help2man from each executable's --help and --version; the NAME
# line is the first sentence of the help's description.
man: $(MAN_PAGES)
# Made again when its tool is newer: the build's stamp, or with tools built elsewhere
# (SKIP_TOOLS=1 BIN=…) the executable itself (a page older than its tool was installed as it was).
$(MAN_BUILD)/fieldpack-%.1: $(if $(filter 1,$(SKIP_TOOLS)),$(BIN)/fieldpack-%,$(TOOLS_STAMP)) | man-deps
	@mkdir -p $(@D)
	@# NAME: the help's first paragraph up to its first bracket or sentence end ("report.html"
	@# keeps its dot). A UTF-8 locale, or help2man writes every "…" of the help as "???".
	LC_ALL=C.UTF-8 help2man --locale=C.UTF-8 --no-info --no-discard-stderr --section=1 --source=fieldpack \
	  --name="$$($(BIN)/fieldpack-$* --help | awk 'found && NF { text = text (text ? " " : "") $$0; next } found && text { exit } !NF { found = 1 } END { sub(/ \(.*$$|[.:]( .*)?$$/, "", text); print text }')" \
	  --output=$@.tmp $(BIN)/fieldpack-$* && mv $@.tmp $@

.PHONY: man-deps
man-deps:
	$(call debian-packages,$(DEB_MAN_PACKAGES))

install: tools man
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)"
	install -m 755 $(EXECUTABLES:%=$(BIN)/fieldpack-%) "$(DESTDIR)$(BINDIR)"
	install -m 644 $(MAN_PAGES) "$(DESTDIR)$(MANDIR)"

uninstall:
	rm -f $(EXECUTABLES:%="$(DESTDIR)$(BINDIR)"/fieldpack-%) $(EXECUTABLES:%="$(DESTDIR)$(MANDIR)"/fieldpack-%.1)


clean:
	rm -rf -- $(BUILD) .build
