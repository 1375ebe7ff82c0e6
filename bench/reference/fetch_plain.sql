-- The fetch bench's query (bench/fetch_bench.py: made, unpaid orders worth over 1000, by date then customer
-- name, with the order's number, date, customer's name and total) by hand on the plain store (load_plain.sql).
--
--     sqlite3 plain.sqlite < fetch_plain.sql > fetch.csv
.headers on
.mode csv
SELECT o.number AS "number", o.date AS "date", c.name AS "customer.name",
       printf('%.2f', sum(r.sum_cents) / 100.0) AS "rows.@sum.sum"
FROM "order" o JOIN row r ON r.order_id = o.id LEFT JOIN customer c ON c.id = o.customer_id
WHERE o.made = 1 AND o.paid = 0
GROUP BY o.id
HAVING sum(r.sum_cents) > 100000
ORDER BY o.date, c.name;
