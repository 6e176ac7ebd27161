-- Run with ON_ERROR_STOP=1: psql must stop at the division by zero with exit code 3, so neither
-- the rest of that line nor the next line runs.
SELECT 'before_error' AS marker;
SELECT 'same_line_before' AS marker; SELECT 1/0; SELECT 'same_line_after_error' AS marker;
SELECT 'next_line_after_error' AS marker;
