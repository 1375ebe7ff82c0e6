#!/usr/bin/env python3
"""make bench, reports part: every shipped report (Reports/*.yaml) as XLSX, CSV and text on 200,000 orders
(1,000,000 rows, 20,000 customers with codes and tags) imported from the bench's orders file in both file orders —
by date, and the same lines with the orders in random order (bench/reference/stores.py) — in the same run as its
references.

The target references (issue 27) are what a user would write by hand on the plain store a user would design,
loaded from the same files (bench/reference/load_plain.sql, load_customers_plain.sql):
- XLSX: unpaid-orders, bench/reference/unpaid_orders_plain.c (issue 27's program); every other report,
  bench/reference/report_plain.c — one statement through libsqlite3 written with libxlsxwriter in constant-memory
  mode — running bench/reference/reports/NAME.cells.sql (target: bookkeeper at most 1.3x its time);
- CSV: `sqlite3` running the report's statement as CSV, bench/reference/unpaid_orders_plain.sql or
  bench/reference/reports/NAME.sql (target: at most 1.3x);
- text: `sqlite3` running the same statement in column mode with headers (`.mode column`, which like the text
  report reads every row before it writes one, to size the columns): for unpaid-orders
  bench/reference/unpaid_orders_plain_text.sql (money grouped and right-aligned, as the report writes it), for the
  others NAME.sql with `.mode column` for `.mode csv` (target: at most 1.3x).
The reports with a period run with from=2024-01-01 to=2025-12-31 (unpaid-orders until=2025-12-31) on both sides:
the file's whole range, as their defaults cover a store's recent orders. For unpaid-orders, the older references on
bookkeeper's own store are printed too, for comparison: bench/reports/unpaid_orders_minimal.c and
unpaid_orders.c (the report's own statement, from `--explain`) and `sqlite3` with that statement written by hand.

For each file order and report prints each command's median (best) wall time over RUNS rounds — the commands of a
round run one after another, so all see the same load — its peak memory (/usr/bin/time -f %M) and the ratios of
the medians, with PASS/FAIL against the targets; and checks that the outputs hold the same values (the XLSX
sheets' cells read back, the CSV records compared). The plain statements sort only by what the report sorts by:
rows equal in those (an order's rows in order-details; orders of a day and customer in unpaid-orders) may come
in another order than bookkeeper's (which then sorts by id), so those are compared as sets and the order of the
rest is checked.

    BIN=.build-release/release/bookkeeper WORK=out/bench RUNS=5 [REPORTS=customers,order-details] \\
        [KEEP_STORES=1] python3 bench/reports/reports_bench.py

REPORTS selects reports (default: all six); KEEP_STORES=1 reuses the stores of an earlier run (while working on
the bench; figures come from fresh stores).
"""
import csv, html, io, os, re, subprocess, sys, zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reference"))
from stores import build_stores, pair_ratio, paired, same_rows, verdict  # noqa: E402  (bench/reference/stores.py)

BIN = os.environ.get("BIN", ".build/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "out/bench"))
RUNS = int(os.environ.get("RUNS", "5"))
CC = os.environ.get("CC", "cc")
TARGET_XLSX, TARGET_CSV, TARGET_TEXT = 1.3, 1.3, 1.3
REFERENCE = HERE.parent / "reference"
UNTIL = "2025-12-31"  # the file's last day: unpaid-orders' range covers every order, as its default (today) does
PERIOD = {"from": "2024-01-01", "to": "2025-12-31"}  # the file's whole range

# Each report: its parameters, report_plain.c's column types (a `+` is totalled) and chart, and the columns its
# plain statement sorts by when rows can tie in them (None: the outputs must be equal as they are).
REPORTS = {
    "customers": dict(params={}, types="text,text,text,int+,date,money+", ties=None),
    "order-details": dict(params=PERIOD, types="date,text,text,text,qty,money,money+", ties=(0, 1)),
    "sales-by-customer": dict(params=PERIOD, types="text,int+,money+", ties=None),
    "sales-by-month": dict(params=PERIOD, types="month,int+,money+", ties=None, chart="0:2:Sales by month"),
    "sales-by-service": dict(params=PERIOD, types="text,int+,qty,money+", ties=None),
    "unpaid-orders": dict(params={"until": UNTIL}, ties=(0, 1)),
}
SELECTED = [name.strip() for name in os.environ.get("REPORTS", ",".join(REPORTS)).split(",") if name.strip()]

# unpaid-orders' own statement written by hand for sqlite3 on bookkeeper's store: the older CSV reference.
OLD_SQL = f"""
.headers on
.mode csv
SELECT o.date AS "Date", c.name AS "Customer", o.number AS "Order",
       printf('%.2f', (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id) / 100.0) AS "Total"
FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0 AND o.date <= '{UNTIL}'
ORDER BY o.date, c.name, o.id;
"""

CELL = re.compile(r'<c r="([A-Z]+)(\d+)"([^>]*?)(?:/>|>(.*?)</c>)', re.S)
INNER = re.compile(r'(?:<f>(.*?)</f>)?(?:<v>(.*?)</v>|<is><t[^>]*>(.*?)</t></is>)?', re.S)


def xlsx_rows(path, sheet_name):
    """The named sheet's rows as lists of values — numbers (dates are their serial numbers, as both sides write
    them), text, and formulas as `=FORMULA` with their cached value — read straight from the sheet's XML (both
    programs write inline strings, shared ones now and then): openpyxl takes about a minute for order-details'
    million rows."""
    with zipfile.ZipFile(path) as z:
        shared = []
        if "xl/sharedStrings.xml" in z.namelist():
            shared = [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in
                      re.findall(r"<si>(.*?)</si>", z.read("xl/sharedStrings.xml").decode(), re.S)]
        workbook = z.read("xl/workbook.xml").decode()
        relations = z.read("xl/_rels/workbook.xml.rels").decode()
        sheet = re.search(rf'<sheet [^>]*name="{re.escape(sheet_name)}"[^>]*>', workbook).group(0)
        rid = re.search(r'r:id="(\w+)"', sheet).group(1)
        relation = re.search(rf'<Relationship [^>]*Id="{rid}"[^>]*>', relations).group(0)
        target = re.search(r'Target="([^"]+)"', relation).group(1)
        xml = z.read("xl/" + target.lstrip("/").removeprefix("xl/")).decode()
    rows = {}
    for m in CELL.finditer(xml):
        letters, number, attributes, inner = m.groups()
        if not inner:
            continue
        formula, value, text = INNER.match(inner).groups()
        if text is not None:
            cell = html.unescape(text) if "&" in text else text
        elif value is not None and 't="s"' in attributes:
            cell = shared[int(value)]
        elif value is not None:
            cell = float(value)
        else:
            continue
        if formula is not None:
            cell = (f"={html.unescape(formula)}", cell)
        column = 0
        for ch in letters:
            column = column * 26 + ord(ch) - 64
        row = rows.setdefault(int(number), {})
        row[column - 1] = cell
    width = 1 + max((c for row in rows.values() for c in row), default=0)
    return [[rows[r].get(c) for c in range(width)] for r in sorted(rows)]


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def line(name, result):
    t, b, m, _, cpu, _ = result
    print(f"    {name:36}{t:7.3f} s ({b:.3f})   CPU {cpu:6.2f} s   peak {m / 1024:6.1f} MiB")


def compare(ours, theirs, ties, tail=0):
    """'same values…' or None: equal, or (ties) equal up to the order of rows equal in the columns `ties`."""
    if ours == theirs:
        return "same values, same order"
    return same_rows(ours, theirs, ties, tail=tail) if ties else None


def ratio_lines(ours, ref, same, target):
    ratio = ours[0] / ref[0]
    print(f"        {same or 'VALUES DIFFER'}; ratio {ratio:.2f}x (best {ours[1] / ref[1]:.2f}x, rounds' median "
          f"{pair_ratio(ours, ref):.2f}x, CPU {ours[4] / max(ref[4], 0.01):.2f}x), {verdict(ratio, target)}",
          flush=True)
    return ratio


def main():
    unknown = [name for name in SELECTED if name not in REPORTS]
    if unknown:
        sys.exit(f"REPORTS: no report {', '.join(unknown)} (there are {', '.join(REPORTS)})")
    print(f"reports: {', '.join(SELECTED)} on 200,000 orders, 1,000,000 rows, 20,000 customers, from both file "
          f"orders; median (best) of {RUNS} rounds, one run of each command per round", flush=True)
    stores = build_stores(BIN, WORK, "reports", keep=os.environ.get("KEEP_STORES") == "1")
    programs = {"plain": (REFERENCE / "report_plain.c"), "unpaid_orders_plain": REFERENCE / "unpaid_orders_plain.c",
                "unpaid_orders_minimal": HERE / "unpaid_orders_minimal.c", "unpaid_orders": HERE / "unpaid_orders.c"}
    binaries = {name: WORK / ("report_plain" if name == "plain" else name) for name in programs}
    for name, source in programs.items():
        subprocess.run([CC, "-O2", "-o", str(binaries[name]), str(source), "-lsqlite3", "-lxlsxwriter"], check=True)
    run = lambda cmd, stdin=None: subprocess.run(cmd, input=stdin, check=True, capture_output=True,
                                                 text=True).stdout

    summary, failed = [], False
    for order, ours_store, plain_store in stores:
        print(f"  {order}-ordered file:", flush=True)
        for name in SELECTED:
            spec = REPORTS[name]
            params = [arg for key, value in spec["params"].items() for arg in ("--param", f"{key}={value}")]
            report = [BIN, "--store", str(ours_store), "report", name] + params
            xlsx_ours, xlsx_plain = WORK / f"{name}-{order}-ours.xlsx", WORK / f"{name}-{order}-plain.xlsx"
            ours_xlsx = report + ["--format", "xlsx", "--output", str(xlsx_ours)]
            sqlite_plain = ["sqlite3", str(plain_store)]
            if name == "unpaid-orders":
                plain_xlsx = [str(binaries["unpaid_orders_plain"]), str(plain_store), str(xlsx_plain)]
                plain_sql = (REFERENCE / "unpaid_orders_plain.sql").read_text()
                text_sql = (REFERENCE / "unpaid_orders_plain_text.sql").read_text()
            else:
                plain_xlsx = [str(binaries["plain"]), str(plain_store), str(REFERENCE / "reports" / f"{name}.cells.sql"),
                              spec["types"], str(xlsx_plain), f"sheet={name}"]
                plain_xlsx += [f"chart={spec['chart']}"] if "chart" in spec else []
                plain_xlsx += [f"@{key}={value}" for key, value in spec["params"].items()]
                plain_sql = "".join(f".parameter set @{key} \"'{value}'\"\n" for key, value in spec["params"].items())
                plain_sql += (REFERENCE / "reports" / f"{name}.sql").read_text()
                assert plain_sql.count(".mode csv") == 1
                text_sql = plain_sql.replace(".mode csv", ".mode column")
            for cmd in (ours_xlsx, plain_xlsx):
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            same_xlsx = compare(xlsx_rows(xlsx_ours, name), xlsx_rows(xlsx_plain, name), spec["ties"], tail=1)
            ours_csv = csv_rows(run(report + ["--format", "csv"]))
            same_csv = compare(ours_csv, csv_rows(run(sqlite_plain, plain_sql)), spec["ties"])
            shown = ", ".join(f"{key}={value}" for key, value in spec["params"].items())
            print(f"  {name}{f' ({shown})' if shown else ''}: {len(ours_csv) - 1:,} rows out", flush=True)

            cmds = [ours_xlsx, plain_xlsx, report + ["--format", "csv"], sqlite_plain, report + ["--format", "text"],
                    sqlite_plain]
            stdins = [None, None, None, plain_sql, None, text_sql]
            if name == "unpaid-orders":  # the older references on bookkeeper's own store, for comparison
                minimal = WORK / f"{name}-{order}-minimal.xlsx"
                count = WORK / f"{name}-{order}-count.xlsx"
                cmds += [[str(binaries["unpaid_orders_minimal"]), str(ours_store), UNTIL, str(minimal)],
                         [str(binaries["unpaid_orders"]), str(ours_store), UNTIL, str(count)],
                         ["sqlite3", str(ours_store)]]
                stdins += [None, None, OLD_SQL]
            results = paired(cmds, WORK, RUNS, stdins)
            x, px, c, pc, t, pt = results[:6]
            line("XLSX  bookkeeper", x)
            line("      C on the plain store (target)", px)
            r_x = ratio_lines(x, px, same_xlsx, TARGET_XLSX)
            if name == "unpaid-orders":
                mx, cx, oc = results[6:]
                cells = xlsx_rows(xlsx_ours, name)
                same_old_xlsx = cells == xlsx_rows(minimal, name) == xlsx_rows(count, name)
                line("      for comparison: C minimal", mx)
                line("      for comparison: C, count first", cx)
                print(f"        on bookkeeper's store, its own statement: same cells: "
                      f"{'yes' if same_old_xlsx else 'NO'}; ratios {x[0] / mx[0]:.2f}x, {x[0] / cx[0]:.2f}x")
                failed |= not same_old_xlsx
            line("CSV   bookkeeper", c)
            line("      sqlite3 -csv, plain (target)", pc)
            r_c = ratio_lines(c, pc, same_csv, TARGET_CSV)
            if name == "unpaid-orders":
                same_old_csv = ours_csv == csv_rows(run(["sqlite3", str(ours_store)], OLD_SQL))
                line("      for comparison: sqlite3 -csv", oc)
                print(f"        on bookkeeper's store: same records: {'yes' if same_old_csv else 'NO'}; "
                      f"ratio {c[0] / oc[0]:.2f}x")
                failed |= not same_old_csv
            line("text  bookkeeper", t)
            line("      sqlite3 -column, plain (target)", pt)
            if name == "unpaid-orders":
                # The same data lines (the values, spaces aside) as the report's, between its rule and the totals.
                ours_text = run(report + ["--format", "text"]).splitlines()
                rule = next(i for i, l in enumerate(ours_text) if l.startswith("----------"))
                ours_lines = [l.split() for l in ours_text[rule + 1:rule + len(ours_csv)]]
                plain_lines = [l.split() for l in run(sqlite_plain, text_sql).splitlines()[2:]]
                same_text = compare([["header"]] + ours_lines, [["header"]] + plain_lines, (0, 1, 2))
                failed |= not same_text
            else:
                same_text = "the CSV's statement"
            r_t = ratio_lines(t, pt, same_text, TARGET_TEXT)
            summary.append((order, name, (x, px, r_x), (c, pc, r_c), (t, pt, r_t)))
            failed |= not (same_xlsx and same_csv)

    print("  against the hand-written references (median wall seconds, bookkeeper/reference, ratio; the CPU "
          "times' ratio):")
    for order, name, *formats in summary:
        cells = "; ".join(f"{label} {ours[0]:.3f}/{ref[0]:.3f} {ratio:.2f}x{'' if ratio <= 1.3 else ' FAIL'} "
                          f"(CPU {ours[4] / max(ref[4], 0.01):.2f}x)"
                          for label, (ours, ref, ratio) in zip(("XLSX", "CSV", "text"), formats))
        print(f"    {order:6} {name:18} {cells}")
    if failed:
        sys.exit("the outputs differ")


main()
