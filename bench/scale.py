#!/usr/bin/env python3
"""make bench-scale (issue 27, "no cliffs"): every path a user can grow, timed at sizes that double; a path FAILs
when doubling its input costs more than 2.3x.

Method
- Sizes are lines of the bench's orders file (bench/generate.py: LINES/5 orders, LINES/50 customers, 500
  services), SIZES env (default 50000,100000,200000: at the smallest the shortest command still takes several
  times the process start; the whole run takes about 10 minutes at RUNS=3 on 2 cores). Every input of a path grows
  with the size: its file, and the store it runs on (built from the file of that size).
- Inputs: the orders file in date order and the same lines with the orders in random order (bench/generate.py
  with its fixed seeds 4 and 27); the inputs this driver derives (which orders an upsert changes, which lines are
  rejected) come from SEED (printed; SEED=N repeats a run).
- Stores are built first, from the binary under test, once per size and run: `init` then `import Order FILE
  --create-missing` from each file order (reads run on both), and one with a model giving OrderRow a unique `line`
  (line keys). A command that writes runs on a fresh copy of its store, copied before each run (not timed).
- Timing: RUNS rounds (default 3); each round runs the path once at every size, smallest first, so all sizes see
  the same machine load. Printed per size: the median wall time over the rounds (and the median CPU time,
  user+sys of the process, from its rusage). The ratio per doubling is (t(largest) / t(smallest)) ** (1 /
  doublings), of the wall medians (METRIC=cpu judges by CPU time instead: steadier on a loaded machine, blind to
  waiting on the disk); PASS at most 2.3, else FAIL. The run exits 1 when any path FAILs. PATHS=SUBSTR,... runs
  only the paths whose label holds one of them.
- Every run's exit status is checked (and, where it says something, its summary): a path that fails does not
  time an error.

Paths (the list of issue 27: import with and without line keys and natural keys, documents in file order and in
random order, upserts into a full store, re-import of an unchanged file, --on-error skip with many rejects, fetch
with key paths and SUBQUERY, every shipped report, check, export, backup, migrate; issue 33's update and delete by
predicate), plus what the older scale
benches measured (bench/import_scale.py, bench/scale_bench.py): a row table with keyed rows spread through it,
documents read from a named pipe, a decimal mark shown on the last line only, NFD keys of NFC-stored directories,
an IN list in a report definition, repeated --where and --null options.
"""
import math, os, random, resource, shutil, statistics, subprocess, sys, threading, time, unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))
from stores import fresh, orders_file  # noqa: E402  (bench/reference/stores.py: the orders file, in both file orders)

BIN = os.environ.get("BIN", ".build-release/release/bookkeeper")
WORK = Path(os.environ.get("WORK", "out/bench")) / "scale"
RUNS = int(os.environ.get("RUNS", "3"))
SIZES = [int(s) for s in os.environ.get("SIZES", "50000,100000,200000").split(",")]
SEED = int(os.environ.get("SEED", str(random.SystemRandom().randrange(1, 1_000_000))))
METRIC = os.environ.get("METRIC", "wall")
ONLY = [p for p in os.environ.get("PATHS", "").split(",") if p]
LIMIT = 2.3
QUARTER = 0.25
READS = 4
REPORTS = HERE.parent / "Reports"
FIRST, LAST = "2024-01-01", "2025-12-31"   # the orders file's dates (bench/generate.py): every report's range covers them
LINE_MODEL = "entities:\n  OrderRow:\n    attributes:\n      line: { type: integer, unique: true }\n"
ORDER_HEADER = "number,date,customer,made,paid,rows.service,rows.sum"


def copy_store(src: Path, dst: Path):
    fresh(dst)
    shutil.copy(src, dst)


def bk(store, *args, model=None, check=True, stdin=None):
    argv = [BIN, "--store", str(store)] + (["--model", str(model)] if model else []) + list(args)
    r = subprocess.run(argv, capture_output=True, text=True, input=stdin)
    if check and r.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr[-600:]}")
    return r


def timed(argv, feed=None, env=None):
    """(wall seconds, CPU seconds of the process, the completed process) of one run. feed = (fifo, text): a thread
    writes text into the named pipe while the command reads it."""
    writer = None
    if feed is not None:
        pipe, text = feed
        pipe.unlink(missing_ok=True)
        os.mkfifo(pipe)
        writer = threading.Thread(target=lambda: pipe.write_text(text))
        writer.start()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if writer:
        writer.join()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r


# ---------------------------------------------------------------------------------------------------------------
# Inputs


def generated(n, order):
    """bench/generate.py's orders file of n lines, in date order or with the orders in random order (kept in WORK)."""
    return orders_file(WORK, order, n)


def write(name, text):
    path = WORK / name
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def lines_of(n):
    return generated(n, "date").read_text().splitlines()[1:]


def with_line_keys(n):
    """The date-ordered file with a rows.line column (the line's number): documents whose rows have line keys."""
    body = lines_of(n)
    return write(f"lines-{n}.csv", ORDER_HEADER + ",rows.line\n" + "".join(f"{l},{i + 1}\n" for i, l in enumerate(body)))


def spread(n, docs, bad=lambda i, d: False, delimiter=",", quantity=lambda i: str(1 + i % 5)):
    """n lines of documents O-d (d = i % docs), in line-ID order: a document's lines are docs lines apart."""
    rows = [delimiter.join([f"O-{i % docs:06d}", "2025-01-01", "Acme Ltd", "yes", "no", str(i + 1), "Repair",
                            "x" if bad(i, i % docs) else quantity(i), "2.50"]) for i in range(n)]
    header = delimiter.join(["number", "date", "customer", "made", "paid", "rows.line", "rows.service",
                             "rows.quantity", "rows.price"])
    return header + "\n" + "\n".join(rows) + "\n"


def by_order(body):
    """The file's lines grouped by order number, in file order."""
    groups = {}
    for line in body:
        groups.setdefault(line.split(",", 1)[0], []).append(line)
    return groups


def upsert_file(n):
    """The date-ordered file with one order in ten (SEED) changed — paid flipped, every line of it — and n/10 more
    lines of new orders: an upsert into the store holding the file."""
    rng = random.Random(SEED * 1000 + n)
    groups = by_order(lines_of(n))
    out = []
    for number, lines in groups.items():
        if rng.random() < 0.1:
            lines = [",".join(f[:4] + ["no" if f[4] == "yes" else "yes"] + f[5:]) for f in (l.split(",") for l in lines)]
        out += lines
    for i in range(n // 10):
        out.append(f"N{i // 5:08d},2025-12-31,Customer {1 + (i // 5) % (n // 50):06d},yes,no,Service {1 + i % 500:03d},10.00")
    return write(f"upsert-{n}-{SEED}.csv", ORDER_HEADER + "\n" + "\n".join(out) + "\n"), len(groups)


def rejects_file(n):
    """The date-ordered file with one order in four (SEED) given a bad sum on one of its lines (any of them: most
    fail after earlier lines were accepted)."""
    rng = random.Random(SEED * 1000 + n + 1)
    out, bad = [], 0
    for number, lines in by_order(lines_of(n)).items():
        if rng.random() < 0.25:
            k = rng.randrange(len(lines))
            f = lines[k].split(",")
            lines = lines[:k] + [",".join(f[:6] + ["x"])] + lines[k + 1:]
            bad += 1
        out += lines
    return write(f"rejects-{n}-{SEED}.csv", ORDER_HEADER + "\n" + "\n".join(out) + "\n"), bad


def customers_file(n, info="a", order=None):
    """n // 5 customers (name, code, info) — or, with order='code', the code first (the key --key code names)."""
    count = n // 5
    if order == "code":
        return write(f"codes-{n}-{info}.csv", "code,name,info\n" + "".join(
            f"K{i:07d},Client {i:07d},{info}\n" for i in range(count)))
    return write(f"customers-{n}-{info}.csv", "name,code,info\n" + "".join(
        f"Client {i:07d},K{i:07d},{info}\n" for i in range(count)))


# ---------------------------------------------------------------------------------------------------------------
# Stores, built from the binary under test once per size


class Stores:
    def __init__(self):
        self.cache = {}
        (WORK / "line-model.yaml").write_text(LINE_MODEL)
        self.line_model = WORK / "line-model.yaml"

    def get(self, kind, n):
        key = (kind, n)
        if key in self.cache:
            return self.cache[key]
        path = WORK / f"store-{kind}-{n}.sqlite"
        fresh(path)
        start = time.perf_counter()
        if kind in ("date", "random"):
            bk(path, "init")
            bk(path, "import", "Order", str(generated(n, kind)), "--create-missing", "--quiet")
        elif kind == "lines":
            bk(path, "init", model=self.line_model)
            bk(path, "import", "Order", str(with_line_keys(n)), "--create-missing", "--quiet", model=self.line_model)
        elif kind == "empty":
            bk(path, "init")
        elif kind == "sample":  # the sample directories (Acme Ltd, Repair), for the spread documents
            bk(path, "init", model=self.line_model)
            for entity, name in [("Tag", "tags"), ("Service", "services"), ("Customer", "customers")]:
                sample = HERE.parent / "SampleData"
                bk(path, "import", entity, str(sample / f"{name}.csv"), "--profile", str(sample / f"{name}.yaml"),
                   "--quiet", model=self.line_model)
        elif kind == "headers":  # the sample directories and n/4 orders without rows, for a row table on its own
            copy_store(self.get("sample", n), path)
            own = "number,date,customer,made,paid\n" + "".join(
                f"O-{d:06d},2025-01-01,Acme Ltd,yes,no\n" for d in range(n // 4))
            bk(path, "import", "Order", str(write(f"own-{n}.csv", own)), "--quiet", model=self.line_model)
        elif kind == "customers":
            bk(path, "init")
            bk(path, "import", "Customer", str(customers_file(n)), "--quiet")
        elif kind == "nfc":
            copy_store(self.get("sample", n), path)
            bk(path, "import", "Customer", str(write(f"nfc-{n}.csv", "name,info\n" + "".join(
                f"{unicodedata.normalize('NFC', x)},a\n" for x in nfd_names(n)))), "--quiet", model=self.line_model)
        else:
            raise ValueError(kind)
        print(f"  store {kind} for {n:,} lines: {time.perf_counter() - start:.2f} s", flush=True)
        self.cache[key] = path
        return path


def nfd_names(n):
    return [f"Café Olé {i} Žluťoučký" for i in range(n // 5)]


# ---------------------------------------------------------------------------------------------------------------
# Paths: label -> make(n) returning a Run


class Run:
    """One command at one size: its store (copied fresh before each run when `writes`), arguments, model, feed,
    environment and the check of its outcome (returns a problem or None)."""

    def __init__(self, store, args, writes=False, model=None, feed=None, env=None, expect=None, out=None):
        self.store, self.args, self.writes, self.model = store, args, writes, model
        self.feed, self.env, self.expect, self.out = feed, env, expect, out

    def once(self):
        store = self.store
        if self.writes:
            store = WORK / "run.sqlite"
            copy_store(self.store, store)
            for extra in WORK.glob("run.sqlite.*"):   # migrate's backup copies beside the store
                extra.unlink()
        if self.out is not None:
            fresh(self.out)
        argv = [BIN, "--store", str(store)] + (["--model", str(self.model)] if self.model else []) + self.args
        wall, cpu, r = timed(argv, self.feed, self.env)
        problem = (self.expect or exit_zero)(r)
        if problem:
            sys.exit(f"{' '.join(argv)}: {problem}\n{r.stderr[-800:]}")
        return wall, cpu


def exit_zero(r):
    return None if r.returncode == 0 else f"exit {r.returncode}"


def summary_has(*parts, status=0):
    def check(r):
        if r.returncode != status:
            return f"exit {r.returncode}, expected {status}"
        missing = [p for p in parts if p not in r.stdout]
        return f"summary without {missing}: {r.stdout[-400:]}" if missing else None
    return check


def report_env():
    env = dict(os.environ)
    env["BOOKKEEPER_TODAY"] = LAST
    return env


def paths(stores: Stores):
    P = []
    lm = stores.line_model

    def add(label, make, scale=1):
        """scale: the path's sizes are SIZES * scale. The paths that read a document's lines far apart cost some
        twenty times a plain import per line: a quarter of the size keeps the run within its ten minutes. The
        quick reads (fetches, the reports but order-details, backup) take four times the size, so that the process
        start (about 0.04 s of CPU) does not hide their growth."""
        if scale != 1:
            label += f" (size/{round(1 / scale)})" if scale < 1 else f" (size*{scale})"
        if not ONLY or any(o in label for o in ONLY):
            P.append((label, make, scale))

    # Imports
    for order in ("date", "random"):
        add(f"import documents, file in {order} order, new store",
            lambda n, o=order: Run(stores.get("empty", n), ["import", "Order", str(generated(n, o)),
                                                            "--create-missing", "--summary", "json"], writes=True))
    add("import documents with line keys (rows.line), date order",
        lambda n: Run(stores.get("sample", n), ["import", "Order", str(with_line_keys(n)), "--create-missing",
                                                "--quiet"], writes=True, model=lm))
    add("import documents with line keys, a document's lines spread",
        lambda n: Run(stores.get("sample", n), ["import", "Order", str(write(f"spread-{n}.csv", spread(n, n // 4))),
                                                "--quiet"], writes=True, model=lm), QUARTER)

    def row_table(n, keyed):
        body = "".join(f"{i + 1 if keyed else ''}{',' if keyed else ''}O-{i % (n // 4):06d},Repair,{1 + i % 5},2.50\n"
                       for i in range(n))
        header = ("line," if keyed else "") + "order,service,quantity,price\n"
        return Run(stores.get("headers", n), ["import", "OrderRow", str(write(f"rowtable-{n}-{keyed}.csv", header + body)),
                                              "--map", "order=order.number", "--map", "service=service.name", "--quiet"],
                   writes=True, model=lm)
    add("import a row table with line keys, spread", lambda n: row_table(n, True), QUARTER)
    add("import a row table without line keys, spread", lambda n: row_table(n, False), QUARTER)
    add("import directories by natural key (name), new store",
        lambda n: Run(stores.get("empty", n), ["import", "Customer", str(customers_file(n)), "--quiet"], writes=True))
    add("import directories by --key code, all updated",
        lambda n: Run(stores.get("customers", n), ["import", "Customer", str(customers_file(n, "b", "code")),
                                                   "--key", "code", "--summary", "json"], writes=True,
                      expect=summary_has('"inserted":0')))

    def upsert(n):
        path, _ = upsert_file(n)
        return Run(stores.get("date", n), ["import", "Order", str(path), "--summary", "json"], writes=True)
    add("upsert into a full store (1 order in 10 changed, 10% new)", upsert)
    add("re-import of an unchanged file",
        lambda n: Run(stores.get("date", n), ["import", "Order", str(generated(n, "date")), "--create-missing",
                                              "--summary", "json"], writes=True,
                      expect=summary_has('"inserted":0', '"updated":0')))

    def rejects(n):
        path, _ = rejects_file(n)
        return Run(stores.get("empty", n), ["import", "Order", str(path), "--create-missing", "--on-error", "skip",
                                            "--rejects", str(WORK / "rejects-out.csv"), "--summary", "json"],
                   writes=True, expect=summary_has('"rejected":', status=65))
    add("--on-error skip, 1 order in 4 rejected", rejects)

    def late(n):
        docs = n // 4   # a document's last line is at i >= 3 * docs: one in four documents fails there
        text = spread(n, docs, bad=lambda i, d: i >= 3 * docs and d % 4 == 0)
        return Run(stores.get("sample", n), ["import", "Order", str(write(f"late-{n}.csv", text)), "--on-error", "skip",
                                             "--summary", "json"], writes=True, model=lm,
                   expect=summary_has('"passes":2', status=65))
    add("--on-error skip, 1 in 4 documents failing late (read twice)", late, QUARTER)

    def fifo(n):
        text = spread(n, n // 4).splitlines(keepends=True)
        body = sorted(text[1:], key=lambda line: line.split(",")[0])   # a document's lines together
        return Run(stores.get("sample", n), ["import", "Order", str(WORK / "orders.pipe"), "--quiet"], writes=True,
                   model=lm, feed=(WORK / "orders.pipe", text[0] + "".join(body)))
    add("import documents from a named pipe", fifo, QUARTER)
    add("import with a decimal mark shown on the last line only",
        lambda n: Run(stores.get("sample", n), ["import", "Order", str(write(f"marks-{n}.csv", spread(
            n, n // 4, delimiter=";", quantity=lambda i: "1.250" if i < n - 1 else "2.25"))), "--summary", "json"],
            writes=True, model=lm, expect=summary_has('"passes":2')), QUARTER)
    add("import directories typed in NFD, stored in NFC",
        lambda n: Run(stores.get("nfc", n), ["import", "Customer", str(write(f"nfd-{n}.csv", "name,info\n" + "".join(
            f"{unicodedata.normalize('NFD', x)},b\n" for x in nfd_names(n)))), "--summary", "json"], writes=True,
            model=lm, expect=summary_has('"inserted":0')))

    # Reads, on the stores from both file orders
    for order in ("date", "random"):
        add(f"fetch with key paths ({order}-order store)",
            lambda n, o=order: Run(stores.get(o, n), [
                "fetch", "Order", "--where", "made == YES AND paid == NO AND customer.name BEGINSWITH 'Customer'",
                "--sort", "customer.name, date", "--columns", "number, date, customer.name, rows.@sum.sum",
                "--format", "csv"]), READS)
        add(f"fetch with SUBQUERY ({order}-order store)",
            lambda n, o=order: Run(stores.get(o, n), [
                "fetch", "Order", "--where",
                "SUBQUERY(rows, $r, $r.sum > 5000 AND $r.service.name ENDSWITH '7').@count > 0",
                "--columns", "number, customer.name, rows.@count", "--format", "csv"]), READS)
        for definition in sorted(REPORTS.glob("*.yaml")):
            name = definition.stem
            params = ["--param", f"until={LAST}"] if name == "unpaid-orders" else (
                [] if name == "customers" else ["--param", f"from={FIRST}", "--param", f"to={LAST}"])
            for fmt in ("csv", "xlsx"):
                out = WORK / f"report.{fmt}"
                add(f"report {name} {fmt} ({order}-order store)",
                    lambda n, o=order, name=name, params=params, fmt=fmt, out=out: Run(
                        stores.get(o, n), ["report", name, "--reports", str(REPORTS), *params, "--format", fmt, "--output", str(out)],
                        env=report_env(), out=out), 1 if name == "order-details" else READS)
    add("check", lambda n: Run(stores.get("random", n), ["check"]))
    add("export Order", lambda n: Run(stores.get("random", n), ["export", "Order", str(WORK / "export.csv")],
                                      out=WORK / "export.csv"))
    add("backup", lambda n: Run(stores.get("random", n), ["backup", str(WORK / "backup.sqlite")],
                                out=WORK / "backup.sqlite"), READS)
    # Batch changes by predicate (issue 33): every unpaid order marked paid; every unpaid order deleted, its rows
    # cascaded (one order in three, its rows with it).
    add("update by predicate (every unpaid order paid)",
        lambda n: Run(stores.get("date", n), ["update", "Order", "--where", "paid == NO", "--set", "paid=YES"], writes=True))
    add("delete by predicate, rows cascaded (every unpaid order)",
        lambda n: Run(stores.get("random", n), ["delete", "Order", "--where", "paid == NO"], writes=True))
    add("migrate --allow-data-loss (drop OrderRow.line)",
        lambda n: Run(stores.get("lines", n), ["migrate", "--allow-data-loss"], writes=True))

    # What bench/scale_bench.py measured: an IN list and repeated options, their count growing with the size
    def in_list(n):
        count = n // 2
        values = [f"'B{(i * 2 + 1):08d}'" if i % 10 == 0 else f"'X-{i}'" for i in range(count)]
        path = write(f"in-list-{count}.yaml", "title: IN list bench\nentity: Order\n"
                     f"where: number IN {{{', '.join(values)}}}\ncolumns: [number]\n")
        return Run(stores.get("random", SIZES[-1]), ["report", str(path), "--format", "csv"])
    add("IN list in a report definition (size/2 values)", in_list)

    def wheres(n):
        args = ["fetch", "Order", "--count", "--explain"]
        for i in range(n // 25):
            args += ["--where", f"number != 'x{i}'"]
        return Run(stores.get("random", SIZES[0]), args)
    add("repeated --where (size/25 options)", wheres)

    def nulls(n):
        args = ["import", "Customer", str(write("two-columns.csv", "Name,Code\nZed,Z1\n")), "--dry-run",
                "--map", "Name=name", "--map", "Code=code"]
        for i in range(n // 25):
            args += ["--null", f"NULL{i}"]
        return Run(stores.get("empty", SIZES[0]), args)
    add("repeated --null (size/25 options)", nulls)
    return P


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    doublings = math.log2(SIZES[-1] / SIZES[0])
    if doublings <= 0:
        sys.exit("SIZES must grow")
    load = os.getloadavg()
    print(f"make bench-scale: {BIN}; sizes {', '.join(f'{n:,}' for n in SIZES)} lines; median of {RUNS} rounds; "
          f"SEED={SEED}; judged by {METRIC} time; limit {LIMIT}x per doubling; load average {load[0]:.2f} "
          f"{load[1]:.2f} {load[2]:.2f}", flush=True)
    print("inputs: bench/generate.py (fixed seeds 4 and 27 for the random file order); the rest from SEED", flush=True)
    stores = Stores()   # each built when a path first needs it, before that path is timed (its time is printed)
    width = 72
    head = "".join(f"{n // 1000:>8}k" for n in SIZES)
    print(f"\n{'path':<{width}}{head}   per doubling (wall, cpu)", flush=True)
    failed = []
    for label, make, scale in paths(stores):
        runs = {n: make(int(n * scale)) for n in SIZES}
        walls, cpus = {n: [] for n in SIZES}, {n: [] for n in SIZES}
        for _ in range(RUNS):
            for n in SIZES:
                wall, cpu = runs[n].once()
                walls[n].append(wall)
                cpus[n].append(cpu)
        wall = [statistics.median(walls[n]) for n in SIZES]
        cpu = [statistics.median(cpus[n]) for n in SIZES]
        r_wall = (wall[-1] / wall[0]) ** (1 / doublings)
        r_cpu = (cpu[-1] / max(cpu[0], 1e-6)) ** (1 / doublings)
        judged = r_cpu if METRIC == "cpu" else r_wall
        ok = judged <= LIMIT
        if not ok:
            failed.append(label)
        times = "".join(f"{t:8.3f}s" for t in wall)
        steps = " ".join(f"{b / a:.2f}" for a, b in zip(wall, wall[1:]))
        print(f"{label:<{width}}{times}   {r_wall:.2f}x {r_cpu:.2f}x  {'PASS' if ok else 'FAIL'}   (each step, wall: "
              f"{steps}; cpu s: {' '.join(f'{c:.3f}' for c in cpu)})", flush=True)
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; SEED={SEED}")
    if failed:
        print(f"FAIL: {len(failed)} path(s) cost more than {LIMIT}x per doubling: " + "; ".join(failed))
        sys.exit(1)
    print(f"PASS: every path at most {LIMIT}x per doubling")


if __name__ == "__main__":
    main()
