-- psql's describe commands over farmdb's pg_catalog (sql/system/): \d, \dt, \di, \dn, \ds, \dv and \d of
-- a name that matches nothing, on tables with a serial primary key and a unique column. Only
-- commands whose output prints no OIDs (they differ between servers). \d of an existing table
-- and the + forms are in psql_describe_table.sql.
CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', code varchar(10) UNIQUE, n numeric(10,2), created timestamptz);
CREATE TABLE u (a int, b text);
\d
\dt
\di
\dn
\ds
\dv
\dt u*
\di t_*
\set ON_ERROR_STOP 0
\d nosuch
\set ON_ERROR_STOP 1
DROP TABLE t, u;
\dt
