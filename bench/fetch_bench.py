#!/usr/bin/env python3
"""make bench, fetch part: a fetch with relationship key paths and aggregates on 200,000 orders (1,000,000 rows)
imported from the bench's orders file in both file orders — by date, and the same lines with the orders in random
order (bench/reference/stores.py) — in the same run as its references.

The target reference (issue 27) is the same query written by hand on the plain store a user would design, loaded
from the same file (bench/reference/load_plain.sql): bench/reference/fetch_plain.sql run by `sqlite3` (target:
bookkeeper at most 1.1x its time). For comparison, the older reference is printed too: `sqlite3` with bookkeeper's
own statement written by hand on bookkeeper's store.

For each file order prints each command's median (best) wall time over RUNS rounds (one run of each command per
round, so all see the same load), peak memory and the ratios of the medians, with PASS/FAIL against the target;
and checks that the outputs hold the same records (the plain query sorts by date and customer name only: records
equal in both may come in another order).

    BIN=.build-release/release/bookkeeper WORK=out/bench RUNS=5 [KEEP_STORES=1] python3 bench/fetch_bench.py
"""
import csv, io, os, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))
from stores import build_stores, pair_ratio, paired, same_rows, verdict  # noqa: E402  (bench/reference/stores.py)

BIN = os.environ.get("BIN", ".build-release/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "bench/work"))
RUNS = int(os.environ.get("RUNS", "5"))
# KEEP_STORES=1 reuses the stores of an earlier run (while working on the bench; figures come from fresh stores).
KEEP = os.environ.get("KEEP_STORES") == "1"
TARGET = 1.1
PLAIN_SQL = (HERE / "reference" / "fetch_plain.sql").read_text()

# Unpaid, made orders worth more than 1000, by date then customer name: a to-one path, an aggregate in the
# predicate and in the columns, a multi-key sort.
WHERE = "made == YES AND paid == NO AND rows.@sum.sum > 1000"
SORT = "date, customer.name"
COLUMNS = "number, date, customer.name, rows.@sum.sum"
# Bookkeeper's own statement written by hand on its store: the older reference.
OLD_SQL = """
.headers on
.mode csv
SELECT o.number AS "number", o.date AS "date", c.name AS "customer.name",
       printf('%.2f', (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id) / 100.0) AS "rows.@sum.sum"
FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0 AND (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id) > 100000
ORDER BY o.date, c.name, o.id;
"""


def records(cmd, stdin=None):
    out = subprocess.run(cmd, input=stdin, check=True, capture_output=True, text=True).stdout
    # sqlite3 quotes every text field and ends lines with CRLF; compare the records, not the bytes.
    return list(csv.reader(io.StringIO(out)))


def line(name, result):
    t, b, m = result[:3]
    print(f"    {name:34}{t:7.3f} s ({b:.3f})   peak {m / 1024:6.1f} MiB")


def main():
    print(f"fetch: Order where {WHERE}, sorted by {SORT}, on 200,000 orders, 1,000,000 rows, from both file "
          f"orders; median (best) of {RUNS} rounds, one run of each command per round", flush=True)
    stores = build_stores(BIN, WORK, "fetch", keep=KEEP)
    summary, failed = [], False
    for order, ours_store, plain_store in stores:
        fetch = [BIN, "--store", str(ours_store), "fetch", "Order", "--where", WHERE, "--sort", SORT,
                 "--columns", COLUMNS, "--format", "csv"]
        plain, old = ["sqlite3", str(plain_store)], ["sqlite3", str(ours_store)]
        ours = records(fetch)
        same_plain = same_rows(ours, records(plain, PLAIN_SQL), (1, 2))
        same_old = ours == records(old, OLD_SQL)
        f, p, o = paired([fetch, plain, old], WORK, RUNS, [None, PLAIN_SQL, OLD_SQL])
        ratio = f[0] / p[0]
        print(f"  {order}-ordered file: {len(ours) - 1:,} results")
        line("bookkeeper fetch", f)
        line("sqlite3, plain store (target)", p)
        print(f"      {same_plain or 'records DIFFER'}; ratio {ratio:.2f}x (best {f[1] / p[1]:.2f}x, rounds' median "
              f"{pair_ratio(f, p):.2f}x), {verdict(ratio, TARGET)}")
        line("for comparison: sqlite3", o)
        print(f"      on bookkeeper's store, its own statement: same records: {'yes' if same_old else 'NO'}; "
              f"ratio {f[0] / o[0]:.2f}x", flush=True)
        summary.append((order, ratio))
        failed |= not (same_plain and same_old)
    print("  against the hand-written reference: " + "; ".join(f"{order} order {r:.2f}x" for order, r in summary))
    if failed:
        sys.exit("the outputs differ")


main()
