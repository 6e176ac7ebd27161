-- Constant SELECTs, several statements on one line, NULL, bool and integer types.
SELECT 1;
SELECT 1 AS one, 'two' AS two, NULL AS nothing;
SELECT 1; SELECT 2 AS second; SELECT 'three' AS third;
SELECT true AS t, false AS f, NOT true AS nt, 1 < 2 AS lt;
SELECT 32767::int2 AS i2, (-32768)::int2 AS i2min, 2147483647::int4 AS i4, 9223372036854775807::int8 AS i8;
SELECT -2147483648::int8 AS neg, 7 / 2 AS intdiv, 7 % 3 AS modulo, 2 + 3 * 4 AS prec;
