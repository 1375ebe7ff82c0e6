#!/usr/bin/env python3
"""Runs each libFuzzer target of Fuzz/ for a bounded time and prints what it tried (`make fuzz`).

Environment: BIN_DIR (the built targets), FUZZ_SECONDS (per target, default 60), FUZZ_TARGETS (default all),
FUZZ_JOBS (parallel workers per target, default 1).

Each target starts from a seed corpus (SampleData/, Reports/, ../shared/datasets/csv-spectrum, Fuzz/Corpus/)
and keeps what it finds in Fuzz/.corpus/<target> (git-ignored), so later runs go deeper. A crash (or a
timeout, or running out of memory) is copied to Tests/FuzzRegressionTests/Inputs/<target>/, which the normal
test suite replays; the script then exits 1.
"""
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "Fuzz")
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "datasets")

# target executable, input folder name, maximum input length, seconds before an input is a timeout, memory limit
# (MB). The shape targets build megabyte predicates by design: 65,536 terms take 10–15 s and over 2 GB to bind and
# compile under AddressSanitizer, and 1 s and 250 MB without (linear: 32,768 terms 132 MB).
TARGETS = [
    ("FuzzCSV", "csv", 8192, 10, 2048),
    ("FuzzPredicate", "predicate", 512, 10, 2048),
    ("FuzzPredicateShape", "predicate-shape", 64, 40, 6144),
    ("FuzzReportDefinition", "report-definition", 4096, 10, 2048),
    ("FuzzDefinitionShape", "definition-shape", 64, 40, 6144),
]


def files(folder, extension=None):
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n != "README.md" and (extension is None or n.endswith(extension)))


def seeds(kind):
    """(name, bytes) of the seed inputs of one target."""
    if kind == "csv":
        # The harness reads the first byte as the reader's options: each file behind a few of them.
        sources = files(os.path.join(ROOT, "SampleData"), ".csv") + files(os.path.join(FUZZ, "Corpus", "csv"))
        sources += files(os.path.join(SHARED, "csv-spectrum", "csvs"))
        for path in sources:
            data = open(path, "rb").read()[:8000]
            for selector in (0x00, 0x21, 0x4A, 0x93):
                yield "%s-%02x" % (os.path.basename(path), selector), bytes([selector]) + data
    elif kind == "predicate-shape":
        # Shape byte, size (two bytes, big-endian), then the words: each shape at the nesting limit and past it.
        for shape in range(11):
            for size in (0, 5, 24, 25, 300, 5000):
                yield "shape%d-%d" % (shape, size), bytes([shape, size >> 8, size & 255, 0, 3, 5])
    elif kind == "definition-shape":
        # Container byte (report where, columns, sort; model rule, sort), shape byte, size (two bytes), words.
        for container in range(5):
            for shape in range(11):
                for size in (0, 24, 25, 3000):
                    yield "c%d-shape%d-%d" % (container, shape, size), bytes([container, shape, size >> 8, size & 255, 8, 9, 3])
    elif kind == "predicate":
        for path in files(os.path.join(FUZZ, "Corpus", "predicate")):
            yield os.path.basename(path), open(path, "rb").read()
    else:
        for path in files(os.path.join(ROOT, "Reports"), ".yaml") + files(os.path.join(FUZZ, "Corpus", "report-definition")):
            yield os.path.basename(path), open(path, "rb").read()
    for path in files(os.path.join(ROOT, "Tests", "FuzzRegressionTests", "Inputs", kind)):
        yield "regression-" + os.path.basename(path), open(path, "rb").read()


def main():
    bin_dir = os.environ.get("BIN_DIR", os.path.join(FUZZ, ".build", "debug"))
    seconds = int(os.environ.get("FUZZ_SECONDS", "60"))
    wanted = os.environ.get("FUZZ_TARGETS", "").split()
    jobs = int(os.environ.get("FUZZ_JOBS", "1"))
    total_crashes = 0
    rows = []
    for target, kind, max_len, timeout, rss in TARGETS:
        if wanted and target not in wanted and kind not in wanted:
            continue
        corpus = os.path.join(FUZZ, ".corpus", kind)
        os.makedirs(corpus, exist_ok=True)
        seed_count = 0
        for name, data in seeds(kind):
            with open(os.path.join(corpus, "seed-" + name), "wb") as f:
                f.write(data)
            seed_count += 1
        artifacts = os.path.join(FUZZ, ".artifacts", kind)
        shutil.rmtree(artifacts, ignore_errors=True)
        os.makedirs(artifacts)
        dictionary = os.path.join(FUZZ, "Dictionaries", kind + ".dict")
        command = [os.path.join(bin_dir, target), corpus,
                   "-max_total_time=%d" % seconds, "-max_len=%d" % max_len, "-timeout=%d" % timeout, "-rss_limit_mb=%d" % rss,
                   "-print_final_stats=1", "-artifact_prefix=" + artifacts + "/"]
        if jobs > 1:
            command += ["-fork=%d" % jobs, "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
        if os.path.exists(dictionary):
            command.append("-dict=" + dictionary)
        print("== %s: %d s, %d seeds + %d inputs kept from earlier runs, max %d bytes"
              % (target, seconds, seed_count, len(os.listdir(corpus)) - seed_count, max_len), flush=True)
        started = time.time()
        log_path = os.path.join(FUZZ, ".artifacts", kind + ".log")
        with open(log_path, "w") as log:
            status = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT,
                                     env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
        elapsed = time.time() - started
        text = open(log_path, errors="replace").read()
        stat = {k: int(v) for k, v in re.findall(r"stat::(\w+):\s+(\d+)", text)}
        executions = stat.get("number_of_executed_units")
        if executions is None:
            # fork mode prints progress lines only: take the last "#N" count.
            counts = re.findall(r"^#(\d+)", text, re.M)
            executions = int(counts[-1]) if counts else 0
        coverage = re.findall(r"cov: (\d+)", text)
        crashes = sorted(n for n in os.listdir(artifacts) if re.match(r"(crash|timeout|oom|leak|slow-unit)-", n))
        saved = []
        for name in crashes:
            if name.startswith("slow-unit-"):
                continue
            destination = os.path.join(ROOT, "Tests", "FuzzRegressionTests", "Inputs", kind, name)
            shutil.copy(os.path.join(artifacts, name), destination)
            saved.append(os.path.relpath(destination, ROOT))
        total_crashes += len(saved)
        rows.append((target, executions, elapsed, coverage[-1] if coverage else "?", len(os.listdir(corpus)), len(saved)))
        print("   %s executions in %.0f s (%.0f/s), coverage %s edges, corpus %d inputs, exit %d, crashes found: %d"
              % (format(executions, ","), elapsed, executions / max(elapsed, 1), rows[-1][3], rows[-1][4], status, len(saved)),
              flush=True)
        for path in saved:
            print("   crash saved as %s (log: %s)" % (path, os.path.relpath(log_path, ROOT)))
            for line in text.splitlines():
                if "Fatal error" in line or "ERROR: AddressSanitizer" in line or "ERROR: libFuzzer" in line:
                    print("     " + line.strip())
                    break
        if status != 0 and not saved:
            print("   the fuzzer failed without a crash file; see %s" % os.path.relpath(log_path, ROOT))
            total_crashes += 1
    print("fuzz: %d targets, %s executions in all, crashes found: %d"
          % (len(rows), format(sum(r[1] for r in rows), ","), total_crashes))
    return 1 if total_crashes else 0


if __name__ == "__main__":
    sys.exit(main())
