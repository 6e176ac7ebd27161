-- numeric: scale of results, wide values, NaN.
SELECT 123.456::numeric AS n, 10::numeric / 4 AS quotient, -0.5::numeric AS neg;
SELECT 99999999999999999999999999.999999::numeric + 1 AS wide, 'NaN'::numeric AS nan;
