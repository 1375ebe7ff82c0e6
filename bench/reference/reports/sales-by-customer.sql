-- The sales-by-customer report as CSV (and the reference for its text), by hand on the plain store
-- (load_plain.sql): paid orders of a period (@from, @to) per customer, with their count and total, largest first.
-- Each order's total once (rows grouped by order), then per customer, as customers.sql does; the total summed
-- once, sorted by its alias.
.headers on
.mode csv
SELECT "Customer", "Orders", printf('%.2f', cents / 100.0) AS "Total"
FROM (SELECT c.name AS "Customer", count(*) AS "Orders", coalesce(sum(r.cents), 0) AS cents
      FROM "order" o
      LEFT JOIN (SELECT order_id, sum(sum_cents) AS cents FROM row GROUP BY order_id) r ON r.order_id = o.id
      LEFT JOIN customer c ON c.id = o.customer_id
      WHERE o.paid = 1 AND o.date >= @from AND o.date <= @to
      GROUP BY c.name)
ORDER BY cents DESC, "Customer";
