-- Spark-specific queries for planguard's corpus, over the TPC-H tables.
-- Each block starts with a `-- name:` line.

-- name: cte
WITH big AS (SELECT o_custkey, sum(o_totalprice) AS total FROM orders GROUP BY o_custkey),
     ranked AS (SELECT o_custkey, total, rank() OVER (ORDER BY total DESC) AS r FROM big)
SELECT c_name, total FROM ranked JOIN customer ON c_custkey = o_custkey WHERE r <= 10;

-- name: correlated-scalar-subquery
SELECT p_partkey, p_retailprice FROM part
WHERE p_retailprice > (SELECT avg(l_extendedprice / l_quantity) FROM lineitem WHERE l_partkey = p_partkey);

-- name: uncorrelated-scalar-subquery
SELECT n_name, (SELECT count(*) FROM region) AS regions FROM nation;

-- name: exists-and-not-exists
SELECT c_custkey FROM customer c
WHERE EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey AND o_orderstatus = 'F')
  AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey AND o_orderstatus = 'P');

-- name: in-and-not-in
SELECT s_name FROM supplier
WHERE s_nationkey IN (SELECT n_nationkey FROM nation WHERE n_regionkey = 1)
  AND s_suppkey NOT IN (SELECT ps_suppkey FROM partsupp WHERE ps_availqty < 10);

-- name: windows
SELECT o_custkey, o_orderdate, o_totalprice,
       sum(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate
                               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
       lag(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS previous,
       ntile(4) OVER (ORDER BY o_totalprice, o_orderkey) AS quartile
FROM orders;

-- name: grouping-sets
SELECT l_returnflag, l_linestatus, count(*) AS n, grouping_id() AS g
FROM lineitem GROUP BY GROUPING SETS ((l_returnflag), (l_linestatus), ());

-- name: rollup
SELECT n_regionkey, n_nationkey, count(*) AS n FROM nation GROUP BY ROLLUP (n_regionkey, n_nationkey);

-- name: cube
SELECT l_returnflag, l_shipmode, sum(l_quantity) AS q FROM lineitem GROUP BY CUBE (l_returnflag, l_shipmode);

-- name: pivot
SELECT * FROM (SELECT l_returnflag, l_linestatus, l_quantity FROM lineitem)
PIVOT (sum(l_quantity) FOR l_linestatus IN ('F' AS f, 'O' AS o));

-- name: explode
SELECT p_partkey, word FROM part LATERAL VIEW explode(split(p_name, ' ')) words AS word;

-- name: explode-outer-posexplode
SELECT r_name, pos, word FROM region LATERAL VIEW OUTER posexplode(split(r_comment, ' ')) w AS pos, word;

-- name: set-operations
(SELECT n_nationkey AS k FROM nation UNION SELECT r_regionkey FROM region)
INTERSECT (SELECT s_nationkey FROM supplier)
EXCEPT (SELECT c_nationkey FROM customer WHERE c_acctbal < 0);

-- name: union-all-distinct
SELECT DISTINCT k FROM (SELECT n_regionkey AS k FROM nation UNION ALL SELECT r_regionkey FROM region);

-- name: broadcast-hint
SELECT /*+ BROADCAST(n) */ c_name, n_name FROM customer c JOIN nation n ON c_nationkey = n_nationkey;

-- name: merge-hint
SELECT /*+ MERGE(o) */ c_name, o_orderkey FROM customer c JOIN orders o ON c_custkey = o_custkey;

-- name: shuffle-hash-hint
SELECT /*+ SHUFFLE_HASH(s) */ ps_partkey, s_name FROM partsupp JOIN supplier s ON ps_suppkey = s_suppkey;

-- name: outer-joins
SELECT c_custkey, o_orderkey, n_name FROM customer
LEFT JOIN orders ON c_custkey = o_custkey AND o_totalprice > 200000
FULL OUTER JOIN nation ON c_nationkey = n_nationkey AND n_regionkey = 9;

-- name: self-join-aliases
SELECT a.n_name AS nation, b.n_name AS neighbour FROM nation a JOIN nation b ON a.n_regionkey = b.n_regionkey AND a.n_nationkey < b.n_nationkey;

-- name: semi-anti-join
SELECT * FROM supplier LEFT SEMI JOIN nation ON s_nationkey = n_nationkey
WHERE s_suppkey NOT IN (SELECT 0);

-- name: distinct-aggregates
SELECT l_returnflag, count(DISTINCT l_partkey) AS parts, count(DISTINCT l_suppkey) AS suppliers, sum(l_quantity) AS q
FROM lineitem GROUP BY l_returnflag;

-- name: literals-and-nullability
SELECT if(true, 1, NULL) AS folded, coalesce(NULL, r_regionkey) AS k, CAST(r_regionkey AS STRING) AS s,
       named_struct('k', r_regionkey, 'name', r_name) AS st, array(r_regionkey, 1) AS arr
FROM region WHERE 1 = 1;

-- name: empty-relation
SELECT r_name FROM region WHERE false UNION ALL SELECT n_name FROM nation WHERE 1 = 0;

-- name: limit-offset-order
SELECT o_orderkey, o_totalprice FROM orders ORDER BY o_totalprice DESC, o_orderkey LIMIT 10 OFFSET 5;

-- name: same-column-twice
SELECT n_name, n_name, n_nationkey FROM nation;
