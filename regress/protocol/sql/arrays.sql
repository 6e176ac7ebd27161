-- Arrays: text input and output (quoting, NULL, dimension decoration), ARRAY[...] and
-- ARRAY(subquery), subscripts, = ANY / <> ALL, ||, the array functions, casts, int2vector and
-- oidvector, the catalog's array columns, and the errors of each (multidimensional arrays and
-- array columns, which farmdb does not have, are sql/ unit tests' business).
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
SELECT '{1,2,3}'::int[], '{}'::int[], '{a,"b c",NULL,"NULL","",x\\y,"q\""}'::text[];
SELECT '[0:2]={7,8,9}'::int[], ' { 1 , 2 } '::int4[], '{ a b , c}'::text[], '{NuLl}'::int[];
SELECT '{1,2'::int[];
SELECT '1'::int[];
SELECT '{1,a}'::int[];
SELECT '{1,}'::int[];
SELECT '{"a"b}'::text[];
SELECT '{1} x'::int[];
SELECT '[0:2]={1,2}'::int[];
SELECT ARRAY[1, 2, NULL], ARRAY['a', 'b'], ARRAY[1, 2.5], ARRAY[true], ARRAY[]::text[];
SELECT ARRAY[1, 'x'];
SELECT ARRAY[1, '2'];
SELECT ARRAY[];
SELECT ARRAY['2024-01-02'::date], ARRAY[1.5::float8], ARRAY['a'::varchar(3)];
SELECT (ARRAY[10, 20, 30])[2], (ARRAY[10, 20, 30])[4], (ARRAY[10, 20, 30])[0], (ARRAY[10, 20])[NULL];
SELECT ('[0:1]={5,6}'::int[])[0], ('[0:1]={5,6}'::int[])[1];
SELECT ('{a,b}'::text[])[1.0];
SELECT (ARRAY[1])['x'];
SELECT (1)[1];
SELECT 2 = ANY(ARRAY[1, 2]), 3 = ANY(ARRAY[1, 2]), 3 = ANY(ARRAY[1, NULL]), NULL = ANY(ARRAY[1]), 1 = ANY('{}'::int[]);
SELECT 3 <> ALL(ARRAY[1, 2]), 2 <> ALL(ARRAY[1, 2]), 3 <> ALL(ARRAY[1, NULL]), 1 = ALL('{}'::int[]), 1 = ANY(NULL::int[]);
SELECT 'b' = ANY('{a,b}'), 'c' = ANY('{a,b}'::text[]), 5 > ALL(ARRAY[1, 4]), 'abc' LIKE ANY(ARRAY['a%', 'x%']);
SELECT 1 = ANY(1);
SELECT 1 = ANY(ARRAY['a']);
SELECT ARRAY[1, 2] || ARRAY[3], ARRAY[1] || 2, 0 || ARRAY[1], ARRAY['a'] || 'b'::text, NULL::int[] || ARRAY[1], ARRAY[1] || NULL::int[];
SELECT ARRAY[1] || '{2}', ARRAY['a'] || 'b';
SELECT '[0:1]={1,2}'::int[] || 3, 0 || '[5:6]={1,2}'::int[], '{}'::int[] || '{}'::int[];
SELECT ARRAY[1, 2] = ARRAY[1, 2], ARRAY[1, 2] < ARRAY[1, 3], ARRAY[1] < ARRAY[1, 2], ARRAY[1, NULL] > ARRAY[1, 2];
SELECT array_to_string(ARRAY[1, NULL, 3], ','), array_to_string(ARRAY[1, NULL, 3], ',', '*'), array_to_string(ARRAY['a', 'b'], ', ', NULL);
SELECT array_to_string(NULL::int[], ','), array_to_string(ARRAY[1], NULL), array_to_string('{}'::int[], ',');
SELECT array_upper(ARRAY[1, 2, 3], 1), array_lower(ARRAY[1, 2, 3], 1), array_length(ARRAY[1, 2, 3], 1), array_upper(ARRAY[1], 2);
SELECT array_upper('{}'::int[], 1), array_length('{}'::int[], 1), cardinality('{}'::int[]), cardinality(ARRAY[1, 2]);
SELECT array_ndims(ARRAY[1]), array_ndims('{}'::int[]), array_dims('[0:1]={1,2}'::int[]), array_dims('{}'::int[]);
SELECT array_cat(ARRAY[1], ARRAY[2]), array_append(ARRAY[1], 2), array_prepend(0, ARRAY[1]), array_append(NULL, 1);
SELECT array_to_string('{a}', ',');
SELECT array_upper(1, 1);
SELECT ARRAY[1, 2]::text[], ARRAY[1, 2]::text, ARRAY['1', '2']::int8[], '{1.5,2.5}'::numeric[]::int[];
SELECT '1 2 3'::int2vector, ('1 2 3'::int2vector)[0], ('1 2 3'::int2vector)[2], '1 2'::int2vector::int2[], '26 23'::oidvector;
SELECT ''::int2vector, '1 x'::int2vector, array_upper('5 6'::int2vector, 1);
SELECT ARRAY(SELECT g FROM (VALUES (3), (1), (2)) v(g) ORDER BY g), ARRAY(SELECT 1 WHERE false), ARRAY(SELECT 'a'::text);
SELECT ARRAY(SELECT 1, 2);
CREATE TABLE a_t (id int PRIMARY KEY, name text);
INSERT INTO a_t VALUES (1, 'x'), (2, 'y'), (3, NULL);
SELECT id FROM a_t WHERE id = ANY(ARRAY[1, 3]) ORDER BY id;
SELECT id FROM a_t WHERE name <> ALL('{x}') ORDER BY id;
SELECT id, ARRAY(SELECT b.id FROM a_t b WHERE b.id < a.id ORDER BY b.id) FROM a_t a ORDER BY id;
SELECT ARRAY[name, 'z'] FROM a_t ORDER BY id;
SELECT DISTINCT ARRAY[id % 2] FROM a_t ORDER BY 1;
SELECT count(*) FROM a_t GROUP BY ARRAY[id > 1] ORDER BY 1;
DROP TABLE a_t;
-- The catalog's array columns.
SELECT array_to_string(nspacl, ', ') FROM pg_namespace WHERE nspname = 'public';
SELECT datacl FROM pg_database WHERE datname = 'postgres';
SELECT typname, typinput, typinput = 'pg_catalog.array_in'::regproc AS is_array FROM pg_type WHERE typname IN ('int4', '_int4', 'int2vector') ORDER BY 1;
SELECT n.nspname = ANY(current_schemas(true)) FROM pg_namespace n WHERE n.nspname IN ('pg_catalog', 'public', 'information_schema') ORDER BY n.nspname;
SELECT current_schemas(false), (current_schemas(true))[1], array_upper(current_schemas(true), 1);
