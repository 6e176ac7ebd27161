-- pg_catalog and information_schema over a small schema: the pieces psql's \d family and
-- pgjdbc's metadata queries read (no OIDs printed: they differ between servers).
\set SHOW_CONTEXT never
CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', code varchar(10) UNIQUE, n numeric(10,2), created timestamptz);
CREATE TABLE u (a int, b text);
\dn
SELECT c.relname, c.relkind, c.relnatts, c.relhasindex, c.relpersistence, am.amname, pg_catalog.pg_get_userbyid(c.relowner) AS owner,
       pg_catalog.pg_table_is_visible(c.oid) AS visible
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE n.nspname = 'public' ORDER BY 1;
-- \d t's first three queries (psql 15), with the OID left out of the first.
SELECT n.nspname, c.relname
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1, 2;
SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false AS relhasoids, c.relispartition, '', c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, c.relreplident, am.amname
FROM pg_catalog.pg_class c
 LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid)
LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
WHERE c.oid = 't'::regclass;
SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = 't'::regclass AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;
-- Indexes and constraints as \d prints them.
SELECT c2.relname, i.indisprimary, i.indisunique, i.indisvalid, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
  pg_catalog.pg_get_constraintdef(con.oid, true), con.contype, con.condeferrable
FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
  LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid)
WHERE c.relname = 't' AND c.oid = i.indrelid AND i.indexrelid = c2.oid
ORDER BY i.indisprimary DESC, c2.relname;
SELECT indexname, indexdef FROM pg_catalog.pg_indexes WHERE schemaname = 'public' ORDER BY 1;
SELECT tablename, tableowner, hasindexes FROM pg_catalog.pg_tables WHERE schemaname = 'public' ORDER BY 1;
SELECT pg_catalog.pg_get_indexdef(i.indexrelid, 1, false) FROM pg_catalog.pg_index i WHERE i.indrelid = 't'::regclass ORDER BY 1;
-- information_schema.
SELECT table_name, table_type, is_insertable_into FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1;
SELECT column_name, ordinal_position, column_default, is_nullable, data_type, character_maximum_length,
       numeric_precision, numeric_scale, datetime_precision, udt_name
FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position;
SELECT schema_name, schema_owner FROM information_schema.schemata WHERE schema_name = 'public';
-- Built-in rows: types, roles, the database, access methods.
SELECT typname, typlen, typbyval, typtype, typcategory, typispreferred, typdelim, typelem, typarray, typalign, typstorage
FROM pg_catalog.pg_type WHERE typname = 'int4' OR typname = 'varchar' OR typname = 'timestamptz' OR typname = '_text' OR typname = 'numeric' ORDER BY 1;
SELECT rolname, rolsuper, rolinherit, rolcanlogin, rolconnlimit, rolpassword FROM pg_catalog.pg_roles WHERE rolname = 'postgres';
SELECT datname, pg_catalog.pg_encoding_to_char(encoding), datcollate, datctype, datistemplate FROM pg_catalog.pg_database WHERE datname = current_database();
SELECT amname, amtype FROM pg_catalog.pg_am WHERE amname = 'btree' OR amname = 'hash' ORDER BY 1;
SELECT 'pg_class'::regclass::oid = 1259 AS pg_class, 't'::regclass = (SELECT oid FROM pg_catalog.pg_class WHERE relname = 't') AS t;
\set ON_ERROR_STOP 0
SELECT 'nosuch'::regclass;
\d nosuch
\set ON_ERROR_STOP 1
DROP TABLE t, u;
SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public';
