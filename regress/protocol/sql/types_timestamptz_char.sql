-- timestamp with time zone under several TimeZone settings, and character(n).
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
SELECT '2024-01-02 03:04:05'::timestamptz AS utc_default, '2024-01-02 03:04:05+05:30'::timestamptz AS east,
       '2024-07-02 03:04:05.123-08'::timestamptz AS west, '2024-01-02T03:04:05Z'::timestamptz AS zulu;
SET TIME ZONE 'America/New_York';
SHOW timezone;
SELECT '2024-01-02 03:04:05'::timestamptz AS winter, '2024-07-02 03:04:05'::timestamptz AS summer;
-- A time skipped by the spring-forward jump, and one repeated by the fall-back jump.
SELECT '2018-03-11 02:30'::timestamptz AS gap, '2018-11-04 01:30'::timestamptz AS overlap;
SELECT '2024-01-02 03:04:05+00'::timestamptz::timestamp AS to_local, '2024-01-02'::date::timestamptz AS from_date,
       '2024-01-02 23:30+00'::timestamptz::date AS to_date, '2024-01-02 03:04:05'::timestamp::timestamptz AS from_local;
SET datestyle = 'SQL, DMY';
SELECT '2024-01-02 03:04:05+00'::timestamptz AS sql_style;
SET datestyle = 'Postgres';
SELECT '2024-01-02 03:04:05+00'::timestamptz AS postgres_style;
SET datestyle = 'German';
SELECT '2024-01-02 03:04:05+00'::timestamptz AS german_style;
RESET datestyle;
SET timezone = 'Asia/Kolkata';
SELECT '2024-01-02 03:04:05+00'::timestamptz AS half_hour_offset;
SET timezone = 'utc';
SHOW timezone;
SELECT '2024-01-02 03:04:05.1234567'::timestamptz(2) AS rounded, 'infinity'::timestamptz AS inf,
       '2024-01-01'::date < '2024-01-01 00:00:01+00'::timestamptz AS date_before;
SELECT '0044-03-15 12:00 BC'::timestamptz AS bc;
SELECT 'ab'::char(4) = 'ab  '::char(4) AS padded_equal, 'ab'::char(4) AS padded, length('ab'::char(4)::text) AS trimmed_length,
       'abcdef'::char(3) AS truncated, 'ab'::char(4) || 'x' AS concatenated, 'x'::character AS one_char;
SET timezone = 'bogus';
SELECT 'x'::timestamptz;
SELECT '2024-01-02 03:04:05+16'::timestamptz;
