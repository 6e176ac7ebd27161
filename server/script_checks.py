"""check() and finish() for the server's script tests (main_test.py, disk_full_test.py): each
failed check is printed as it happens, and finish() exits non-zero if any failed. die_with_parent
is the preexec_fn for the servers they start."""
import ctypes
import signal
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def finish():
    print(f"FAILED: {len(failures)} check(s)" if failures else "OK")
    sys.exit(1 if failures else 0)


def die_with_parent():
    """preexec_fn: the kernel kills the server when the test dies (even by SIGKILL from a CTest
    timeout), so no server outlives it."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
