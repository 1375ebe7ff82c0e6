#!/usr/bin/env python3
"""Writes the bench's orders-with-rows CSV, deterministically (the same bytes on every run).

usage: generate.py LINES FILE [random|customers]  — LINES/5 orders (rows per order cycle through 3 7 5 1 9 4 6 2 8
5, five on average), LINES/50 customers, 500 services; columns number,date,customer,made,paid,rows.service,rows.sum.

The orders come in date order (and number order). With `random`, the same lines are written with the orders in
a random order (a fixed seed: the same bytes on every run), each order's lines kept together: the file order
that leaves a store's tables in no useful order (issue 27).

With `customers`, FILE gets what the orders file does not hold about its LINES/50 customers, for the `customers`
report: name,code,tags — a code for nine customers in ten (C000001…), and zero to three of eight tags, as a list
(`"north, vip"`, names in order). Imported after the orders file (bookkeeper: `import Customer FILE
--create-missing`; the plain store: load_customers_plain.sql), so ids still follow the orders file.
"""
import random, sys
from datetime import date, timedelta

lines = int(sys.argv[1])
path = sys.argv[2]
shuffled = len(sys.argv) > 3 and sys.argv[3] == "random"
if len(sys.argv) > 3 and sys.argv[3] == "customers":
    tags = ["east", "export", "north", "retail", "south", "vip", "west", "wholesale"]
    rng = random.Random(50)
    with open(path, "w", newline="") as f:
        f.write("name,code,tags\n")
        for n in range(1, lines // 50 + 1):
            code = f"C{n:06d}" if n % 10 else ""
            chosen = ", ".join(sorted(rng.sample(tags, n % 4)))
            f.write(f'Customer {n:06d},{code},"{chosen}"\n' if chosen else f"Customer {n:06d},{code},\n")
    sys.exit(0)
if len(sys.argv) > 3 and not shuffled:
    sys.exit(f"generate.py: unknown order {sys.argv[3]!r} (`random` or `customers`)")
orders = lines // 5
customers = lines // 50
services = 500
pattern = [3, 7, 5, 1, 9, 4, 6, 2, 8, 5]
rng = random.Random(4)
start = date(2024, 1, 1)
written = 0
documents = []  # with `random`: each order's lines, shuffled before writing
with open(path, "w", newline="") as f:
    f.write("number,date,customer,made,paid,rows.service,rows.sum\n")
    out = []
    for i in range(orders):
        if shuffled and i > 0:
            documents.append("".join(out))
            out = []
        n = pattern[i % 10]
        if written + n > lines or i == orders - 1:
            n = lines - written
        number = f"B{i + 1:08d}"
        day = (start + timedelta(days=i * 731 // orders)).isoformat()
        customer = f"Customer {rng.randrange(customers) + 1:06d}"
        made = "yes" if i % 7 else "no"
        paid = "yes" if i % 3 else "no"
        for _ in range(n):
            service = f"Service {rng.randrange(services) + 1:03d}"
            cents = rng.randrange(100, 1_000_000)
            out.append(f"{number},{day},{customer},{made},{paid},{service},{cents // 100}.{cents % 100:02d}\n")
        written += n
        if not shuffled and len(out) > 50_000:
            f.write("".join(out))
            out = []
    if shuffled:
        documents.append("".join(out))
        random.Random(27).shuffle(documents)
        out = documents
    f.write("".join(out))
