-- INSERT, UPDATE and DELETE over tables: multi-row VALUES, DEFAULT, column lists, INSERT ...
-- SELECT, RETURNING, assignment coercion and typmods, constraint errors with their DETAIL, and
-- ON CONFLICT.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE d_items (id int PRIMARY KEY, name varchar(8) NOT NULL, price numeric(6,2) DEFAULT 9.99, qty int2 DEFAULT 1, code char(3), UNIQUE (code));
INSERT INTO d_items VALUES (1, 'apple', 1.5, 10, 'APL'), (2, 'banana', 0.25, 20, 'BAN');
INSERT INTO d_items (id, name) VALUES (3, 'cherry');
INSERT INTO d_items VALUES (4, 'date', DEFAULT, DEFAULT, 'DAT') RETURNING id, price, qty;
INSERT INTO d_items VALUES (5, 'elder');
INSERT INTO d_items (name, id) VALUES ('fig', 6), ('grape', 7) RETURNING *;
SELECT * FROM d_items ORDER BY id;
-- assignment coercion: numeric rounds to the scale, integers accept numerics, strings fit or fail
INSERT INTO d_items VALUES (8, 'kiwi', 3.14159, 2.6, 'K');
INSERT INTO d_items VALUES (9, 'lemon  ', '4.5', '7', 'LEM');
SELECT id, name, length(name), price, qty, code, length(code) FROM d_items WHERE id >= 8 ORDER BY id;
INSERT INTO d_items VALUES (10, 'mangosteen', 1, 1, 'MAN');
INSERT INTO d_items VALUES (10, 'mango', 10000, 1, 'MAN');
INSERT INTO d_items VALUES (10, 'mango', 1, 40000, 'MAN');
INSERT INTO d_items VALUES (10, 'mango', 1, 1, 'MANGO');
INSERT INTO d_items VALUES (10, 'mango', true);
INSERT INTO d_items VALUES (10, 'mango', 1, 1, 'MAN', 5);
INSERT INTO d_items (id, name, id) VALUES (10, 'x', 11);
INSERT INTO d_items (id, nosuch) VALUES (10, 'x');
INSERT INTO d_items (id, name) VALUES (10);
INSERT INTO nosuch VALUES (1);
-- constraint errors
INSERT INTO d_items VALUES (1, 'again');
INSERT INTO d_items VALUES (11, 'dup code', 1, 1, 'APL');
INSERT INTO d_items VALUES (11, NULL);
INSERT INTO d_items (id) VALUES (11);
INSERT INTO d_items VALUES (NULL, 'no id');
INSERT INTO d_items VALUES (11, 'nulls', NULL, NULL, NULL), (12, 'nulls2', NULL, NULL, NULL);
SELECT id, price IS NULL AS no_price, code IS NULL AS no_code FROM d_items WHERE id > 10 ORDER BY id;
-- a failing row leaves none of the statement's rows behind
INSERT INTO d_items VALUES (13, 'ok'), (1, 'dup');
SELECT count(*) FROM d_items WHERE id = 13;
-- UPDATE
UPDATE d_items SET qty = qty + 1 WHERE id <= 2;
UPDATE d_items SET price = price * 2, name = name || '!' WHERE id = 3 RETURNING id, name, price;
UPDATE d_items SET qty = DEFAULT WHERE id = 1 RETURNING qty;
UPDATE d_items SET code = 'BAN' WHERE id = 1;
UPDATE d_items SET name = NULL WHERE id = 1;
UPDATE d_items SET id = id + 100 WHERE id >= 11 RETURNING id;
UPDATE d_items SET nosuch = 1;
UPDATE d_items SET qty = 1, qty = 2;
UPDATE d_items SET price = 0 WHERE id = 999;
SELECT * FROM d_items ORDER BY id;
-- DELETE
DELETE FROM d_items WHERE id > 100 RETURNING id, name;
DELETE FROM d_items WHERE qty > 5;
DELETE FROM d_items WHERE id = 999;
SELECT id FROM d_items ORDER BY id;
-- INSERT ... SELECT
CREATE TABLE d_copy (id int8 PRIMARY KEY, label text, total numeric);
INSERT INTO d_copy SELECT id, name, price * qty FROM d_items WHERE price IS NOT NULL;
INSERT INTO d_copy (id, label) SELECT id + 1000, 'x' || name FROM d_items WHERE id < 3 RETURNING id, label;
SELECT * FROM d_copy ORDER BY id;
-- ON CONFLICT
INSERT INTO d_copy VALUES (1, 'again', 0) ON CONFLICT DO NOTHING;
INSERT INTO d_copy VALUES (1, 'again', 0), (50, 'new', 5) ON CONFLICT (id) DO NOTHING RETURNING id;
INSERT INTO d_copy VALUES (1, 'upserted', 1) ON CONFLICT (id) DO UPDATE SET label = excluded.label, total = d_copy.total + excluded.total RETURNING *;
INSERT INTO d_copy VALUES (2, 'skip', 1) ON CONFLICT (id) DO UPDATE SET label = excluded.label WHERE d_copy.total > 1000;
INSERT INTO d_copy VALUES (60, 'a', 1), (60, 'b', 2) ON CONFLICT (id) DO UPDATE SET label = excluded.label;
INSERT INTO d_copy VALUES (1, 'x', 1) ON CONFLICT (label) DO NOTHING;
INSERT INTO d_copy VALUES (1, 'x', 1) ON CONFLICT DO UPDATE SET label = 'y';
-- Two unique indexes over the same column both arbitrate, whichever of them meets the conflict.
CREATE TABLE twin (id int PRIMARY KEY, v text);
CREATE UNIQUE INDEX twin_id ON twin (id);
INSERT INTO twin VALUES (1, 'a');
INSERT INTO twin VALUES (1, 'b') ON CONFLICT (id) DO NOTHING;
INSERT INTO twin VALUES (1, 'c'), (2, 'c') ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING *;
INSERT INTO twin VALUES (2, 'd') ON CONFLICT ON CONSTRAINT twin_pkey DO UPDATE SET v = excluded.v RETURNING *;
INSERT INTO twin VALUES (1, 'e');
SELECT * FROM twin ORDER BY id;
DROP TABLE twin;
SELECT * FROM d_copy ORDER BY id;
-- DML inside a block: a failed statement aborts the block
BEGIN;
INSERT INTO d_copy VALUES (70, 'in block', 7);
INSERT INTO d_copy VALUES (70, 'dup', 7);
SELECT 1;
ROLLBACK;
SELECT count(*) FROM d_copy WHERE id = 70;
BEGIN;
INSERT INTO d_copy VALUES (71, 'kept', 7);
UPDATE d_copy SET total = 8 WHERE id = 71;
COMMIT;
SELECT * FROM d_copy WHERE id = 71;
DROP TABLE d_items, d_copy;
