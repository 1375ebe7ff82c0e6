"""What the reports and fetch benches measure on (issue 27): the bench's 1,000,000-line orders file in both file
orders — orders by date (bench/generate.py) and the same lines with the orders in random order — and, from each,
a bookkeeper store (`import Order --create-missing`) and the plain store a user would build by hand
(load_plain.sql); then into both what the orders file does not say about customers, their codes and tags, from the
customers file (`bench/generate.py LINES FILE customers`; bookkeeper `import Customer --create-missing`, the plain
store load_customers_plain.sql), for the customers report. Files are generated once and kept in WORK; stores are
rebuilt on every run (a bookkeeper store always comes from the binary under test), and the time each took is
printed: the import figures ride along."""
import re, statistics, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDERS = ("date", "random")  # the file orders: by date, and the same lines with orders in random order
LINES = 1_000_000


def orders_file(work: Path, order: str, lines: int = LINES) -> Path:
    """The orders file in `order` (the date-ordered one is the import bench's orders-LINES.csv)."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / (f"orders-{lines}.csv" if order == "date" else f"orders-{lines}-{order}.csv")
    if not path.exists():
        print(f"generating {path} ({lines:,} lines, orders in {order} order)", flush=True)
        extra = [] if order == "date" else [order]
        subprocess.run([sys.executable, str(HERE.parent / "generate.py"), str(lines), str(path)] + extra, check=True)
    return path


def customers_file(work: Path, lines: int = LINES) -> Path:
    """The customers file (name,code,tags) of the orders file of `lines` lines: the same for both file orders."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"customers-{lines // 50}.csv"
    if not path.exists():
        subprocess.run([sys.executable, str(HERE.parent / "generate.py"), str(lines), str(path), "customers"],
                       check=True)
    return path


def timed(argv, stdin=None):
    """(wall seconds, peak KiB) of one run: the wall time measured here (to the microsecond), the peak resident
    set from /usr/bin/time."""
    return timed_cpu(argv, stdin)[:2]


def timed_cpu(argv, stdin=None):
    """(wall seconds, peak KiB, CPU seconds) of one run: timed()'s, and the user + system time from /usr/bin/time
    (10 ms steps), which a loaded machine inflates less than the wall time."""
    start = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "PEAK %M CPU %U %S"] + argv, input=stdin, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    m = re.search(r"PEAK (\d+) CPU ([\d.]+) ([\d.]+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"failed: {' '.join(argv)}\n{r.stderr}")
    return elapsed, int(m.group(1)), float(m.group(2)) + float(m.group(3))


def fresh(path: Path):
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def load_plain(csv: Path, db: Path):
    """load_plain.sql on `csv` into a new `db`: (seconds, peak KiB)."""
    fresh(db)
    script = (HERE / "load_plain.sql").read_text().replace(" orders.csv ", f" {csv} ")
    return timed(["sqlite3", str(db)], stdin=script)


def raw_import(csv: Path, db: Path):
    """The import bench's reference: sqlite3's .import into one untyped table (WAL, synchronous=NORMAL)."""
    fresh(db)
    script = ("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n"
              "CREATE TABLE t(number, date, customer, made, paid, \"rows.service\", \"rows.sum\");\n"
              f".import --csv --skip 1 {csv} t\n")
    return timed(["sqlite3", str(db)], stdin=script)


def bookkeeper_import(binary: str, csv: Path, store: Path):
    """`init` then `import Order CSV --create-missing` into a new store: the import's (seconds, peak KiB)."""
    fresh(store)
    subprocess.run([binary, "--store", str(store), "init"], check=True, stdout=subprocess.DEVNULL)
    return timed([binary, "--store", str(store), "import", "Order", str(csv), "--create-missing", "--quiet"])


def load_customers(binary: str, csv: Path, ours: Path, plain: Path):
    """The customers file into both stores, after their orders (so ids follow the orders file in both)."""
    subprocess.run([binary, "--store", str(ours), "import", "Customer", str(csv), "--create-missing", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    script = (HERE / "load_customers_plain.sql").read_text().replace(" customers.csv ", f" {csv} ")
    subprocess.run(["sqlite3", str(plain)], input=script, text=True, check=True, stdout=subprocess.DEVNULL)


def counts(db: Path, tables):
    query = "SELECT " + " || ' ' || ".join(f"(SELECT count(*) FROM \"{t}\")" for t in tables)
    return subprocess.run(["sqlite3", str(db), query], check=True, capture_output=True, text=True).stdout.strip()


def build_stores(binary: str, work: Path, prefix: str, keep: bool = False):
    """For each file order: (order, bookkeeper store, plain store), freshly built; prints what each took and checks
    that both hold the same numbers of customers, services, orders, rows, tags and customers' tags."""
    stores = []
    for order in ORDERS:
        csv = orders_file(work, order)
        ours, plain = work / f"{prefix}-bookkeeper-{order}.sqlite", work / f"{prefix}-plain-{order}.sqlite"
        if keep and ours.exists() and plain.exists():  # KEEP_STORES=1: while working on a bench, not for figures
            print(f"  stores from the {order}-ordered file: kept from an earlier run", flush=True)
            stores.append((order, ours, plain))
            continue
        t_ours, _ = bookkeeper_import(binary, csv, ours)
        t_plain, _ = load_plain(csv, plain)
        load_customers(binary, customers_file(work), ours, plain)
        c_ours = counts(ours, ["Customer", "Service", "Order", "OrderRow", "Tag", "Customer_tags"])
        c_plain = counts(plain, ["customer", "service", "order", "row", "tag", "customer_tag"])
        print(f"  stores from the {order}-ordered file: bookkeeper import {t_ours:.2f} s, plain load "
              f"(load_plain.sql) {t_plain:.2f} s; customers services orders rows tags links: {c_plain}", flush=True)
        if c_ours != c_plain:
            sys.exit(f"the stores differ: bookkeeper {c_ours}, plain {c_plain}")
        stores.append((order, ours, plain))
    return stores


def paired(cmds, work: Path, runs: int, stdins=None):
    """Runs the commands in turn, `runs` rounds (so all see the same machine load): for each, (median, best,
    peak KiB, the wall times round by round, median CPU time (user + system), the CPU times round by round)."""
    stdins = stdins or [None] * len(cmds)
    results = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            results[i].append(timed_cpu(cmd, stdins[i]))
    return [(statistics.median(t for t, _, _ in rs), min(t for t, _, _ in rs), max(m for _, m, _ in rs),
             [t for t, _, _ in rs], statistics.median(c for _, _, c in rs), [c for _, _, c in rs])
            for rs in results]


def pair_ratio(ours, reference) -> float:
    """The median of the rounds' ratios (ours / reference in the same round): steadier than the ratio of the
    medians when the machine's load moves between rounds."""
    return statistics.median(a / b for a, b in zip(ours[3], reference[3]))


def verdict(ratio: float, target: float) -> str:
    return f"target <= {target:.2f}x: {'PASS' if ratio <= target else 'FAIL'}"


def same_rows(ours, theirs, sort_columns, head=1, tail=0):
    """How `theirs`, sorted by `sort_columns` only, matches `ours` (sorted by them and then by more): 'same values,
    same order', 'same values' (rows equal in the sort columns in another order), or None (they differ). The first
    `head` and last `tail` rows (header, totals) must be equal."""
    if ours == theirs:
        return "same values, same order"
    n = len(ours)
    if len(theirs) != n or ours[:head] != theirs[:head] or ours[n - tail:] != theirs[n - tail:]:
        return None
    body_ours, body_theirs = ours[head:n - tail], theirs[head:n - tail]
    key = lambda row: tuple("" if v is None else str(v) for v in row)
    by_sort = lambda row: tuple(key(row)[i] for i in sort_columns)
    if sorted(body_ours, key=key) != sorted(body_theirs, key=key):
        return None
    if any(by_sort(a) > by_sort(b) for a, b in zip(body_theirs, body_theirs[1:])):
        return None
    return "same values (rows equal in the sort keys in another order)"
