#!/usr/bin/env python3
"""make bench, import part: `bookkeeper import Order FILE --create-missing` of a generated 1,000,000-line
orders-with-rows CSV (200,000 orders, 20,000 customers, 500 services) into an empty store, against
`sqlite3`'s own `.import` of the same file into one untyped table (WAL, synchronous=NORMAL), in the same run.

Prints each command's median wall time over RUNS runs, peak memory (/usr/bin/time's maximum resident set),
rows per second and the ratio (targets: ratio at most 1.5, peak memory under 100 MiB); then BIG_RUNS imports of a
10,000,000-line file (BIG=0 skips them), each followed at once by a 1M import, and the median of the pairs' ratios
checked against 11. (The machine is shared and its speed drifts over minutes: the same 10M import took 13.6 s to
20.2 s within an hour, so each 10M run is compared with a 1M run taken right after it, under the same load.)
With REF_BIG=1 (the default) each pair is followed by the same pair of `sqlite3 .import` runs, whose median ratio
is how a raw bulk load into one table without indexes scales on this machine: the reference for the 11x target.

Then (ENC=0 skips it; ENC_ONLY=1 runs only it) the encoding part (issue 16): the same 1,000,000 lines with Cyrillic
customer and service names on every line, once in UTF-8 and once in Windows-1251 (the same text), each imported
with `auto` in ENC_RUNS alternating pairs; the median of the pairs' ratios (Windows-1251 / UTF-8) is checked
against 1.1: the code page's table and `auto`'s guess must cost next to nothing.
"""
import os, re, statistics, subprocess, sys
from pathlib import Path

BIN = os.environ.get("BIN", ".build-bench-import/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "bench/work"))
RUNS = int(os.environ.get("RUNS", "3"))
LINES = int(os.environ.get("LINES", "1000000"))
BIG = int(os.environ.get("BIG", "10000000"))
BIG_RUNS = int(os.environ.get("BIG_RUNS", "5"))
REF_BIG = int(os.environ.get("REF_BIG", "1"))
ENC = int(os.environ.get("ENC", "1"))
ENC_ONLY = int(os.environ.get("ENC_ONLY", "0"))
ENC_RUNS = int(os.environ.get("ENC_RUNS", "5"))
HERE = Path(__file__).parent


def data(lines):
    path = WORK / f"orders-{lines}.csv"
    if not path.exists():
        print(f"generating {path} ({lines:,} lines)", flush=True)
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(lines), str(path)], check=True)
    return path


def timed(argv, stdin=None):
    """(seconds, peak KiB) of one run, from /usr/bin/time."""
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + argv, stdin=stdin, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    m = re.search(r"TIME ([\d.]+) (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"failed: {' '.join(argv)}\n{r.stderr}")
    return float(m.group(1)), int(m.group(2))


def warm(path):
    """Reads the file once, so that the run after it reads from the page cache as the 1M imports do (each comes
    right after `sqlite3` read the same file). This machine pages out what was not touched for half a minute."""
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def fresh(path):
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def sqlite_import(csv):
    db = WORK / "sqlite-import.db"
    fresh(db)
    script = WORK / "sqlite-import.sql"
    script.write_text("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n"
                      "CREATE TABLE t(number, date, customer, made, paid, \"rows.service\", \"rows.sum\");\n"
                      f".import --csv --skip 1 {csv} t\n")
    with open(script) as f:
        return timed(["sqlite3", str(db)], stdin=f)


def bookkeeper_import(csv):
    store = WORK / "bookkeeper-import.sqlite"
    fresh(store)
    subprocess.run([BIN, "--store", str(store), "init"], check=True, stdout=subprocess.DEVNULL)
    result = timed([BIN, "--store", str(store), "import", "Order", str(csv), "--create-missing", "--quiet"])
    counts = subprocess.run(["sqlite3", str(store), "SELECT (SELECT count(*) FROM \"Order\") || ' orders, ' || "
                             "(SELECT count(*) FROM OrderRow) || ' rows, ' || (SELECT count(*) FROM Customer) || "
                             "' customers, ' || (SELECT count(*) FROM Service) || ' services'"],
                            capture_output=True, text=True).stdout.strip()
    return result, counts


def cyrillic(lines):
    """The bench file with Cyrillic names on every line, in UTF-8 and in Windows-1251 (the same text)."""
    src = data(lines)
    utf8 = WORK / f"orders-{lines}-cyrillic-utf8.csv"
    cp1251 = WORK / f"orders-{lines}-cyrillic-windows-1251.csv"
    if not (utf8.exists() and cp1251.exists()):
        print(f"generating {utf8} and {cp1251}", flush=True)
        text = src.read_text(encoding="utf-8")
        text = text.replace("Customer ", "ООО Ромашка и Лютик ").replace("Service ", "Доставка груза ")
        utf8.write_bytes(text.encode("utf-8"))
        cp1251.write_bytes(text.encode("cp1251"))
    return utf8, cp1251


def encoding_part():
    utf8, cp1251 = cyrillic(LINES)
    print(f"encodings: {LINES:,} lines with Cyrillic names on each ({utf8.stat().st_size / 1e6:.0f} MB in UTF-8, "
          f"{cp1251.stat().st_size / 1e6:.0f} MB in Windows-1251), {ENC_RUNS} alternating pairs, --encoding auto")
    pairs = []
    for _ in range(ENC_RUNS):
        warm(utf8)
        (u, _), counts = bookkeeper_import(utf8)
        warm(cp1251)
        (w, m), counts1251 = bookkeeper_import(cp1251)
        if counts1251 != counts:
            sys.exit(f"the two files gave different stores: {counts} / {counts1251}")
        pairs.append((w, u, m))
    ratio = statistics.median(w / u for w, u, _ in pairs)
    print(f"  UTF-8 median {statistics.median(u for _, u, _ in pairs):.2f} s, Windows-1251 median "
          f"{statistics.median(w for w, _, _ in pairs):.2f} s ({max(m for *_, m in pairs) / 1024:.1f} MiB peak); {counts}")
    print("  pairs (Windows-1251 s / UTF-8 s = ratio): " + ", ".join(f"{w:.2f}/{u:.2f} = {w / u:.2f}" for w, u, _ in pairs))
    print(f"  median ratio {ratio:.2f} (target at most 1.1: {'met' if ratio <= 1.1 else 'NOT met'})")


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    if ENC_ONLY:
        encoding_part()
        return
    csv = data(LINES)
    size = csv.stat().st_size
    print(f"input: {csv} ({LINES:,} lines, {size / 1e6:.0f} MB); {RUNS} runs each, alternating; median")
    sq, bk = [], []
    counts = ""
    for _ in range(RUNS):
        sq.append(sqlite_import(csv))
        r, counts = bookkeeper_import(csv)
        bk.append(r)
    sq_t = statistics.median(t for t, _ in sq)
    bk_t = statistics.median(t for t, _ in bk)
    bk_mem = max(m for _, m in bk) / 1024
    ratio = bk_t / sq_t
    print(f"  sqlite3 .import (one untyped table)     {sq_t:6.2f} s  {max(m for _, m in sq) / 1024:6.1f} MiB peak  {LINES / sq_t:>10,.0f} rows/s")
    print(f"  bookkeeper import Order --create-missing {bk_t:6.2f} s  {bk_mem:6.1f} MiB peak  {LINES / bk_t:>10,.0f} rows/s")
    print(f"  store after import: {counts}")
    print(f"  ratio {ratio:.2f} (target at most 1.5: {'met' if ratio <= 1.5 else 'NOT met'}); "
          f"peak memory {bk_mem:.1f} MiB (target under 100: {'met' if bk_mem < 100 else 'NOT met'})")
    if BIG:
        big = data(BIG)
        pairs, ref_pairs = [], []
        for _ in range(BIG_RUNS):
            warm(big)
            (t, m), big_counts = bookkeeper_import(big)
            warm(csv)
            (t1, _), _ = bookkeeper_import(csv)
            pairs.append((t, t1, m))
            if REF_BIG:
                warm(big)
                s, _ = sqlite_import(big)
                warm(csv)
                s1, _ = sqlite_import(csv)
                ref_pairs.append((s, s1))
        t = statistics.median(p[0] for p in pairs)
        m = max(p[2] for p in pairs)
        ratios = [p[0] / p[1] for p in pairs]
        ratio = statistics.median(ratios)
        print(f"  {BIG:,} lines, {BIG_RUNS} runs, each followed by a {LINES:,}-line one: median {t:.2f} s, "
              f"{m / 1024:.1f} MiB peak, {BIG / t:,.0f} rows/s; {big_counts}")
        print("  pairs (10M s / 1M s = ratio): " + ", ".join(f"{a:.2f}/{b:.2f} = {a / b:.1f}" for a, b, _ in pairs))
        print(f"  median ratio {ratio:.1f}x the {LINES:,}-line time (target within {BIG // LINES * 1.1:.0f}x: "
              f"{'met' if ratio <= BIG / LINES * 1.1 else 'NOT met'})")
        if ref_pairs:
            ref = statistics.median(a / b for a, b in ref_pairs)
            print(f"  reference, sqlite3 .import of the same two files after each pair: median "
                  f"{statistics.median(a for a, _ in ref_pairs):.2f} s for {BIG:,} lines")
            print("  its pairs: " + ", ".join(f"{a:.2f}/{b:.2f} = {a / b:.1f}" for a, b in ref_pairs))
            print(f"  its median ratio {ref:.1f}x: how a raw bulk load scales on this machine "
                  f"(bookkeeper's is {ratio / ref:.2f} of it)")
    if ENC:
        encoding_part()

if __name__ == "__main__":
    main()
