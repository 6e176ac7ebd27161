-- Window functions: row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead,
-- first_value, last_value and aggregates OVER (PARTITION BY ... ORDER BY ...), with the default
-- frame and ROWS/RANGE frames, NULLs in partitions and order keys, over grouped queries, and
-- the errors of misplaced window calls. Results never depend on the order of peers, which
-- neither server defines.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE w_emp (id int PRIMARY KEY, dept text, salary int);
INSERT INTO w_emp VALUES (1, 'eng', 100), (2, 'eng', 120), (3, 'eng', 100), (4, 'ops', 90), (5, 'ops', NULL),
  (6, NULL, 80), (7, NULL, 80), (8, 'eng', 130);
SELECT id, dept, salary, row_number() OVER (PARTITION BY dept ORDER BY salary, id) FROM w_emp ORDER BY id;
SELECT id, rank() OVER (ORDER BY salary), dense_rank() OVER (ORDER BY salary) FROM w_emp ORDER BY id;
SELECT id, rank() OVER (PARTITION BY dept ORDER BY salary DESC) FROM w_emp ORDER BY id;
SELECT id, percent_rank() OVER (ORDER BY salary), cume_dist() OVER (ORDER BY salary) FROM w_emp ORDER BY id;
SELECT id, ntile(3) OVER (ORDER BY id), ntile(10) OVER (ORDER BY id) FROM w_emp ORDER BY id;
SELECT id, lag(salary) OVER (ORDER BY id), lead(salary, 2) OVER (ORDER BY id), lag(salary, 1, -1) OVER (ORDER BY id) FROM w_emp ORDER BY id;
SELECT id, lag(salary, 1, 0.5) OVER (ORDER BY id), lead(id, NULL) OVER (ORDER BY id) FROM w_emp ORDER BY id;
SELECT id, first_value(salary) OVER (PARTITION BY dept ORDER BY id), last_value(salary) OVER (PARTITION BY dept ORDER BY id) FROM w_emp ORDER BY id;
SELECT id, last_value(salary) OVER (ORDER BY salary), max(id) OVER (ORDER BY salary), last_value(id) OVER (ORDER BY salary, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM w_emp ORDER BY id;
SELECT id, sum(salary) OVER (PARTITION BY dept), count(*) OVER (PARTITION BY dept), count(salary) OVER (PARTITION BY dept) FROM w_emp ORDER BY id;
SELECT id, sum(salary) OVER (ORDER BY salary), avg(salary) OVER (ORDER BY salary) FROM w_emp ORDER BY id;
SELECT id, sum(salary) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), max(salary) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM w_emp ORDER BY id;
SELECT id, min(salary) OVER (ORDER BY salary RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), string_agg(dept, ',') OVER (ORDER BY id) FROM w_emp ORDER BY id;
SELECT id, sum(id) OVER (), bool_and(salary > 85) OVER (PARTITION BY dept) FROM w_emp ORDER BY id;
SELECT dept, count(*), sum(count(*)) OVER (), rank() OVER (ORDER BY count(*) DESC) FROM w_emp GROUP BY dept ORDER BY dept;
SELECT id, row_number() OVER (ORDER BY id DESC) AS rn FROM w_emp ORDER BY rn LIMIT 3;
SELECT id FROM w_emp ORDER BY row_number() OVER (ORDER BY salary DESC NULLS LAST, id) LIMIT 3;
SELECT * FROM (SELECT id, dept, rank() OVER (PARTITION BY dept ORDER BY salary DESC) AS r FROM w_emp) x WHERE r = 1 ORDER BY id;
SELECT row_number() OVER (), count(*) OVER () FROM w_emp WHERE false;
SELECT row_number() OVER () FROM (VALUES (1)) v(x);
SELECT id FROM w_emp WHERE row_number() OVER () > 1;
SELECT count(row_number() OVER ()) FROM w_emp;
SELECT row_number() OVER (ORDER BY row_number() OVER ()) FROM w_emp;
SELECT sum(salary) OVER (ORDER BY id) FROM w_emp GROUP BY dept;
SELECT id FROM w_emp GROUP BY id HAVING rank() OVER () > 0;
SELECT ntile(0) OVER () FROM w_emp;
SELECT lower(dept) OVER () FROM w_emp;
SELECT nosuch(1) OVER () FROM w_emp;
SELECT row_number(1) OVER () FROM w_emp;
SELECT count(DISTINCT id) OVER () FROM w_emp;
DROP TABLE w_emp;
