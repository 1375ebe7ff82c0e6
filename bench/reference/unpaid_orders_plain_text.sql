-- The unpaid-orders report as an aligned text table, by hand on the plain store (load_plain.sql): the
-- reference for the report's text (issue 27). `sqlite3`'s column mode with headers, which, like the text
-- report, reads every row before it writes one, to size the columns; money with thousands separators and two
-- decimals, right-aligned (a negative width), as the text report shows it. (`printf('%,.2f')` groups nothing:
-- SQLite's `,` flag is for integers, so the cents are split. The sums here are positive; a signed amount would
-- need its sign written apart.)
--
--     sqlite3 plain.sqlite < unpaid_orders_plain_text.sql > unpaid-orders.txt
.headers on
.mode column
.width 0 0 0 -12
SELECT o.date AS "Date", c.name AS "Customer", o.number AS "Order",
       (SELECT printf('%,d.%02d', sum(r.sum_cents) / 100, sum(r.sum_cents) % 100) FROM row r WHERE r.order_id = o.id) AS "Total"
FROM "order" o LEFT JOIN customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0
ORDER BY o.date, c.name;
