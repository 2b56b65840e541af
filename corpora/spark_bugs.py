"""Real Apache Spark correctness bugs, each run on a pyspark release that shipped it: without
planguard (the wrong rows the bug gives), with planguard in `fail` mode (what its checks say),
and through the pytest plugin in differential mode (`pytest --planguard-differential`: which
plan Spark must agree with gave other rows).

Each bug is a query run in a fresh virtualenv of its release (under .cache/spark-bugs/, pyspark
and pytest from PyPI), with the jar of that release's line from the installed planguard wheel,
and for the differential run that wheel installed there (``--wheel``; dev/setup builds it into
.cache/wheel/, with the line's jar when PLANGUARD_SPARK_LINES names it). A bug is *reproduced*
when the query without planguard returns rows other than the right ones, *caught* when the query
with planguard fails with a planguard error before returning them, and *caught in differential
mode* when its test fails naming the variant whose rows differ. The script prints one line per
bug and release, and exits 1 when a reproduced bug is caught by neither.

Usage: python -m corpora.spark_bugs [--bug SPARK-49743] [--release 3.5.1] [--wheel W.whl]
Figures: docs/corpus.md, "Real Spark correctness bugs".
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap
from typing import NamedTuple
from xml.etree import ElementTree

import planguard

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENVS = ROOT / ".cache" / "spark-bugs"


class Bug(NamedTuple):
    id: str
    what: str
    releases: tuple  # pyspark releases that shipped it, to run it on
    job: str  # Python defining query(spark) -> the DataFrame whose rows are the answer
    right: list  # the rows a correct Spark returns


BUGS = [
    Bug("SPARK-49743",
        "OptimizeCsvJsonExprs prunes from_json's schema to the field name as written (.A for a): "
        "the access reads NULL where the data holds 0, 1, 2",
        ("3.5.1",),
        """
        def query(spark):
            json = "'[{\\"a\\": '||id||', \\"b\\": '|| (2*id) ||'}]'"
            schema = "'array<struct<a: INT, b: INT>>'"
            return spark.sql(f"SELECT from_json({json}, {schema}).a AS x, "
                             f"from_json({json}, {schema}).A AS y FROM range(3)")
        """,
        [([0], [0]), ([1], [1]), ([2], [2])]),
    Bug("NOT-NULL-CACHE",
        "a null in a column declared NOT NULL (createDataFrame(..., verifySchema=False)), cached, "
        "then grouped on: the null key comes back as 0",
        ("3.5.1", "4.0.0"),
        """
        def query(spark):
            from pyspark.sql.types import IntegerType, StructField, StructType
            schema = StructType([StructField("k", IntegerType(), False),
                                 StructField("v", IntegerType(), True)])
            df = spark.createDataFrame([(1, 10), (None, 20), (1, 30)], schema,
                                       verifySchema=False).cache()
            return df.groupBy("k").count()
        """,
        [(None, 1), (1, 2)]),
    Bug("SPARK-45543",
        "InferWindowGroupLimit puts a group limit under a window that also sums over the whole "
        "partition: the sum is of the rows the limit keeps (5 instead of 6)",
        ("3.5.0",),
        """
        def query(spark):
            spark.range(3).selectExpr("2020 AS year", "CAST(id + 1 AS INT) AS score") \\
                .createOrReplaceTempView("scores")
            return spark.sql(
                "SELECT year, score, total FROM (SELECT year, score, "
                "rank() OVER (PARTITION BY year ORDER BY score DESC) AS rk, "
                "sum(score) OVER (PARTITION BY year ORDER BY score DESC ROWS BETWEEN UNBOUNDED "
                "PRECEDING AND UNBOUNDED FOLLOWING) AS total FROM scores) WHERE rk = 1")
        """,
        [(2020, 3, 6)]),
    Bug("SPARK-49000",
        "count(DISTINCT 1) over an empty table counts one row (the planned aggregate of a "
        "distinct literal yields a row for no input)",
        ("3.5.0",),
        """
        def query(spark):
            import tempfile
            path = tempfile.mkdtemp() + "/t"
            spark.range(0).selectExpr("CAST(id AS INT) AS c").write.parquet(path)
            spark.read.parquet(path).createOrReplaceTempView("t")
            return spark.sql("SELECT count(DISTINCT 1) FROM t")
        """,
        [(0,)]),
    Bug("SPARK-46037",
        "a left outer shuffled hash join building its left side, run without codegen, joins "
        "its condition's columns from the wrong sides",
        ("3.5.0",),
        """
        def query(spark):
            spark.conf.set("spark.sql.codegen.wholeStage", "false")
            spark.range(10).selectExpr("id AS k1", "id % 3 AS v1").createOrReplaceTempView("l")
            spark.range(30).selectExpr("id % 10 AS k2", "id % 5 AS v2") \\
                .createOrReplaceTempView("r")
            return spark.sql("SELECT /*+ SHUFFLE_HASH(l) */ * FROM l LEFT JOIN r "
                             "ON k1 = k2 AND v1 < v2")
        """,
        # Each k2 three times, its v2 = k2 % 5: matched where k % 3 < k % 5, else padded.
        [(k, k % 3, k, k % 5) for k in (3, 4, 6, 7, 8, 9) for _ in range(3)]
        + [(k, k % 3, None, None) for k in (0, 1, 2, 5)]),
    Bug("SPARK-52873",
        "a shuffled hash left semi join drops duplicate build keys though its condition reads "
        "the build side otherwise than its keys: no row instead of one",
        ("4.0.0",),
        """
        def query(spark):
            spark.sql("CREATE OR REPLACE TEMP VIEW data(a) AS VALUES ('xxxx1111'), ('yyyy2222')")
            spark.sql("CREATE OR REPLACE TEMP VIEW lookup(k) AS VALUES ('xxxx22'), ('xxxx33'), "
                      "('xxxx11')")
            return spark.sql("SELECT /*+ SHUFFLE_HASH(lookup) */ * FROM data LEFT SEMI JOIN "
                             "lookup ON substring(a, 1, 4) = substring(k, 1, 4) "
                             "AND substring(a, 1, 6) >= k")
        """,
        [("xxxx1111",)]),
    Bug("SPARK-45386",
        "a DataFrame persisted with StorageLevel.NONE counts 0 rows under adaptive execution "
        "(the cache's statistics, never gathered, say it is empty)",
        ("3.5.0",),
        """
        def query(spark):
            from pyspark import StorageLevel
            df = spark.createDataFrame([(1,), (2,)], "v INT").persist(StorageLevel.NONE)
            return df.groupBy().count()
        """,
        [(2,)]),
    Bug("SPARK-53155",
        "RemoveRedundantAggregates replaces a global aggregate under another aggregate with a "
        "projection: over no rows, no row instead of one",
        ("4.0.0",),
        """
        def query(spark):
            from pyspark.sql import functions as F
            return spark.range(3).where("id > 5").groupBy().agg(F.lit(1).alias("x")).distinct()
        """,
        [(1,)]),
]

# The job a bug runs in its release's virtualenv: its rows, or the error it raised, as JSON.
RUNNER = """
import json, sys
from pyspark.sql import SparkSession
jar = sys.argv[1]
builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
           .config("spark.sql.shuffle.partitions", "2"))
if jar:
    builder = (builder.config("spark.jars", jar)
               .config("spark.sql.extensions", "planguard.PlanGuardExtensions")
               .config("spark.planguard.mode", "fail"))
spark = builder.getOrCreate()
exec(sys.stdin.read())
try:
    print("RESULT " + json.dumps({"rows": [list(r) for r in query(spark).collect()]}))
except Exception as e:
    text = str(e)
    found = [w for w in text.replace("[", " [").split() if w.startswith("[PLANGUARD_")]
    print("RESULT " + json.dumps({"error": found[0].strip("[]:") if found else
                                  type(e).__name__ + ": " + text.splitlines()[0][:200]}))
"""


# The differential run: the query's rows collected in a test of the user's, under the pytest
# plugin's `spark` fixture (local[2], two shuffle partitions).
TEST = """
def test_bug(spark):
    query(spark).collect()
"""


def venv(release: str) -> pathlib.Path:
    """The virtualenv of a pyspark release, made once, with pytest for the differential run."""
    folder = VENVS / f"pyspark-{release}"
    python = folder / "bin" / "python"
    if not (folder / "ready").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"pyspark=={release}",
                        "pytest>=8"], check=True)
        (folder / "ready").write_text(release)
    return python


def run(bug: Bug, release: str, jar: str) -> dict:
    done = subprocess.run([str(venv(release)), "-c", RUNNER, jar],
                          input=textwrap.dedent(bug.job), capture_output=True, text=True,
                          timeout=600)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {"error": "no result: " + done.stderr[-500:]}


def differential(bug: Bug, release: str, wheel: str) -> dict:
    """The bug's query in a test run by `pytest --planguard-differential` (the checks off) in its
    release's virtualenv, the wheel installed there: caught, and the variants that disagreed."""
    python = str(venv(release))
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall",
                    wheel], check=True)
    with tempfile.TemporaryDirectory() as folder:
        suite = pathlib.Path(folder)
        (suite / "test_bug.py").write_text(textwrap.dedent(bug.job) + TEST)
        subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--planguard-differential", "--junitxml=out.xml", "test_bug.py"],
                       cwd=suite, capture_output=True, timeout=1200)
        failures = [e.text or "" for e in ElementTree.parse(suite / "out.xml").iter()
                    if e.tag in ("failure", "error")]
    caught = [f for f in failures if f.startswith("planguard differential:")]
    return {"caught": bool(caught),
            "variants": re.findall(r"^Variant: (.*) \(", "".join(caught), re.M),
            "error": "" if caught or not failures else failures[0].splitlines()[0][:200]}


def normal(rows) -> list:
    """Rows as a sorted list of JSON texts: a multiset, tuples and lists alike."""
    return sorted(json.dumps(list(r)) for r in rows)


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", action="append", help="a bug id (default: all)")
    parser.add_argument("--release", action="append", help="a pyspark release (default: each "
                        "bug's own)")
    parser.add_argument("--wheel", default=None, help="the planguard wheel the differential "
                        "run installs (default: the newest in .cache/wheel/)")
    args = parser.parse_args(argv)
    wheel = args.wheel or str(max((ROOT / ".cache" / "wheel").glob("planguard-*.whl"),
                                  key=lambda p: p.stat().st_mtime))
    missed = 0
    for bug in BUGS:
        if args.bug and bug.id not in args.bug:
            continue
        for release in args.release or bug.releases:
            jar = planguard.jar_path(release)
            without, with_planguard = run(bug, release, ""), run(bug, release, jar)
            reproduced = "rows" in without and normal(without["rows"]) != normal(bug.right)
            caught = with_planguard.get("error", "").startswith("PLANGUARD_")
            second = differential(bug, release, wheel)
            missed += reproduced and not caught and not second["caught"]
            print(f"{bug.id} ({bug.what}) on pyspark {release}: without planguard "
                  f"{without.get('rows', without.get('error'))} "
                  f"({'wrong' if reproduced else 'right or failed'}); with planguard "
                  f"{with_planguard.get('error', with_planguard.get('rows'))} -> "
                  f"{'caught' if caught else 'NOT CAUGHT' if reproduced else 'not reproduced'}; "
                  "differential mode -> " + (
                      f"caught, variants: {'; '.join(second['variants'])}" if second["caught"]
                      else f"NOT CAUGHT {second['error']}".strip()))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
