-- sales-by-service.sql's statement for report_plain.c: the values as they are stored (money in cents, quantities
-- in thousandths).
SELECT s.name AS "Service", count(*) AS "Rows", sum(r.quantity_milli) AS "Quantity", sum(r.sum_cents) AS "Total"
FROM row r JOIN "order" o ON o.id = r.order_id LEFT JOIN service s ON s.id = r.service_id
WHERE o.paid = 1 AND o.date >= @from AND o.date <= @to
GROUP BY s.name
ORDER BY "Total" DESC, s.name;
