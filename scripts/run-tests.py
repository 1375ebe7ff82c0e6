#!/usr/bin/env python3
"""Runs the XCTest suite in tiers, several test processes at a time (docs/testing.md).

    scripts/run-tests.py [--tier quick|install|stress|postgresql] [--jobs N] [--order forward|reverse|shuffle]
                         [--seed N] [--each-test] [--filter TEXT] [--scratch .build]

The test binary (built by `swift build --build-tests`) is run directly, once per job: a job is one test class, so
class-level fixtures are made once per class, or with --each-test one test method. Jobs of the parallel group run
--jobs at a time; then the serial group (tests that send signals or measure memory or time) runs one job at a time
with nothing beside it. Every job's output goes to out/test-logs/; a failing job's is printed. The end is the ten
slowest tests, each group's wall time, the `trials:` lines the trial loops printed (counts and seeds), and the line
`N passed, N failed, N skipped`. The exit status is 1 when a test failed or a job ended without reporting its tests
(a crash), else 0.

--order reverse or shuffle (with --seed) changes the order in which jobs start, and so which jobs run side by side:
every test works in a temporary folder of its own, and a run in another order must give the same result.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# Tests that send signals, measure memory or time: each runs alone (one job at a time, nothing beside it), so a
# neighbour's load cannot make a timed kill land elsewhere than planned or a doubling ratio drift. A class name
# takes the whole class; Class/method one test (the rest of its class stays in the parallel group).
SERIAL = [
    "ObjectStoreTests.SchemaCheckPropertyTests/testComparingTheSchemaGrowsLinearlyWithTheModel",
    "BookkeeperCLITests.ReliabilityCrashTests",
    "BookkeeperCLITests.ReliabilitySignalTests",
    "BookkeeperCLITests.CommitTruthTests",
    "BookkeeperCLITests.ReliabilityConcurrencyTests",
    "BookkeeperCLITests.ConcurrentMigrationTests",
    "BookkeeperCLITests.ModelEvolutionCommandTests/testAMigrationKilledMidwayLeavesTheStoreAsItWas",
    "BookkeeperCLITests.ReliabilityBadFileTests/testAnImportThatFailsAtOnceExitsCleanlyWhileItsInputIsBeingHashed",
    "BookkeeperCLITests.ReliabilityBadFileTests/testAGigabyteLineWithoutANewlineIsRefusedInBoundedMemory",
    "BookkeeperCLITests.ImportErrorFileTests/testAnImportKilledMidwayLeavesTheStoreAsItWas",
    "ReportRenderersTests.AtomicOutputTests",
    "ReportRenderersTests.XLSXMemoryTests",
    "ObjectStoreTests.TextFoldingTests/testFoldingIsLinearInTheText",
    "BookkeeperCLITests.InputChangedTests",
    "ObjectStoreTests.TextNormalFormTests/testLongTextComposesInLinearTime",
    "BookkeeperCLITests.LongValueTableTests/testListAndFetchWithOneLongValueTakeTimeLinearInRowsAndLength",
    "FileOutputTests.FileOutputTests/testProtectingAFolderGrowsLinearlyWithItsFiles",
    "ObjectStoreTests.DeepRuleTests/testTheSearchForDependentsDoesNotGrowWithTheStore",
    "ObjectStoreTests.PostgreSQLStreamingTests",
    "ObjectStoreTests.PostgreSQLTextFunctionTests",
]

# Tests of their own tier, which `make test` leaves out: `make test-install` builds the static release binary and
# the manual generator they install, and runs them.
INSTALL = ["BookkeeperCLITests.InstallTests"]

# Tests that need a PostgreSQL server: `make test-postgresql` starts a throwaway one (scripts/postgresql-server.sh),
# exports BOOKKEEPER_TEST_POSTGRESQL and runs them as a tier of their own; the quick tier leaves them out, so nothing
# skips in `make test` (run by hand without the variable, they skip saying so).
POSTGRESQL = [
    "ObjectStoreTests.PostgreSQLConnectionTests",
    "ObjectStoreTests.PostgreSQLDialectConformanceTests",
    "ObjectStoreTests.PostgreSQLStreamingTests",
    "ObjectStoreTests.PostgreSQLPredicateDifferentialTests",
    "ObjectStoreTests.PostgreSQLTextFunctionTests",
    "ObjectStoreTests.PostgreSQLDeadlockTests",
    "BookkeeperCLITests.PostgreSQLCommandTests",
    "BookkeeperCLITests.PostgreSQLFailureTests",
    "BookkeeperCLITests.PostgreSQLFormatTests",
    "BookkeeperCLITests.PostgreSQLMatchesCommandTests",
    "BookkeeperCLITests.SharedBooksDifferentialTests",
    "BookkeeperCLITests.PostgreSQLMigrateDifferentialTests",
    "BookkeeperCLITests.PostgreSQLMigrateTests",
    # Through PgBouncer in transaction and session pooling (the test starts its own: scripts/postgresql-server.sh).
    "BookkeeperCLITests.PgBouncerTests",
    # End-to-end suites parameterised by store kind: the class runs on a store file in the quick tier, its subclass
    # …OnPostgreSQL on books on PostgreSQL here (docs/testing.md).
    "BookkeeperCLITests.CRUDCommandTestsOnPostgreSQL",
    "BookkeeperCLITests.FetchCommandTestsOnPostgreSQL",
    "BookkeeperCLITests.ListColumnCommandTestsOnPostgreSQL",
    "BookkeeperCLITests.ListShowFetchDifferentialTestsOnPostgreSQL",
    "BookkeeperCLITests.BatchChangeCommandTestsOnPostgreSQL",
    "BookkeeperCLITests.BatchChangeWithoutRulesCommandTestsOnPostgreSQL",
    "BookkeeperCLITests.ImportCommandTestsOnPostgreSQL",
    "BookkeeperCLITests.ImportErrorTestsOnPostgreSQL",
    "BookkeeperCLITests.RejectsFileTestsOnPostgreSQL",
    "BookkeeperCLITests.PostgreSQLImportTests",
    "BookkeeperCLITests.CheckCommandTestsOnPostgreSQL",
    "BookkeeperCLITests.PostgreSQLTamperCheckTests",
    "BookkeeperCLITests.MigrateCommandTestsOnPostgreSQL",
]

# The trial loops that `make stress` runs with full counts (Tests/TestSupport/Trials.swift), each as a serial job.
STRESS = [
    # (Skips without BOOKKEEPER_TEST_POSTGRESQL: run it by hand with the postgresql tier's server.)
    "BookkeeperCLITests.PostgreSQLMigrateDifferentialTests/testGeneratedChangesAnswerTheSameOnBothKinds",
    "ObjectStoreTests.TypedArgumentTests/testATypedArgumentAnswersAsItsTextDoes",
    "ObjectStoreTests.ModelSQLNameTests/testNoAcceptedModelNeedsTwoSQLNamesSQLiteTakesForOne",
    "BookkeeperCLITests.RejectsFileTests/testRejectsNeverDeletesAFileThatIsNotARejectsFile",
    "BookkeeperCLITests.OpenFileLimitTests/testEveryCommandUnderEveryOpenFileLimitSucceedsOrSaysTooManyOpenFiles",
    "BookkeeperCLITests.TerminalInjectionTests/testControlCharactersInStoredTextAreShownAsCodesInEveryTextOutput",
    "ReportRenderersTests.TextRendererTests/testACellCutToItsWidthNeverCutsACode",
    "BookkeeperCLITests.OutputConfigurationGuardTests/testEveryWriterRefusesEveryProtectedFileHoweverSpelt",
    "BookkeeperCLITests.ReliabilityCrashTests",
    "BookkeeperCLITests.ReliabilitySignalTests",
    "BookkeeperCLITests.InputChangedTests",
    "FuzzRegressionTests.FuzzRegressionTests/testDefinitionShapes",
    "BookkeeperCLITests.CommitTruthTests/testASignalAtAnyMomentOfAnImportTellsTheTruth",
    "BookkeeperCLITests.ReliabilityConcurrencyTests/testImportsReportsAndFetchesStartedAtOnceEqualASerialRun",
    "BookkeeperCLITests.ConcurrentMigrationTests/testJobsStartedTogetherAfterTheModelChangedMigrateOnce",
    "BookkeeperCLITests.ConcurrentMigrationTests/testInitsStartedTogetherOnANewPathMakeOneStore",
    "BookkeeperCLITests.ConcurrentMigrationTests/testDryRunsRacingAMigrationGiveTheRealRunsVerdict",
    "BookkeeperCLITests.ModelEvolutionCommandTests/testAMigrationKilledMidwayLeavesTheStoreAsItWas",
    "BookkeeperCLITests.ReliabilityBadFileTests/testAnImportThatFailsAtOnceExitsCleanlyWhileItsInputIsBeingHashed",
    "BookkeeperCLITests.ReliabilityReadOnlyReaderTests",
    "BookkeeperCLITests.ReliabilityRoundTripTests",
    "BookkeeperCLITests.ModelBasedGraphTests",
    "BookkeeperCLITests.ModelEvolutionMigrationPropertyTests",
    "BookkeeperCLITests.ReadOnlyMigrationTests/testGeneratedAdditiveChangesReadAsTheMigratedStoreReads",
    "BookkeeperCLITests.ReadOnlyMigrationTests/testEveryChangeNoTableShowsGetsOneAnswerPerCommandFromAReadOnlyUser",
    "BookkeeperCLITests.ModelRecordNoteTests/testEveryCommandThatRecordsAChangeNoTableShowsSaysSoOnce",
    "ObjectStoreTests.PredicateDifferentialTests/testGeneratedPredicatesAndSorts",
    "BookkeeperCLITests.DocumentWholeTests/testDocumentsInRandomOrderWithBadLinesAnywhereEqualTheReference",
    "BookkeeperCLITests.DecimalMarkTests/testGeneratedColumnsAreReadAsMeantOrRefused",
    "ImporterTests.DateFormatPropertyTests",
    "CSVTests.EncodingPropertyTests",
    "BookkeeperCLITests.KeyFormTests/testEveryNormalFormOfAKeyIsOneObject",
    "ObjectStoreTests.TextNormalFormTests",
    "ObjectStoreTests.SchemaCheckPropertyTests/testNewAndMigratedStoresOfGeneratedModelsCheckClean",
    "ReportsTests.RelativeDatePropertyTests/testEveryFormOnEveryDayEqualsTheReference",
    "LocalTimeTests.ZoneDifferentialTests/testOffsetsAndAbbreviationsEqualGlibcs",
    "ObjectStoreTests.LocalPeriodDifferentialTests/testThePeriodsOfADateTimeAreThoseOfItsLocalDateInSQLAndTheEvaluator",
    "BookkeeperCLITests.LocalPeriodCommandTests/testADateTimeNearLocalMidnightIsGroupedInTheDayItIsShownIn",
    "BookkeeperCLITests.RoundTripNumbersTests/testAToManyColumnOfDecimalsShowsValuesNotStorageUnits",
    "ObjectStoreTests.TimestampRangeTests/testInstantsAndDaysNearBothEndsConvertOrAreRefusedInEveryZone",
    "ReportsTests.DateTimeEndsReadBackTests/testEveryInstantNearTheEndsReadsBackAsWrittenInEveryZone",
    "ObjectStoreTests.TimestampOffsetTests/testOffsetsBeyondTwentyThreeHoursOrFiftyNineMinutesAreRefused",
    "ObjectStoreTests.DayComparisonDifferentialTests/testADateTimeComparedWithADateComparesItsLocalDay",
    "ObjectStoreTests.DeepRuleTests/testEverySuccessfulSaveLeavesEveryRuleKept",
    "ObjectStoreTests.BatchChangeDifferentialTests/testABatchChangeDoesWhatOneSaveOfEveryMatchingObjectDoes",
    "ObjectStoreTests.BatchChangeDifferentialTests/testWithoutRulesABatchUpdateIsOneStatementAndStillDoesWhatOneSaveDoes",
    "ObjectStoreTests.ObjectIDTests/testAnObjectIDIsNeverHandedOutTwice",
    "ObjectStoreTests.ObjectIDTests/testAnIDAnotherToolDeletedIsNeverHandedOutAgain",
    "ObjectStoreTests.SharedAggregateDifferentialTests/testFetchesUsingAnAggregateMoreThanOnceAgreeWithTheOldStatementAndTheEvaluator",
    "ObjectStoreTests.RangeCoverageDifferentialTests/testRangesJudgedByTheIndexGiveTheAnswersOfTheUnjudgedStatementOnEveryShapeOfStore",
    "ReportRenderersTests.RendererBytesDifferentialTests/testBytesAreTheStringForms",
    "ReportRenderersTests.RendererBytesDifferentialTests/testTextAndCSVAreWhatTheStringFormsWrote",
    "ObjectStoreTests.ModelTests/testCanonicalJSONIsWhatJSONSerializationWrote",
    "ReportRenderersTests.RendererBytesDifferentialTests/testShorteningFromBytesIsWhatTruncatedWrites",
    "ReportRenderersTests.RendererBytesDifferentialTests/testXLSXNumbersFromUnitsAreWhatTheTextGave",
    "ObjectStoreTests.TextCollationTests/testNaturalCompareFromBytesAgreesWithFoldingOnGeneratedStrings",
    "BookkeeperCLITests.FetchCSVDifferentialTests/testCSVIsWhatASecondWriterWritesFromTheSameValues",
    "ReportRenderersTests.CellFormatterBytesTests/testAppendedBytesAreThePlainString",
    "ObjectStoreTests.GroupedAggregateDifferentialTests/testGroupedAggregatesAgreeWithTheCorrelatedSubqueriesAndTheEvaluator",
    "BookkeeperCLITests.GroupedAggregateCommandTests/testCustomersReportAndFetchAgreeWithASecondImplementationAndTheCorrelatedForm",
    "ObjectStoreTests.PostgreSQLRegexCheckTests/testEveryPatternOfTheSubsetIsARegularExpressionForICU",
    "BookkeeperCLITests.ListShowFetchDifferentialTests/testListAndShowPrintEachValueAsFetchCSVDoes",
    # These need a PostgreSQL server: `make stress` starts one for the tier (as `make test-postgresql` does).
    "ObjectStoreTests.PostgreSQLTextFunctionTests/testFoldingAnswersAsTextFoldingForEveryFlagAndEveryScalarOfTheBMP",
    "ObjectStoreTests.PostgreSQLTextFunctionTests/testSortKeysOrderAsNocaseAndNaturalCompare",
    "ObjectStoreTests.PostgreSQLTextFunctionTests/testStringOperatorsAnswerAsStringOperatorsApply",
    "ObjectStoreTests.PostgreSQLTextFunctionTests/testMatchesOverTheSubsetAnswersAsICU",
    "ObjectStoreTests.PostgreSQLPredicateDifferentialTests/testGeneratedPredicatesAgreeThreeWays",
    "BookkeeperCLITests.ListShowFetchDifferentialTestsOnPostgreSQL/testListAndShowPrintEachValueAsFetchCSVDoes",
]

CASE = re.compile(r"^Test Case '(?:[\w.]+\.)?(\w+)\.(\w+)' (passed|failed|skipped) \(([0-9.]+) seconds\)")


def list_tests(binary):
    out = subprocess.run([binary, "--list-tests"], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if re.match(r"^\w+\.\w+/\w+$", line.strip())]


def matches(test, names):
    cls = test.split("/")[0]
    return test in names or cls in names


class Job:
    def __init__(self, label, tests):
        self.label = label          # what the job runs: a class, or Class/method
        self.tests = tests          # the full names it must report
        self.results = {}           # "Class.method" -> (status, seconds)
        self.wall = 0.0
        self.status = None
        self.log = None
        self.arg = ",".join(tests)  # the test binary's argument: a comma-separated list of Class or Class/method

    def run(self, binary, env, log_dir):
        self.log = os.path.join(log_dir, self.label.replace("/", ".") + ".log")
        start = time.monotonic()
        with open(self.log, "wb") as log:
            process = subprocess.run([binary, self.arg], stdout=log, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL)
        self.wall = time.monotonic() - start
        self.status = process.returncode
        with open(self.log, encoding="utf-8", errors="replace") as log:
            for line in log:
                m = CASE.match(line)
                if m:
                    self.results[f"{m.group(1)}.{m.group(2)}"] = (m.group(3), float(m.group(4)))


def make_jobs(tests, everything, each_test, group):
    """Groups tests into jobs: one per class (or per test with each_test), in the order listed."""
    jobs = []
    by_class = {}
    for test in tests:
        by_class.setdefault(test.split("/")[0], []).append(test)
    for cls, members in by_class.items():
        units = [[t] for t in members] if each_test else [members]
        for unit in units:
            whole = not each_test and len(unit) == sum(1 for t in everything if t.split("/")[0] == cls)
            # A class split between the groups is named after its group, so that each part keeps its own log.
            job = Job(unit[0] if each_test else cls if whole else f"{cls}+{group}", unit)
            if whole:
                job.arg = cls       # the whole class (a shorter argument, and XCTest's own order)
            jobs.append(job)
    return jobs


def short(test):
    module_class, method = test.split("/")
    return module_class.split(".")[-1] + "." + method


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tier", choices=["quick", "install", "stress", "postgresql"], default="quick")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("TEST_JOBS", "0")) or (os.cpu_count() or 2) + 2)
    parser.add_argument("--order", choices=["forward", "reverse", "shuffle"], default="forward")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--each-test", action="store_true", help="one process per test method")
    parser.add_argument("--filter", action="append", default=None,
                        help="only tests whose name contains this (repeat it for any of several)")
    parser.add_argument("--scratch", default=".build")
    parser.add_argument("--log-dir", default="out/test-logs")
    args = parser.parse_args()

    binary = os.path.join(args.scratch, "debug", "BookkeeperPackageTests.xctest")
    if not os.path.exists(binary):
        sys.exit(f"run-tests: {binary} is not built (swift build --build-tests)")
    everything = list_tests(binary)
    if args.tier == "install":
        selected = [t for t in everything if matches(t, INSTALL)]
    elif args.tier == "stress":
        selected = [t for t in everything if matches(t, STRESS)]
    elif args.tier == "postgresql":
        selected = [t for t in everything if matches(t, POSTGRESQL)]
    else:
        selected = [t for t in everything if not matches(t, INSTALL) and not matches(t, POSTGRESQL)]
    if args.filter:
        selected = [t for t in selected if any(f in t for f in args.filter)]
    if not selected:
        sys.exit("run-tests: no test selected")

    if args.tier == "stress":
        serial, parallel = selected, []
    else:
        serial = [t for t in selected if matches(t, SERIAL)]
        parallel = [t for t in selected if not matches(t, SERIAL)]
    parallel_jobs = make_jobs(parallel, everything, args.each_test, "parallel")
    serial_jobs = make_jobs(serial, everything, args.each_test, "serial")

    # Longest first (from the last run's times, kept in the build folder), so that the long jobs do not start last.
    # A clean clone starts from the times committed beside this script (scripts/test-times.json, refreshed now and
    # then from a run's): without them the longest jobs started wherever the list put them, and ran on alone at the end.
    times_path = os.path.join(args.scratch, "test-times.json")
    known = {}
    for path in (os.path.join(os.path.dirname(os.path.abspath(__file__)), "test-times.json"), times_path):
        try:
            with open(path) as f:
                known.update(json.load(f))
        except (OSError, ValueError):
            pass
    seed = args.seed if args.seed is not None else int(os.environ.get("TEST_ORDER_SEED", "1"))
    if args.order == "forward":
        parallel_jobs.sort(key=lambda j: -known.get(j.label, 0))
    elif args.order == "reverse":
        parallel_jobs.reverse()
        serial_jobs.reverse()
    else:
        rng = random.Random(seed)
        rng.shuffle(parallel_jobs)
        rng.shuffle(serial_jobs)

    log_dir = args.log_dir
    shutil.rmtree(log_dir, ignore_errors=True)
    os.makedirs(log_dir, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="bookkeeper-test-cache-")
    env = dict(os.environ)
    env["BOOKKEEPER_TEST_CACHE"] = cache
    env["BOOKKEEPER_TEST_TIER"] = "stress" if args.tier == "stress" else "quick"
    order = args.order + (f" (seed {seed})" if args.order == "shuffle" else "")
    print(f"run-tests: {args.tier} tier, {len(selected)} tests: {len(parallel_jobs)} jobs {args.jobs} at a time, "
          f"then {len(serial_jobs)} serial jobs; order {order}; logs in {log_dir}/", flush=True)

    failed_jobs = []
    lock = threading.Lock()

    def finish(job, serial):
        missing = [t for t in job.tests if short(t) not in job.results]
        bad = [name for name, (status, _) in job.results.items() if status == "failed"]
        with lock:
            if serial and not (bad or missing or job.status != 0):
                print(f"  ok {job.label} ({job.wall:.1f} s)", flush=True)
            if bad or missing or job.status != 0:
                failed_jobs.append(job)
                reason = f"exit {job.status}" + (f", {len(missing)} tests never reported (a crash?)" if missing else "")
                print(f"FAILED {job.label} ({reason}): {', '.join(bad) if bad else ''}", flush=True)
                with open(job.log, encoding="utf-8", errors="replace") as log:
                    text = log.read()
                # The failures' lines, or the whole log's end when the process died.
                lines = [l for l in text.splitlines() if ": error: " in l or " failed (" in l]
                print("\n".join(lines[:60]) if lines and not missing else text[-6000:], flush=True)

    def run_group(jobs, width, serial=False):
        start = time.monotonic()
        pending = list(jobs)
        running = []
        while pending or running:
            while pending and len(running) < width:
                job = pending.pop(0)
                thread = threading.Thread(target=lambda j=job: (j.run(binary, env, log_dir), finish(j, serial)))
                thread.start()
                running.append(thread)
            running[0].join(0.05) if running else None
            running = [t for t in running if t.is_alive()]
        return time.monotonic() - start

    try:
        parallel_wall = run_group(parallel_jobs, args.jobs)
        serial_wall = run_group(serial_jobs, 1, serial=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    jobs = parallel_jobs + serial_jobs
    results = {}
    for job in jobs:
        results.update(job.results)
        known[job.label] = job.wall
    try:
        with open(times_path, "w") as f:
            json.dump(known, f, indent=0, sort_keys=True)
    except OSError:
        pass

    print("\nThe ten slowest tests:")
    for name, (status, seconds) in sorted(results.items(), key=lambda kv: -kv[1][1])[:10]:
        print(f"  {seconds:7.2f} s  {name}" + ("" if status == "passed" else f" ({status})"))
    test_time = sum(s for _, s in results.values())
    print(f"\nTier {args.tier}: parallel group {parallel_wall:.1f} s wall ({len(parallel_jobs)} jobs, {args.jobs} at a time), "
          f"serial group {serial_wall:.1f} s wall ({len(serial_jobs)} jobs); {test_time:.1f} s of tests in all")
    trials = []
    for job in jobs:
        with open(job.log, encoding="utf-8", errors="replace") as log:
            trials += [line.rstrip("\n") for line in log if line.startswith("trials: ")]
    if trials:
        print("Trial loops (Tests/TestSupport/Trials.swift):")
        for line in trials:
            print("  " + line[len("trials: "):])

    passed = sum(1 for s, _ in results.values() if s == "passed")
    failed = sum(1 for s, _ in results.values() if s == "failed")
    skipped = sum(1 for s, _ in results.values() if s == "skipped")
    never = sum(len([t for t in job.tests if short(t) not in job.results]) for job in jobs)
    skipped_names = sorted(n for n, (s, _) in results.items() if s == "skipped")
    if skipped_names:
        print("Skipped (each says why in its log): " + ", ".join(skipped_names))
    if failed_jobs:
        print("Failed jobs: " + ", ".join(j.label for j in failed_jobs) + f" (logs in {log_dir}/)")
    print(f"{passed} passed, {failed + never} failed, {skipped} skipped")
    return 1 if failed_jobs else 0


if __name__ == "__main__":
    sys.exit(main())
