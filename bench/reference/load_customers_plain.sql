-- What the orders file does not say about customers — codes and tags, the customers report's (the customers file,
-- `bench/generate.py LINES FILE customers`: name,code,tags with tags a list "north, vip") — into the plain store
-- load_plain.sql made, the way a user would by hand: .import into a staging table, then plain statements; the list
-- split with a recursive common table expression.
--
--     cd DIRECTORY-OF-customers.csv && sqlite3 plain.sqlite < load_customers_plain.sql
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
BEGIN;
CREATE TEMP TABLE staging(name TEXT, code TEXT, tags TEXT);
.import --csv --skip 1 --schema temp customers.csv staging

INSERT OR IGNORE INTO customer(name) SELECT name FROM staging ORDER BY rowid;
UPDATE customer SET code = s.code FROM staging s WHERE s.name = customer.name AND s.code <> '';
-- Each list item with where it stands in the file (line, place in the list): tags get their ids in the order they
-- first appear, as any loader reading the file front to back gives them.
CREATE TEMP TABLE staging_tag(customer_id INTEGER, name TEXT, place INTEGER);
WITH RECURSIVE split(customer_id, line, place, item, rest) AS (
    SELECT c.id, s.rowid, 0, NULL, s.tags || ',' FROM staging s JOIN customer c ON c.name = s.name WHERE s.tags <> ''
    UNION ALL
    SELECT customer_id, line, place + 1, trim(substr(rest, 1, instr(rest, ',') - 1)), substr(rest, instr(rest, ',') + 1)
    FROM split WHERE rest <> '')
INSERT INTO temp.staging_tag SELECT customer_id, item, line * 1000 + place FROM split WHERE item IS NOT NULL;
INSERT INTO tag(name) SELECT name FROM temp.staging_tag GROUP BY name ORDER BY min(place);
INSERT INTO customer_tag(customer_id, tag_id)
SELECT s.customer_id, t.id FROM temp.staging_tag s JOIN tag t ON t.name = s.name;
DROP TABLE staging;
DROP TABLE staging_tag;
COMMIT;
ANALYZE;
