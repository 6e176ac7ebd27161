-- date and timestamp under the default DateStyle (ISO, MDY).
SELECT '2024-02-29'::date AS d, '1999-12-31'::date + 1 AS next_day, '4713-01-01 BC'::date AS bc;
SELECT '2024-02-29 13:14:15.123456'::timestamp AS ts, '2000-01-01'::timestamp AS midnight;
SELECT 'infinity'::timestamp AS inf, '-infinity'::date AS neginf;
