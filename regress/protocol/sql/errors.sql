-- Errors outside transaction blocks: the session carries on after each one.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
SELECT 1/0;
\echo :LAST_ERROR_SQLSTATE
SELECT 'not a number'::int4;
\echo :LAST_ERROR_SQLSTATE
SELECT 32768::int2;
\echo :LAST_ERROR_SQLSTATE
SELECT '2024-13-45'::date;
\echo :LAST_ERROR_SQLSTATE
SELEC 1;
\echo :LAST_ERROR_SQLSTATE
SELECT 1 +;
\echo :LAST_ERROR_SQLSTATE
SELECT no_such_column;
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM no_such_table;
\echo :LAST_ERROR_SQLSTATE
SELECT no_such_function(1);
\echo :LAST_ERROR_SQLSTATE
SELECT 9223372036854775807::int8 + 1;
\echo :LAST_ERROR_SQLSTATE
SET no_such_setting = 1;
\echo :LAST_ERROR_SQLSTATE
SHOW no_such_setting;
\echo :LAST_ERROR_SQLSTATE
SET extra_float_digits = 'abc';
\echo :LAST_ERROR_SQLSTATE
SELECT current_setting('no_such_setting');
\echo :LAST_ERROR_SQLSTATE
SELECT 'still alive' AS state;
