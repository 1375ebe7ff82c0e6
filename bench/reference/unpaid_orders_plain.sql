-- The unpaid-orders report as CSV (and the reference for its text), by hand on the plain store
-- (load_plain.sql): issue 27's statement, money as text with two decimals as the CSV renderer writes it.
--
--     sqlite3 plain.sqlite < unpaid_orders_plain.sql > unpaid-orders.csv
.headers on
.mode csv
SELECT o.date AS "Date", c.name AS "Customer", o.number AS "Order",
       printf('%.2f', (SELECT sum(r.sum_cents) FROM row r WHERE r.order_id = o.id) / 100.0) AS "Total"
FROM "order" o LEFT JOIN customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0
ORDER BY o.date, c.name;
