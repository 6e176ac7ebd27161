-- Set-returning functions: generate_series, unnest and information_schema._pg_expandarray in
-- FROM (with table and column aliases, correlated to an enclosing query) and in the target list
-- (several in lockstep, over table rows, with aggregates and ORDER BY), field selection of
-- their records, and the places they are refused.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
SELECT * FROM generate_series(1, 3);
SELECT * FROM generate_series(1, 10, 4) s;
SELECT s.r FROM generate_series(5, 1, -2) AS s(r);
SELECT * FROM generate_series(1, 0), generate_series(1, NULL::int) g;
SELECT * FROM generate_series(4000000000, 4000000002) x, generate_series(0.5, 2, 0.5) y ORDER BY 1, 2;
SELECT * FROM generate_series(2147483646, 2147483647);
SELECT * FROM generate_series(1, 5, 0);
SELECT * FROM pg_catalog.unnest(ARRAY['a', NULL, 'c']);
SELECT x, upper(x) FROM pg_catalog.unnest(ARRAY['a', NULL, 'c']) x;
SELECT * FROM unnest('{}'::int[]);
SELECT * FROM information_schema._pg_expandarray(ARRAY[10, 20, 30]);
SELECT e.x, e.n FROM information_schema._pg_expandarray('1 3'::int2vector) e;
SELECT * FROM information_schema._pg_expandarray(ARRAY['p', 'q']) AS e(val, pos);
SELECT * FROM _pg_expandarray(ARRAY[1]);
SELECT * FROM lower('ABC');
SELECT generate_series(1, 3), 'x';
SELECT generate_series(1, 3), generate_series(1, 2), unnest(ARRAY['a', 'b', 'c', 'd']);
SELECT generate_series(1, 0), 1;
SELECT unnest(ARRAY[3, 1, 2]) AS v ORDER BY v;
SELECT information_schema._pg_expandarray(ARRAY['a', 'b']);
SELECT (information_schema._pg_expandarray(ARRAY['a', 'b'])).x, (information_schema._pg_expandarray(ARRAY['a', 'b'])).n;
SELECT (information_schema._pg_expandarray(ARRAY[5])).nosuch;
SELECT (1).x;
SELECT (s.k).x, (s.k).n, s.k FROM (SELECT information_schema._pg_expandarray(ARRAY[7, 8]) AS k) s ORDER BY (s.k).n DESC;
SELECT (s.k).x FROM (SELECT information_schema._pg_expandarray(ARRAY[7, 8]) AS k) s WHERE (s.k).n = 2;
CREATE TABLE srf_t (id int PRIMARY KEY, tags text);
INSERT INTO srf_t VALUES (1, 'a'), (2, NULL), (3, 'c');
SELECT id, generate_series(1, id) FROM srf_t ORDER BY 1, 2;
SELECT id, unnest(ARRAY[tags, 'z']) FROM srf_t ORDER BY id, 2;
SELECT count(*), generate_series(1, 2) FROM srf_t;
SELECT DISTINCT generate_series(1, id) % 2 FROM srf_t ORDER BY 1;
SELECT id, (SELECT string_agg(g::text, ',') FROM generate_series(1, srf_t.id) g) FROM srf_t ORDER BY id;
SELECT id, ARRAY(SELECT x FROM unnest(ARRAY[srf_t.tags, 'y']) x) FROM srf_t ORDER BY id;
SELECT id FROM srf_t WHERE generate_series(1, 2) > 1;
SELECT id FROM srf_t GROUP BY id HAVING generate_series(1, 2) > 1;
SELECT CASE WHEN id > 1 THEN generate_series(1, 2) END FROM srf_t;
SELECT coalesce(generate_series(1, 2), 0);
SELECT count(generate_series(1, 2));
SELECT * FROM srf_t LIMIT generate_series(1, 2);
VALUES (generate_series(1, 2));
UPDATE srf_t SET id = generate_series(1, 2);
SELECT * FROM generate_series(1, generate_series(1, 2));
DROP TABLE srf_t;
