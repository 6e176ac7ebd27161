-- A simple-query message of several statements (psql's \;) is one implicit transaction; BEGIN,
-- COMMIT and ROLLBACK inside it follow PostgreSQL's rules. READ ONLY refuses DDL before name
-- lookup. SET TRANSACTION SNAPSHOT's checks. Tables stand in for data: CREATE TABLE succeeds
-- only if an earlier one was undone.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
-- An error later in the message undoes the statements before it.
CREATE TABLE imp_t (a int) \; SELECT 1/0;
CREATE TABLE imp_t (a int);
DROP TABLE imp_t;
-- Several statements without an error commit together; later ones see earlier ones.
CREATE TABLE imp_t (a int) \; CREATE TABLE imp_u (a int) \; DROP TABLE imp_t;
DROP TABLE imp_u;
DROP TABLE imp_t;
-- BEGIN inside a message: the statements before it join the block.
CREATE TABLE imp_t (a int) \; BEGIN \; SELECT 1/0;
SELECT 1;
ROLLBACK;
CREATE TABLE imp_t (a int) \; BEGIN \; CREATE TABLE imp_u (a int);
COMMIT;
DROP TABLE imp_t, imp_u;
-- COMMIT inside a message commits what came before (with a warning); the rest runs on its own.
CREATE TABLE imp_t (a int) \; COMMIT \; SELECT 1/0;
DROP TABLE imp_t;
-- ROLLBACK inside a message undoes what came before.
CREATE TABLE imp_t (a int) \; ROLLBACK \; SELECT 2;
DROP TABLE imp_t;
-- A multi-statement message is a transaction block for SET LOCAL and SET TRANSACTION.
SET LOCAL extra_float_digits = 0;
SET LOCAL extra_float_digits = 0 \; SHOW extra_float_digits;
SHOW extra_float_digits;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ \; SHOW transaction_isolation;
SELECT 1 \; SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
-- READ ONLY transactions refuse DDL, before looking up names.
BEGIN READ ONLY;
CREATE TABLE imp_t (a int);
ROLLBACK;
BEGIN READ ONLY;
DROP TABLE no_such_table;
ROLLBACK;
SET default_transaction_read_only = on;
CREATE TABLE imp_t (a int);
BEGIN READ WRITE;
CREATE TABLE imp_t (a int);
COMMIT;
RESET default_transaction_read_only;
DROP TABLE imp_t;
-- SET TRANSACTION SNAPSHOT: isolation level first, then the identifier.
BEGIN ISOLATION LEVEL READ COMMITTED;
SET TRANSACTION SNAPSHOT 'abc';
ROLLBACK;
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SET TRANSACTION SNAPSHOT 'abc';
ROLLBACK;
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SET TRANSACTION SNAPSHOT '00000003-0000001B-1';
ROLLBACK;
