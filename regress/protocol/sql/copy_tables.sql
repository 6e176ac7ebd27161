-- COPY table FROM STDIN / TO STDOUT in text and CSV: escapes, NULLs, column lists, defaults,
-- HEADER, and the errors for bad rows (the statement inserts nothing then).
\set SHOW_CONTEXT never
\set ON_ERROR_STOP 0
CREATE TABLE c_t (a int PRIMARY KEY, b text, c numeric(4,1) DEFAULT 7, d varchar(3));
COPY c_t FROM STDIN;
1	one	1.5	x
2	t\two	\N	yy
3	\\back\x41\101	2	
\.
COPY c_t (a, b) FROM STDIN WITH (FORMAT csv);
4,"quoted, comma"
5,
6,""
7,"multi
line"
\.
COPY c_t (b, a) FROM STDIN WITH (FORMAT csv, HEADER true);
b,a
from header,8
\.
COPY c_t FROM STDIN WITH (DELIMITER '|', NULL 'NULL');
9|pipe|NULL|z
\.
SELECT * FROM c_t ORDER BY a;
COPY c_t TO STDOUT;
COPY c_t (d, a) TO STDOUT WITH (FORMAT csv, HEADER);
COPY c_t FROM STDIN;
10	x	1	toolong
\.
COPY c_t FROM STDIN;
11	x
\.
COPY c_t FROM STDIN;
12	x	1	y	extra
\.
COPY c_t FROM STDIN;
13	x	notanumber	y
\.
COPY c_t FROM STDIN;
14	ok	1	y
1	dup	1	y
\.
SELECT count(*) FROM c_t;
COPY nosuch FROM STDIN;
COPY c_t (nosuch) TO STDOUT;
DROP TABLE c_t;
