"""check() and finish() for the server's script tests (main_test.py, disk_full_test.py): each
failed check is printed as it happens, and finish() exits non-zero if any failed."""
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def finish():
    print(f"FAILED: {len(failures)} check(s)" if failures else "OK")
    sys.exit(1 if failures else 0)
