#!/usr/bin/env python3
"""make bench, reports part: `unpaid-orders` on a store of 200,000 orders (1,000,000 rows), in the same run as
its references:

- XLSX: bench/reports/unpaid_orders_minimal.c, a minimal C program that runs the report's query once through
  libsqlite3 (no count first, SQLite's default page cache) and writes its cells plainly with libxlsxwriter,
  atomically (target: bookkeeper, with its formats, widths, page set-up and About sheet, at most 1.2x its time);
  and, for comparison, bench/reports/unpaid_orders.c, the older reference that also counts the rows first and
  sizes the columns as bookkeeper did;
- text and CSV: `sqlite3`'s CSV output of the equivalent query written by hand (target: at most 1.2x).

Prints each command's median wall time over RUNS runs, peak memory (/usr/bin/time -f %M) and the ratios, and
checks that the outputs hold the same values (the XLSX cells read back with openpyxl, the CSV records compared).
The store is filled with SQL (deterministically), so this bench does not depend on the importer.
"""
import csv, io, os, statistics, subprocess, sqlite3, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchlib import bench_store, run  # noqa: E402  (bench/benchlib.py, shared with the fetch bench)

BIN = os.environ.get("BIN", ".build/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "out/bench"))
RUNS = int(os.environ.get("RUNS", "5"))
CC = os.environ.get("CC", "cc")
STORE = WORK / "reports-200k.sqlite"
UNTIL = "2024-12-31"
HERE = Path(__file__).resolve().parent

# The report's query written by hand for sqlite3 (money as text with two decimals, as the CSV renderer writes it).
HAND_SQL = f"""
.headers on
.mode csv
SELECT o.date AS "Date", c.name AS "Customer", o.number AS "Order",
       printf('%.2f', (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id) / 100.0) AS "Total"
FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0 AND o.date <= '{UNTIL}'
ORDER BY o.date, c.name, o.id;
"""

REPORT = [BIN, "--store", str(STORE), "report", "unpaid-orders", "--param", f"until={UNTIL}"]


def interleaved(a, b, stdin_b=None):
    """Runs a and b alternately RUNS times each (so both see the same machine load): for each, the median and
    the best wall time, and the peak memory."""
    ra, rb = [], []
    for _ in range(RUNS):
        ra.append(run(a, WORK))
        rb.append(run(b, WORK, stdin_b))
    summary = lambda rs: (statistics.median(r[0] for r in rs), min(r[0] for r in rs), max(r[1] for r in rs))
    return summary(ra), summary(rb)


def xlsx_values(path):
    """The unpaid-orders sheet's values, row by row, read back with openpyxl (Debian's /usr/bin/python3)."""
    script = ("import openpyxl, sys, json\n"
              "wb = openpyxl.load_workbook(sys.argv[1], read_only=True)\n"
              "ws = wb['unpaid-orders']\n"
              "n = 0\n"
              "for row in ws.iter_rows(values_only=True):\n"
              "    print(json.dumps([v.isoformat() if hasattr(v, 'isoformat') else v for v in row]))\n")
    out = subprocess.run(["/usr/bin/python3", "-c", script, str(path)], check=True, capture_output=True, text=True)
    return out.stdout


def main():
    bench_store(BIN, STORE)
    reference, minimal = WORK / "unpaid_orders", WORK / "unpaid_orders_minimal"
    subprocess.run([CC, "-O2", "-o", str(reference), str(HERE / "unpaid_orders.c"), "-lsqlite3", "-lxlsxwriter"], check=True)
    subprocess.run([CC, "-O2", "-o", str(minimal), str(HERE / "unpaid_orders_minimal.c"), "-lsqlite3", "-lxlsxwriter"], check=True)

    ours_xlsx, ref_xlsx, min_xlsx = WORK / "unpaid-orders.xlsx", WORK / "unpaid-orders-c.xlsx", WORK / "unpaid-orders-min.xlsx"
    xlsx_cmd = REPORT + ["--format", "xlsx", "--output", str(ours_xlsx)]
    c_cmd = [str(reference), str(STORE), UNTIL, str(ref_xlsx)]
    min_cmd = [str(minimal), str(STORE), UNTIL, str(min_xlsx)]
    subprocess.run(xlsx_cmd, check=True)
    subprocess.run(c_cmd, check=True)
    subprocess.run(min_cmd, check=True)
    same_xlsx = xlsx_values(ours_xlsx) == xlsx_values(ref_xlsx) == xlsx_values(min_xlsx)

    ours_csv = subprocess.run(REPORT + ["--format", "csv"], check=True, capture_output=True, text=True).stdout
    theirs_csv = subprocess.run(["sqlite3", str(STORE)], input=HAND_SQL, check=True, capture_output=True, text=True).stdout
    # sqlite3 quotes every text field and ends lines with CRLF; compare the records, not the bytes.
    same_csv = list(csv.reader(io.StringIO(ours_csv))) == list(csv.reader(io.StringIO(theirs_csv)))
    rows = ours_csv.count("\n") - 1

    (t_x, b_x, m_x), (t_m, b_m, m_m) = interleaved(xlsx_cmd, min_cmd)
    (t_x2, b_x2, _), (t_c, b_c, m_c) = interleaved(xlsx_cmd, c_cmd)
    (t_csv, b_csv, m_csv), (t_sq, b_sq, m_sq) = interleaved(REPORT + ["--format", "csv"], ["sqlite3", str(STORE)], HAND_SQL)
    (t_txt, b_txt, m_txt), (t_sq2, b_sq2, _) = interleaved(REPORT + ["--format", "text"], ["sqlite3", str(STORE)], HAND_SQL)

    print(f"reports: unpaid-orders on 200,000 orders, 1,000,000 rows; {rows:,} rows out; "
          f"median (best) of {RUNS} alternating runs")
    line = lambda name, t, b, m: print(f"  {name:24}{t:7.3f} s ({b:.3f})   peak {m / 1024:6.1f} MiB")
    line("XLSX  bookkeeper", t_x, b_x, m_x)
    line("      C minimal", t_m, b_m, m_m)
    print(f"        same cells: {'yes' if same_xlsx else 'NO'}; ratio {t_x / t_m:.2f}x (best {b_x / b_m:.2f}x), target <= 1.20x")
    line("      bookkeeper again", t_x2, b_x2, m_x)
    line("      C, count first", t_c, b_c, m_c)
    print(f"        ratio {t_x2 / t_c:.2f}x (best {b_x2 / b_c:.2f}x), for comparison with the older reference")
    line("CSV   bookkeeper", t_csv, b_csv, m_csv)
    line("      sqlite3 -csv", t_sq, b_sq, m_sq)
    print(f"        same records: {'yes' if same_csv else 'NO'}; ratio {t_csv / t_sq:.2f}x (best {b_csv / b_sq:.2f}x), target <= 1.20x")
    line("text  bookkeeper", t_txt, b_txt, m_txt)
    print(f"        sqlite3 -csv alongside {t_sq2:.3f} s ({b_sq2:.3f}); ratio {t_txt / t_sq2:.2f}x (best {b_txt / b_sq2:.2f}x), target <= 1.20x")
    if not (same_xlsx and same_csv):
        sys.exit("the outputs differ")


main()
