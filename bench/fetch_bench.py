#!/usr/bin/env python3
"""make bench, fetch part: a fetch with relationship key paths and aggregates on a store of 200,000 orders
(1,000,000 rows), against the same query written by hand and run by the `sqlite3` command, in the same run.

Prints each command's median wall time over several runs, peak memory, and the ratio (target: at most 1.1x).
The store is filled with SQL (deterministically) so this bench does not depend on the importer.
"""
import csv, io, os, sqlite3, statistics, subprocess, sys, time
from pathlib import Path

from benchlib import bench_store, median_run

BIN = os.environ.get("BIN", ".build/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "bench/work"))
RUNS = int(os.environ.get("RUNS", "5"))
STORE = WORK / "fetch-200k.sqlite"

# Unpaid, made orders worth more than 1000, by date then customer name: a to-one path, an aggregate in the
# predicate and in the columns, a multi-key sort.
FETCH = [BIN, "--store", str(STORE), "fetch", "Order",
         "--where", "made == YES AND paid == NO AND rows.@sum.sum > 1000",
         "--sort", "date, customer.name",
         "--columns", "number, date, customer.name, rows.@sum.sum", "--format", "csv"]
HAND_SQL = """
.headers on
.mode csv
SELECT o.number AS "number", o.date AS "date", c.name AS "customer.name",
       printf('%.2f', (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id) / 100.0) AS "rows.@sum.sum"
FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0 AND (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id) > 100000
ORDER BY o.date, c.name, o.id;
"""


def main():
    bench_store(BIN, STORE)
    ours = subprocess.run(FETCH, check=True, capture_output=True, text=True).stdout
    theirs = subprocess.run(["sqlite3", str(STORE)], input=HAND_SQL, check=True, capture_output=True, text=True).stdout
    # sqlite3 quotes every text field and ends lines with CRLF; compare the records, not the bytes.
    same = list(csv.reader(io.StringIO(ours))) == list(csv.reader(io.StringIO(theirs)))
    rows = ours.count("\n") - 1
    t_ours, m_ours = median_run(FETCH, WORK, RUNS)
    t_ref, m_ref = median_run(["sqlite3", str(STORE)], WORK, RUNS, HAND_SQL)
    print(f"fetch: 200,000 orders, 1,000,000 rows; {rows} results; output identical to sqlite3's: {'yes' if same else 'NO'}")
    print(f"  bookkeeper fetch   {t_ours:7.3f} s   peak {m_ours / 1024:6.1f} MiB")
    print(f"  sqlite3 (by hand)  {t_ref:7.3f} s   peak {m_ref / 1024:6.1f} MiB")
    print(f"  ratio {t_ours / t_ref:.2f}x (target <= 1.10x), median of {RUNS} runs")
    if not same:
        sys.exit("the outputs differ")


main()
