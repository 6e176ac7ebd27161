-- Sequence functions and serial columns in use; VACUUM/ANALYZE and fillfactor as pgbench -i
-- sends them.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE su_t (id serial PRIMARY KEY, v text) WITH (fillfactor = 100);
INSERT INTO su_t (v) VALUES ('a'), ('b') RETURNING id, v;
SELECT currval('su_t_id_seq');
SELECT nextval('su_t_id_seq'), nextval('su_t_id_seq');
INSERT INTO su_t (v) VALUES ('c') RETURNING id;
SELECT setval('su_t_id_seq', 100);
INSERT INTO su_t (v) VALUES ('d') RETURNING id;
SELECT setval('su_t_id_seq', 200, false), nextval('su_t_id_seq');
CREATE SEQUENCE su_s MAXVALUE 3;
SELECT currval('su_s');
SELECT nextval('su_s'), nextval('su_s'), nextval('su_s');
SELECT nextval('su_s');
SELECT setval('su_s', 10);
SELECT nextval('su_t');
SELECT nextval('nosuch');
CREATE TABLE su_f (a int) WITH (fillfactor = 5);
VACUUM su_t;
VACUUM ANALYZE su_t;
ANALYZE su_t;
VACUUM nosuch;
BEGIN;
VACUUM su_t;
ROLLBACK;
BEGIN READ ONLY;
SELECT nextval('su_s');
ROLLBACK;
SELECT * FROM su_t ORDER BY id;
DROP TABLE su_t;
DROP SEQUENCE su_s;
