-- psql's describe commands over farmdb's pg_catalog (sql/system/): \d, \dt, \di, \dn and \d of a
-- table with a serial primary key, a unique column, defaults and NOT NULL. Only commands whose
-- output prints no OIDs (they differ between servers).
CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', code varchar(10) UNIQUE, n numeric(10,2), created timestamptz);
CREATE TABLE u (a int, b text);
\d
\dt
\di
\dn
\d t
\d u
\set ON_ERROR_STOP 0
\d nosuch
\set ON_ERROR_STOP 1
DROP TABLE t, u;
\dt
