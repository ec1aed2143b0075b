-- workload.sql - the real-program bench's sqlite3 workload, run in a
-- :memory: database: inserts, an index, point and range queries, grouping.
-- usage: sqlite3 :memory: '.read tests/bench/real/workload.sql'
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000)
INSERT INTO t(k, name, v) SELECT i % 997, printf('name-%d', i), i * 0.5 FROM c;
CREATE INDEX t_k ON t(k);
SELECT count(*), sum(v) FROM t WHERE name LIKE 'name-1%';
SELECT k, count(*), avg(v) FROM t GROUP BY k ORDER BY 3 DESC LIMIT 3;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
SELECT sum((SELECT v FROM t WHERE id = c.i * 7)) FROM c;
SELECT count(*) FROM t a JOIN t b ON a.id = b.k + 1 WHERE a.k < 10;
UPDATE t SET v = v + 1 WHERE k % 3 = 0;
SELECT sum(v) FROM t;
