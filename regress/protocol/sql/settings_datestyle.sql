-- DateStyle: output styles and input field order, SET ... TO, SET ... = DEFAULT.
SET DateStyle = 'German';
SHOW DateStyle;
SELECT '2024-02-29'::date AS d, '2024-02-29 13:14:15'::timestamp AS ts;
SET DateStyle TO 'SQL, DMY';
SELECT '2024-02-29'::date AS d;
SET DateStyle = DEFAULT;
SHOW DateStyle;
SET DateStyle = 'ISO, DMY';
SELECT '01/02/2024'::date AS dmy_input;
RESET DateStyle;
SELECT '01/02/2024'::date AS mdy_input;
