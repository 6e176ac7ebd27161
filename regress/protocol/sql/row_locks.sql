-- SELECT ... FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE / FOR KEY SHARE: the queries that may
-- lock rows return what they would without the clause; the ones PostgreSQL refuses, and READ
-- ONLY transactions. What the locks do between sessions: regress/isolation.
\set SHOW_CONTEXT never
CREATE TABLE lock_t (k int PRIMARY KEY, v int);
CREATE TABLE lock_u (k int PRIMARY KEY, w int);
INSERT INTO lock_t VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO lock_u VALUES (1, 100), (2, 200);
-- Every strength, NOWAIT, and the clause before or after LIMIT.
SELECT * FROM lock_t WHERE k = 1 FOR UPDATE;
SELECT * FROM lock_t WHERE k = 1 FOR NO KEY UPDATE;
SELECT * FROM lock_t WHERE k = 1 FOR SHARE;
SELECT * FROM lock_t WHERE k = 1 FOR KEY SHARE;
SELECT * FROM lock_t WHERE k = 2 FOR UPDATE NOWAIT;
SELECT * FROM lock_t ORDER BY v DESC LIMIT 2 FOR UPDATE;
SELECT * FROM lock_t ORDER BY k FOR SHARE LIMIT 1;
SELECT * FROM lock_t ORDER BY k OFFSET 1 FOR NO KEY UPDATE;
SELECT * FROM lock_t ORDER BY k FOR UPDATE FOR SHARE;
-- OF: the tables named; several clauses; a table twice.
SELECT t.k, v, w FROM lock_t t JOIN lock_u u USING (k) ORDER BY k FOR UPDATE OF t;
SELECT t.k, v, w FROM lock_t t JOIN lock_u u USING (k) ORDER BY k FOR UPDATE OF u FOR SHARE OF t;
SELECT t.k, v, w FROM lock_t t LEFT JOIN lock_u u USING (k) ORDER BY k FOR UPDATE OF t;
SELECT t1.k, t2.v FROM lock_t t1, lock_t t2 WHERE t1.k = t2.k AND t1.k = 3 FOR SHARE OF t2;
-- Subqueries in FROM take the lock on their tables; VALUES, WITH queries and SELECT without
-- FROM have nothing to lock.
SELECT * FROM (SELECT * FROM lock_t WHERE k < 3) s ORDER BY k FOR UPDATE;
SELECT * FROM (SELECT * FROM lock_t WHERE k < 3) s ORDER BY k FOR KEY SHARE OF s;
SELECT * FROM (SELECT * FROM lock_t FOR SHARE) s WHERE k = 3 FOR UPDATE;
SELECT * FROM (VALUES (1), (2)) v(a) ORDER BY a FOR UPDATE;
WITH c AS (SELECT * FROM lock_t) SELECT * FROM c ORDER BY k FOR UPDATE;
SELECT 1 AS one FOR UPDATE;
-- In subqueries of expressions, in COPY, on a system view.
SELECT k FROM lock_t WHERE k IN (SELECT k FROM lock_u FOR UPDATE) ORDER BY k;
SELECT (SELECT v FROM lock_t WHERE k = 1 FOR SHARE) AS v;
COPY (SELECT * FROM lock_t ORDER BY k FOR UPDATE) TO STDOUT;
SELECT relname FROM pg_class WHERE relname = 'lock_t' FOR SHARE;
-- In a block, around an UPDATE of the locked row.
BEGIN;
SELECT * FROM lock_t WHERE k = 1 FOR UPDATE;
UPDATE lock_t SET v = v + 1 WHERE k = 1;
SELECT * FROM lock_t WHERE k = 1 FOR SHARE;
COMMIT;
SELECT * FROM lock_t WHERE k = 1;
\set ON_ERROR_STOP 0
-- CheckSelectLocking, in its order (the lock is checked before ungrouped columns).
SELECT count(*) FROM lock_t FOR UPDATE;
SELECT v FROM lock_t GROUP BY v FOR NO KEY UPDATE;
SELECT DISTINCT v FROM lock_t FOR KEY SHARE;
SELECT v FROM lock_t HAVING true FOR UPDATE;
SELECT v FROM lock_t UNION SELECT w FROM lock_u FOR SHARE;
(SELECT v FROM lock_t FOR UPDATE) UNION ALL SELECT w FROM lock_u;
VALUES (1) FOR UPDATE;
SELECT * FROM (SELECT DISTINCT v FROM lock_t) s FOR UPDATE;
SELECT * FROM (SELECT count(*) FROM lock_t) s FOR SHARE OF s;
SELECT * FROM (SELECT v FROM lock_t UNION SELECT w FROM lock_u) s FOR UPDATE;
-- OF names: not in FROM, an alias hides the table name, qualified, a join, a WITH query.
SELECT * FROM lock_t FOR UPDATE OF x;
SELECT * FROM lock_t FOR UPDATE OF lock_t FOR KEY SHARE OF lock_u;
SELECT * FROM lock_t t FOR SHARE OF lock_t;
SELECT * FROM lock_t FOR UPDATE OF public.lock_t;
SELECT * FROM (lock_t JOIN lock_u USING (k)) j FOR UPDATE OF j;
WITH c AS (SELECT * FROM lock_t) SELECT * FROM c FOR UPDATE OF c;
SELECT count(*) FROM lock_t FOR UPDATE OF x;
-- The nullable side of an outer join.
SELECT * FROM lock_t LEFT JOIN lock_u USING (k) FOR UPDATE;
SELECT * FROM lock_t LEFT JOIN lock_u USING (k) FOR UPDATE OF lock_t FOR SHARE OF lock_u;
SELECT * FROM lock_t LEFT JOIN (SELECT * FROM lock_u) s USING (k) FOR NO KEY UPDATE;
-- READ ONLY transactions refuse locks on tables (and system catalogs), even of no row; the
-- command named is the first lock's.
BEGIN READ ONLY;
SELECT * FROM lock_t WHERE false FOR UPDATE;
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM lock_t JOIN lock_u USING (k) FOR SHARE OF lock_t FOR UPDATE OF lock_u;
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM lock_t FOR KEY SHARE OF lock_t FOR NO KEY UPDATE OF lock_t;
ROLLBACK;
BEGIN READ ONLY;
SELECT k FROM lock_t WHERE k IN (SELECT k FROM lock_u FOR KEY SHARE);
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM (SELECT * FROM lock_t) s FOR SHARE;
ROLLBACK;
BEGIN READ ONLY;
COPY (SELECT * FROM lock_t FOR UPDATE) TO STDOUT;
ROLLBACK;
BEGIN READ ONLY;
SELECT relname FROM pg_class WHERE relname = 'lock_t' FOR KEY SHARE;
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM (VALUES (1)) v(a) FOR UPDATE;
WITH c AS (SELECT * FROM lock_t) SELECT * FROM c ORDER BY k FOR UPDATE;
SELECT 1 AS one FOR UPDATE;
COMMIT;
\set ON_ERROR_STOP 1
DROP TABLE lock_t, lock_u;
