-- The sales-by-service report as CSV (and the reference for its text), by hand on the plain store
-- (load_plain.sql): rows of paid orders of a period (@from, @to) per service, with their count, the quantity
-- sold and the total, largest total first.
.headers on
.mode csv
SELECT s.name AS "Service", count(*) AS "Rows", printf('%.3f', sum(r.quantity_milli) / 1000.0) AS "Quantity",
       printf('%.2f', sum(r.sum_cents) / 100.0) AS "Total"
FROM row r JOIN "order" o ON o.id = r.order_id LEFT JOIN service s ON s.id = r.service_id
WHERE o.paid = 1 AND o.date >= @from AND o.date <= @to
GROUP BY s.name
ORDER BY sum(r.sum_cents) DESC, s.name;
