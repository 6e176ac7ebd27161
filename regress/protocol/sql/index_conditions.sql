-- A condition that an index answers exactly is not tested again on each row (sql/plan/planner.cc
-- ExactKeyCondition): equalities on key columns, and ranges closed on both sides, of integer and
-- date/time columns against a value of the column's own type. Every shape below must still
-- return exactly PostgreSQL's rows: open ranges over NULLs, contradictory or repeated
-- conditions, NULL values, values of a wider type, DESC and hash indexes, joins, UPDATE, DELETE.
CREATE TABLE ic (a int, b int, c bigint, d date, s smallint, t text, PRIMARY KEY (a, b));
CREATE INDEX ic_c ON ic (c);
CREATE INDEX ic_d_desc ON ic (d DESC);
CREATE INDEX ic_s ON ic (s);
CREATE INDEX ic_a_hash ON ic USING hash (a);
INSERT INTO ic VALUES
  (1, 1, 10, '2024-01-01', 1, 'x'), (1, 2, NULL, '2024-01-02', 2, 'y'), (1, 3, 30, NULL, NULL, 'z'),
  (2, 1, 40, '2024-01-04', 4, NULL), (2, 2, NULL, NULL, 5, 'w'), (3, 1, 60, '2024-01-06', 32767, 'v');
SELECT * FROM ic WHERE a = 1 AND b = 2;
SELECT a, b FROM ic WHERE a = 1 AND b >= 2 AND b < 3 ORDER BY b;
SELECT a, b FROM ic WHERE a = 1 AND b > 1 ORDER BY b;
SELECT a, b FROM ic WHERE c < 50 ORDER BY a, b;
SELECT a, b FROM ic WHERE c > 15 ORDER BY a, b;
SELECT a, b FROM ic WHERE c >= 10 AND c <= 40 ORDER BY a, b;
SELECT a, b FROM ic WHERE c > 5 AND c > 35 AND c < 100 ORDER BY a, b;
SELECT a, b FROM ic WHERE c > 5 AND c < 100 AND c < 35 ORDER BY a, b;
SELECT a, b FROM ic WHERE a = 1 AND a = 2;
SELECT a, b FROM ic WHERE a = 1 AND b = 1 AND b = 2;
SELECT a, b FROM ic WHERE a = 2 AND a = 2 ORDER BY b;
SELECT a, b FROM ic WHERE c = NULL;
SELECT a, b FROM ic WHERE a = NULL::int AND b = 1;
SELECT a, b FROM ic WHERE c >= NULL::bigint AND c < 50;
SELECT a, b FROM ic WHERE d >= '2024-01-02' AND d < '2024-01-06' ORDER BY d DESC;
SELECT a, b FROM ic WHERE d > '2024-01-01' ORDER BY a, b;
SELECT a, b FROM ic WHERE d <= '2024-01-04' ORDER BY a, b;
SELECT a, b FROM ic WHERE s = 32767;
SELECT a, b FROM ic WHERE s = 100000;
SELECT a, b FROM ic WHERE s >= 2 AND s <= 100000 ORDER BY a, b;
SELECT a, b FROM ic WHERE c = 4000000000;
SELECT a, b FROM ic WHERE a = 4000000000;
SELECT a, b FROM ic WHERE a = 2 ORDER BY b;
SELECT a, b FROM ic WHERE a = 1 + 1 AND b = 3 - 1;
SELECT a, b FROM ic WHERE a = 1 AND b BETWEEN 2 AND 3 ORDER BY b;
SELECT a, b FROM ic WHERE a = 1 AND b = 2 AND t = 'y';
SELECT a, b FROM ic WHERE a = 1 AND b = 2 AND t = 'no';
SELECT x.a, x.b, y.b FROM ic x JOIN ic y ON y.a = x.b AND y.b = 1 WHERE x.a = 1 ORDER BY x.b;
SELECT x.a, x.b, y.c FROM ic x LEFT JOIN ic y ON y.a = x.a AND y.b = x.b + 1 AND y.c < 50 WHERE x.a = 1 ORDER BY x.b;
SELECT count(*) FROM ic x JOIN ic y ON y.a = x.a AND y.b >= x.b AND y.b <= x.b + 1;
SELECT x.a, x.b, y.a, y.b FROM ic x JOIN ic y ON y.c = x.a * 10 ORDER BY x.a, x.b, y.a, y.b;
SELECT x.a, x.b, y.a, y.b FROM ic x JOIN ic y ON y.a = x.c / 10 AND y.b = 1 ORDER BY x.a, x.b;
SELECT x.a, x.b, y.t FROM ic x LEFT JOIN ic y ON y.a = x.b AND y.b = x.a ORDER BY x.a, x.b;
UPDATE ic SET t = t || '!' WHERE a = 1 AND b >= 2 AND b <= 3 RETURNING a, b, t;
UPDATE ic SET c = c + 1 WHERE a = 3 AND b = 1 RETURNING c;
DELETE FROM ic WHERE c >= 40 AND c < 61 RETURNING a, b;
SELECT * FROM ic ORDER BY a, b;
DROP TABLE ic;
