#!/usr/bin/env python3
"""Writes docs/design/query-plans.md: for every shipped report (as the reports bench runs it) and the fetch bench's
fetch, bookkeeper's statement and SQLite's EXPLAIN QUERY PLAN before (BEFORE_BIN, the 0.5.0 binary) and after
(BIN), on the random-order store — the store whose plans issue 27 is about — and the hand-written statement on the
plain store with its plan; then timings: each command run RUNS rounds (CSV to /dev/null; wall and CPU medians).

The stores are the reports bench's (`make bench-reports` or bench/reports/reports_bench.py with the same WORK):
WORK/reports-bookkeeper-random.sqlite and WORK/reports-plain-random.sqlite.

    BIN=.build-release/release/bookkeeper BEFORE_BIN=/path/to/0.5.0/bookkeeper WORK=out/bench RUNS=3 \\
        python3 bench/query_plans.py [OUTPUT.md]

The plans are SQLite's own (Python's sqlite3 module, the same library as bookkeeper's and the `sqlite3` shell's):
bookkeeper's statements call its own SQL functions (bk_sum, bk_list, …) and collations (bk_natural), so stand-ins
of the same names and kinds (aggregate or scalar) are registered; a plan does not depend on what they compute.
Without BEFORE_BIN, or when it is a debug build (TIME_BEFORE=0), the before timings are left out; BEFORE_LABEL
and AFTER_LABEL name the binaries (default: their --version). COMPARE_BIN (named COMPARE_LABEL) adds a column of
timings of another binary.
"""
import json, os, re, sqlite3, statistics, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))
from stores import timed_cpu  # noqa: E402

BIN = os.environ.get("BIN", ".build-release/release/bookkeeper")
BEFORE_BIN = os.environ.get("BEFORE_BIN")
WORK = Path(os.environ.get("WORK", "out/bench"))
RUNS = int(os.environ.get("RUNS", "3"))
TIME_BEFORE = os.environ.get("TIME_BEFORE", "1") == "1"
# Another binary to time beside them (say, the base branch's release build when BEFORE_BIN is a debug build).
COMPARE_BIN, COMPARE_LABEL = os.environ.get("COMPARE_BIN"), os.environ.get("COMPARE_LABEL", "compared")
OUTPUT = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "docs" / "design" / "query-plans.md"
REFERENCE = HERE / "reference"
OURS = WORK / "reports-bookkeeper-random.sqlite"
PLAIN = WORK / "reports-plain-random.sqlite"

PERIOD = ["--param", "from=2024-01-01", "--param", "to=2025-12-31"]
FETCH = ["fetch", "Order", "--where", "made == YES AND paid == NO AND rows.@sum.sum > 1000", "--sort",
         "date, customer.name", "--columns", "number, date, customer.name, rows.@sum.sum"]
PARAMS = {"from": "2024-01-01", "to": "2025-12-31"}


def unpaid_plain():
    text = (REFERENCE / "unpaid_orders_plain.c").read_text()
    body = re.search(r'ROWS_SQL =\s*((?:"(?:[^"\\]|\\.)*"\s*)+);', text).group(1)
    return "".join(json.loads(part) for part in re.findall(r'"(?:[^"\\]|\\.)*"', body))


def statement_file(path):
    """A statement file's SQL without its comments and sqlite3 dot-commands."""
    return "\n".join(line for line in path.read_text().splitlines()
                     if not line.startswith("--") and not line.startswith(".")).strip()


# (title, bookkeeper's arguments, the plain statement file for sqlite3 -csv, the plain statement to plan, its params)
ITEMS = [
    (f"report {name}", ["report", name] + params, sql, plan, plain_params)
    for name, params, sql, plan, plain_params in [
        ("customers", [], REFERENCE / "reports" / "customers.sql",
         statement_file(REFERENCE / "reports" / "customers.cells.sql"), {}),
        ("order-details", PERIOD, REFERENCE / "reports" / "order-details.sql",
         statement_file(REFERENCE / "reports" / "order-details.cells.sql"), PARAMS),
        ("sales-by-customer", PERIOD, REFERENCE / "reports" / "sales-by-customer.sql",
         statement_file(REFERENCE / "reports" / "sales-by-customer.cells.sql"), PARAMS),
        ("sales-by-month", PERIOD, REFERENCE / "reports" / "sales-by-month.sql",
         statement_file(REFERENCE / "reports" / "sales-by-month.cells.sql"), PARAMS),
        ("sales-by-service", PERIOD, REFERENCE / "reports" / "sales-by-service.sql",
         statement_file(REFERENCE / "reports" / "sales-by-service.cells.sql"), PARAMS),
        ("unpaid-orders", ["--param", "until=2025-12-31"], REFERENCE / "unpaid_orders_plain.sql", unpaid_plain(), {}),
    ]
] + [("fetch bench", FETCH, REFERENCE / "fetch_plain.sql", statement_file(REFERENCE / "fetch_plain.sql"), {})]


# What each plan shows (written by hand: refresh it when the plans change).
NOTES = {
    "report customers": (
        "The three to-many aggregates were three correlated subqueries per customer, each reaching `\"Order\"` "
        "through `Order_customer_id` — `MAX(date)` read each order at random, the sum every order's rows through "
        "`OrderRow_order_id`. Now (i27-customers) a fetch that needs a root's to-many aggregates for every object "
        "it reads (no `LIMIT`, no predicate conjunct without such an aggregate) computes them per collection in "
        "one grouped derived table, `LEFT JOIN`ed by the owner's ID (FetchPlan+GroupedAggregates.swift): one for "
        "`orders` (count, last date), one for `orders.rows` (the exact sum), each materialized once, grouped by "
        "`+customer_id` so that SQLite scans and sorts rather than read the orders in the index's order, and read "
        "through an automatic index. Measured in `sqlite3` on this store (`bk_sum` as `sum`), CPU time of the "
        "aggregates part: correlated 1.06 s, grouped in the index's order 1.02 s, grouped with `+` 0.46 s; the "
        "hand-written statement (each order's rows grouped first, then the orders) 0.80 s on the plain store. The "
        "tags list (a correlated subquery per customer through `Customer_tags`' primary key) costs 0.035 s and "
        "stays."),
    "report order-details": (
        "Before (and on `i27-refs`), SQLite led the join with `Order_date_index` for a range that covers every "
        "order — the range is on `order.date`, a to-one path, which the covering-range rule did not judge — and "
        "read `\"Order\"` through it at random. Now a range on an object reached by to-one relationships is "
        "judged on that object's table: `+t1.\"date\"`, and SQLite reads the rows in `OrderRow_order_id` order "
        "(the import's order) and each order by its key. On the random-order store too `\"Order\"` is not read at "
        "random: the import writes each order's rows after it, so `OrderRow_order_id` order is the rows' own and the "
        "order keys rise with it (no row's `order_id` is below the one before it); the file's order only changes the "
        "order in which the sorter receives the dates. The sort's `order.number natural` is `bk_natural`: since "
        "i27-details a C collation that decides on SQLite's bytes in place when the ASCII beginnings do (was a GRDB "
        "collation making two Strings and two folded keys per comparison: a quarter of the report's CPU). In `sqlite3` "
        "on this store the statement with a plain `ORDER BY` takes 1.3 s (date order) and 1.5 s (random order) of CPU, "
        "the hand-written one with its `printf`s 1.6 s and 1.75 s."),
    "report sales-by-customer": (
        "The covering range leaves the date index (`i27-refs`): `SCAN t0`. Each order's sum is computed twice, in "
        "the columns and again in the `ORDER BY` (correlated subqueries 1 and 2); the hand-written statement "
        "sorts by the column's alias. That is the aggregates-used-twice work (issue 27's helper), not done here."),
    "report sales-by-month": (
        "The covering range leaves the date index (`i27-refs`): `SCAN t0`, as the hand-written statement."),
    "report sales-by-service": (
        "Like order-details: the range on `order.date` (a to-one path) now leaves the index, and SQLite scans "
        "`OrderRow` and reads each order by its key, where it led with `Order_date_index` before. The sums are "
        "`bk_sum` (exact to the cent beyond 64 bits), two per row, against SQLite's `sum`."),
    "report unpaid-orders": (
        "The covering range and the sort without a `LIMIT` leave the date index (`i27-refs`): the same plan as "
        "the hand-written statement."),
    "fetch bench": (
        "The sort without a `LIMIT` leaves the date index (`i27-refs`). Each order's sum is computed twice, in the "
        "`WHERE` and in the columns, where the hand-written statement groups once: the aggregates-used-twice work."),
}


class Aggregate:
    def step(self, *values):
        pass

    def finalize(self):
        return None


def connect(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    for name in ("bk_sum", "bk_sum_comparable", "bk_sum_real", "bk_wide_total", "bk_wide_min", "bk_wide_max",
                 "bk_list"):
        db.create_aggregate(name, -1, Aggregate)
    for name in ("bk_invalid_utf8", "bk_localday", "bk_finite", "bk_fold", "bk_convert", "bk_wide_cmp",
                 "bk_wide_scale", "bk_wide_real", "bk_wide_order"):
        db.create_function(name, -1, lambda *values: None, deterministic=True)
    for name in ("bk_natural", "bk_nocase"):
        db.create_collation(name, lambda a, b: (a > b) - (a < b))
    return db


def explained(binary, args):
    """bookkeeper's statement and its arguments, from --explain on the store."""
    out = subprocess.run([binary, "--store", str(OURS)] + args + ["--explain"], check=True, capture_output=True,
                         text=True).stdout
    sql, arguments = [], {}
    for line in out.splitlines():
        m = re.match(r"\s+\?(\d+) = (.*)$", line)
        if m:
            arguments[int(m.group(1))] = json.loads(m.group(2))
        elif line.strip():
            sql.append(line)
    return "\n".join(sql), [arguments[i] for i in sorted(arguments)]


def plan(db, sql, arguments):
    rows = db.execute("EXPLAIN QUERY PLAN " + sql, arguments).fetchall()
    children, lines = {}, []
    for node, parent, _, detail in rows:
        children.setdefault(parent, []).append((node, detail))

    def walk(parent, depth):
        for node, detail in children.get(parent, []):
            lines.append("  " * depth + detail)
            walk(node, depth + 1)
    walk(0, 0)
    return "\n".join(lines)


def timings(commands):
    """For each (argv, stdin): (wall median, CPU median) over RUNS rounds, run in turn within each round."""
    results = [[] for _ in commands]
    for _ in range(RUNS):
        for i, (argv, stdin) in enumerate(commands):
            wall, _, cpu = timed_cpu(argv, stdin)
            results[i].append((wall, cpu))
    return [(statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for r in results]


def fence(text, language="sql"):
    return f"```{language}\n{text}\n```\n"


def main():
    if not OURS.exists() or not PLAIN.exists():
        sys.exit(f"no stores in {WORK}: run the reports bench with WORK={WORK} first")
    ours_db, plain_db = connect(OURS), connect(PLAIN)
    version = lambda binary: subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    before = BEFORE_BIN and os.environ.get("BEFORE_LABEL", version(BEFORE_BIN))
    after = os.environ.get("AFTER_LABEL", version(BIN))
    out = [
        "# Query plans of the shipped reports and the fetch bench (issue 27)\n",
        "Generated by `bench/query_plans.py` (refresh: run the reports bench, then the command below); do not edit "
        "by hand.\n",
        f"On the store imported from the bench's 1,000,000-line orders file in **random order** (200,000 orders, "
        f"1,000,000 rows, 20,000 customers with codes and tags: `{OURS.name}`), SQLite {sqlite3.sqlite_version}. "
        f"Before: bookkeeper {before or '(not given)'}; after: bookkeeper {after}. Each statement is what "
        "`--explain` prints on that store (the statement as it would run there), its plan SQLite's "
        "`EXPLAIN QUERY PLAN`; the reference is the hand-written statement on the plain store "
        f"(`{PLAIN.name}`, bench/reference/) with its plan.\n",
        "    BIN=.build-release/release/bookkeeper BEFORE_BIN=OLD/bookkeeper WORK=out/bench RUNS=3 "
        "python3 bench/query_plans.py\n",
    ]
    table = ["| | before wall (CPU) |" + (f" {COMPARE_LABEL} wall (CPU) |" if COMPARE_BIN else "")
             + " after wall (CPU) | hand-written wall (CPU) |", "|---|---|---|---|" + ("---|" if COMPARE_BIN else "")]
    for title, args, plain_sql, plain_statement, plain_params in ITEMS:
        print(f"{title}", flush=True)
        out.append(f"## {title}\n")
        out.append(f"`bookkeeper {' '.join(a if ' ' not in a and a else repr(a) for a in args)}`\n")
        if title in NOTES:
            out.append(NOTES[title] + "\n")
        plans = {}
        for label, binary in (("before", BEFORE_BIN), ("after", BIN)):
            if not binary:
                continue
            sql, arguments = explained(binary, args)
            plans[label] = (sql, arguments)
        if "before" in plans and plans["before"] == plans["after"]:
            sql, arguments = plans["after"]
            out.append("Before and after: the same statement.\n")
            out.append(fence(sql + ("\n-- " + ", ".join(f"?{i + 1} = {json.dumps(a)}" for i, a in
                                                         enumerate(arguments)) if arguments else "")))
            out.append(fence(plan(ours_db, sql, arguments), "text"))
        else:
            for label, (sql, arguments) in plans.items():
                out.append(f"**{label.capitalize()}:**\n")
                out.append(fence(sql + ("\n-- " + ", ".join(f"?{i + 1} = {json.dumps(a)}" for i, a in
                                                             enumerate(arguments)) if arguments else "")))
                out.append(fence(plan(ours_db, sql, arguments), "text"))
        out.append("**Hand-written, on the plain store:**\n")
        shown = plain_statement + ("\n-- " + ", ".join(f"@{k} = '{v}'" for k, v in plain_params.items())
                                   if plain_params else "")
        out.append(fence(shown))
        out.append(fence(plan(plain_db, plain_statement, {k: v for k, v in plain_params.items()}), "text"))

        csv = args + ["--format", "csv"] if args[0] == "report" else args
        commands = [([BIN, "--store", str(OURS)] + csv, None)]
        stdin = "".join(f".parameter set @{k} \"'{v}'\"\n" for k, v in plain_params.items()) + plain_sql.read_text()
        commands.append((["sqlite3", str(PLAIN)], stdin))
        if COMPARE_BIN:
            commands.insert(0, ([COMPARE_BIN, "--store", str(OURS)] + csv, None))
        if BEFORE_BIN and TIME_BEFORE:
            commands.insert(0, ([BEFORE_BIN, "--store", str(OURS)] + csv, None))
        times = timings(commands)
        cell = lambda t: f"{t[0]:.3f} s ({t[1]:.2f} s)"
        before_cell = cell(times[0]) if BEFORE_BIN and TIME_BEFORE else "—"
        compare_cell = f" {cell(times[-3])} |" if COMPARE_BIN else ""
        table.append(f"| {title} | {before_cell} |{compare_cell} {cell(times[-2])} | {cell(times[-1])} |")

    load = open("/proc/loadavg").read().split()[0]
    out.append("## Timings\n")
    out.append(f"CSV to /dev/null (the hand-written: `sqlite3` with the statement as CSV), medians of {RUNS} rounds "
               f"(each round runs the commands of a line in turn); wall time, and in brackets CPU time (user + "
               f"system). Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load} "
               f"when done.\n")
    out.append("\n".join(table) + "\n")
    OUTPUT.write_text("\n".join(out))
    print(f"wrote {OUTPUT}")


main()
