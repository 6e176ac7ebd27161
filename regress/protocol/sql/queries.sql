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
