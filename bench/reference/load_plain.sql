-- The plain store a user would design for the bench's orders file (issue 27), loaded the way a user would by
-- hand: the CSV into a staging table with sqlite3's .import, then INSERT ... SELECT into the plain tables.
--
--     cd DIRECTORY-OF-orders.csv && sqlite3 plain.sqlite < load_plain.sql
--
-- (bench/reference/stores.py runs it with orders.csv replaced by the bench file's path.) Ids are given in the
-- file's order, as any loader that reads the file front to back gives them (and as bookkeeper's import does): a
-- file whose orders come in random date order leaves "order" in random date order here too.
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
BEGIN;
CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, code TEXT UNIQUE);
CREATE TABLE service(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE "order"(id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, date TEXT NOT NULL, made INTEGER NOT NULL,
                     paid INTEGER NOT NULL, customer_id INTEGER REFERENCES customer(id));
CREATE TABLE row(id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES "order"(id),
                 service_id INTEGER REFERENCES service(id), quantity_milli INTEGER NOT NULL DEFAULT 1000,
                 price_cents INTEGER, sum_cents INTEGER NOT NULL);
-- What the orders file does not hold (the customers report's; filled by load_customers_plain.sql from the
-- customers file, `bench/generate.py LINES FILE customers`): customers' tags. A row's quantity (in thousandths,
-- as money is in cents) is 1 and its price unknown, as bookkeeper's model defaults them.
CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE customer_tag(customer_id INTEGER NOT NULL REFERENCES customer(id),
                          tag_id INTEGER NOT NULL REFERENCES tag(id), PRIMARY KEY(customer_id, tag_id)) WITHOUT ROWID;

-- The file as it is, in a temporary table (not left behind in the store).
CREATE TEMP TABLE staging(number TEXT, date TEXT, customer TEXT, made TEXT, paid TEXT, service TEXT, sum TEXT);
.import --csv --skip 1 --schema temp orders.csv staging

INSERT INTO customer(name)
SELECT customer FROM staging WHERE customer <> '' GROUP BY customer ORDER BY min(rowid);
INSERT INTO service(name)
SELECT service FROM staging WHERE service <> '' GROUP BY service ORDER BY min(rowid);
INSERT INTO "order"(number, date, made, paid, customer_id)
SELECT s.number, s.date, s.made = 'yes', s.paid = 'yes', c.id
FROM staging s LEFT JOIN customer c ON c.name = s.customer
WHERE s.rowid IN (SELECT min(rowid) FROM staging GROUP BY number)
ORDER BY s.rowid;
INSERT INTO row(order_id, service_id, sum_cents)
SELECT o.id, v.id, CAST(round(s.sum * 100) AS INTEGER)
FROM staging s JOIN "order" o ON o.number = s.number LEFT JOIN service v ON v.name = s.service
ORDER BY s.rowid;
DROP TABLE staging;

CREATE INDEX row_order_id ON row(order_id);
CREATE INDEX order_customer_id ON "order"(customer_id);
COMMIT;
ANALYZE;
