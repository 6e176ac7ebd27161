-- SELECT over tables: WHERE with index and non-index conditions, ORDER BY / LIMIT / OFFSET,
-- DISTINCT, aggregates with GROUP BY / HAVING, joins (inner, left, USING, comma), subqueries in
-- FROM, WHERE and the select list, WITH, UNION, VALUES, and the errors of name resolution.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE q_dept (id int PRIMARY KEY, name text NOT NULL, budget numeric(10,2));
CREATE TABLE q_emp (id int PRIMARY KEY, dept int, name text, salary int8, hired date, UNIQUE (name));
INSERT INTO q_dept VALUES (1, 'eng', 1000.50), (2, 'ops', 200), (3, 'empty', NULL);
INSERT INTO q_emp VALUES (10, 1, 'ann', 120, '2020-01-15'), (11, 1, 'bob', 100, '2021-03-01'),
  (12, 2, 'cy', 90, '2019-07-30'), (13, 2, 'di', NULL, '2022-11-11'), (14, NULL, 'ed', 70, NULL),
  (15, 1, 'flo', 100, '2023-05-05');
SELECT * FROM q_emp WHERE id = 12;
SELECT name FROM q_emp WHERE id > 12 ORDER BY id;
SELECT name FROM q_emp WHERE id >= 11 AND id < 14 ORDER BY id DESC;
SELECT name, salary FROM q_emp WHERE salary >= 100 ORDER BY salary DESC, name;
SELECT name FROM q_emp WHERE name = 'bob';
SELECT id FROM q_emp WHERE dept = 1 AND salary = 100 ORDER BY id;
SELECT name, salary FROM q_emp ORDER BY salary NULLS FIRST, name;
SELECT name, salary FROM q_emp ORDER BY salary DESC NULLS LAST, name;
SELECT name FROM q_emp ORDER BY id LIMIT 2;
SELECT name FROM q_emp ORDER BY id LIMIT 2 OFFSET 3;
SELECT name FROM q_emp ORDER BY id DESC LIMIT 1;
SELECT name FROM q_emp ORDER BY id OFFSET 5;
SELECT name FROM q_emp ORDER BY id LIMIT 0;
SELECT name FROM q_emp ORDER BY id LIMIT NULL;
SELECT name FROM q_emp LIMIT -1;
SELECT name FROM q_emp OFFSET -1;
SELECT e.name AS who, salary * 2 AS double FROM q_emp e WHERE e.id < 12 ORDER BY who;
SELECT DISTINCT dept FROM q_emp ORDER BY dept;
SELECT DISTINCT dept, salary FROM q_emp ORDER BY 1, 2;
SELECT q_emp.* FROM q_emp WHERE id = 10;
-- aggregates
SELECT count(*), count(salary), sum(salary), avg(salary), min(salary), max(salary) FROM q_emp;
SELECT count(*), sum(salary), avg(salary), max(name) FROM q_emp WHERE id > 100;
SELECT dept, count(*), sum(salary) FROM q_emp GROUP BY dept ORDER BY dept;
SELECT dept, count(*) AS n FROM q_emp GROUP BY dept HAVING count(*) > 1 ORDER BY n DESC, dept;
SELECT dept, max(salary) - min(salary) AS spread FROM q_emp WHERE dept IS NOT NULL GROUP BY 1 ORDER BY 1;
SELECT count(DISTINCT salary), count(DISTINCT dept) FROM q_emp;
SELECT sum(budget), avg(budget), min(hired), max(hired) FROM q_dept, q_emp WHERE q_dept.id = q_emp.dept;
SELECT bool_and(salary > 80), bool_or(salary > 110), every(salary > 60) FROM q_emp;
SELECT string_agg(name, ',') FROM (SELECT name FROM q_emp ORDER BY name DESC) s;
SELECT dept, salary FROM q_emp GROUP BY dept;
SELECT name FROM q_emp WHERE count(*) > 1;
SELECT sum(count(*)) FROM q_emp;
SELECT sum(name) FROM q_emp;
SELECT dept + 1, count(*) FROM q_emp GROUP BY dept + 1 ORDER BY 1;
SELECT count(*) FROM q_emp HAVING count(*) > 100;
-- GROUP BY a table's whole primary key: its other columns depend on it and may be used
-- ungrouped (PostgreSQL 9.1+), in the targets, HAVING, ORDER BY and correlated subqueries
CREATE TABLE q_assign (emp int, dept int, role text, hours int, PRIMARY KEY (emp, dept));
INSERT INTO q_assign VALUES (10, 1, 'lead', 30), (10, 2, 'help', 5), (11, 1, 'dev', 40), (12, 2, 'ops', 40);
SELECT d.id, d.name, d.budget, count(e.id), sum(e.salary) FROM q_dept d, q_emp e WHERE e.dept = d.id GROUP BY d.id ORDER BY d.id;
SELECT * FROM q_dept GROUP BY id ORDER BY name;
SELECT d.name, count(e.id) FROM q_dept d LEFT JOIN q_emp e ON e.dept = d.id GROUP BY d.id ORDER BY 1;
SELECT d.name, d.budget, count(*) FROM q_emp e LEFT JOIN q_dept d ON d.id = e.dept GROUP BY d.id ORDER BY 1;
SELECT x.n, x.b FROM q_dept AS x(k, n, b) GROUP BY x.k ORDER BY 1;
SELECT id, name FROM q_dept GROUP BY 1 ORDER BY 1;
SELECT id AS k, name FROM q_dept GROUP BY k ORDER BY 1;
SELECT name FROM q_dept GROUP BY id HAVING budget > 100 ORDER BY budget DESC;
SELECT name, count(*) FROM q_dept GROUP BY id ORDER BY budget NULLS FIRST;
SELECT role, hours FROM q_assign GROUP BY dept, emp ORDER BY 1;
SELECT a.role, e.name, e.salary FROM q_assign a JOIN q_emp e ON e.id = a.emp GROUP BY a.emp, e.id, a.dept ORDER BY 1;
SELECT e1.name, e2.name FROM q_emp e1 JOIN q_emp e2 ON e2.id = e1.id + 1 GROUP BY e1.id, e2.id ORDER BY 1;
SELECT d.name, (SELECT count(*) FROM q_emp e WHERE e.dept = d.id AND e.salary * 5 > d.budget) FROM q_dept d GROUP BY d.id ORDER BY 1;
SELECT d.id, EXISTS (SELECT 1 FROM q_emp e WHERE e.dept = d.id), ARRAY(SELECT e.name FROM q_emp e WHERE e.dept = d.id ORDER BY 1),
  d.budget / 2 IN (SELECT e.salary FROM q_emp e WHERE e.salary IS NOT NULL) FROM q_dept d GROUP BY d.id ORDER BY 1;
SELECT d.id, (SELECT (SELECT d.name)) FROM q_dept d GROUP BY d.id HAVING (SELECT d.budget) > 100 ORDER BY (SELECT d.name) DESC;
SELECT dept, (SELECT max(e2.name) FROM q_emp e2 WHERE e2.dept = e.dept) FROM q_emp e GROUP BY dept ORDER BY 1;
SELECT e.name, (SELECT d.name FROM q_dept d WHERE d.id = e.dept GROUP BY d.id) FROM q_emp e ORDER BY 1;
SELECT name FROM q_emp GROUP BY name, id ORDER BY 1 LIMIT 2;
SELECT name, salary FROM q_emp GROUP BY name;
\echo :LAST_ERROR_SQLSTATE
SELECT role FROM q_assign GROUP BY emp;
\echo :LAST_ERROR_SQLSTATE
SELECT role FROM q_assign GROUP BY emp, dept + 0;
\echo :LAST_ERROR_SQLSTATE
SELECT e1.name, e2.name FROM q_emp e1, q_emp e2 GROUP BY e1.id;
\echo :LAST_ERROR_SQLSTATE
SELECT d.name FROM q_emp e JOIN q_dept d ON d.id = e.dept GROUP BY e.dept;
\echo :LAST_ERROR_SQLSTATE
SELECT s.name FROM (SELECT * FROM q_dept) s GROUP BY s.id;
\echo :LAST_ERROR_SQLSTATE
WITH c AS (SELECT * FROM q_dept) SELECT name FROM c GROUP BY id;
\echo :LAST_ERROR_SQLSTATE
SELECT name FROM q_dept GROUP BY id + 0;
\echo :LAST_ERROR_SQLSTATE
SELECT d.budget, (SELECT d.name) FROM q_dept d GROUP BY d.budget;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM q_assign GROUP BY emp HAVING (SELECT max(salary) FROM q_emp WHERE id = hours) > 0;
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE q_note (k int, u int NOT NULL UNIQUE, v text);
SELECT v FROM q_note GROUP BY u;
\echo :LAST_ERROR_SQLSTATE
ALTER TABLE q_note ADD PRIMARY KEY (k);
SELECT v, u FROM q_note GROUP BY k;
ALTER TABLE q_note DROP CONSTRAINT q_note_pkey;
SELECT v FROM q_note GROUP BY k;
\echo :LAST_ERROR_SQLSTATE
DROP TABLE q_assign, q_note;
-- joins
SELECT e.name, d.name FROM q_emp e JOIN q_dept d ON d.id = e.dept ORDER BY e.name;
SELECT e.name, d.name FROM q_emp e LEFT JOIN q_dept d ON d.id = e.dept ORDER BY e.name;
SELECT d.name, e.name FROM q_dept d LEFT JOIN q_emp e ON e.dept = d.id AND e.salary > 95 ORDER BY 1, 2;
SELECT d.name, e.name FROM q_dept d LEFT JOIN q_emp e ON e.dept = d.id WHERE e.id IS NULL;
SELECT d.name, count(e.id) FROM q_dept d LEFT JOIN q_emp e ON e.dept = d.id GROUP BY d.name ORDER BY 1;
SELECT e.name, d.name FROM q_emp e, q_dept d WHERE e.dept = d.id AND d.budget > 500 ORDER BY 1;
SELECT e1.name, e2.name FROM q_emp e1 JOIN q_emp e2 ON e1.salary = e2.salary AND e1.id < e2.id ORDER BY 1;
SELECT count(*) FROM q_emp CROSS JOIN q_dept;
SELECT a.x, b.y FROM (VALUES (1), (2)) a(x) JOIN (VALUES (2, 'two'), (3, 'three')) b(x, y) USING (x);
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(n, s) ORDER BY n DESC;
SELECT name FROM q_emp e JOIN q_dept d ON d.id = e.dept;
SELECT id FROM q_emp e JOIN q_dept d ON d.id = e.dept;
-- subqueries
SELECT name FROM q_emp WHERE dept IN (SELECT id FROM q_dept WHERE budget > 500) ORDER BY 1;
SELECT name FROM q_emp WHERE dept NOT IN (SELECT id FROM q_dept WHERE budget > 500) ORDER BY 1;
SELECT name FROM q_dept d WHERE EXISTS (SELECT 1 FROM q_emp e WHERE e.dept = d.id) ORDER BY 1;
SELECT name FROM q_dept d WHERE NOT EXISTS (SELECT 1 FROM q_emp e WHERE e.dept = d.id);
SELECT d.name, (SELECT max(salary) FROM q_emp e WHERE e.dept = d.id) AS top FROM q_dept d ORDER BY 1;
SELECT name FROM q_emp WHERE salary = (SELECT max(salary) FROM q_emp);
SELECT (SELECT name FROM q_emp WHERE dept = 1);
SELECT (SELECT id, name FROM q_emp LIMIT 1);
SELECT s.dept, s.total FROM (SELECT dept, sum(salary) AS total FROM q_emp GROUP BY dept) s WHERE s.total > 150 ORDER BY 1;
SELECT * FROM (SELECT 1) AS one;
WITH rich AS (SELECT * FROM q_emp WHERE salary >= 100) SELECT r.name, d.name FROM rich r JOIN q_dept d ON d.id = r.dept ORDER BY 1;
WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM a, b;
-- set operations and VALUES
SELECT dept FROM q_emp UNION SELECT id FROM q_dept ORDER BY 1;
SELECT dept FROM q_emp UNION ALL SELECT id FROM q_dept ORDER BY 1;
SELECT 1 AS n UNION SELECT NULL UNION SELECT 2.5 ORDER BY n;
SELECT 'a' UNION SELECT 'b' ORDER BY 1;
SELECT name FROM q_emp UNION SELECT name FROM q_dept ORDER BY name LIMIT 3;
VALUES (1, 'one'), (2, 'two');
VALUES (1), (2.5), (NULL) ORDER BY 1;
VALUES (1), ('x');
-- name errors
SELECT nosuch FROM q_emp;
SELECT q_emp.nosuch FROM q_emp;
SELECT x.id FROM q_emp;
SELECT id FROM q_emp, q_dept;
SELECT * FROM nosuch;
SELECT * FROM public.nosuch;
SELECT * FROM nosuchschema.t;
SELECT name FROM q_emp ORDER BY 5;
SELECT DISTINCT name FROM q_emp ORDER BY salary;
SELECT id FROM q_emp WHERE salary;
SELECT * FROM (SELECT 1);
DROP TABLE q_emp, q_dept;
