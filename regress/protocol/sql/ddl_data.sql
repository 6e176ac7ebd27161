-- DDL over tables that hold rows: unique index and key builds over duplicates, ADD COLUMN
-- defaults that old rows read, DROP COLUMN, CHECK, TRUNCATE (also rolled back).
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE dd (a int, b text);
INSERT INTO dd VALUES (1, 'x'), (1, 'y'), (2, 'x'), (NULL, 'z'), (NULL, 'z');
CREATE UNIQUE INDEX dd_a ON dd (a);
CREATE UNIQUE INDEX dd_b ON dd (b);
CREATE UNIQUE INDEX dd_ab ON dd (a, b);
CREATE INDEX dd_h ON dd USING hash (b);
ALTER TABLE dd ADD UNIQUE (b);
ALTER TABLE dd ADD PRIMARY KEY (a);
DELETE FROM dd WHERE a IS NULL;
INSERT INTO dd VALUES (3, 'w');
ALTER TABLE dd ADD COLUMN c int DEFAULT 7, ADD COLUMN d text, ADD COLUMN e numeric(4,1) DEFAULT 1.25 * 2;
SELECT * FROM dd ORDER BY a, b;
INSERT INTO dd (a, b) VALUES (4, 'v');
SELECT * FROM dd WHERE a = 4;
ALTER TABLE dd ADD COLUMN f int NOT NULL;
ALTER TABLE dd DROP COLUMN d;
SELECT * FROM dd ORDER BY a, b;
INSERT INTO dd VALUES (1, 'x');
INSERT INTO dd VALUES (5, 'x'), (5, 'x');
SELECT b, count(*) FROM dd WHERE b = 'x' GROUP BY b;
TRUNCATE dd;
SELECT count(*) FROM dd;
INSERT INTO dd (a, b) VALUES (1, 'x');
SELECT * FROM dd;
BEGIN;
TRUNCATE dd;
SELECT count(*) FROM dd;
ROLLBACK;
SELECT count(*) FROM dd;
-- CHECK constraints added to an empty table hold for the rows inserted after.
CREATE TABLE dc (id int PRIMARY KEY, v text, n int);
ALTER TABLE dc ADD CONSTRAINT v_nonempty CHECK (v <> ''), ADD CHECK (n > 0 AND n < 100);
INSERT INTO dc VALUES (1, 'a', 5);
INSERT INTO dc VALUES (2, '', 5);
INSERT INTO dc VALUES (3, 'b', 100);
ALTER TABLE dc DROP CONSTRAINT dc_n_check;
INSERT INTO dc VALUES (3, 'b', 100);
SELECT * FROM dc ORDER BY id;
ALTER TABLE dc ADD PRIMARY KEY (v);
DROP TABLE dd, dc;
