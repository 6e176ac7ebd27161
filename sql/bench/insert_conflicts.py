#!/usr/bin/python3
"""Issue 42's insert workload against a running server: SESSIONS sessions (default 8), each
committing explicit transactions of 3 inserts with distinct keys into one table (primary key and
a secondary index), for SECONDS seconds (default 15), at one isolation level. Prints the
transactions committed and each failure's SQLSTATE and message with its count. Not a test: it
reports what a server does (storage error 4, XX000, reached clients here before 3322c46).

  sql/bench/insert_conflicts.py PORT ["READ COMMITTED" | "REPEATABLE READ" | "SERIALIZABLE"] [SECONDS] [SESSIONS]

It drops and creates the table `insert_conflicts` in the postgres database on 127.0.0.1."""
import collections
import sys
import threading
import time

import psycopg2


def main():
    port = int(sys.argv[1])
    level = sys.argv[2] if len(sys.argv) > 2 else "READ COMMITTED"
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 15
    sessions = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    connect = lambda: psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    setup = connect()
    setup.autocommit = True
    with setup.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS insert_conflicts")
        cur.execute("CREATE TABLE insert_conflicts (id int PRIMARY KEY, v int)")
        cur.execute("CREATE INDEX insert_conflicts_v ON insert_conflicts (v)")
    setup.close()
    outcomes = collections.Counter()
    lock = threading.Lock()
    end = time.time() + seconds

    def run(session):
        conn = connect()
        conn.set_session(isolation_level=level)
        cur = conn.cursor()
        n = 0
        while time.time() < end:
            base = session * 10_000_000 + 3 * n
            n += 1
            try:
                for j in range(3):
                    cur.execute("INSERT INTO insert_conflicts VALUES (%s, %s)", (base + j, (base + j) % 97))
                conn.commit()
                outcome = "committed"
            except psycopg2.Error as e:
                conn.rollback()
                outcome = f"{e.pgcode} {str(e).splitlines()[0]}"
            with lock:
                outcomes[outcome] += 1
        conn.close()

    threads = [threading.Thread(target=run, args=(s,)) for s in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = sum(outcomes.values())
    print(f"{level}, {sessions} sessions, {seconds:g} s: {total} transactions")
    for outcome, count in outcomes.most_common():
        print(f"  {count:8d}  {100.0 * count / total:6.2f}%  {outcome}")


if __name__ == "__main__":
    main()
