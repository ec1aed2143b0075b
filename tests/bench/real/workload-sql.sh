#!/bin/sh
# workload-sql.sh - write the real-program bench's sqlite3 workload to
# standard output: many small statements (each one a prepare, steps and a
# finalize through the sqlite3 shell, so the calls the agent can time scale
# with the work), then a few large ones, for a :memory: database.
#   usage: sh workload-sql.sh [ROWS] >w.sql; sqlite3 :memory: '.read w.sql'
# ROWS (default 30000) rows inserted one statement each, and as many point
# queries.
awk -v n="${1:-30000}" 'BEGIN {
	print "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL);"
	print "BEGIN;"
	for (i = 1; i <= n; i++)
		printf "INSERT INTO t(k, name, v) VALUES(%d, '\''name-%d'\'', %d.5);\n", i % 997, i, i
	print "COMMIT;"
	print "CREATE INDEX t_k ON t(k);"
	for (i = 1; i <= n; i++)
		printf "SELECT name, v FROM t WHERE id = %d;\n", (i * 7919) % n + 1
	print "SELECT count(*), sum(v) FROM t WHERE name LIKE '\''name-1%'\'';"
	print "SELECT k, count(*), avg(v) FROM t GROUP BY k ORDER BY 3 DESC LIMIT 3;"
	print "SELECT count(*) FROM t a JOIN t b ON a.id = b.k + 1 WHERE a.k < 10;"
	print "UPDATE t SET v = v + 1 WHERE k % 3 = 0;"
	print "SELECT sum(v) FROM t;"
}'
