-- float4 and float8 text output (shortest round-trip digits, extra_float_digits = 1).
SELECT 1.5::float4 AS f4, 3.25::float8 AS f8, 0.1::float8 + 0.2::float8 AS sum, 1e300::float8 * 10 AS big;
SELECT 'NaN'::float8 AS nan, 'Infinity'::float8 AS inf, '-Infinity'::float4 AS ninf, -0.0::float8 AS negzero;
