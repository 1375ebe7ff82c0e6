-- order-details.sql's statement for report_plain.c: the values as they are stored (money in cents, quantities in
-- thousandths).
SELECT o.date AS "Date", o.number AS "Order", c.name AS "Customer", s.name AS "Service",
       r.quantity_milli AS "Quantity", r.price_cents AS "Price", r.sum_cents AS "Sum"
FROM row r JOIN "order" o ON o.id = r.order_id
LEFT JOIN customer c ON c.id = o.customer_id LEFT JOIN service s ON s.id = r.service_id
WHERE o.date >= @from AND o.date <= @to
ORDER BY o.date, o.number;
