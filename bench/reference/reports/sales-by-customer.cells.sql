-- sales-by-customer.sql's statement for report_plain.c: the values as they are stored (money in cents).
SELECT c.name AS "Customer", count(*) AS "Orders", coalesce(sum(r.cents), 0) AS "Total"
FROM "order" o
LEFT JOIN (SELECT order_id, sum(sum_cents) AS cents FROM row GROUP BY order_id) r ON r.order_id = o.id
LEFT JOIN customer c ON c.id = o.customer_id
WHERE o.paid = 1 AND o.date >= @from AND o.date <= @to
GROUP BY c.name
ORDER BY "Total" DESC, "Customer";
