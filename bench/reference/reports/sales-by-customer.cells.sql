-- sales-by-customer.sql's statement for report_plain.c: the values as they are stored (money in cents).
SELECT c.name AS "Customer", count(*) AS "Orders",
       coalesce(sum((SELECT sum(r.sum_cents) FROM row r WHERE r.order_id = o.id)), 0) AS "Total"
FROM "order" o LEFT JOIN customer c ON c.id = o.customer_id
WHERE o.paid = 1 AND o.date >= @from AND o.date <= @to
GROUP BY c.name
ORDER BY "Total" DESC, c.name;
