-- psql client features over simple queries: \gset variables, quoted interpolation, \gx.
SELECT 42 AS answer \gset
SELECT :answer + 1 AS plus_one;
\set word 'it''s'
SELECT :'word' AS quoted_literal;
SELECT 'a' AS x, 'b' AS y \gx
SELECT pg_sleep(0.1) AS slept;
