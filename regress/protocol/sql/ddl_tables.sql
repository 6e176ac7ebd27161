-- CREATE TABLE / DROP TABLE through the catalog: duplicates, IF [NOT] EXISTS notices, DDL in
-- transaction blocks (rolled back DDL leaves nothing; committed DDL stays).
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE t1 (id int4 PRIMARY KEY, name varchar(20) NOT NULL, price numeric(10,2) DEFAULT 0, note text);
CREATE TABLE t1 (a int);
CREATE TABLE IF NOT EXISTS t1 (a int);
CREATE TABLE public.t2 (a bigserial, b serial, c text UNIQUE, d boolean DEFAULT true, e text DEFAULT 'x', PRIMARY KEY (a));
CREATE TABLE t3 (a int, b int, UNIQUE (a, b));
CREATE TABLE t4 (a int, a int);
CREATE TABLE t5 (a nosuchtype);
CREATE TABLE t6 (a int PRIMARY KEY, b int PRIMARY KEY);
CREATE TABLE t7 (a int, PRIMARY KEY (b));
CREATE TABLE t8 (a int8 DEFAULT -5, b float8 DEFAULT 1.5, c date, d timestamptz, e char(3) NOT NULL DEFAULT 'ab');
DROP TABLE t8;
DROP TABLE t8;
DROP TABLE IF EXISTS t8;
DROP TABLE IF EXISTS t8, t3;
DROP TABLE t3;
DROP TABLE t1, t2;
BEGIN;
CREATE TABLE in_block (a int);
CREATE TABLE in_block (a int);
ROLLBACK;
BEGIN;
CREATE TABLE in_block (a int);
ROLLBACK;
CREATE TABLE in_block (a int);
BEGIN;
DROP TABLE in_block;
ROLLBACK;
CREATE TABLE in_block (a int);
BEGIN ISOLATION LEVEL REPEATABLE READ;
DROP TABLE in_block;
CREATE TABLE committed_in_block (a int);
COMMIT;
DROP TABLE IF EXISTS in_block;
DROP TABLE committed_in_block;
BEGIN READ ONLY;
CREATE TABLE ro (a int);
ROLLBACK;
CREATE TABLE ro (a int); DROP TABLE ro;
DROP TABLE ro;
-- Unqualified names follow search_path; pg_catalog is not for user tables.
SET search_path = nosuch;
CREATE TABLE s1 (a int);
SET search_path = nosuch, "Public", public;
CREATE TABLE s1 (a int);
SET search_path = nosuch;
DROP TABLE s1;
CREATE TABLE pg_catalog.x (a int);
SET search_path = pg_catalog;
CREATE TABLE x (a int);
RESET search_path;
DROP TABLE nosuch.s1;
DROP TABLE IF EXISTS nosuch.s1;
DROP TABLE s1;
