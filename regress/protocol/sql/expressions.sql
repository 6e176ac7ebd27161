-- Expressions on literals: casts, boolean logic, IS NULL, COALESCE, CASE.
SELECT CAST('42' AS int4) AS cast_int, '3.5'::numeric::float8 AS chain, 42::text AS to_text, 't'::bool AS to_bool;
SELECT 1 = 1 AND 2 > 1 AS both, NULL::int4 IS NULL AS isnull, COALESCE(NULL, 'fallback') AS coalesced;
SELECT CASE WHEN 1 > 2 THEN 'no' ELSE 'yes' END AS case_expr;
