"""Real Apache Spark correctness bugs, each run on a pyspark release that shipped it: without
planguard (the wrong rows the bug gives) and with planguard in `fail` mode (what planguard says).

Each bug is a job run in a fresh virtualenv of its release (under .cache/spark-bugs/, pyspark
from PyPI), with the jar of that release's line from the installed planguard wheel. A bug is
*reproduced* when the job without planguard returns rows other than the right ones, and *caught*
when the job with planguard fails with a planguard error before returning them. The script
prints one line per bug and release, and exits 1 when a reproduced bug is not caught.

Usage: python -m corpora.spark_bugs [--bug SPARK-49743] [--release 3.5.1]
Figures: docs/corpus.md, "Real Spark correctness bugs".
"""
import argparse
import json
import pathlib
import subprocess
import sys
import textwrap
from typing import NamedTuple

import planguard

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENVS = ROOT / ".cache" / "spark-bugs"


class Bug(NamedTuple):
    id: str
    what: str
    releases: tuple  # pyspark releases that shipped it, to run it on
    job: str  # Python defining run(spark) -> list of row tuples
    right: list  # the rows a correct Spark returns


BUGS = [
    Bug("SPARK-49743",
        "OptimizeCsvJsonExprs prunes from_json's schema to the field name as written (.A for a): "
        "the access reads NULL where the data holds 0, 1, 2",
        ("3.5.1",),
        """
        def run(spark):
            json = "'[{\\"a\\": '||id||', \\"b\\": '|| (2*id) ||'}]'"
            schema = "'array<struct<a: INT, b: INT>>'"
            return spark.sql(f"SELECT from_json({json}, {schema}).a AS x, "
                             f"from_json({json}, {schema}).A AS y FROM range(3)").collect()
        """,
        [([0], [0]), ([1], [1]), ([2], [2])]),
    Bug("NOT-NULL-CACHE",
        "a null in a column declared NOT NULL (createDataFrame(..., verifySchema=False)), cached, "
        "then grouped on: the null key comes back as 0",
        ("3.5.1", "4.0.0"),
        """
        def run(spark):
            from pyspark.sql.types import IntegerType, StructField, StructType
            schema = StructType([StructField("k", IntegerType(), False),
                                 StructField("v", IntegerType(), True)])
            df = spark.createDataFrame([(1, 10), (None, 20), (1, 30)], schema,
                                       verifySchema=False).cache()
            return df.groupBy("k").count().collect()
        """,
        [(None, 1), (1, 2)]),
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
    print("RESULT " + json.dumps({"rows": [list(r) for r in run(spark)]}))
except Exception as e:
    text = str(e)
    found = [w for w in text.replace("[", " [").split() if w.startswith("[PLANGUARD_")]
    print("RESULT " + json.dumps({"error": found[0].strip("[]:") if found else
                                  type(e).__name__ + ": " + text.splitlines()[0][:200]}))
"""


def venv(release: str) -> pathlib.Path:
    """The virtualenv of a pyspark release, made once."""
    folder = VENVS / f"pyspark-{release}"
    python = folder / "bin" / "python"
    if not (folder / "ready").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"pyspark=={release}"],
                       check=True)
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


def normal(rows) -> list:
    """Rows as a sorted list of JSON texts: a multiset, tuples and lists alike."""
    return sorted(json.dumps(list(r)) for r in rows)


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", action="append", help="a bug id (default: all)")
    parser.add_argument("--release", action="append", help="a pyspark release (default: each "
                        "bug's own)")
    args = parser.parse_args(argv)
    missed = 0
    for bug in BUGS:
        if args.bug and bug.id not in args.bug:
            continue
        for release in args.release or bug.releases:
            jar = planguard.jar_path(release)
            without, with_planguard = run(bug, release, ""), run(bug, release, jar)
            reproduced = "rows" in without and normal(without["rows"]) != normal(bug.right)
            caught = with_planguard.get("error", "").startswith("PLANGUARD_")
            missed += reproduced and not caught
            print(f"{bug.id} ({bug.what}) on pyspark {release}: without planguard "
                  f"{without.get('rows', without.get('error'))} "
                  f"({'wrong' if reproduced else 'right or failed'}); with planguard "
                  f"{with_planguard.get('error', with_planguard.get('rows'))} -> "
                  f"{'caught' if caught else 'NOT CAUGHT' if reproduced else 'not reproduced'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
