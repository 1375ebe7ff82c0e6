-- The customers report as CSV (and the reference for its text), by hand on the plain store (load_plain.sql, then
-- load_customers_plain.sql): every customer with its code, its tags as a list (in the order they were made, as
-- bookkeeper lists them), its number of orders, last order date and total ordered (0 without orders); by name.
-- Each order's total once (grouped rows), then per customer.
.headers on
.mode csv
SELECT c.name AS "Customer", c.code AS "Code",
       (SELECT group_concat(name, ', ') FROM (SELECT t.name FROM customer_tag ct JOIN tag t ON t.id = ct.tag_id
                                              WHERE ct.customer_id = c.id ORDER BY t.id)) AS "Tags",
       coalesce(o.orders, 0) AS "Orders", o.last AS "Last order",
       printf('%.2f', coalesce(o.cents, 0) / 100.0) AS "Ordered"
FROM customer c
LEFT JOIN (SELECT o.customer_id, count(*) AS orders, max(o.date) AS last, sum(r.cents) AS cents
           FROM "order" o LEFT JOIN (SELECT order_id, sum(sum_cents) AS cents FROM row GROUP BY order_id) r
                                 ON r.order_id = o.id
           GROUP BY o.customer_id) o ON o.customer_id = c.id
ORDER BY c.name;
