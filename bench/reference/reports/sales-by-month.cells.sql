-- sales-by-month.sql's statement for report_plain.c: the values as they are stored (money in cents).
SELECT substr(o.date, 1, 7) AS "Month", count(*) AS "Orders",
       coalesce(sum((SELECT sum(r.sum_cents) FROM row r WHERE r.order_id = o.id)), 0) AS "Total"
FROM "order" o
WHERE o.paid = 1 AND o.date >= @from AND o.date <= @to
GROUP BY 1
ORDER BY 1;
