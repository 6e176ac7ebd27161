-- Row values in comparisons: (a, b) op (x, y) for = <> < <= > >=, [NOT] IN lists of rows, ROW(...),
-- with NULLs (a comparison stops at the first unequal or NULL pair), on constants and on a table
-- with a composite primary key (keyset pagination, multi-column IN lists, FOR UPDATE).
SELECT (1, 2) = (1, 2) AS eq, (1, 2) = (1, 3) AS eq_miss, (1, 2) <> (1, 3) AS ne, (1, 2) <> (1, 2) AS ne_miss;
SELECT (1, 2) < (1, 3) AS lt, (1, 2) < (2, 0) AS lt_first, (1, 2) < (1, 2) AS lt_equal, (1, 2) <= (1, 2) AS le_equal;
SELECT (2, 0) > (1, 9) AS gt_first, (1, 3) > (1, 2) AS gt_second, (1, 2) >= (1, 2) AS ge_equal, (1, 2) >= (1, 3) AS ge_miss;
SELECT ROW(1, 'a') = ROW(1, 'a') AS row_kw, ROW(1) = ROW(1) AS one_column, (1, 2, 3) < (1, 2, 4) AS three_columns;
SELECT (1, NULL) = (1, 2) AS eq_null, (1, NULL) = (2, 2) AS eq_null_false, (1, NULL) <> (2, 2) AS ne_null_true;
SELECT (NULL, 1) < (1, 2) AS lt_null_first, (0, NULL) < (1, 2) AS lt_decided_before_null, (1, NULL) < (1, 2) AS lt_null_second;
SELECT (1, 2) IN ((1, 2), (3, 4)) AS in_hit, (1, 2) IN ((3, 4)) AS in_miss, (1, 2) NOT IN ((3, 4), (5, 6)) AS not_in;
SELECT (1, NULL) IN ((1, 2)) AS in_null, (1, NULL) IN ((2, 2)) AS in_null_false, (1, 2) NOT IN ((1, NULL)) AS not_in_null;
SELECT (1, 'a') IN ((1, 'a'), (2, 'b')) AS mixed_types, (1.5, 2) = (1.5, 2.0) AS numeric_common;
CREATE TABLE stock (w int, i int, qty int, PRIMARY KEY (w, i));
INSERT INTO stock SELECT w, i, w * 100 + i FROM generate_series(1, 3) w, generate_series(1, 5) i;
SELECT w, i, qty FROM stock WHERE (w, i) IN ((1, 2), (2, 5), (3, 1), (4, 4)) ORDER BY w, i;
SELECT w, i, qty FROM stock WHERE (w, i) IN ((1, 2), (2, 5)) ORDER BY w, i FOR UPDATE;
SELECT w, i FROM stock WHERE (i, w) IN ((2, 1), (2, 1), (NULL, 3), (5, 2)) ORDER BY w, i;
SELECT w, i FROM stock WHERE w IN (3, 1, 3, NULL) AND i IN (5, 4) ORDER BY w, i;
CREATE INDEX stock_qty ON stock (qty);
SELECT w, i FROM stock WHERE qty IN (105, 302, 999) ORDER BY qty;
SELECT s.w, s.i FROM generate_series(1, 3) g JOIN stock s ON (s.w, s.i) IN ((g, 1), (g, 2)) ORDER BY 1, 2;
SELECT w, i FROM stock WHERE (w, i) > (1, 4) ORDER BY w, i LIMIT 4;
SELECT w, i FROM stock WHERE (w, i) >= (2, 5) AND (w, i) < (3, 3) ORDER BY w, i;
SELECT w, i FROM stock WHERE (w, i) <= (1, 2) ORDER BY w DESC, i DESC;
SELECT count(*) FROM stock WHERE (w, i) <> (1, 1);
SELECT count(*) FROM stock WHERE (w, i) NOT IN ((1, 1), (2, 2));
UPDATE stock SET qty = 0 WHERE (w, i) IN ((1, 1), (3, 5));
SELECT w, i, qty FROM stock WHERE qty = 0 ORDER BY w, i;
DELETE FROM stock WHERE (w, i) = (2, 3);
SELECT count(*) FROM stock;
SELECT w, i FROM stock WHERE (w, i) > (2, 4) ORDER BY w, i LIMIT 2;
SELECT w, i FROM stock WHERE (w, i) > (3, 4) ORDER BY w, i LIMIT 2;
\set ON_ERROR_STOP 0
SELECT (1, 2) = (1, 2, 3);
SELECT (1, 2) IN ((1, 2), (1, 2, 3));
SELECT (1, 'a') = (1, 2);
\set ON_ERROR_STOP 1
DROP TABLE stock;
