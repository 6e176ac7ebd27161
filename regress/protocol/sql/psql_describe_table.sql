-- psql's describe commands whose queries need arrays, set-returning functions and more catalog
-- functions over farmdb's pg_catalog (sql/system/): \d and \d+ of a table with a
-- serial primary key, defaults, NOT NULL, unique and secondary indexes and CHECK constraints;
-- \dn+, \l and \du postgres; \dt+ of a table whose size both servers agree on (an empty table without
-- TOAST-able columns: 0 bytes). Sizes of non-empty relations differ (PostgreSQL counts 8 kB
-- pages, farmdb the bytes of its rows) and are left out, as are OIDs. CHECKs print in pretty
-- form (implicit casts, nested AND/OR and arithmetic). `\du` names postgres only: farmdb's
-- pg_roles lists the catalog's roles, not those of farmdb.conf (a gap, see sql/README.md).
CREATE TABLE dt (id serial PRIMARY KEY CHECK (id > 0), name text NOT NULL DEFAULT 'x', code varchar(10) UNIQUE,
                 n numeric(10,2) CHECK (n > 0), created timestamptz DEFAULT now(), flag boolean,
                 CONSTRAINT dt_code_name CHECK (code <> name),
                 CONSTRAINT dt_mixed CHECK ((n * 2 + 1 > id - (id - 1) OR flag) AND NOT (code IS NULL AND name IN ('a', 'b'))));
CREATE INDEX dt_name_idx ON dt (name);
CREATE INDEX dt_multi_idx ON dt (flag DESC, created NULLS FIRST);
CREATE UNIQUE INDEX dt_n_key ON dt (n);
CREATE TABLE du (a int, b text);
CREATE TABLE dw (a int, b bigint);
\d dt
\d+ dt
\d du
\d+ du
\dt+ dw
\dn+
\l postgres
\du postgres
DROP TABLE dt, du, dw;
