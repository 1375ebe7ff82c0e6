-- The sales-by-month report as CSV (and the reference for its text), by hand on the plain store (load_plain.sql):
-- paid orders of a period (@from, @to) per month, with their count and total. (Months without a sale are left
-- out, where bookkeeper lists them with 0; the bench's file has sales every month.)
.headers on
.mode csv
SELECT substr(o.date, 1, 7) AS "Month", count(*) AS "Orders",
       printf('%.2f', coalesce(sum((SELECT sum(r.sum_cents) FROM row r WHERE r.order_id = o.id)), 0) / 100.0)
         AS "Total"
FROM "order" o
WHERE o.paid = 1 AND o.date >= @from AND o.date <= @to
GROUP BY 1
ORDER BY 1;
