-- text, varchar and bytea: quoting, escapes, multi-line values, UTF-8, hex output.
SELECT 'hello'::text AS t, 'x'::varchar AS v, '' AS empty;
SELECT 'it''s' AS quote, 'a' || 'b' || 'c' AS concat, 'héllo' AS utf8, 'x' || 1 AS mixed;
SELECT E'tab\there' AS escaped, 'line1
line2' AS multiline;
SELECT '\x00ff10'::bytea AS b, 'abc'::bytea AS from_text, ''::bytea AS empty;
