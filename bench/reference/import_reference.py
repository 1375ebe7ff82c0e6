#!/usr/bin/env python3
"""The import reference candidates (issue 27), on the bench's 1,000,000-line orders file in both file orders:
`bookkeeper import Order --create-missing` into an empty store, against
- the plain store loaded by hand (load_plain.sql: .import into a staging table, INSERT ... SELECT into customer,
  service, "order" and row, the two indexes, ANALYZE) — what a user would do to get the same data into tables;
- `sqlite3`'s .import into one untyped table (WAL, synchronous=NORMAL): the import bench's reference today, the
  raw floor of reading the file into SQLite.
RUNS rounds, one run of each per round (so all see the same load); medians (best), peak memory, ratios.

    BIN=.build-release/release/bookkeeper WORK=out/bench RUNS=3 python3 bench/reference/import_reference.py
"""
import os, statistics
from pathlib import Path

from stores import ORDERS, bookkeeper_import, load_plain, orders_file, raw_import, verdict

BIN = os.environ.get("BIN", ".build-release/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "out/bench"))
RUNS = int(os.environ.get("RUNS", "3"))
TARGET = 1.05  # issue 27: at most 1.05x raw `sqlite3 .import`


def main():
    print(f"import: the 1,000,000-line orders file, both file orders; median (best) of {RUNS} rounds", flush=True)
    for order in ORDERS:
        csv = orders_file(WORK, order)
        rounds = {"bookkeeper": [], "plain": [], "raw": []}
        for _ in range(RUNS):
            rounds["raw"].append(raw_import(csv, WORK / "import-raw.sqlite"))
            rounds["plain"].append(load_plain(csv, WORK / "import-plain.sqlite"))
            rounds["bookkeeper"].append(bookkeeper_import(BIN, csv, WORK / "import-bookkeeper.sqlite"))
        med = {k: statistics.median(t for t, _ in v) for k, v in rounds.items()}
        best = {k: min(t for t, _ in v) for k, v in rounds.items()}
        peak = {k: max(m for _, m in v) / 1024 for k, v in rounds.items()}
        print(f"  {order}-ordered file:")
        for k, name in (("bookkeeper", "bookkeeper import Order --create-missing"),
                        ("plain", "plain store by hand (load_plain.sql)"),
                        ("raw", "sqlite3 .import, one untyped table")):
            print(f"    {name:42}{med[k]:6.2f} s ({best[k]:.2f})  peak {peak[k]:6.1f} MiB")
        print(f"    bookkeeper / plain by hand {med['bookkeeper'] / med['plain']:.2f}x; bookkeeper / raw .import "
              f"{med['bookkeeper'] / med['raw']:.2f}x ({verdict(med['bookkeeper'] / med['raw'], TARGET)}); "
              f"plain by hand / raw .import {med['plain'] / med['raw']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
