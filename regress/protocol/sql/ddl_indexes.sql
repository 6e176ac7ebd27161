-- CREATE [UNIQUE] INDEX and DROP INDEX: generated names, IF [NOT] EXISTS notices, hash index
-- limits, errors in DefineIndex's order, indexes that back constraints, DDL in blocks.
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE ix (a int, b text, c int);
CREATE INDEX ON ix (a);
CREATE INDEX ON ix (a);
CREATE INDEX ON ix (a, b DESC NULLS LAST);
CREATE UNIQUE INDEX ix_c ON ix (c);
CREATE INDEX IF NOT EXISTS ix_c ON ix (b);
CREATE INDEX ix_c ON ix (b);
CREATE INDEX ix_h ON ix USING hash (b);
CREATE INDEX ON ix USING btree (c ASC NULLS FIRST);
CREATE UNIQUE INDEX ON ix USING hash (a);
CREATE INDEX ON ix USING hash (a, b);
CREATE INDEX ON ix USING hash (a DESC);
CREATE INDEX ON ix USING hash (a NULLS FIRST);
CREATE INDEX ON ix (zz);
CREATE INDEX ON nosuch (a);
CREATE INDEX ix ON ix (a);
CREATE SEQUENCE ix_seq;
CREATE INDEX ON ix_seq (a);
CREATE INDEX ON ix_c (a);
DROP INDEX ix_a_idx;
DROP INDEX ix_a_idx1, ix_a_b_idx;
DROP INDEX ix_a_idx;
DROP INDEX IF EXISTS ix_a_idx;
DROP INDEX IF EXISTS nosuch, ix_h;
DROP INDEX ix;
DROP INDEX ix_seq;
-- An index that enforces a constraint goes with the constraint only.
CREATE TABLE keyed (a int PRIMARY KEY, b int UNIQUE, c int, d int, CONSTRAINT keyed_cd UNIQUE (c, d));
DROP INDEX keyed_pkey;
DROP INDEX keyed_b_key;
DROP INDEX keyed_cd;
CREATE INDEX keyed_pkey ON keyed (b);
DROP TABLE keyed_pkey;
DROP SEQUENCE keyed_b_key;
-- Transactions: a rolled back CREATE INDEX leaves no index; a failed one fails the block.
BEGIN;
CREATE INDEX in_block ON ix (a);
ROLLBACK;
DROP INDEX in_block;
BEGIN;
CREATE INDEX in_block ON ix (a);
CREATE INDEX in_block ON ix (b);
COMMIT;
DROP INDEX in_block;
BEGIN;
CREATE INDEX in_block ON ix (a);
COMMIT;
DROP INDEX in_block;
BEGIN READ ONLY;
CREATE INDEX ro ON ix (a);
ROLLBACK;
DROP TABLE ix;
DROP INDEX ix_c;
DROP TABLE keyed;
DROP SEQUENCE ix_seq;
