# Bookkeeper — the two commands that do all set-up on a fresh machine:
#   make run    installs missing system packages, builds, loads SampleData/ into a store and shows it
#   make test   installs missing system packages, builds and runs the everyday tests (docs/testing.md)
SHELL := /bin/bash
SWIFT ?= swift
OUT ?= out
STORE ?= $(OUT)/sample.sqlite
BIN := .build/debug/bookkeeper
# System packages the build and the tests need (Debian names). LibreOffice (without its GUI), poppler's pdftotext
# and Carlito (Calibri's metrics, the workbooks' default font) are for the test that prints the reports to PDF;
# binutils gives readelf, which InstallTests reads the binary's NEEDED entries with. libpq-dev is PostgreSQL's client
# library (PostgreSQL stores); postgresql (15 on Debian 12) is the server `make test-postgresql` starts.
APT_PACKAGES := libsqlite3-dev libxlsxwriter-dev sqlite3 python3-openpyxl time libssl-dev binutils \
	libreoffice-calc-nogui poppler-utils fonts-crosextra-carlito libpq-dev postgresql pgbouncer

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

# Tests in tiers (docs/testing.md). `make test` is what a developer runs after every change: the debug build the other
# targets share (warnings are errors in Package.swift, so every build has the same flags and none forces another),
# then scripts/run-tests.py runs the test binary as several processes at once (one per test class), then the tests
# that send signals or measure memory or time one at a time, with reduced trial counts and fixed seeds. It ends
# with the ten slowest tests, each group's time and "N passed, N failed, N skipped". `make test-install` builds
# the static release binary and runs the install tests; `make stress` runs the trial loops with their full counts
# and a random seed it prints; `make test-examples` (below) builds and runs the example packages. `.ci/run` runs
# all four. TEST_ORDER=reverse or shuffle (TEST_ORDER_SEED=N) runs the jobs in another order; TEST_EACH=1 runs each
# test method in a process of its own.
TEST_ORDER ?= forward
TEST_EACH ?=
TEST_FLAGS ?=
test: deps build-tests
	@mkdir -p $(OUT)
	python3 scripts/run-tests.py --tier quick --order $(TEST_ORDER) $(if $(TEST_EACH),--each-test) $(TEST_FLAGS)

.PHONY: build-tests test-install
build-tests: deps
	$(SWIFT) build --build-tests

# The tests that need a PostgreSQL server (run-tests.py's POSTGRESQL list): a throwaway PostgreSQL 15 server
# (scripts/postgresql-server.sh: data and Unix socket in a new folder under /tmp, as the postgres user when run as
# root), its variables exported, the tier run, and the server stopped and its folder removed on the way out — also
# when a test fails or the run is interrupted. The server's log is printed when the tier fails.
.PHONY: test-postgresql
test-postgresql: deps build-tests
	@dir=$$(scripts/postgresql-server.sh start) || exit 1; \
	trap 'scripts/postgresql-server.sh stop "$$dir"' EXIT; \
	trap 'exit 130' INT TERM; \
	source "$$dir/env"; \
	python3 scripts/run-tests.py --tier postgresql --log-dir $(OUT)/test-logs-postgresql $(TEST_FLAGS); \
	code=$$?; \
	if [ $$code -ne 0 ]; then echo "--- the PostgreSQL server's log ($$dir/server.log):"; scripts/postgresql-server.sh log "$$dir"; fi; \
	exit $$code

# The install tests (InstallTests) install the release binary of `make release` into a temporary prefix.
test-install: deps build-tests release
	BOOKKEEPER_RELEASE_SCRATCH=$(RELEASE_SCRATCH) python3 scripts/run-tests.py --tier install --log-dir $(OUT)/test-logs-install

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
RELEASE_BIN := $(RELEASE_SCRATCH)/release/bookkeeper
.PHONY: release-bin
release-bin: deps
	$(SWIFT) build -c release --product bookkeeper --scratch-path $(RELEASE_SCRATCH) --static-swift-stdlib
release: release-bin
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

# The library (docs/library.md). `make docs` builds ObjectStore's DocC archive (Sources/ObjectStore/ObjectStore.docc
# and the doc comments) with swift-docc-plugin into $(DOCS_OUT), in a build folder of its own, and fails on any
# documentation warning (an unresolved symbol link among them). `make test-examples` builds the docs so, then the example packages in
# Examples/ against this checkout (each in its own Examples/NAME/.build), runs them and compares what they print with
# their expected output; .ci/run runs it as a tier of its own, so `make test` does not pay for the second build.
# `make api-record` rewrites docs/api/ObjectStore.api, the recorded public API that PublicAPITests compares with.
DOCS_SCRATCH ?= .build-docs
DOCS_OUT ?= $(OUT)/ObjectStore.doccarchive
.PHONY: docs test-examples api-record
docs: deps
	@mkdir -p $(OUT)
	$(SWIFT) package --scratch-path $(DOCS_SCRATCH) --allow-writing-to-directory $(OUT) \
	  generate-documentation --target ObjectStore --warnings-as-errors --output-path $(DOCS_OUT)

test-examples: deps
	SWIFT=$(SWIFT) python3 scripts/test-examples.py

api-record: build-tests
	python3 scripts/api-record.py --write

# Speed and memory against a reference measured in the same run (bench/RESULTS.md), with the binary `make install`
# installs (the release build with the Swift runtime linked in: it starts about 10 ms sooner than one that loads it).
bench: bench-fetch bench-import

bench-fetch: release-bin
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/fetch_bench.py

# Issue 27, no cliffs: every path a user can grow (imports, upserts, re-imports, rejects, fetches, every shipped
# report, check, export, backup, migrate, IN lists, repeated options) at sizes that double; fails when a doubling
# costs more than 2.3x (bench/SCALE.md). SIZES=25000,50000,100000 RUNS=5 PATHS=report,fetch SEED=N change it.
.PHONY: bench-scale
bench: bench-scale
bench-scale: release-bin
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/scale.py

# Books on PostgreSQL (issue 30): a fetch of 1,000,000 customers, streamed, against the same fetch from a store
# file (peak memory target <= 1.2x) and psql's \copy on a plain table; starts and stops its own server.
# LINES=N RUNS=N change it.
.PHONY: bench-postgresql
bench: bench-postgresql
bench-postgresql: release-bin
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/postgresql_bench.py

bench-import: release-bin
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/import_bench.py

# A batch update of 200,000 orders (`bookkeeper update`) against the hand-written UPDATE in sqlite3 on the plain
# store (issue 33; target <= 2x). RUNS=N, LINES=N (the orders file's lines, 5 per order) change it.
.PHONY: bench-batch
bench: bench-batch
bench-batch: release-bin
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/batch_bench.py

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

# The reports bench: every shipped report to XLSX, CSV and text against what a user would write by hand on a plain
# store (bench/reference/: report_plain.c and unpaid_orders_plain.c with libxlsxwriter; sqlite3's CSV and column modes), on
# 200,000 orders from both file orders (REPORTS=a,b selects reports). query-plans then refreshes
# docs/design/query-plans.md from the bench's stores (BEFORE_BIN: the binary to compare with).
bench: bench-reports
bench-reports: release-bin
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/reports/reports_bench.py
.PHONY: query-plans
query-plans: release-bin
	BIN=$(RELEASE_BIN) WORK=$(OUT)/bench python3 bench/query_plans.py

# The long runs of the trial loops (docs/testing.md, docs/cron.md): SIGKILL at 500 moments of an import, SIGTERM
# at 60, 20 kills of each migration on 250,000 rows, 300 imports failing while their input is hashed, the
# overlapping-jobs test 10 times, 40 imports read by another user, 30 export/import round trips, 3,000 steps of
# the model-based graph test, 18,000 generated predicates, every relative date on 1,644 days and 2,000 generated TZ
# strings against glibc. Each loop runs alone. STRESS_SEED (default: the time)
# is printed first; giving it again repeats the run.
ifeq ($(STRESS_SEED),)
STRESS_SEED := $(shell date +%s)
endif
.PHONY: stress fuzz
# The PostgreSQL trial loops (text functions against the Swift code) need a server: one is started for the tier as
# for test-postgresql, and stopped at the end.
stress: deps build-tests
	@echo "make stress: STRESS_SEED=$(STRESS_SEED) (make stress STRESS_SEED=$(STRESS_SEED) repeats this run)"
	@dir=$$(scripts/postgresql-server.sh start) || exit 1; \
	trap 'scripts/postgresql-server.sh stop "$$dir"' EXIT; \
	trap 'exit 130' INT TERM; \
	source "$$dir/env"; \
	STRESS_SEED=$(STRESS_SEED) python3 scripts/run-tests.py --tier stress --log-dir $(OUT)/test-logs-stress

# Fuzzing (docs/cron.md): the libFuzzer targets of Fuzz/ (a package of its own, built with the fuzzer and
# AddressSanitizer), each for FUZZ_SECONDS; prints executions and crashes found, and exits 1 on a crash (saved
# into Tests/FuzzRegressionTests/Inputs, which `make test` replays).
FUZZ_SECONDS ?= 60
FUZZ_SCRATCH ?= Fuzz/.build
fuzz: deps
	$(SWIFT) build --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) -Xswiftc -sanitize=fuzzer,address
	BIN_DIR=$(FUZZ_SCRATCH)/debug FUZZ_SECONDS=$(FUZZ_SECONDS) python3 Fuzz/run.py

clean:
	rm -rf .build $(RELEASE_SCRATCH) $(MANUAL_SCRATCH) $(DOCS_SCRATCH) Examples/*/.build $(OUT)
