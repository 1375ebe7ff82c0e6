#!/usr/bin/env python3
"""make bench, scale part (issue 15 §4): how the time of an IN list and of repeated options grows with their size.

- An `IN {…}` list of 10,000 to 100,000 order numbers (one in ten matching) in a report definition, run as CSV
  on the fetch bench's store (200,000 orders). The list is bound as one value; the time should grow linearly:
  the bench prints each time, the time per 10,000 values, and t(100,000) / t(10,000) against 10x.
- 1,000 to 8,000 repeated `--where` (fetch --explain: parsed, bound and compiled to SQL) and `--null` (import
  --dry-run of a two-line file) options: taken in one pass, so the
  time should also grow linearly (argument-parser alone grew as n^2: 2,000 --map took 6.8 s).

Each figure is the median of RUNS runs (default 3).
"""
import os, statistics, subprocess, sys, time
from pathlib import Path

from benchlib import bench_store, median_run

BIN = os.environ.get("BIN", ".build/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "bench/work"))
RUNS = int(os.environ.get("RUNS", "3"))
STORE = WORK / "fetch-200k.sqlite"


def in_list(n):
    """A definition with n values, every tenth an existing order number; returns its path and expected matches."""
    values = [f"'O-{(i * 2 + 1):06d}'" if i % 10 == 0 else f"'X-{i}'" for i in range(n)]
    path = WORK / f"in-list-{n}.yaml"
    path.write_text("title: IN list bench\nentity: Order\n"
                    f"where: number IN {{{', '.join(values)}}}\ncolumns: [number]\n")
    return path, sum(1 for i in range(n) if i % 10 == 0 and i * 2 + 1 <= 200000)


def linearity(label, sizes, times, unit):
    base_n, base_t = sizes[0], times[0]
    for n, t in zip(sizes, times):
        print(f"  {label} {n:>7,}  {t:7.3f} s   {t / n * unit * 1000:7.2f} ms per {unit:,}")
    growth = times[-1] / base_t
    expected = sizes[-1] / base_n
    verdict = "linear" if growth <= expected * 1.3 else "FASTER THAN LINEAR"
    print(f"  {sizes[-1]:,} / {base_n:,}: time x{growth:.1f} for x{expected:.0f} the size ({verdict})")
    return growth <= expected * 1.3


def main():
    bench_store(BIN, STORE)
    ok = True
    print(f"IN list in a report definition, on 200,000 orders; median of {RUNS} runs")
    sizes, times = [10_000, 25_000, 50_000, 100_000], []
    for n in sizes:
        path, expected = in_list(n)
        out = subprocess.run([BIN, "--store", str(STORE), "report", str(path), "--format", "csv"], check=True,
                             capture_output=True, text=True).stdout
        if out.count("\n") - 1 != expected:
            sys.exit(f"IN list of {n}: {out.count(chr(10)) - 1} rows, expected {expected}")
        t, _ = median_run([BIN, "--store", str(STORE), "report", str(path), "--format", "csv"], WORK, RUNS)
        times.append(t)
    ok &= linearity("values", sizes, times, 10_000)

    print(f"repeated options; median of {RUNS} runs")
    sizes = [1_000, 2_000, 4_000, 8_000]
    times = []
    for n in sizes:
        # --explain: parsed, bound and compiled, not run (running 8,000 conditions on 200,000 orders is SQLite's time).
        args = [BIN, "--store", str(STORE), "fetch", "Order", "--count", "--explain"]
        for i in range(n):
            args += ["--where", f"number != 'x{i}'"]
        times.append(median_run(args, WORK, RUNS)[0])
    ok &= linearity("--where", sizes, times, 1_000)
    csv = WORK / "two-columns.csv"
    csv.write_text("Name,Code\nZed,Z1\n")
    times = []
    for n in sizes:
        args = [BIN, "--store", str(STORE), "import", "Customer", str(csv), "--dry-run", "--map", "Name=name", "--map", "Code=code"]
        for i in range(n):
            args += ["--null", f"NULL{i}"]
        times.append(median_run(args, WORK, RUNS)[0])
    ok &= linearity("--null ", sizes, times, 1_000)
    if not ok:
        sys.exit("a time grew faster than linearly")


main()
