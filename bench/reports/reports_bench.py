#!/usr/bin/env python3
"""make bench, reports part: `unpaid-orders` on 200,000 orders (1,000,000 rows) imported from the bench's orders
file in both file orders — by date, and the same lines with the orders in random order (bench/reference/stores.py)
— in the same run as its references.

The target references (issue 27) are what a user would write by hand on the plain store a user would design,
loaded from the same file (bench/reference/load_plain.sql):
- XLSX: bench/reference/unpaid_orders_plain.c, one statement through libsqlite3 written with libxlsxwriter in
  constant-memory mode (target: bookkeeper at most 1.3x its time);
- CSV: `sqlite3` running bench/reference/unpaid_orders_plain.sql, the same statement as CSV (target: at most 1.3x);
- text: `sqlite3` running bench/reference/unpaid_orders_plain_text.sql, the same statement in column mode with
  headers, money grouped and right-aligned (target: at most 1.3x).
For comparison, the older references on bookkeeper's own store are printed too: bench/reports/
unpaid_orders_minimal.c and unpaid_orders.c (the report's own statement, from `--explain`) and `sqlite3` with that
statement written by hand.

For each file order prints each command's median (best) wall time over RUNS rounds — the commands of a round run
one after another, so all see the same load — its peak memory (/usr/bin/time -f %M) and the ratios of the
medians, with PASS/FAIL against the targets; and checks that the outputs hold the same values (the XLSX cells
read back with openpyxl, the CSV records compared). The plain statement sorts by date and customer only, as the
issue writes it: rows equal in both may come in another order, so those are compared as sets and the order of
the rest is checked.
"""
import csv, io, json, os, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reference"))
from stores import build_stores, pair_ratio, paired, same_rows, verdict  # noqa: E402  (bench/reference/stores.py)

BIN = os.environ.get("BIN", ".build-release/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "out/bench"))
RUNS = int(os.environ.get("RUNS", "5"))
CC = os.environ.get("CC", "cc")
UNTIL = "2025-12-31"  # the file's last day: the report's range covers every order, as its default (today) does
TARGET_XLSX, TARGET_CSV, TARGET_TEXT = 1.3, 1.3, 1.3
REFERENCE = HERE.parent / "reference"
PLAIN_SQL = (REFERENCE / "unpaid_orders_plain.sql").read_text()
PLAIN_TEXT_SQL = (REFERENCE / "unpaid_orders_plain_text.sql").read_text()

# The report's own statement written by hand for sqlite3 on bookkeeper's store: the older CSV reference.
OLD_SQL = f"""
.headers on
.mode csv
SELECT o.date AS "Date", c.name AS "Customer", o.number AS "Order",
       printf('%.2f', (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id) / 100.0) AS "Total"
FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0 AND o.date <= '{UNTIL}'
ORDER BY o.date, c.name, o.id;
"""


def xlsx_rows(path):
    """The unpaid-orders sheet's rows, read back with openpyxl (Debian's /usr/bin/python3)."""
    script = ("import openpyxl, sys, json\n"
              "wb = openpyxl.load_workbook(sys.argv[1], read_only=True)\n"
              "for row in wb['unpaid-orders'].iter_rows(values_only=True):\n"
              "    print(json.dumps([v.isoformat() if hasattr(v, 'isoformat') else v for v in row]))\n")
    out = subprocess.run(["/usr/bin/python3", "-c", script, str(path)], check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def line(name, result):
    t, b, m, _ = result
    print(f"    {name:34}{t:7.3f} s ({b:.3f})   peak {m / 1024:6.1f} MiB")


def main():
    print(f"reports: unpaid-orders (until {UNTIL}) on 200,000 orders, 1,000,000 rows, from both file orders; "
          f"median (best) of {RUNS} rounds, one run of each command per round", flush=True)
    stores = build_stores(BIN, WORK, "reports")
    plain_c, minimal_c, count_c = WORK / "unpaid_orders_plain", WORK / "unpaid_orders_minimal", WORK / "unpaid_orders"
    for source, binary in ((REFERENCE / "unpaid_orders_plain.c", plain_c),
                           (HERE / "unpaid_orders_minimal.c", minimal_c), (HERE / "unpaid_orders.c", count_c)):
        subprocess.run([CC, "-O2", "-o", str(binary), str(source), "-lsqlite3", "-lxlsxwriter"], check=True)

    summary, failed = [], False
    for order, ours_store, plain_store in stores:
        report = [BIN, "--store", str(ours_store), "report", "unpaid-orders", "--param", f"until={UNTIL}"]
        xlsx = {name: WORK / f"unpaid-orders-{order}-{name}.xlsx" for name in ("ours", "plain", "minimal", "count")}
        ours_xlsx = report + ["--format", "xlsx", "--output", str(xlsx["ours"])]
        plain_xlsx = [str(plain_c), str(plain_store), str(xlsx["plain"])]
        minimal_xlsx = [str(minimal_c), str(ours_store), UNTIL, str(xlsx["minimal"])]
        count_xlsx = [str(count_c), str(ours_store), UNTIL, str(xlsx["count"])]
        for cmd in (ours_xlsx, plain_xlsx, minimal_xlsx, count_xlsx):
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        cells = xlsx_rows(xlsx["ours"])
        same_plain_xlsx = same_rows(cells, xlsx_rows(xlsx["plain"]), (0, 1), tail=1)
        same_old_xlsx = cells == xlsx_rows(xlsx["minimal"]) == xlsx_rows(xlsx["count"])

        sqlite_plain, sqlite_old = ["sqlite3", str(plain_store)], ["sqlite3", str(ours_store)]
        run = lambda cmd, stdin=None: subprocess.run(cmd, input=stdin, check=True, capture_output=True,
                                                     text=True).stdout
        ours_csv = csv_rows(run(report + ["--format", "csv"]))
        same_plain_csv = same_rows(ours_csv, csv_rows(run(sqlite_plain, PLAIN_SQL)), (0, 1))
        same_old_csv = ours_csv == csv_rows(run(sqlite_old, OLD_SQL))
        # The text table: the same data lines (the values, spaces aside) as the report's, between its rule and the totals.
        ours_text = run(report + ["--format", "text"]).splitlines()
        rule = next(i for i, l in enumerate(ours_text) if l.startswith("----------"))
        ours_lines = [l.split() for l in ours_text[rule + 1:rule + len(ours_csv)]]
        plain_lines = [l.split() for l in run(sqlite_plain, PLAIN_TEXT_SQL).splitlines()[2:]]
        same_plain_text = same_rows([["header"]] + ours_lines, [["header"]] + plain_lines, (0, 1, 2))

        print(f"  {order}-ordered file: {len(ours_csv) - 1:,} rows out", flush=True)
        x, px, mx, cx = paired([ours_xlsx, plain_xlsx, minimal_xlsx, count_xlsx], WORK, RUNS)
        c, pc, oc = paired([report + ["--format", "csv"], sqlite_plain, sqlite_old], WORK, RUNS,
                           [None, PLAIN_SQL, OLD_SQL])
        t, pt = paired([report + ["--format", "text"], sqlite_plain], WORK, RUNS, [None, PLAIN_TEXT_SQL])
        r_x, r_c, r_t = x[0] / px[0], c[0] / pc[0], t[0] / pt[0]
        line("XLSX  bookkeeper", x)
        line("      C on the plain store (target)", px)
        print(f"        {same_plain_xlsx or 'cells DIFFER'}; ratio {r_x:.2f}x (best {x[1] / px[1]:.2f}x, rounds' median "
              f"{pair_ratio(x, px):.2f}x), {verdict(r_x, TARGET_XLSX)}")
        line("      for comparison: C minimal", mx)
        line("      for comparison: C, count first", cx)
        print(f"        on bookkeeper's store, its own statement: same cells: {'yes' if same_old_xlsx else 'NO'}; "
              f"ratios {x[0] / mx[0]:.2f}x, {x[0] / cx[0]:.2f}x")
        line("CSV   bookkeeper", c)
        line("      sqlite3 -csv, plain (target)", pc)
        print(f"        {same_plain_csv or 'records DIFFER'}; ratio {r_c:.2f}x (best {c[1] / pc[1]:.2f}x, rounds' median "
              f"{pair_ratio(c, pc):.2f}x), {verdict(r_c, TARGET_CSV)}")
        line("      for comparison: sqlite3 -csv", oc)
        print(f"        on bookkeeper's store: same records: {'yes' if same_old_csv else 'NO'}; "
              f"ratio {c[0] / oc[0]:.2f}x")
        line("text  bookkeeper", t)
        line("      sqlite3 -column, plain (target)", pt)
        print(f"        {same_plain_text or 'lines DIFFER'}; ratio {r_t:.2f}x (best {t[1] / pt[1]:.2f}x, rounds' median {pair_ratio(t, pt):.2f}x), "
              f"{verdict(r_t, TARGET_TEXT)}", flush=True)
        summary.append((order, r_x, r_c, r_t))
        failed |= not (same_plain_xlsx and same_old_xlsx and same_plain_csv and same_old_csv and same_plain_text)

    print("  against the hand-written references: " + "; ".join(
        f"{order} order: XLSX {r_x:.2f}x, CSV {r_c:.2f}x, text {r_t:.2f}x" for order, r_x, r_c, r_t in summary))
    if failed:
        sys.exit("the outputs differ")


main()
