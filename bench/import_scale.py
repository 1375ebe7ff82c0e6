#!/usr/bin/env python3
"""make bench-scale, import part (issue 24 §2): every import path a user's file can grow along doubles in time at most
2.3 times per doubling of its lines.

Paths, each on a fresh copy of a store with the sample directories and a model giving OrderRow a unique `line`:
- documents with their rows in one file, spread (an export sorted by line ID: a document's lines far apart);
- a row table on its own, spread the same way (its documents imported first);
- --on-error skip where one document in four fails on its last line, after its earlier lines were kept
  (read twice: once to learn them all, once to reject them whole);
- documents read from a named pipe (read once, as standard input);
- a `;` file whose quantity column shows its decimal mark only on its last line (read twice);
- customers stored in NFC imported again typed in NFD (each matched through the normal-form map).

Each time is the median of RUNS runs (default 3) of the import alone (the store copied before each). The bench
prints every time and the ratio per doubling, (t(largest) / t(smallest)) ** (1 / doublings), and fails above 2.3.
"""
import os, shutil, statistics, subprocess, sys, threading, time
from pathlib import Path

BIN = os.environ.get("BIN", ".build/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "bench/work")) / "import-scale"
RUNS = int(os.environ.get("RUNS", "3"))
SIZES = [int(s) for s in os.environ.get("IMPORT_SCALE_SIZES", "20000,40000,80000").split(",")]
LIMIT = 2.3
MODEL = "entities:\n  OrderRow:\n    attributes:\n      line: { type: integer, unique: true }\n"
SAMPLE = Path("SampleData")


def bk(store, *args, check=True):
    r = subprocess.run([BIN, "--store", str(store), "--model", str(WORK / "model.yaml"), *args],
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr[-400:]}")
    return r


def base_store():
    store = WORK / "base.sqlite"
    if store.exists():
        return store
    bk(store, "init")
    for entity, name in [("Tag", "tags"), ("Service", "services"), ("Customer", "customers")]:
        bk(store, "import", entity, str(SAMPLE / f"{name}.csv"), "--profile", str(SAMPLE / f"{name}.yaml"), "--quiet")
    return store


def spread(n, docs, bad=lambda i, d: False, delimiter=",", quantity=lambda i: str(1 + i % 5)):
    """n lines of documents O-d (d = i % docs), in line-ID order: a document's lines are docs lines apart."""
    rows = []
    for i in range(n):
        d = i % docs
        q = "x" if bad(i, d) else quantity(i)
        rows.append(delimiter.join([f"O-{d:06d}", "2025-01-01", "Acme Ltd", "yes", "no", str(i + 1), "Repair", q, "2.50"]))
    header = delimiter.join(["number", "date", "customer", "made", "paid", "rows.line", "rows.service", "rows.quantity", "rows.price"])
    return header + "\n" + "\n".join(rows) + "\n"


def timed(store, args, feed=None):
    copy = WORK / "run.sqlite"
    for suffix in ["", "-wal", "-shm"]:
        Path(str(copy) + suffix).unlink(missing_ok=True)
    shutil.copy(store, copy)
    writer = None
    if feed is not None:
        pipe, text = feed
        pipe.unlink(missing_ok=True)
        os.mkfifo(pipe)
        writer = threading.Thread(target=lambda: pipe.write_text(text))
        writer.start()
    start = time.perf_counter()
    r = bk(copy, *args, check=False)
    elapsed = time.perf_counter() - start
    if writer:
        writer.join()
    return elapsed, r


def path_bench(label, make, expect):
    """make(n) -> (store, args, feed); expect(n, result) checks the outcome. Returns whether the ratio is within LIMIT."""
    times = []
    for n in SIZES:
        runs = []
        for _ in range(RUNS):
            store, args, feed = make(n)
            t, r = timed(store, args, feed)
            problem = expect(n, r)
            if problem:
                sys.exit(f"{label}, {n:,} lines: {problem}\n{r.stderr[-600:]}")
            runs.append(t)
        times.append(statistics.median(runs))
    doublings = max(1, round(__import__("math").log2(SIZES[-1] / SIZES[0])))
    ratio = (times[-1] / times[0]) ** (1 / doublings)
    shown = "  ".join(f"{n // 1000}k {t:6.2f} s" for n, t in zip(SIZES, times))
    verdict = "ok" if ratio <= LIMIT else f"ABOVE {LIMIT}"
    print(f"  {label:<44} {shown}   x{ratio:.2f} per doubling ({verdict})")
    return ratio <= LIMIT


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "model.yaml").write_text(MODEL)
    base = base_store()
    files = {}

    def file(name, text):
        path = WORK / name
        if files.get(name) != len(text):
            path.write_text(text)
            files[name] = len(text)
        return path

    def ok(n, r):
        return None if r.returncode == 0 else f"exit {r.returncode}"

    ok_all = True
    print(f"import paths, median of {RUNS} runs; lines {', '.join(f'{n:,}' for n in SIZES)}")

    def documents(n):
        return base, ["import", "Order", str(file(f"docs-{n}.csv", spread(n, n // 4))), "--quiet"], None
    ok_all &= path_bench("documents with keyed rows, spread", documents, ok)

    stores = {}

    def rows(n):
        if n not in stores:
            store = WORK / f"orders-{n}.sqlite"
            if not store.exists():
                shutil.copy(base, store)
                own = "number,date,customer,made,paid\n" + "".join(f"O-{d:06d},2025-01-01,Acme Ltd,yes,no\n" for d in range(n // 4))
                bk(store, "import", "Order", str(file(f"own-{n}.csv", own)), "--quiet")
            stores[n] = store
        text = "line,order,service,quantity,price\n" + "".join(
            f"{i + 1},O-{i % (n // 4):06d},Repair,{1 + i % 5},2.50\n" for i in range(n))
        return stores[n], ["import", "OrderRow", str(file(f"rows-{n}.csv", text)), "--map", "order=order.number",
                           "--map", "service=service.name", "--quiet"], None
    ok_all &= path_bench("a row table with keyed rows, spread", rows, ok)

    def late(n):
        docs = n // 4
        # A document's last line is at i >= 3 * docs: one in four documents fails there.
        text = spread(n, docs, bad=lambda i, d: i >= 3 * docs and d % 4 == 0)
        return base, ["import", "Order", str(file(f"late-{n}.csv", text)), "--on-error", "skip", "--summary", "json"], None

    def late_expect(n, r):
        if r.returncode != 65:
            return f"exit {r.returncode}, expected 65"
        if '"passes":2' not in r.stdout:
            return "not read exactly twice"
        return None
    ok_all &= path_bench("--on-error skip, 1 in 4 documents failing late", late, late_expect)

    def fifo(n):
        text = spread(n, n // 4)
        text = text.splitlines(keepends=True)
        body = sorted(text[1:], key=lambda line: line.split(",")[0])   # documents together: a pipe cannot be read again
        return base, ["import", "Order", str(WORK / "orders.pipe"), "--quiet"], (WORK / "orders.pipe", text[0] + "".join(body))
    ok_all &= path_bench("documents from a named pipe", fifo, ok)

    def marks(n):
        text = spread(n, n // 4, delimiter=";", quantity=lambda i: "1.250" if i < n - 1 else "2.25")
        return base, ["import", "Order", str(file(f"marks-{n}.csv", text)), "--summary", "json"], None

    def marks_expect(n, r):
        if r.returncode != 0:
            return f"exit {r.returncode}"
        return None if '"passes":2' in r.stdout else "not read exactly twice"
    ok_all &= path_bench("a decimal mark shown on the last line only", marks, marks_expect)

    nfd_stores = {}

    def nfd(n):
        # Customers stored in NFC, imported again typed in NFD (as macOS writes): every key is matched through the
        # normal-form map, none is a new customer.
        import unicodedata
        names = [f"Café Olé {i} Žluťoučký" for i in range(n)]
        if n not in nfd_stores:
            store = WORK / f"nfc-{n}.sqlite"
            if not store.exists():
                shutil.copy(base, store)
                text = "name,info\n" + "".join(f"{unicodedata.normalize('NFC', x)},a\n" for x in names)
                bk(store, "import", "Customer", str(file(f"nfc-{n}.csv", text)), "--quiet")
            nfd_stores[n] = store
        text = "name,info\n" + "".join(f"{unicodedata.normalize('NFD', x)},b\n" for x in names)
        return nfd_stores[n], ["import", "Customer", str(file(f"nfd-{n}.csv", text)), "--summary", "json"], None

    def nfd_expect(n, r):
        if r.returncode != 0:
            return f"exit {r.returncode}"
        return None if '"inserted":0' in r.stdout else "an NFD name made a new customer"
    ok_all &= path_bench("directory keys typed in NFD, stored in NFC", nfd, nfd_expect)

    if not ok_all:
        sys.exit(f"an import path grew faster than {LIMIT}x per doubling")


main()
