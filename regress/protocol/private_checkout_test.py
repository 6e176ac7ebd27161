#!/usr/bin/env python3
"""Runs one harness suite with its work directory inside a directory only its owner may enter
(mode 0700, as /root and mktemp -d directories are), as a checkout there would have it.

As root the oracle's server runs as the postgres OS user, who cannot enter such a directory:
anything the harness gives that user to reach must live elsewhere (targets.PostgresTarget).
Without root there is no second user and this is an ordinary run of the suite.

  private_checkout_test.py HARNESS [harness args...]   (without --work-dir)
"""
import os
import stat
import subprocess
import sys
import tempfile


def main():
    harness, args = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory(prefix="farmdb-private-checkout-") as private:
        mode = stat.S_IMODE(os.stat(private).st_mode)
        if mode != 0o700:
            sys.exit(f"{private} has mode {mode:o}, not 700")
        print(f"work directory under {private} (mode 700), running as uid {os.geteuid()}",
              flush=True)
        return subprocess.run([sys.executable, harness, "--work-dir",
                               os.path.join(private, "build", "e2e-work")] + args).returncode


if __name__ == "__main__":
    sys.exit(main())
