-- Date/time functions on fixed values (the clock only for now()'s range), in UTC and one other zone.
SET TimeZone = 'UTC';
SELECT date_trunc('day', TIMESTAMP '2024-03-15 13:45:12.345678') AS tday, date_trunc('hour', TIMESTAMP '2024-03-15 13:45:12.345678') AS thour,
       date_trunc('minute', TIMESTAMP '2024-03-15 13:45:12.345678') AS tmin, date_trunc('second', TIMESTAMP '2024-03-15 13:45:12.345678') AS tsec;
SELECT date_trunc('milliseconds', TIMESTAMP '2024-03-15 13:45:12.345678') AS tms, date_trunc('microseconds', TIMESTAMP '2024-03-15 13:45:12.345678') AS tus,
       date_trunc('week', TIMESTAMP '2024-03-15 13:45:12') AS tweek, date_trunc('month', TIMESTAMP '2024-03-15 13:45:12') AS tmonth;
SELECT date_trunc('quarter', TIMESTAMP '2024-08-15') AS tq, date_trunc('year', TIMESTAMP '2024-08-15') AS ty, date_trunc('decade', TIMESTAMP '2024-08-15') AS tdec,
       date_trunc('century', TIMESTAMP '2024-08-15') AS tcent, date_trunc('millennium', TIMESTAMP '2024-08-15') AS tmil, date_trunc('YEAR', TIMESTAMP '2024-08-15') AS upper_unit;
SELECT date_trunc('day', TIMESTAMPTZ '2024-03-15 23:30:00+00') AS tz_day, date_trunc('day', DATE '2024-03-15') AS date_arg, date_trunc('day', 'infinity'::timestamp) AS inf;
SELECT date_part('year', TIMESTAMP '2024-03-15 13:45:12.5') AS y, date_part('month', TIMESTAMP '2024-03-15 13:45:12.5') AS mon, date_part('day', TIMESTAMP '2024-03-15 13:45:12.5') AS d,
       date_part('hour', TIMESTAMP '2024-03-15 13:45:12.5') AS h, date_part('minute', TIMESTAMP '2024-03-15 13:45:12.5') AS mi, date_part('second', TIMESTAMP '2024-03-15 13:45:12.5') AS s;
SELECT date_part('dow', DATE '2024-03-17') AS dow_sun, date_part('isodow', DATE '2024-03-17') AS isodow, date_part('doy', DATE '2024-12-31') AS doy, date_part('week', DATE '2024-01-01') AS week,
       date_part('quarter', DATE '2024-11-01') AS q, date_part('epoch', TIMESTAMP '2024-01-01 00:00:00') AS epoch, date_part('hour', DATE '2024-01-01') AS date_hour;
SELECT date_part('isoyear', DATE '2021-01-01') AS isoyear, date_part('week', DATE '2021-01-01') AS week53, date_part('decade', DATE '2024-01-01') AS dec, date_part('century', DATE '2000-12-31') AS cent,
       date_part('millennium', DATE '2001-01-01') AS mil, date_part('julian', DATE '2000-01-01') AS julian, date_part('milliseconds', TIMESTAMP '2024-01-01 00:00:01.5') AS ms;
SELECT extract(year FROM TIMESTAMP '2024-03-15 13:45:12.5') AS y, extract(second FROM TIMESTAMP '2024-03-15 13:45:12.5') AS s, extract(milliseconds FROM TIMESTAMP '2024-03-15 13:45:12.5') AS ms,
       extract(microseconds FROM TIMESTAMP '2024-03-15 13:45:12.5') AS us, extract(epoch FROM TIMESTAMP '2024-03-15 13:45:12.5') AS epoch;
SELECT extract(day FROM DATE '2024-03-15') AS d, extract(epoch FROM DATE '2024-03-15') AS date_epoch, extract(dow FROM DATE '2024-03-15') AS dow, extract(julian FROM DATE '2024-03-15') AS julian,
       extract(julian FROM TIMESTAMP '2024-03-15 12:00') AS ts_julian, extract(century FROM DATE '0001-01-01 BC') AS bc_century, extract(year FROM DATE '0044-03-15 BC') AS bc_year;
SELECT extract(hour FROM TIMESTAMPTZ '2024-03-15 13:45:00+00') AS tz_hour, extract(timezone FROM TIMESTAMPTZ '2024-03-15 13:45:00+00') AS tz, extract(epoch FROM TIMESTAMPTZ '2024-03-15 13:45:00+02') AS tz_epoch;
SELECT extract(timezone FROM 'infinity'::timestamp) AS inf_tz, date_part('timezone', 'infinity'::date) AS inf_date_tz, date_part('year', 'infinity'::timestamp) AS inf_year, date_part('day', 'infinity'::timestamp) AS inf_day, date_part('year', '-infinity'::date) AS neg_inf_year;
SELECT make_date(2024, 2, 29) AS leap, make_date(-44, 3, 15) AS bc, make_timestamp(2024, 3, 15, 13, 45, 12.5) AS ts, make_timestamp(2024, 1, 1, 24, 0, 0) AS midnight24;
SELECT DATE '2024-03-15' + 30 AS plus, 30 + DATE '2024-03-15' AS plus_rev, DATE '2024-03-15' - 15 AS minus, DATE '2024-03-15' - DATE '2024-01-01' AS diff, isfinite(DATE '2024-01-01') AS fin, isfinite('infinity'::timestamp) AS inf_fin;
SELECT now() = transaction_timestamp() AS same_txn, now() = CURRENT_TIMESTAMP AS cur_ts, now() <= statement_timestamp() AS stmt_after, statement_timestamp() <= clock_timestamp() AS clock_after;
SELECT now() > TIMESTAMPTZ '2024-01-01 00:00:00+00' AS recent, now() < TIMESTAMPTZ '2200-01-01 00:00:00+00' AS not_future, CURRENT_DATE = now()::date AS cur_date, LOCALTIMESTAMP = now()::timestamp AS localts;
SELECT date_trunc('second', CURRENT_TIMESTAMP(0)) = CURRENT_TIMESTAMP(0) AS ts_precision, date_trunc('second', LOCALTIMESTAMP(0)) = LOCALTIMESTAMP(0) AS lts_precision;
SELECT LOCALTIMESTAMP(7) IS NOT NULL AS lts7, CURRENT_TIMESTAMP(9) IS NOT NULL AS cts9, make_timestamp(-1, 1, 1, 0, 0, 0) AS bc_ts;
SELECT extract(year FROM DATE '5874897-12-31') AS max_date_year, extract(epoch FROM DATE '5874897-12-31') AS max_date_epoch, extract(epoch FROM TIMESTAMP '294276-12-31 23:59:59.999999') AS max_ts_epoch, date_part('epoch', TIMESTAMP '294276-12-31 23:59:59.999999') AS max_ts_epoch_f8;
BEGIN;
SELECT now() AS t1 \gset
SELECT pg_sleep(0.01);
SELECT now() = :'t1'::timestamptz AS now_fixed_in_txn, clock_timestamp() > :'t1'::timestamptz AS clock_moves, statement_timestamp() > :'t1'::timestamptz AS stmt_moves;
COMMIT;
SELECT to_char(TIMESTAMP '2024-03-05 13:04:09.123456', 'YYYY-MM-DD HH24:MI:SS.US') AS iso, to_char(TIMESTAMP '2024-03-05 13:04:09.123456', 'FMDD FMMonth YYYY HH12:MI AM') AS fm_text;
SELECT to_char(TIMESTAMP '2024-03-05 00:04:09', 'Day Dy DAY DY day dy D ID') AS days, to_char(TIMESTAMP '2024-03-05 00:04:09', 'Month|MONTH|month|Mon|MON|mon|MM|RM|rm|FMRM|Q') AS months;
SELECT to_char(TIMESTAMP '2024-03-05 00:04:09', 'HH HH12 hh24 PM pm A.M. a.m. P.M.') AS hours, to_char(TIMESTAMP '2024-12-31 12:00:00', 'DDD IDDD IW WW W J CC IYYY IYY IY I Y,YYY YYY YY Y') AS weeks_years;
SELECT to_char(TIMESTAMP '2024-03-01', 'DDth DDTH FMDDth') AS ordinals, to_char(TIMESTAMP '2024-03-02', 'FMDDth') AS nd, to_char(TIMESTAMP '2024-03-03', 'FMDDth') AS rd, to_char(TIMESTAMP '2024-03-11', 'FMDDth') AS teen, to_char(TIMESTAMP '2024-03-22', 'FMDDth') AS twenty_nd;
SELECT to_char(TIMESTAMP '2024-03-05 13:04:09.123456', 'FF1 FF2 FF3 FF4 FF5 FF6 MS US SSSS SSSSS') AS fractions, to_char(TIMESTAMP '2024-03-05', '"Year" YYYY "is \"quoted\"" \"x') AS quoted, to_char(TIMESTAMP '2024-03-05', 'YYYY BC AD b.c.') AS era;
SELECT to_char(DATE '0044-03-15 BC', 'YYYY BC B.C. CC') AS bc, to_char(TIMESTAMP '2024-03-05', '') AS empty_format, to_char('infinity'::timestamp, 'YYYY') AS infinite, to_char(TIMESTAMP '2024-03-05', 'xyz FX fm') AS literals;
SELECT to_char(TIMESTAMPTZ '2024-03-05 13:04:09+00', 'YYYY-MM-DD HH24:MI:SS TZ tz TZH:TZM OF') AS tz_utc, to_char(TIMESTAMP '2024-03-05 13:04:09', 'TZ|TZH|TZM|OF') AS no_zone, to_char(NULL::timestamp, 'YYYY') AS null_ts;
SET TimeZone = 'America/New_York';
SELECT to_char(TIMESTAMPTZ '2024-07-05 13:04:09+00', 'YYYY-MM-DD HH24:MI:SS TZ OF') AS ny_summer, to_char(TIMESTAMPTZ '2024-01-05 13:04:09+00', 'HH24 TZ TZH:TZM') AS ny_winter;
SELECT date_trunc('day', TIMESTAMPTZ '2024-03-15 02:30:00+00') AS ny_day, date_trunc('day', TIMESTAMPTZ '2024-03-15 02:30:00+00', 'UTC') AS utc_day, date_trunc('hour', TIMESTAMPTZ '2024-03-10 07:30:00+00') AS dst_hour;
SELECT date_trunc('month', TIMESTAMPTZ '2024-03-15 02:30:00+00') AS ny_month, extract(hour FROM TIMESTAMPTZ '2024-03-15 02:30:00+00') AS ny_hour, extract(timezone_hour FROM TIMESTAMPTZ '2024-03-15 02:30:00+00') AS tzh,
       extract(timezone FROM TIMESTAMPTZ '2024-01-15 02:30:00+00') AS tz_winter, extract(day FROM TIMESTAMPTZ '2024-03-15 02:30:00+00') AS ny_dom;
RESET TimeZone;
\set ON_ERROR_STOP 0
SELECT date_trunc('fortnight', TIMESTAMP '2024-01-01');
SELECT date_trunc('dow', TIMESTAMP '2024-01-01');
SELECT date_trunc('day', TIMESTAMPTZ '2024-01-01 00:00+00', 'No/Such_Zone');
SELECT date_part('fortnight', TIMESTAMP '2024-01-01');
SELECT date_part('timezone', TIMESTAMP '2024-01-01');
SELECT extract(hour FROM DATE '2024-01-01');
SELECT extract(timezone FROM DATE '2024-01-01');
SELECT make_date(2023, 2, 29);
SELECT make_date(0, 1, 1);
SELECT make_date(2024, 13, 1);
SELECT make_timestamp(2024, 1, 1, 25, 0, 0);
SELECT make_timestamp(2024, 1, 1, 0, 0, 60.5);
SELECT date_trunc('day', 1);
SELECT date_trunc('millennium', TIMESTAMP '4713-01-01 BC');
SELECT make_date(-4714, 1, 1);
SELECT make_timestamp(294277, 1, 1, 0, 0, 0);
SELECT make_timestamp(2024, 1, 1, 0, 0, 'NaN');
SELECT make_timestamp(5000000, 1, 1, 0, 0, 0);
SELECT make_date(-1, 0, 0);
SELECT make_date(-2147483648, 1, 1);
SELECT extract(microseconds FROM 'infinity'::date);
SELECT extract(timezone FROM TIMESTAMP '2024-01-01');
SELECT '5874897-12-31'::date::timestamp;
\set ON_ERROR_STOP 1
