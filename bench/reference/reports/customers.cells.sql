-- customers.sql's statement for report_plain.c: the values as they are stored (money in cents).
SELECT c.name AS "Customer", c.code AS "Code",
       (SELECT group_concat(name, ', ') FROM (SELECT t.name FROM customer_tag ct JOIN tag t ON t.id = ct.tag_id
                                              WHERE ct.customer_id = c.id ORDER BY t.id)) AS "Tags",
       coalesce(o.orders, 0) AS "Orders", o.last AS "Last order", coalesce(o.cents, 0) AS "Ordered"
FROM customer c
LEFT JOIN (SELECT o.customer_id, count(*) AS orders, max(o.date) AS last, sum(r.cents) AS cents
           FROM "order" o LEFT JOIN (SELECT order_id, sum(sum_cents) AS cents FROM row GROUP BY order_id) r
                                 ON r.order_id = o.id
           GROUP BY o.customer_id) o ON o.customer_id = c.id
ORDER BY c.name;
