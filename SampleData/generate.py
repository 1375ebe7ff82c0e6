#!/usr/bin/env python3
"""Writes SampleData/*.csv: a small, realistic, deterministic data set for Bookkeeper.

20 customers, 10 services, 4 tags, 50 orders with 1-4 rows each, dated December 2025 to November 2026.
Run it again only to change the data; the CSV files are committed.
"""
import csv, random
from decimal import Decimal, ROUND_HALF_EVEN
from datetime import date, timedelta
from pathlib import Path

here = Path(__file__).parent
rng = random.Random(20261121)

tags = ["vip", "wholesale", "retail", "slow payer"]
services = [
    ("S01", "Delivery", "Courier delivery within the city", "25.00"),
    ("S02", "Installation", "On-site installation, per hour", "68.50"),
    ("S03", "Consulting", "Consulting, per hour", "120.00"),
    ("S04", "Maintenance", "Quarterly maintenance visit", "240.00"),
    ("S05", "Training", "Half-day training session", "450.00"),
    ("S06", "Repair", "Workshop repair, per hour", "55.75"),
    ("S07", "Spare parts", "Spare parts, per unit", "12.40"),
    ("S08", "Express delivery", "Same-day delivery", "49.90"),
    ("S09", "Design", "Design work, per hour", "95.00"),
    ("S10", "Support plan", "Monthly support plan", "199.00"),
]
customers = [
    ("C001", "Acme Ltd", "Main account since 2019", ["vip", "wholesale"]),
    ("C002", "Müller GmbH", "Berlin office", ["wholesale"]),
    ("C003", "Café Olé", "Pays by card", ["retail"]),
    ("C004", "Northwind Traders", "", ["wholesale", "slow payer"]),
    ("C005", "Blue Harbour Hotel", "Invoices to accounts@", ["vip"]),
    ("C006", "Smith & Sons", "", ["retail"]),
    ("C007", "Øresund Logistics", "Copenhagen", ["wholesale"]),
    ("C008", "Green Leaf Florist", "", ["retail"]),
    ("C009", "Item 2 Studio", "Design agency", []),
    ("C010", "Item 10 Studio", "Sister agency of Item 2", []),
    ("C011", "Bäckerei Schön", "", ["retail", "slow payer"]),
    ("C012", "Riverside Clinic", "Net 30", ["vip"]),
    ("C013", "O'Brien Builders", "", ["wholesale"]),
    ("C014", "Lumière Cinéma", "", []),
    ("C015", "Polar Ice Co", "Seasonal", ["retail"]),
    ("C016", "Hill Street School", "Purchase orders required", []),
    ("C017", "Nakamura Trading", "", ["wholesale", "vip"]),
    ("C018", "Garcia Plumbing", "", ["slow payer"]),
    ("C019", "Sunrise Bakery", "", ["retail"]),
    ("C020", "Zeta Labs", "", []),
]

with open(here / "tags.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["name"])
    for t in tags:
        w.writerow([t])

with open(here / "services.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["code", "name", "info"])
    for code, name, info, _ in services:
        w.writerow([code, name, info])

with open(here / "customers.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["code", "name", "info", "tags"])
    for code, name, info, t in customers:
        w.writerow([code, name, info, ", ".join(t)])

start = date(2025, 12, 1)
with open(here / "orders.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["number", "date", "customer", "made", "paid",
                "rows.service", "rows.quantity", "rows.price", "rows.sum"])
    for i in range(1, 51):
        number = f"2026-{i:03d}"
        day = start + timedelta(days=(i - 1) * 7 + rng.randrange(0, 5))
        customer = "" if i == 37 else rng.choice(customers)[1]
        made = i <= 44
        paid = made and (i <= 30 or rng.random() < 0.3)
        if i == 23:  # an order without rows (a draft)
            w.writerow([number, day.isoformat(), customer, "no", "no", "", "", "", ""])
            continue
        for _ in range(rng.randint(1, 4)):
            code, name, _, price = rng.choice(services)
            quantity = Decimal(rng.choice(["1", "1", "2", "3", "1.5", "0.5", "10"]))
            price = Decimal(price)
            total = (quantity * price).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
            w.writerow([number, day.isoformat(), customer, "yes" if made else "no", "yes" if paid else "no",
                        name, f"{quantity}", f"{price}", f"{total}"])
print("wrote", ", ".join(p.name for p in sorted(here.glob("*.csv"))))
