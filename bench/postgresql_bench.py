#!/usr/bin/env python3
"""make bench, PostgreSQL part (issue 30): a fetch of 1,000,000 customers from books on PostgreSQL, streamed, against
the same fetch from a store file and against what a user would write by hand.

The books: a customers file of 1,000,000 lines (name, code, info; one name in eight not ASCII) imported into a store
file by `bookkeeper import Customer`, then the same rows copied into books on PostgreSQL made by `bookkeeper init`
(`import` on PostgreSQL is part 2). The server is a throwaway PostgreSQL 15 (scripts/postgresql-server.sh), as the
test tier's.

Measured, RUNS rounds (one run of each command per round, so all see the same load): median wall time, CPU time and
peak memory of
  - `bookkeeper fetch Customer --columns "name, code, info" --format csv`, and the same sorted `name natural`,
    on PostgreSQL and on the store file;
  - the references a user would write by hand on the plain table they would design
    (`customer(id bigserial PRIMARY KEY, name text NOT NULL, code text, info text)`): psql's `\\copy (SELECT name,
    code, info FROM customer) TO STDOUT CSV HEADER`, which streams.
Targets: peak memory on PostgreSQL at most 1.2x the store file's (the issue's); the time against psql is printed, with
no target (a bookkeeper fetch formats every value as the store file's does; psql prints PostgreSQL's text).
Outputs are compared: the two stores byte for byte, the reference by records.

    BIN=.build-release/release/bookkeeper WORK=out/bench RUNS=5 LINES=1000000 python3 bench/postgresql_bench.py
"""
import csv, io, os, random, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "reference"))
from stores import fresh, pair_ratio, paired, timed, verdict  # noqa: E402  (bench/reference/stores.py)

BIN = os.path.abspath(os.environ.get("BIN", ".build-release/release/bookkeeper"))
WORK = Path(os.environ.get("WORK", "bench/work")).resolve()
RUNS = int(os.environ.get("RUNS", "5"))
LINES = int(os.environ.get("LINES", "1000000"))
MEMORY_TARGET = 1.2
SCHEMA = "bench_books"


def customers_file(path: Path, lines: int):
    """name,code,info — deterministic; one name in eight with letters beyond ASCII, one info in three empty."""
    if path.exists():
        return
    rng = random.Random(30)
    accented = ["Müller", "Straße", "Zoë", "Émile", "Ångström", "Øre", "İstanbul", "Café"]
    with open(path, "w", newline="") as f:
        f.write("name,code,info\n")
        for n in range(1, lines + 1):
            name = f"{accented[n % 8]} {n:07d}" if n % 8 == 0 else f"Customer {n:07d}"
            code = f"C{rng.randrange(10**6):06d}-{n}"
            info = "" if n % 3 == 0 else f"note {rng.randrange(1000)}"
            f.write(f"{name},{code},{info}\n")


def run(argv, stdin=None, env=None):
    r = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(argv)}\n{r.stderr}")
    return r.stdout


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    source = WORK / f"customers-plain-{LINES}.csv"
    customers_file(source, LINES)
    store = WORK / "postgresql-bench.sqlite"
    fresh(store)
    run([BIN, "--store", str(store), "init"])
    seconds, _ = timed([BIN, "--store", str(store), "import", "Customer", str(source)])
    print(f"store file: {LINES:,} customers imported in {seconds:.1f} s", flush=True)

    server = run([str(ROOT / "scripts" / "postgresql-server.sh"), "start"]).strip().splitlines()[-1]
    try:
        env_lines = Path(server, "env").read_text().splitlines()
        pg = dict(line.removeprefix("export ").split("=", 1) for line in env_lines if line.startswith("export "))
        pg = {k: v.strip("'") for k, v in pg.items()}
        host, port = pg["BOOKKEEPER_TEST_POSTGRESQL_HOST"], pg["BOOKKEEPER_TEST_POSTGRESQL_PORT"]
        conninfo = pg["BOOKKEEPER_TEST_POSTGRESQL"]
        uri = f"postgresql://bk_owner@{host.replace('/', '%2F')}:{port}/bk_test?schema={SCHEMA}"
        psql = ["psql", conninfo, "-v", "ON_ERROR_STOP=1", "-q"]
        run([BIN, "--store", uri, "init"])
        # The same rows, ids and all, into the books' table (the columns both stores have).
        rows = run(["sqlite3", "-csv", str(store), "SELECT id, name, code, info FROM Customer ORDER BY id"])
        run(psql + ["-c", f'\\copy "{SCHEMA}"."Customer"(id, name, code, info) FROM pstdin CSV'], stdin=rows)
        # The plain table a user would design, loaded from the same file, for the hand-written reference.
        run(psql + ["-c", "CREATE TABLE public_customer (id bigserial PRIMARY KEY, name text NOT NULL, code text, info text)"])
        run(psql + ["-c", "\\copy public_customer(name, code, info) FROM pstdin CSV HEADER"], stdin=source.read_text())
        run(psql + ["-c", f'ANALYZE "{SCHEMA}"."Customer"; ANALYZE public_customer'])
        print(f"books on PostgreSQL: the same {LINES:,} customers copied in; the plain table loaded", flush=True)

        failed = False
        for title, sort in (("fetch name, code, info as CSV", []), ("the same, sorted name natural", ["--sort", "name natural"])):
            fetch = ["fetch", "Customer", "--columns", "name, code, info", "--format", "csv"] + sort
            on_file = [BIN, "--store", str(store)] + fetch
            on_server = [BIN, "--store", uri] + fetch
            reference = psql + ["-c", "\\copy (SELECT name, code, info FROM public_customer"
                                + (" ORDER BY name" if sort else "") + ") TO STDOUT CSV HEADER"]
            out_file, out_server = run(on_file), run(on_server)
            if out_file != out_server:
                sys.exit(f"{title}: the outputs of the store file and of PostgreSQL differ")
            ours = sorted(csv.reader(io.StringIO(out_server)))
            theirs = sorted(csv.reader(io.StringIO(run(reference))))
            if ours != theirs:
                sys.exit(f"{title}: bookkeeper's records and the reference's differ")
            results = paired([on_server, on_file, reference], WORK, RUNS)
            print(f"\n{title} ({LINES:,} rows; median of {RUNS} rounds, best in brackets; outputs equal):")
            for name, r in zip(("bookkeeper on PostgreSQL", "bookkeeper on the store file", "psql \\copy on a plain table"), results):
                print(f"    {name:32}{r[0]:7.3f} s ({r[1]:.3f})  CPU {r[4]:6.2f} s  peak {r[2] / 1024:6.1f} MiB")
            memory = results[0][2] / results[1][2]
            failed |= memory > MEMORY_TARGET
            print(f"    peak memory, PostgreSQL / store file: {memory:.2f}x   {verdict(memory, MEMORY_TARGET)}")
            print(f"    time, PostgreSQL / store file: {pair_ratio(results[0], results[1]):.2f}x;"
                  f" PostgreSQL / psql \\copy: {pair_ratio(results[0], results[2]):.2f}x (no target)")
        return 1 if failed else 0
    finally:
        subprocess.run([str(ROOT / "scripts" / "postgresql-server.sh"), "stop", server], capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
