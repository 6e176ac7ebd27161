-- Aggregates with ORDER BY and FILTER, and array_agg: string_agg in a given order (ASC/DESC, NULLS FIRST/LAST,
-- several keys, DISTINCT), FILTER on every aggregate (count(*) included), per group and with
-- HAVING, and their errors.
CREATE TABLE sales (region text, item text, qty int, price numeric(8,2));
INSERT INTO sales VALUES ('north', 'pear', 3, 1.50), ('north', 'apple', 5, 0.80), ('south', 'fig', NULL, 2.10),
  ('south', 'apple', 2, 0.90), ('north', 'kiwi', 1, NULL), ('south', 'date', 7, 3.00), ('east', 'lime', 4, 0.40);
SELECT string_agg(item, ',' ORDER BY item) AS asc_items, string_agg(item, ',' ORDER BY item DESC) AS desc_items FROM sales;
SELECT string_agg(item, ',' ORDER BY qty) AS nulls_last, string_agg(item, ',' ORDER BY qty NULLS FIRST) AS nulls_first,
  string_agg(item, ',' ORDER BY qty DESC) AS desc_nulls_first FROM sales;
SELECT string_agg(item, ';' ORDER BY region, qty DESC) AS two_keys, string_agg(DISTINCT region, ',' ORDER BY region) AS regions FROM sales;
SELECT region, string_agg(item || ':' || qty, ' ' ORDER BY item) AS items FROM sales GROUP BY region ORDER BY region;
SELECT count(*) FILTER (WHERE qty > 2) AS big, count(*) AS all_rows, sum(qty) FILTER (WHERE region = 'north') AS north_qty,
  max(price) FILTER (WHERE item <> 'date') AS max_but_date, avg(qty) FILTER (WHERE false) AS none FROM sales;
SELECT region, count(*) FILTER (WHERE price < 1) AS cheap, string_agg(item, ',' ORDER BY item) FILTER (WHERE qty IS NOT NULL) AS counted
  FROM sales GROUP BY region HAVING count(*) FILTER (WHERE qty > 0) >= 1 ORDER BY region;
SELECT count(*) FILTER (WHERE qty > 100) AS no_rows, string_agg(item, ',') FILTER (WHERE qty > 100) AS no_string FROM sales;
SELECT bool_and(qty > 0) FILTER (WHERE qty IS NOT NULL) AS all_positive, min(item ORDER BY item) AS min_ordered FROM sales;
SELECT array_agg(qty ORDER BY qty) AS qtys, array_agg(item ORDER BY item DESC) FILTER (WHERE region = 'south') AS south,
  array_agg(DISTINCT region ORDER BY region) AS regions, array_agg(price ORDER BY item, region) AS prices FROM sales;
SELECT region, array_agg(qty ORDER BY qty NULLS FIRST) AS qtys, array_length(array_agg(item), 1) AS n FROM sales GROUP BY region ORDER BY region;
SELECT array_agg(qty) FILTER (WHERE qty > 100) AS empty_is_null, array_agg(NULL::int) AS nulls, array_agg('x'::text) AS literal FROM sales;
SELECT (array_agg(item ORDER BY qty DESC NULLS LAST))[1] AS top_item FROM sales;
SELECT item, array_agg(qty) OVER (PARTITION BY region ORDER BY item) AS running FROM sales ORDER BY region, item;
\set ON_ERROR_STOP 0
SELECT count(*) FILTER (WHERE qty) FROM sales;
SELECT lower(item ORDER BY item) FROM sales;
SELECT upper(item) FILTER (WHERE true) FROM sales;
SELECT count(*) FILTER (WHERE count(*) > 1) FROM sales;
SELECT string_agg(item, ',' ORDER BY item) OVER () FROM sales;
\set ON_ERROR_STOP 1
DROP TABLE sales;
