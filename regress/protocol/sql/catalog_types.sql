-- The catalog types oid, "char", regtype and pg_node_tree, the regular expression match
-- operators psql's name patterns use (with COLLATE pg_catalog.default), and the catalog
-- functions that need no catalog: format_type, quote_ident, pg_encoding_to_char, comments.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
SELECT 26::oid, '4294967295'::oid, '-1'::oid, ' 7 '::oid, '-2147483648'::oid, 4294967295::oid::int4, 5::oid::int8;
SELECT '4294967296'::oid;
SELECT 'x'::oid;
SELECT (-1)::int8::oid;
SELECT 5 = 5::oid, 6::oid > 5, 26::oid = '26', 'abc'::"char", ''::"char" = '', '\101'::"char", 'r'::"char" = 'r', 'r'::"char"::text || 'x';
SELECT 'integer'::regtype, 1043::regtype, '"char"'::regtype, 'pg_catalog.timestamptz'::regtype, 0::regtype, 999999::regtype, 23::regtype::oid;
SELECT 'nosuch'::regtype;
SELECT 'x'::pg_node_tree;
SELECT 'pg_toast' ~ '^pg_', 'public' !~ '^pg_', 'ABC' ~* 'abc', 'ABC' !~* 'x', 't' OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default;
SELECT 'a.b' ~ '^a\.b$', 'axb' ~ '^a\.b$', 'x' ~ '^(t|u|x)$', 'public'::name !~ '^pg_toast';
SELECT 'a' ~ '(';
SELECT format_type(1043, 14), format_type(1042, -1), format_type(1042, NULL), format_type(1700, 655366), format_type(1184, 3), format_type(18, -1), format_type(999999, -1), format_type(0, -1), format_type(NULL, 1) IS NULL;
SELECT format_type(23, -1), format_type(1114, 0), format_type(1043, -1), format_type(1700, -1), format_type(26, -1), format_type(2205, -1);
SELECT quote_ident('t'), quote_ident('Foo'), quote_ident('select'), quote_ident('a"b'), quote_ident('_x1'), pg_encoding_to_char(6), pg_encoding_to_char(0);
SELECT obj_description(16999, 'pg_class') IS NULL, col_description(16999, 1) IS NULL, obj_description(16999) IS NULL;
-- The SQL value functions for the session (the user's name differs between servers: compared only).
SELECT current_user = session_user, user = current_role, current_user = current_user::text, current_catalog = current_database(), current_schema, current_schema();
SELECT 'pg_toast'::name ~ '^pg_', 'x'::varchar ~ 'x', 'abc'::char(3) ~* 'ABC';
