-- The order-details report as CSV (and the reference for its text), by hand on the plain store (load_plain.sql):
-- every row of the orders of a period (@from, @to: `.parameter set @from "'2024-01-01'"`), by date and number.
.headers on
.mode csv
SELECT o.date AS "Date", o.number AS "Order", c.name AS "Customer", s.name AS "Service",
       printf('%.3f', r.quantity_milli / 1000.0) AS "Quantity",
       CASE WHEN r.price_cents IS NOT NULL THEN printf('%.2f', r.price_cents / 100.0) END AS "Price",
       printf('%.2f', r.sum_cents / 100.0) AS "Sum"
FROM row r JOIN "order" o ON o.id = r.order_id
LEFT JOIN customer c ON c.id = o.customer_id LEFT JOIN service s ON s.id = r.service_id
WHERE o.date >= @from AND o.date <= @to
ORDER BY o.date, o.number;
