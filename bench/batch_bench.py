#!/usr/bin/env python3
"""make bench-batch (issue 33): a batch update of 200,000 orders — every made, unpaid order of a date range marked
paid — through `bookkeeper update`, against the hand-written UPDATE a user would run in the `sqlite3` shell on the
plain store a user would design (issue 27's schema, bench/reference/load_plain.sql), both from the bench's orders
file (1,000,000 lines, 200,000 orders; LINES=N for a smaller one while working on the bench).

Both stores are first made to hold every order made and unpaid (one UPDATE each, not timed), so that the update
changes all 200,000 orders; before each timed run the store is copied fresh from that state (not timed). The runs
alternate (bookkeeper, sqlite3, bookkeeper, …) for RUNS rounds (default 5), so both see the same machine load.
Printed: each command's median (best) wall time, the ratio of the medians and of the rounds' ratios, and PASS/FAIL
against the target (bookkeeper at most 2x the hand-written UPDATE). The run checks that both stores end with the
same number of paid orders, and exits 1 on FAIL.

Bookkeeper validates what the hand-written statement does not (the new value against the model, the model's rules
on the changed objects and on every object whose rules read them) and answers with a count; its statement is the
same set-based UPDATE (`update Order … --dry-run` lists the changes, and the engine's SQL is in
Sources/ObjectStore/SQL/BatchChangeSQL.swift).

    BIN=.build-release/release/bookkeeper WORK=out/bench RUNS=5 [LINES=1000000] python3 bench/batch_bench.py
"""
import os, shutil, statistics, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))
from stores import bookkeeper_import, fresh, load_plain, orders_file, timed, verdict  # noqa: E402

BIN = os.environ.get("BIN", ".build-release/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "out/bench")) / "batch"
RUNS = int(os.environ.get("RUNS", "5"))
LINES = int(os.environ.get("LINES", "1000000"))
TARGET = 2.0
FIRST, LAST = "2024-01-01", "2025-12-31"   # every order of the file (bench/generate.py: two years from 2024)

WHERE = f"made == YES AND paid == NO AND date >= '{FIRST}' AND date <= '{LAST}'"
PLAIN_SQL = f"""PRAGMA synchronous = NORMAL;
UPDATE "order" SET paid = 1 WHERE made = 1 AND paid = 0 AND date >= '{FIRST}' AND date <= '{LAST}';
"""


def sql(db: Path, text: str) -> str:
    return subprocess.run(["sqlite3", str(db)], input=text, check=True, capture_output=True, text=True).stdout.strip()


def copy(src: Path, dst: Path):
    fresh(dst)
    shutil.copy(src, dst)


def main():
    orders = LINES // 5
    print(f"batch update: {orders:,} orders marked paid (Order where {WHERE}), bookkeeper update against the "
          f"hand-written UPDATE in sqlite3 on the plain store; median (best) of {RUNS} alternating rounds", flush=True)
    WORK.mkdir(parents=True, exist_ok=True)
    csv = orders_file(WORK.parent, "date", LINES)
    ours_base, plain_base = WORK / "base-bookkeeper.sqlite", WORK / "base-plain.sqlite"
    t_ours, _ = bookkeeper_import(BIN, csv, ours_base)
    t_plain, _ = load_plain(csv, plain_base)
    # Every order made and unpaid, in both (then checkpointed into the file, which the copies take).
    sql(ours_base, 'UPDATE "Order" SET made = 1, paid = 0; PRAGMA wal_checkpoint(TRUNCATE);')
    sql(plain_base, 'UPDATE "order" SET made = 1, paid = 0; PRAGMA wal_checkpoint(TRUNCATE);')
    unpaid = sql(ours_base, 'SELECT count(*) FROM "Order" WHERE made = 1 AND paid = 0')
    print(f"  stores: bookkeeper import {t_ours:.2f} s, plain load {t_plain:.2f} s; {unpaid} made, unpaid orders", flush=True)

    ours_store, plain_store = WORK / "bookkeeper.sqlite", WORK / "plain.sqlite"
    update = [BIN, "--store", str(ours_store), "update", "Order", "--where", WHERE, "--set", "paid=YES"]
    plain = ["sqlite3", str(plain_store)]
    times = {"ours": [], "plain": []}
    for _ in range(RUNS):
        copy(ours_base, ours_store)
        out = subprocess.run(update, check=True, capture_output=True, text=True).stdout
        if out.strip() != f"updated {orders:,} Order objects":
            sys.exit(f"unexpected summary: {out!r}")
        copy(ours_base, ours_store)
        times["ours"].append(timed(update)[0])
        copy(plain_base, plain_store)
        times["plain"].append(timed(plain, PLAIN_SQL)[0])
    paid_ours = sql(ours_store, 'SELECT count(*) FROM "Order" WHERE paid = 1')
    paid_plain = sql(plain_store, 'SELECT count(*) FROM "order" WHERE paid = 1')
    o, p = statistics.median(times["ours"]), statistics.median(times["plain"])
    ratio = o / p
    rounds = statistics.median(a / b for a, b in zip(times["ours"], times["plain"]))
    print(f"    bookkeeper update                 {o:7.3f} s ({min(times['ours']):.3f})")
    print(f"    sqlite3 UPDATE, plain store       {p:7.3f} s ({min(times['plain']):.3f})")
    print(f"      paid orders after: bookkeeper {paid_ours}, plain {paid_plain}; ratio {ratio:.2f}x "
          f"(rounds' median {rounds:.2f}x), {verdict(ratio, TARGET)}", flush=True)
    if paid_ours != paid_plain:
        sys.exit("the stores differ")
    if ratio > TARGET:
        sys.exit(1)


main()
