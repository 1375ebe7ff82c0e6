"""What the scale bench uses (the fetch and reports benches did, before they moved to imported stores and
hand-written references: bench/reference/): its store (20,000 customers, 500 services, 200,000 orders over
2024 — 3/4 made, 1/3 paid, 1 in 50 without a customer — with 5 rows each), and timing one run of a command."""
import sqlite3, statistics, subprocess, sys, time
from pathlib import Path

FILL = """
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO Customer (id, name, code) SELECT i, 'Customer ' || i, printf('C%05d', i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO Service (id, name, code) SELECT i, 'Service ' || i, printf('S%03d', i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO "Order" (id, number, date, made, paid, customer_id)
SELECT i, printf('O-%06d', i), date('2024-01-01', '+' || (i * 37 % 366) || ' days'), (i % 4) != 0, (i % 3) = 0,
       CASE WHEN i % 50 = 0 THEN NULL ELSE 1 + (i * 7919) % 20000 END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
INSERT INTO OrderRow (id, order_id, service_id, quantity, price, sum)
SELECT i, 1 + (i - 1) / 5, 1 + (i * 31) % 500, 1000, NULL, 1000 + (i * 7717) % 100000 FROM n;
COMMIT;
"""


def bench_store(binary, store: Path):
    """Makes the store (once: it is kept between runs) with `binary init` and fills it by SQL."""
    store.parent.mkdir(parents=True, exist_ok=True)
    if store.exists():
        return
    subprocess.run([binary, "--store", str(store), "init"], check=True, stdout=subprocess.DEVNULL)
    db = sqlite3.connect(store)
    db.executescript(FILL)
    db.close()


def run(cmd, work: Path, stdin=None, stdout=subprocess.DEVNULL):
    """Wall seconds and peak RSS (KiB, from /usr/bin/time) of one run."""
    stats = work / "time.txt"
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(stats)] + cmd, input=stdin, text=True,
                          stdout=stdout, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}: {proc.stderr}")
    return elapsed, int(stats.read_text().split()[-1])


def median_run(cmd, work: Path, runs, stdin=None):
    """The median wall time and the peak memory of `runs` runs."""
    results = [run(cmd, work, stdin) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)
