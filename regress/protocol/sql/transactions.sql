-- Transaction blocks: BEGIN/COMMIT/ROLLBACK, SET LOCAL, failed blocks (25P02).
BEGIN;
SELECT 1 AS in_block;
COMMIT;
BEGIN; SELECT 2 AS same_line; COMMIT;
START TRANSACTION;
ROLLBACK;
BEGIN;
SET LOCAL application_name = 'local_value';
SHOW application_name;
COMMIT;
SHOW application_name;
BEGIN;
SET application_name = 'rolled_back';
ROLLBACK;
SHOW application_name;
BEGIN;
SET application_name = 'committed';
COMMIT;
SHOW application_name;
SELECT set_config('application_name', 'local_fn', true) AS local_fn;
SHOW application_name;
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
COMMIT;
ROLLBACK;
BEGIN;
SELECT 1/0;
\echo :LAST_ERROR_SQLSTATE
SELECT 1 AS ignored;
\echo :LAST_ERROR_SQLSTATE
SHOW application_name;
COMMIT;
SELECT 'after_failed_commit' AS state;
BEGIN;
SELECT * FROM no_such_table;
\echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN; SELECT 'x'::int4; SELECT 2; ROLLBACK;
SELECT 'back to idle' AS state;
