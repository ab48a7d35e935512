# fieldpack: the make-driven pipeline. `make bundle`, then `make test`. See README.md.
SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:

PIPELINE ?= pipelines/sample.json
BUILD ?= build
SWIFT ?= swift
BIN := .build/release
TOOLS_STAMP := .build/fieldpack-tools.stamp
STAGES := inat dedupe wiki bundle manifest verify synth sanitize
DEB_PACKAGES := libsqlite3-dev libxml2-dev libssl-dev zlib1g-dev libsimdjson-dev libarchive-dev libjemalloc-dev pkg-config sqlite3 openssl python3-html5lib python3-pip
SWIFT_SOURCES := Package.swift $(shell find Sources -type f 2>/dev/null)
# The shared hostile-HTML corpus and its oracle, which judge fieldpack-sanitize in `make test`:
# ../shared/corpus/xss beside the repository, else the team's shared folder.
XSS_CORPUS ?= $(firstword $(wildcard ../shared/corpus/xss /work/shared/corpus/xss) ../shared/corpus/xss)
# make fuzz: seconds per target, and which targets (default all: ingest sanitizer article archive markup).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
# make test's fuzz smoke: seconds per target, on an unoptimized fuzz build (.build/fuzz-smoke: about
# a minute to build where the optimized one takes four).
FUZZ_SMOKE_SECONDS ?= 4
BENCH_N ?= 1000000
BENCH_DIR ?= $(BUILD)/bench

.PHONY: all bundle test bench clean deps test-deps tools pipeline-bundle fuzz

all: bundle

# --- Set-up: the Debian packages the C targets need ---------------------------------------
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
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

# The Python packages the tests check fieldpack's outputs with that Debian does not package:
# bagit, the Library of Congress's reference BagIt validator. Installed from PyPI into
# .build/python (pip --target: no system or user site touched, so Debian's externally managed
# Python allows it); the tests put that folder on PYTHONPATH.
PY_TEST_PACKAGES := bagit
PY_TEST_DIR := .build/python
test-deps:
	@for p in $(PY_TEST_PACKAGES); do \
	  PYTHONPATH=$(PY_TEST_DIR) python3 -c "import $$p" 2>/dev/null && continue; \
	  echo "installing from PyPI into $(PY_TEST_DIR): $$p"; \
	  python3 -m pip install --quiet --root-user-action=ignore --target $(PY_TEST_DIR) $$p \
	    || { echo "the tests need $$p; run: python3 -m pip install --target $(PY_TEST_DIR) $$p"; exit 1; }; \
	done

# --- The executables (one swift build for all; skipped when SKIP_TOOLS=1, as tests do) ----
ifeq ($(SKIP_TOOLS),1)
tools:
else
tools: $(TOOLS_STAMP)
$(TOOLS_STAMP): $(SWIFT_SOURCES) | deps
	$(SWIFT) build -c release
	@for stage in $(STAGES); do test -x $(BIN)/fieldpack-$$stage || { echo "missing $(BIN)/fieldpack-$$stage"; exit 1; }; done
	@touch $@
endif

# --- The pipeline -------------------------------------------------------------------------
# The outer make builds the tools and reads the pipeline's name; the inner make (NAME set)
# runs the stages as file-to-file rules under $(BUILD)/<name>/.
ifeq ($(NAME),)
bundle: tools
	@name="$$($(BIN)/fieldpack-inat --pipeline $(PIPELINE) --print-name)" && \
	$(MAKE) --no-print-directory pipeline-bundle NAME="$$name" PIPELINE=$(PIPELINE) BUILD=$(BUILD) SKIP_TOOLS=1
else
OUT := $(BUILD)/$(NAME)
RECORDS := $(OUT)/inat/records.jsonl
DEDUPED := $(OUT)/dedupe/records.jsonl
ARTICLES := $(OUT)/wiki/articles.jsonl
COSTS_REPORT := $(OUT)/costs-report.json
INPUTS := $(OUT)/inputs.json
DATABASE := $(OUT)/content.sqlite
MANIFEST := $(OUT)/bundle/manifest.json
VERIFIED := $(OUT)/bundle.verified
TOOL_DEPS := $(if $(filter 1,$(SKIP_TOOLS)),,$(TOOLS_STAMP)) $(wildcard $(TOOLS_STAMP))

pipeline-bundle: $(VERIFIED)

$(RECORDS): $(PIPELINE) $(TOOL_DEPS)
	$(BIN)/fieldpack-inat --pipeline $(PIPELINE) --output $@ --rejects $(OUT)/inat/rejects.jsonl --depfile $(OUT)/inat/records.d

-include $(OUT)/inat/records.d

$(DEDUPED): $(RECORDS) $(TOOL_DEPS)
	$(BIN)/fieldpack-dedupe $< --output $@ --conflicts $(OUT)/dedupe/conflicts.json

# The Wikipedia articles the taxa and destinations need, as blurbs; articles.d lists the dumps.
$(ARTICLES): $(DEDUPED) $(PIPELINE) $(TOOL_DEPS)
	$(BIN)/fieldpack-wiki --pipeline $(PIPELINE) --records $(DEDUPED) --output $@ --report $(OUT)/wiki/wiki-report.json --rejects $(OUT)/wiki/rejects.jsonl --depfile $(OUT)/wiki/articles.d

-include $(OUT)/wiki/articles.d

# One run writes both (a grouped target): the photo shipping rules and costs are decided as the
# records load. content.d names the pipeline's measured sizes file, if any.
# PREVIOUS=path/to/previous/bundle adds delta.json: what changed since that bundle.
$(DATABASE) $(COSTS_REPORT) $(INPUTS) &: $(DEDUPED) $(ARTICLES) $(PIPELINE) $(TOOL_DEPS)
	$(BIN)/fieldpack-bundle $< --pipeline $(PIPELINE) --output $(DATABASE) --articles $(ARTICLES) --costs-report $(COSTS_REPORT) --inputs $(INPUTS) --depfile $(OUT)/content.d $(if $(PREVIOUS),--previous $(PREVIOUS) --delta $(OUT)/delta.json)

-include $(OUT)/content.d

# SIGNING_KEY=key.pem signs the manifest (Ed25519); PUBLIC_KEY=key.pub.pem makes the checks
# verify that signature, as the app does. fieldpack-manifest checks the assembled folder before
# it swaps it in (in one step), so a failed check or an interrupt leaves the previous bundle;
# the folder is never partial, so make must not delete its manifest on an error (.PRECIOUS).
.PRECIOUS: $(MANIFEST)
$(MANIFEST): $(DATABASE) $(COSTS_REPORT) $(INPUTS) $(TOOL_DEPS)
	$(BIN)/fieldpack-manifest $< --output $(OUT)/bundle --inputs $(INPUTS) --include $(COSTS_REPORT) $(if $(PREVIOUS),--include $(OUT)/delta.json) $(if $(SIGNING_KEY),--sign $(SIGNING_KEY)) $(if $(PUBLIC_KEY),--public-key $(PUBLIC_KEY))

# The published folder, checked again where the app will find it; the stamp says it passed.
$(VERIFIED): $(MANIFEST)
	$(BIN)/fieldpack-verify $(OUT)/bundle $(if $(PUBLIC_KEY),--public-key $(PUBLIC_KEY))
	@touch $@
endif

# --- Tests, benchmark, clean --------------------------------------------------------------
test: tools test-deps
	FIELDPACK_BIN="$(abspath $(BIN))" $(SWIFT) test -c release
	Tests/Sanitizer/run-oracle.sh $(BIN) $(XSS_CORPUS)
	@FUZZ_BUILD=.build/fuzz-smoke FUZZ_OPT=-Onone Tests/Fuzz/run.sh --smoke $(FUZZ_SMOKE_SECONDS); status=$$?; \
	  if [ $$status -eq 2 ]; then echo "fuzz smoke skipped (no libFuzzer/ASan runtime)"; elif [ $$status -ne 0 ]; then exit $$status; fi
	Tests/Faults/run-faults.sh $(BIN)

# Fuzzing (libFuzzer + AddressSanitizer, built apart in .build/fuzz): see Tests/Fuzz/run.sh.
fuzz: deps
	Tests/Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: tools
	@BENCH_N=$(BENCH_N) BENCH_DIR=$(BENCH_DIR) BIN=$(BIN) Tests/Bench/run-bench.sh

clean:
	rm -rf $(BUILD) .build
