-- Casts with type modifiers: numeric(p,s) rounds, varchar(n) truncates, timestamp(p) rounds.
SELECT 1.10::numeric(10,3) AS scaled, 2.5::numeric(3,0) AS rounded;
SELECT 'abc'::varchar(2) AS truncated;
SELECT '2024-02-29 13:14:15.123456'::timestamp(2) AS ts2;
