-- Scans decode only the columns a query reads (sql/plan/planner.h PlanFrom): every shape below
-- reads some column only in one place (a join condition, ORDER BY, GROUP BY, an aggregate's
-- argument, a window's PARTITION BY, a correlated subquery, FOR UPDATE, a pushed-down filter),
-- and must see its value there.
CREATE TABLE wide (id int PRIMARY KEY, a int, b text, c numeric(10,2), d text, e int);
CREATE TABLE other (k int PRIMARY KEY, id int, label text);
INSERT INTO wide VALUES (1, 10, 'x', 1.50, 'p', 100), (2, 20, 'y', 2.50, 'q', 200),
  (3, 30, 'x', 3.50, 'p', 300), (4, 40, NULL, NULL, 'q', 400);
INSERT INTO other VALUES (1, 2, 'two'), (2, 3, 'three'), (3, 9, 'none');
SELECT a FROM wide WHERE e > 150 ORDER BY d, id;
SELECT w.a, o.label FROM wide w JOIN other o ON o.id = w.id ORDER BY o.k;
SELECT o.label, w.b FROM other o LEFT JOIN wide w ON w.id = o.id AND w.e < 300 ORDER BY o.k;
SELECT b, count(*), sum(c), max(e) FROM wide GROUP BY b ORDER BY b;
SELECT count(DISTINCT d) FROM wide WHERE c IS NOT NULL;
SELECT id, sum(a) OVER (PARTITION BY d ORDER BY id) FROM wide ORDER BY id;
SELECT id, (SELECT label FROM other o WHERE o.id = w.id) FROM wide w ORDER BY id;
SELECT id FROM wide w WHERE EXISTS (SELECT 1 FROM other o WHERE o.id = w.id AND o.label <> w.b) ORDER BY id;
SELECT id, a FROM wide WHERE b = 'x' ORDER BY e DESC;
SELECT * FROM wide WHERE id = 2;
SELECT w.* FROM wide w, other o WHERE o.id = w.id ORDER BY w.id;
SELECT a + e AS total FROM wide WHERE id = 3;
BEGIN;
SELECT id, a FROM wide WHERE id = 1 FOR UPDATE;
UPDATE wide SET e = e + 1 WHERE id = 1;
SELECT e FROM wide WHERE id = 1;
COMMIT;
SELECT id, e FROM wide WHERE d = 'p' ORDER BY id;
-- UPDATE and DELETE decode only what WHERE, SET, RETURNING and the checks read; UPDATE keeps the
-- other columns' stored bytes, and an error's DETAIL still shows the whole row.
UPDATE wide SET a = e WHERE id = 2 RETURNING d;
UPDATE wide SET b = b || '!' WHERE c > 3 RETURNING id, b, e;
UPDATE wide SET d = repeat('long', 20) WHERE id = 4;
SELECT * FROM wide ORDER BY id;
DELETE FROM wide WHERE e = 400 RETURNING a, d;
DELETE FROM wide WHERE a = 10;
SELECT id, a, b, c, length(d), e FROM wide ORDER BY id;
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE keyed (id int PRIMARY KEY, x int NOT NULL, y text, z int CHECK (z < 100), note text,
  UNIQUE (y, note));
CREATE INDEX keyed_note ON keyed (note, z);
INSERT INTO keyed VALUES (1, 1, 'a', 5, 'n'), (2, 1, 'b', 6, 'n');
UPDATE keyed SET y = 'a' WHERE id = 2;
UPDATE keyed SET z = z + 100 WHERE id = 1;
UPDATE keyed SET x = NULL WHERE id = 1;
UPDATE keyed SET note = 'n3' WHERE id = 2;
UPDATE keyed SET z = 7 WHERE note = 'n3';
SELECT * FROM keyed WHERE note = 'n3' AND z = 7;
SELECT * FROM keyed WHERE y = 'b' AND note = 'n3';
ALTER TABLE keyed ADD COLUMN added int DEFAULT 42;
UPDATE keyed SET y = 'c' WHERE id = 1;
SELECT * FROM keyed ORDER BY id;
DROP TABLE keyed;
DROP TABLE wide;
DROP TABLE other;
