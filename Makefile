# Bookkeeper — the two commands that do all set-up on a fresh machine:
#   make run    installs missing system packages, builds, loads SampleData/ into a store and shows it
#   make test   installs missing system packages, builds and runs every test
SHELL := /bin/bash
SWIFT ?= swift
OUT ?= out
STORE ?= $(OUT)/sample.sqlite
BIN := .build/debug/bookkeeper
# System packages the build and the tests need (Debian names). LibreOffice (without its GUI), poppler's pdftotext
# and Carlito (Calibri's metrics, the workbooks' default font) are for the test that prints the reports to PDF;
# binutils gives readelf, which InstallTests reads the binary's NEEDED entries with.
APT_PACKAGES := libsqlite3-dev libxlsxwriter-dev sqlite3 python3-openpyxl time libssl-dev binutils \
	libreoffice-calc-nogui poppler-utils fonts-crosextra-carlito

.PHONY: deps build run test bench bench-fetch bench-import clean release install uninstall cli-reference

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build

run: build
	@mkdir -p $(OUT)
	@rm -f $(STORE) $(STORE)-wal $(STORE)-shm
	$(BIN) --store $(STORE) init
	$(BIN) --store $(STORE) import Tag SampleData/tags.csv --profile SampleData/tags.yaml
	$(BIN) --store $(STORE) import Service SampleData/services.csv --profile SampleData/services.yaml
	$(BIN) --store $(STORE) import Customer SampleData/customers.csv --profile SampleData/customers.yaml
	$(BIN) --store $(STORE) import Order SampleData/orders.csv --profile SampleData/orders.yaml
	$(BIN) --store $(STORE) model
	$(BIN) --store $(STORE) list Customer
	$(BIN) --store $(STORE) list Order
	$(BIN) --store $(STORE) imports
	@$(MAKE) --no-print-directory run-reports

# The suite is XCTest only (no Swift Testing runner, whose empty "0 tests" line would close the output);
# the last line sums it up as "N passed, N failed, N skipped".
# A clean build has no warnings, and the test build keeps it so (WARNINGS= builds without the check). The
# release build comes first: InstallTests installs it into a temporary prefix, and would otherwise build it there.
WARNINGS ?= -Xswiftc -warnings-as-errors
test: deps release
	$(SWIFT) build --build-tests $(WARNINGS)
	@mkdir -p $(OUT)
	@set -o pipefail; BOOKKEEPER_RELEASE_SCRATCH=$(RELEASE_SCRATCH) $(SWIFT) test --skip-build --disable-swift-testing 2>&1 | tee $(OUT)/test.log; status=$$?; \
	  line=$$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with" $(OUT)/test.log | tail -n 1); \
	  total=$$(echo "$$line" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/'); \
	  failed=$$(echo "$$line" | sed -E 's/.* ([0-9]+) failures?.*/\1/'); \
	  skipped=$$(echo "$$line" | grep -oE '[0-9]+ tests? skipped' | grep -oE '^[0-9]+' || echo 0); \
	  if [ -n "$$line" ]; then echo "$$((total - failed - skipped)) passed, $$failed failed, $$skipped skipped"; fi; \
	  exit $$status

# Install like a tool (README: Install): a release binary with the Swift runtime and Foundation linked in
# (--static-swift-stdlib: it needs only the system libraries README names), the shipped reports, which it finds
# as ../share/bookkeeper/reports beside itself, a man page from argument-parser's generate-manual, and bash, zsh and
# fish completions. uninstall removes what the manifest (share/bookkeeper/install-manifest) lists. generate-manual is
# argument-parser's own tool, built from its checkout (its deprecation warnings are its own, so suppressed); the one
# warning left in a release build is the linker's about mktemp inside the toolchain's static FoundationEssentials.
PREFIX ?= /usr/local
DESTDIR ?=
RELEASE_SCRATCH ?= .build-release
MANUAL_SCRATCH ?= .build-manual
release: deps
	$(SWIFT) build -c release --product bookkeeper --scratch-path $(RELEASE_SCRATCH) --static-swift-stdlib
	$(SWIFT) build --package-path $(RELEASE_SCRATCH)/checkouts/swift-argument-parser --scratch-path $(MANUAL_SCRATCH) \
	  --product generate-manual -Xswiftc -suppress-warnings
install: release
	scripts/install.sh install "$(DESTDIR)" "$(PREFIX)" $(RELEASE_SCRATCH)/release/bookkeeper $(MANUAL_SCRATCH)/debug/generate-manual
uninstall:
	scripts/install.sh uninstall "$(DESTDIR)" "$(PREFIX)"

# docs/cli-reference.md from every command's --help (a test fails when it is out of date).
cli-reference: build
	@mkdir -p $(OUT)
	python3 scripts/cli-reference.py $(BIN) > $(OUT)/cli-reference.md && mv $(OUT)/cli-reference.md docs/cli-reference.md

# Speed and memory against a reference measured in the same run (release build; see bench/RESULTS.md).
RELEASE_BIN := .build/release/bookkeeper
bench: bench-fetch bench-import

bench-fetch: deps
	$(SWIFT) build -c release --product bookkeeper
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/fetch_bench.py

# Issue 15 §4: an IN list of 10,000 to 100,000 values and 1,000 to 8,000 repeated options, each time printed with
# its growth (must be linear; see bench/RESULTS.md).
.PHONY: bench-scale
bench: bench-scale
bench-scale: deps
	$(SWIFT) build -c release --product bookkeeper
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/scale_bench.py

# The import bench builds its own release binary, in its own build folder.
IMPORT_BENCH_BUILD ?= .build-bench-import
bench-import: deps
	$(SWIFT) build -c release --product bookkeeper --scratch-path $(IMPORT_BENCH_BUILD)
	BIN=$(IMPORT_BENCH_BUILD)/release/bookkeeper WORK=$(OUT)/bench python3 bench/import_bench.py

# Reports (docs/reports.md): every shipped report on the sample store, text to the terminal, then XLSX into
# $(REPORTS_OUT) (one file per report, and all-reports.xlsx with a sheet each). SampleData/ runs to November 2026,
# so the reports read it as of SAMPLE_TODAY: "start of last month" and "today" then fall inside the data.
REPORTS_OUT ?= $(OUT)/reports
SAMPLE_TODAY ?= 2026-11-21
.PHONY: run-reports bench-reports
run-reports:
	BOOKKEEPER_TODAY=$(SAMPLE_TODAY) $(BIN) --store $(STORE) report --all
	BOOKKEEPER_TODAY=$(SAMPLE_TODAY) $(BIN) --store $(STORE) report --all --format xlsx --output-dir $(REPORTS_OUT)
	BOOKKEEPER_TODAY=$(SAMPLE_TODAY) $(BIN) --store $(STORE) report --all --format xlsx --output $(REPORTS_OUT)/all-reports.xlsx
	@echo "XLSX reports written to $(REPORTS_OUT)/"

# The reports bench: unpaid-orders to XLSX against a C program (bench/reports/unpaid_orders.c), to text and CSV
# against sqlite3's CSV output, on 200,000 orders.
bench: bench-reports
bench-reports: deps
	$(SWIFT) build -c release --product bookkeeper
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/reports/reports_bench.py

# The long runs of the reliability proofs (docs/cron.md): SIGKILL at STRESS_TRIALS random moments of
# a bigger import, the overlapping-jobs test STRESS_CONCURRENCY times, the predicate differential test with more
# seeds, STRESS_ROUNDTRIPS random stores through export and import, and STRESS_READERS imports each read by another
# user meanwhile. Prints what it tried; STRESS_SEED (default: the time) makes a run repeatable.
STRESS_SCRATCH ?= .build
STRESS_TRIALS ?= 500
STRESS_ORDERS ?= 2000
STRESS_SEED ?= $(shell date +%s)
STRESS_CONCURRENCY ?= 10
STRESS_DIFF_SEEDS ?= 1 2 3 4 5 6
STRESS_DIFF_COUNT ?= 3000
STRESS_ROUNDTRIPS ?= 30
STRESS_READERS ?= 40
STRESS_GRAPH_STEPS ?= 3000
.PHONY: stress fuzz
stress: deps
	$(SWIFT) build --build-tests --scratch-path $(STRESS_SCRATCH)
	@mkdir -p $(OUT)
	@log=$(OUT)/stress.log; set -o pipefail; \
	BOOKKEEPER_CRASH_TRIALS=$(STRESS_TRIALS) BOOKKEEPER_CRASH_ORDERS=$(STRESS_ORDERS) BOOKKEEPER_CRASH_SEED=$(STRESS_SEED) \
	  $(SWIFT) test --skip-build --scratch-path $(STRESS_SCRATCH) --filter ReliabilityCrashTests > $$log 2>&1 \
	  && grep -h "^SIGKILL crash test" $$log \
	  || { grep -h "error:" $$log | head -20; echo "stress: the SIGKILL test failed (seed $(STRESS_SEED)); see $$log"; exit 1; }
	@log=$(OUT)/stress.log; for i in $$(seq $(STRESS_CONCURRENCY)); do \
	  $(SWIFT) test --skip-build --scratch-path $(STRESS_SCRATCH) --filter ReliabilityConcurrencyTests > $$log 2>&1 \
	    && { printf "run $$i: "; grep -h "^concurrency test" $$log; } \
	    || { grep -h "error:" $$log | head -20; echo "stress: concurrency run $$i failed; see $$log"; exit 1; }; \
	done
	@log=$(OUT)/stress.log; for seed in $(STRESS_DIFF_SEEDS); do \
	  BOOKKEEPER_DIFF_SEED=$$seed BOOKKEEPER_DIFF_COUNT=$(STRESS_DIFF_COUNT) $(SWIFT) test --skip-build --scratch-path $(STRESS_SCRATCH) \
	    --filter PredicateDifferentialTests/testGeneratedPredicatesAndSorts > $$log 2>&1 \
	    && echo "predicate differential: seed $$seed, $(STRESS_DIFF_COUNT) generated predicates with sorts, limits and offsets: SQL and the evaluator agree" \
	    || { grep -h "error:" $$log | head -20; echo "stress: the differential test disagreed (seed $$seed); see $$log"; exit 1; }; \
	done
	@log=$(OUT)/stress.log; BOOKKEEPER_ROUNDTRIP_ROUNDS=$(STRESS_ROUNDTRIPS) BOOKKEEPER_ROUNDTRIP_SEED=$(STRESS_SEED) \
	  $(SWIFT) test --skip-build --scratch-path $(STRESS_SCRATCH) --filter ReliabilityRoundTripTests > $$log 2>&1 \
	  && echo "export and import: $(STRESS_ROUNDTRIPS) random stores with hostile text (seed $(STRESS_SEED)) exported, imported into new stores: the same objects, the same bytes exported" \
	  || { grep -h "error:" $$log | head -20; echo "stress: the export/import round trip failed (seed $(STRESS_SEED)); see $$log"; exit 1; }
	@log=$(OUT)/stress.log; BOOKKEEPER_READER_RUNS=$(STRESS_READERS) \
	  $(SWIFT) test --skip-build --scratch-path $(STRESS_SCRATCH) --filter ReliabilityReadOnlyReaderTests/testAnotherUsersListingDuringImportsIsOneCommittedStateNeverATornOne > $$log 2>&1 \
	  && grep -h "^read-only reader" $$log \
	  || { grep -h "error:" $$log | head -20; echo "stress: a read by another user during imports was torn or failed; see $$log"; exit 1; }
	@log=$(OUT)/stress.log; STRESS_SEED=$(STRESS_SEED) GRAPH_STEPS=$(STRESS_GRAPH_STEPS) \
	  $(SWIFT) test --skip-build --scratch-path $(STRESS_SCRATCH) --filter ModelBasedGraphTests > $$log 2>&1 \
	  && grep -h "^model-based graph test" $$log \
	  || { grep -h -A30 "error:" $$log | head -60; echo "stress: the model-based graph test failed (seed $(STRESS_SEED)); see $$log"; exit 1; }

# Fuzzing (docs/cron.md): the libFuzzer targets of Fuzz/ (a package of its own, built with the fuzzer and
# AddressSanitizer), each for FUZZ_SECONDS; prints executions and crashes found, and exits 1 on a crash (saved
# into Tests/FuzzRegressionTests/Inputs, which `make test` replays).
FUZZ_SECONDS ?= 60
FUZZ_SCRATCH ?= Fuzz/.build
fuzz: deps
	$(SWIFT) build --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) -Xswiftc -sanitize=fuzzer,address
	BIN_DIR=$(FUZZ_SCRATCH)/debug FUZZ_SECONDS=$(FUZZ_SECONDS) python3 Fuzz/run.py

clean:
	rm -rf .build $(RELEASE_SCRATCH) $(MANUAL_SCRATCH) $(OUT)
