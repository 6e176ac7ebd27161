-- COPY (SELECT ...) TO STDOUT in text and csv.
COPY (SELECT 1 AS a, 'text' AS b, NULL AS c) TO STDOUT;
COPY (SELECT 'tab	and\backslash' AS a, E'new\nline' AS b) TO STDOUT;
COPY (SELECT 1 AS a, 'x,y' AS b, NULL AS c, '' AS d, 'say "hi"' AS e) TO STDOUT WITH (FORMAT csv);
COPY (SELECT 2 AS num, 'two' AS word) TO STDOUT WITH (FORMAT csv, HEADER);
COPY (SELECT '2024-02-29'::date AS d, 1.5::numeric AS n, true AS b, '\x0102'::bytea AS by) TO STDOUT;
COPY (SELECT 1 AS a) TO STDOUT WITH (FORMAT csv, DELIMITER ';', NULL 'NULL');
COPY (SELECT 1) TO STDOUT; SELECT 'after copy' AS next;
