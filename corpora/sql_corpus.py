"""An external corpus for planguard's false alarms: Apache Spark's own SQL golden-file test inputs.

The statements come from the Maven Central artifact org.apache.spark:spark-sql_2.13:4.0.1 with
classifier `tests` (Apache License 2.0), directory `sql-tests/inputs/`; `--spark-tests 4.1.3`
takes another Spark release's (each line's own test inputs, for that line's pyspark). They are split into
statements as Spark's SQLQueryTestSuite splits them, and each file runs in a fresh session,
statement after statement, every result collected. `--suite hive` runs Apache Hive's query tests
instead, from the same release's spark-hive tests jar (corpora/hive_inputs.py). Each run is
its own process (its own JVM):

- baseline: plain Spark, without planguard;
- planguard: planguard in `fail` mode, `spark.planguard.internalErrors=fail`;
- planner (with --planner): the same, with planguard's planner listed (`configure(planner=True)`);
- partial (with --adaptive-partial): the planner, its partial aggregates adaptive and made to give
  up after their first row (spark.planguard.planner.partialAggregation.probeRows=1, skipRatio=0),
  so that every one that qualifies passes its rows through, and every aggregation over a join
  aggregated eagerly below it wherever that is sound (spark.planguard.planner.eagerAggregation=
  always);
- prepared (with --prepared): planguard, each query's plan prepared before its rows are collected,
  outside any SQL execution, as `explain`, `df.cache` and `df.rdd` prepare it (planguard finds the
  query by other means there: docs/architecture.md);

each at adaptive execution on and/or off. Every statement's outcome, normalised rows (as a
digest) and the violations planguard recorded on the JVM go to JSON lines; then each planguard
run is compared with the baseline of the same AQE setting:

- false alarm: the baseline ran the statement, planguard stopped it (a PLANGUARD_ condition);
- new error: the baseline ran the statement, the planguard run failed otherwise;
- row difference: both ran it, the normalised rows differ;
- warning: planguard recorded a violation (any level) for a statement the baseline ran, and the
  statement still ran.

Usage (see docs/corpus.md):

    python -m corpora.sql_corpus [--files GLOB[,GLOB]] [--limit N] [--aqe on|off|both]
                                 [--planner] [--adaptive-partial] [--prepared] [--out DIR]
                                 [--jobs N] [--resume]
                                 [--compare-only] [--spark-tests VERSION] [--suite sql|hive]

Importable: `measure(...)` runs and compares; `compare(baseline, run)` compares two runs' records.
"""
import argparse
import collections
import concurrent.futures
import datetime
import decimal
import fnmatch
import hashlib
import json
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

from corpora import hive_inputs  # the other suite: Hive's query tests

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The partial run's confs: every adaptive partial aggregate gives up after its first row.
GIVE_UP_AT_ONCE = {"spark.planguard.planner.partialAggregation.adaptive": "true",
                   "spark.planguard.planner.partialAggregation.probeRows": "1",
                   "spark.planguard.planner.partialAggregation.skipRatio": "0"}
# ... and every aggregation over a join aggregated eagerly below it, wherever that is sound.
EAGER_WHEREVER_SOUND = {"spark.planguard.planner.eagerAggregation": "always"}
CACHE = ROOT / ".cache" / "corpus-sql"
# The Spark release whose SQL test inputs are the corpus: --spark-tests, which the workers inherit.
SPARK_TESTS = "PLANGUARD_CORPUS_SPARK"
DEFAULT_SPARK_TESTS = "4.0.1"
# The suite run: Spark's SQL tests (`sql`) or Hive's query tests (`hive`): --suite, inherited too.
SUITE = "PLANGUARD_CORPUS_SUITE"
INPUTS = "sql-tests/inputs/"
POSTGRES_DATA = "test-data/postgresql/"

# Folders left out. udf/ (and udf/postgreSQL/) repeat other files' queries through test UDFs
# that the Scala suite registers from Scala, Python and pandas; udaf/ and udtf/ need pandas and
# Python UDTF classes that only exist in Spark's test sources.
SKIPPED_FOLDERS = ("udf/", "udaf/", "udtf/")
# Spark's suite ignores this file by name, to test its own ignore list.
IGNORED_FILES = ("ignored.sql",)

# Statements whose result differs from run to run by design: compared on outcome only.
NONDETERMINISTIC = re.compile(
    r"\b(rand|randn|random|randstr|uniform|uuid|shuffle|current_timestamp|current_date|"
    r"current_time|now|localtimestamp|curdate|unix_timestamp|monotonically_increasing_id|"
    r"spark_partition_id|input_file_name|input_file_block_start|input_file_block_length|"
    r"aes_encrypt|try_aes_decrypt|tablesample|reflect|java_method|try_reflect)\b", re.IGNORECASE)
# EXPLAIN of an aggregate with DISTINCT over several argument lists: Spark numbers the groups of
# its Expand in an order set by hashes of expression IDs (RewriteDistinctAggregates), and a JVM
# numbers expression IDs from its start (a session with planguard's extensions starts 9 later).
# The plan shown differs between runs in that order alone: compared on outcome only, as above.
DISTINCT_GROUPS_EXPLAINED = re.compile(r"^\s*explain\b(?=.*\bdistinct\b.*\bdistinct\b)",
                                       re.IGNORECASE | re.DOTALL)

# Run-specific text inside result values (DESCRIBE, SHOW CREATE TABLE, EXPLAIN), replaced as
# Spark's SQLQueryTestHelper.replaceNotIncludedMsg replaces it; the warehouse path is replaced
# separately (each run has its own).
RUN_SPECIFIC = [
    (re.compile(r"#\d+L?"), "#x"),
    (re.compile(r"plan_id=\d+"), "plan_id=x"),
    (re.compile(r"Created By.*"), "Created By x"),
    (re.compile(r"Created Time.*"), "Created Time x"),
    (re.compile(r"Last Access.*"), "Last Access x"),
    (re.compile(r"transient_lastDdlTime=\d+"), "transient_lastDdlTime=x"),
    (re.compile(r"'transient_lastDdlTime' = '\d+'"), "'transient_lastDdlTime' = 'x'"),
    (re.compile(r'"(created_time|last_access|created_by)":"[^"]*"'), r'"\1":"x"'),
    (re.compile(r'"transient_lastDdlTime":"\d+"'), '"transient_lastDdlTime":"x"'),
    (re.compile(r"(?i)cterelation(def|ref) \d+"), r"CTERelation\1 x"),
    (re.compile(r"@[0-9a-f]{4,}\b"), "@x"),
    (re.compile(r"\*\(\d+\) "), "*"),
]
# DESCRIBE ... EXTENDED rows whose second value is a time of this run.
RUN_SPECIFIC_ROWS = ("Created Time", "Last Access", "Created By", "transient_lastDdlTime")
# A statement that writes a table: after one that is non-deterministic (`CREATE TABLE t AS SELECT
# ... TABLESAMPLE (1 PERCENT)`), the file's later statements read rows that differ from run to run.
WRITES = re.compile(r"\b(insert|create)\b", re.IGNORECASE)
# The one row installing planguard adds to a result, by design: SHOW FUNCTIONS lists its table
# function (docs/usage.md, "SQL"). Left out of the planguard runs' rows.
PLANGUARD_FUNCTION = ["planguard_violations"]

# The tables Spark's suite creates before any file runs (SQLQueryTestSuite.createTestTables).
TEST_TABLES = {
    "testdata": "SELECT id AS key, CAST(id AS STRING) AS value FROM range(1, 101)",
    "arraydata": "SELECT * FROM VALUES (array(1, 2, 3), array(array(1, 2, 3))), "
                 "(array(2, 3, 4), array(array(2, 3, 4))) AS t(arraycol, nestedarraycol)",
    "mapdata": "SELECT * FROM VALUES (map(1, 'a1', 2, 'b1', 3, 'c1', 4, 'd1', 5, 'e1')), "
               "(map(1, 'a2', 2, 'b2', 3, 'c2', 4, 'd2')), (map(1, 'a3', 2, 'b3', 3, 'c3')), "
               "(map(1, 'a4', 2, 'b4')), (map(1, 'a5')) AS t(mapcol)",
}
TENK_SCHEMA = ("unique1 int, unique2 int, two int, four int, ten int, twenty int, hundred int, "
               "thousand int, twothousand int, fivethous int, tenthous int, odd int, even int, "
               "stringu1 string, stringu2 string, string4 string")
CSV_TABLES = {"aggtest": ("agg.data", "a int, b float"),
              "onek": ("onek.data", TENK_SCHEMA),
              "tenk1": ("tenk.data", TENK_SCHEMA)}
# The UDFs the suite registers for postgreSQL/ files (booleq, boolne, vol), as SQL functions.
POSTGRES_FUNCTIONS = [
    "CREATE TEMPORARY FUNCTION booleq(b1 BOOLEAN, b2 BOOLEAN) RETURNS BOOLEAN RETURN b1 = b2",
    "CREATE TEMPORARY FUNCTION boolne(b1 BOOLEAN, b2 BOOLEAN) RETURNS BOOLEAN RETURN b1 != b2",
    "CREATE TEMPORARY FUNCTION vol(s STRING) RETURNS STRING RETURN s",
]
# The same, as Python UDFs, for Spark 3, which has no SQL functions.
POSTGRES_UDFS = {
    "booleq": (lambda b1, b2: None if b1 is None or b2 is None else b1 == b2, "boolean"),
    "boolne": (lambda b1, b2: None if b1 is None or b2 is None else b1 != b2, "boolean"),
    "vol": (lambda s: s, "string"),
}
STATEMENT_TIMEOUT = 60  # seconds; the statement's jobs are cancelled after it
# The version of the records' format and normalisation: a cached baseline of another is not used.
RECORD_FORMAT = 3


# --- The corpus: download, extract, split -------------------------------------------------------

def maven_jar(artifact: str, directory: pathlib.Path) -> pathlib.Path:
    """A jar from Maven Central (`group:name:version`, or `group:name:version:jar:classifier`),
    copied once into directory by Maven, with the checkout's .cache/m2 as its local repository."""
    _, name, version, *packaging = artifact.split(":")
    classifier = "-" + packaging[1] if len(packaging) > 1 else ""
    jar = directory / f"{name}-{version}{classifier}.jar"
    if not jar.exists():
        directory.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mvn", "-q", "dependency:copy", f"-Dartifact={artifact}",
                        f"-DoutputDirectory={directory}",
                        f"-Dmaven.repo.local={ROOT / '.cache' / 'm2'}"], check=True, cwd=directory)
    return jar


def corpus_version() -> str:
    return os.environ.get(SPARK_TESTS, DEFAULT_SPARK_TESTS)


def suite() -> str:
    return os.environ.get(SUITE, "sql")


def corpus_jar() -> pathlib.Path:
    """The tests jar from Maven Central, downloaded once into .cache/corpus-sql/: spark-sql's, or
    spark-hive's for the Hive suite; Spark 3's are built for Scala 2.12, Spark 4's for 2.13."""
    version = corpus_version()
    scala = "2.12" if version.startswith("3.") else "2.13"
    return maven_jar(f"org.apache.spark:spark-{suite()}_{scala}:{version}:jar:tests", CACHE)


def sha256(path: pathlib.Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def extracted() -> pathlib.Path:
    """A directory with the jar's sql-tests/inputs/ and test-data/postgresql/, extracted once
    (the Hive suite's: hive_inputs.extracted)."""
    jar = corpus_jar()
    if suite() == "hive":
        return hive_inputs.extracted(jar, CACHE)
    target = CACHE / f"extracted-{sha256(jar)[:16]}"
    if not (target / INPUTS).is_dir():
        partial = pathlib.Path(tempfile.mkdtemp(dir=CACHE))
        with zipfile.ZipFile(jar) as z:
            z.extractall(partial, [n for n in z.namelist()
                                   if n.startswith((INPUTS, POSTGRES_DATA))])
        partial.rename(target)
    return target


def split_comments_and_code(text: str):
    """SQLQueryTestHelper.splitCommentsAndCodes: lines starting with `--` (trimmed) are comments,
    except the --QUERY-DELIMITER lines; the rest is code."""
    comments, code = [], []
    for line in text.split("\n"):
        trimmed = line.strip()
        is_comment = trimmed.startswith("--") and not trimmed.startswith("--QUERY-DELIMITER")
        (comments if is_comment else code).append(line)
    return comments, code


def split_with_semicolon(lines):
    """SQLQueryTestHelper.getQueries' splitWithSemicolon: a `;` not escaped by a backslash ends a
    statement, wherever it is on its line."""
    return re.split(r"(?<=[^\\]);", "\n".join(lines))


def statements(name: str, inputs: pathlib.Path):
    """A file's statements, as SQLQueryTestHelper.getQueries reads them: the code of --IMPORTed
    files first, --QUERY-DELIMITER-START/END blocks kept whole, the rest split on `;`, and lines
    starting with `--` dropped from each statement."""
    comments, code = split_comments_and_code((inputs / name).read_text())
    imported = []
    for line in comments:
        if line.startswith("--IMPORT "):
            other = inputs / line[len("--IMPORT "):]
            if other.exists():
                imported += split_comments_and_code(other.read_text())[1]
    code = imported + code
    if any(line.strip().startswith("--QUERY-DELIMITER") for line in code):
        pieces = _delimited(code)
    else:
        pieces = split_with_semicolon(code)
    result = []
    for piece in pieces:
        lines = [line for line in piece.strip().split("\n") if not line.startswith("--")]
        text = "\n".join(lines).strip()
        if text:
            result.append(text)
    return result


def _delimited(code):
    """The pieces of code with --QUERY-DELIMITER-START/END blocks (each block one statement)."""
    pieces, other, block, inside = [], [], "", False
    for line in code:
        if line.strip().startswith("--QUERY-DELIMITER-START"):
            inside = True
            pieces += split_with_semicolon(other)
            other = []
        elif line.strip().startswith("--QUERY-DELIMITER-END"):
            inside = False
            pieces.append("\n" + block.removesuffix(";"))
            block = ""
        elif inside:
            block += "\n" + line
        else:
            other.append(line)
    if other:
        pieces += split_with_semicolon(other)
    return pieces


def settings(name: str, inputs: pathlib.Path):
    """A file's confs: every --SET, then the first config set of each --CONFIG_DIMn.

    Spark's suite runs a file once per combination of its config dimensions (codegen on/off,
    join strategies, ...); we run the first combination only: one run per file keeps the corpus
    a list of statements, and the other dimensions test Spark's execution, not its plans' shape.
    """
    comments, _ = split_comments_and_code((inputs / name).read_text())
    confs = []
    for line in comments:
        if line.startswith("--SET "):
            confs += _key_values(line[len("--SET "):])
    first_set = {}
    for line in comments:
        if line.startswith("--CONFIG_DIM"):
            dimension, _, values = line[len("--CONFIG_DIM"):].partition(" ")
            first_set.setdefault(dimension, _key_values(values))
    for values in first_set.values():
        confs += values
    return confs


def _key_values(text: str):
    pairs = []
    for kv in text.split(","):
        key, _, value = kv.partition("=")
        pairs.append((key.strip(), value.strip()))
    return pairs


def runs_on_spark(name: str, inputs: pathlib.Path) -> bool:
    """--ONLY_IF lines name the engines a file is for (Spark's cross-database suites read them):
    a file with --ONLY_IF lines runs here only if one names spark."""
    comments, _ = split_comments_and_code((inputs / name).read_text())
    engines = [line.split(None, 1)[1].strip() for line in comments
               if line.startswith("--ONLY_IF ") and len(line.split(None, 1)) == 2]
    return not engines or "spark" in engines


def file_names(inputs: pathlib.Path, pattern: str = "*"):
    """The corpus's files (paths relative to inputs/) that match one of the comma-separated
    globs and run here, in a
    fixed order that mixes the folders (by a hash of the name), so that any prefix of a run, or
    of --limit, samples them all."""
    names = []
    for path in sorted((inputs / INPUTS).rglob("*.sql")):
        name = path.relative_to(inputs / INPUTS).as_posix()
        if (name.startswith(SKIPPED_FOLDERS) or path.name in IGNORED_FILES
                or not any(fnmatch.fnmatch(name, p) for p in pattern.split(","))):
            continue
        if runs_on_spark(name, inputs / INPUTS):
            names.append(name)
    return sorted(names, key=lambda n: hashlib.sha1(n.encode()).hexdigest())


def corpus(pattern: str = "*", limit: int = None):
    """[(file, [statements], [(conf, value)])] in order, at most `limit` statements in all."""
    inputs = extracted()
    if suite() == "hive":
        return hive_inputs.corpus(inputs, pattern, limit)
    result, count = [], 0
    for name in file_names(inputs, pattern):
        stmts = statements(name, inputs / INPUTS)
        if limit is not None:
            stmts = stmts[:max(0, limit - count)]
        if stmts:
            result.append((name, stmts, settings(name, inputs / INPUTS)))
            count += len(stmts)
    return result


# --- Running one kind of run (a worker process) ---------------------------------------------------

def build_session(kind: str, aqe: bool, warehouse: pathlib.Path):
    """A local session: plain Spark for the baseline, planguard in fail mode otherwise; for the
    Hive suite, with Hive support and a metastore beside the warehouse."""
    from pyspark.sql import SparkSession

    java_options = "-Duser.timezone=America/Los_Angeles"
    hive = hive_inputs.session_confs(warehouse.parent) if suite() == "hive" else {}
    if hive:
        java_options += f" -Dderby.stream.error.file={warehouse.parent / 'derby.log'}"
    builder = (SparkSession.builder.master("local[2]").appName(f"sql-corpus-{kind}")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "3g")
               .config("spark.sql.ui.retainedExecutions", "20")
               .config("spark.sql.warehouse.dir", str(warehouse))
               .config("spark.sql.adaptive.enabled", str(aqe).lower())
               .config("spark.sql.session.timeZone", "America/Los_Angeles")
               .config("spark.driver.extraJavaOptions", java_options))
    for key, value in hive.items():
        builder = builder.config(key, value)
    if kind != "baseline":
        import planguard
        planguard.configure(builder, mode="fail", internalErrors="fail",
                            planner=kind in ("planner", "partial"))
    if kind == "partial":
        for key, value in {**GIVE_UP_AT_ONCE, **EAGER_WHEREVER_SOUND}.items():
            builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)  # each failed statement
    return spark


def write_test_tables(spark, data: pathlib.Path, tables: pathlib.Path):
    """The suite's test tables as Parquet files, written once per run."""
    for name, query in TEST_TABLES.items():
        spark.sql(query).write.mode("overwrite").parquet(str(tables / name))
    for name, (file, schema) in CSV_TABLES.items():
        (spark.read.format("csv").options(delimiter="\t", header="false").schema(schema)
         .load(str(data / file)).write.mode("overwrite").parquet(str(tables / name)))


def file_session(spark, name: str, confs, stmts, tables: pathlib.Path):
    """A new session for one file, set up as SQLQueryTestSuite.runQueries sets it up: ANSI mode by
    folder (Spark 4's suite runs every file with it but nonansi/'s; Spark 3's, ansi/'s and
    postgreSQL/'s), the postgreSQL/ UDFs, the file's confs, and the test tables its statements
    name (created as managed tables, so that the catalog reset drops them)."""
    session = spark.newSession()
    ansi = "true" if not corpus_version().startswith("3.") or name.startswith("ansi/") else "false"
    if name.startswith("postgreSQL/"):
        session.conf.set("spark.sql.ansi.enabled", "true")
        session.conf.set("spark.sql.legacy.interval.enabled", "true")
        if spark_version().startswith("3."):
            for function, (body, returns) in POSTGRES_UDFS.items():
                session.udf.register(function, body, returns)
        else:
            for function in POSTGRES_FUNCTIONS:
                session.sql(function)
    elif name.startswith("nonansi/"):
        session.conf.set("spark.sql.ansi.enabled", "false")
    elif name.startswith("timestampNTZ/"):
        session.conf.set("spark.sql.timestampType", "TIMESTAMP_NTZ")
    else:
        session.conf.set("spark.sql.ansi.enabled", ansi)
    for key, value in confs:
        session.sql(f"set {key}={value}")
    text = "\n".join(stmts).lower()
    for table in list(TEST_TABLES) + list(CSV_TABLES):
        if re.search(rf"\b{table}\b", text):
            session.sql(f"CREATE TABLE default.{table} USING parquet AS "
                        f"SELECT * FROM parquet.`{tables / table}`")
    return session


def reset_catalog(session, name: str):
    """Drops what a file created (databases, tables, views, functions), as Spark's suites do.
    Hive's metastore can fail it once (rcfile_merge1b.q: a MetaException reading its functions
    table); it is tried again, and a second failure is reported and the run goes on, as after a
    statement that failed."""
    for attempt in (1, 2):
        try:
            session._jsparkSession.sessionState().catalog().reset()
            break
        except Exception as e:  # noqa: BLE001 — the metastore's errors come through py4j
            if attempt == 2:
                print(f"{name}: resetting the catalog after it failed: "
                      f"{str(e).splitlines()[0][:300]}", file=sys.stderr)
    session.catalog.clearCache()


class ViolationReader:
    """The violations planguard records on the JVM for one session, statement by statement:
    counted on the JVM (`planguard.violation_count`, which never drops one), the records
    themselves the newest of its report."""

    def __init__(self, session, enabled: bool):
        self.session, self.enabled, self.count = session, enabled, 0

    def new(self):
        if not self.enabled:
            return []
        import planguard
        now = planguard.violation_count(self.session)
        added, self.count = now - self.count, now
        return planguard.violations(self.session)[-added:] if added else []


def run_statement(session, sql: str, warehouse: pathlib.Path, prepare: bool = False) -> dict:
    """Runs one statement, collecting every row; its outcome and normalised rows. With `prepare`,
    its physical plan is prepared first, outside any SQL execution (as `explain` prepares it)."""
    timer = threading.Timer(STATEMENT_TIMEOUT, session.sparkContext.cancelAllJobs)
    timer.start()
    started = time.perf_counter()
    try:
        frame = session.sql(sql)
        if prepare:
            frame._jdf.queryExecution().executedPlan()
        rows = frame.collect()
        result = {"outcome": "ok", **rows_digest(rows, warehouse)}
    except Exception as e:  # every failure is an outcome to record
        result = {"outcome": "error", **error_of(e)}
    finally:
        timer.cancel()
    result["ms"] = round((time.perf_counter() - started) * 1000)
    return result


def error_of(e: Exception) -> dict:
    """The error's condition (planguard's violations as PLANGUARD_<invariant>) and first line.

    The baseline never imports planguard: importing it wraps PySpark's error conversion, which
    then looks for planguard's classes in a JVM that does not have them."""
    from py4j.protocol import Py4JJavaError

    planguard = sys.modules.get("planguard")
    text = str(e)
    if planguard is not None and isinstance(e, planguard.InvariantViolation):
        condition = f"PLANGUARD_{e.invariant}"
    elif callable(getattr(e, "getCondition", None)) and e.getCondition():
        condition = e.getCondition()
    elif isinstance(e, Py4JJavaError):
        condition = e.java_exception.getClass().getName()
        text = e.java_exception.toString()
    else:
        condition = type(e).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return {"error": condition, "message": lines[0][:300] if lines else ""}


def run_worker(kind: str, aqe: bool, pattern: str, limit, output: pathlib.Path, resume: bool):
    """Runs the corpus in this process, writing one JSON line per statement to `output`; with
    `resume`, a run of the same kind stopped midway goes on after the last file it finished."""
    files = corpus(pattern, limit)
    partial = output.with_suffix(".partial")
    if not resume:
        partial.unlink(missing_ok=True)
    done = kept_finished_files(partial, {name: len(stmts) for name, stmts, _ in files})
    inputs = extracted()
    # One name length for every kind of run: EXPLAIN shortens the paths it shows.
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="sql-corpus-"))
    warehouse = scratch / "warehouse"
    # Relative paths in statements (a partition's LOCATION 'A') land in the scratch directory,
    # not in the checkout: the JVM starts here.
    os.chdir(scratch)
    spark = build_session(kind, aqe, warehouse)
    tables = scratch / "tables"
    if suite() == "sql":
        write_test_tables(spark, inputs / POSTGRES_DATA, tables)
    with partial.open("a") as out:
        for name, stmts, confs in files:
            if name in done:
                continue
            records = list(run_file(spark, kind, name, stmts, confs, tables, warehouse))
            out.write("".join(json.dumps(record) + "\n" for record in records))
            out.flush()
    spark.stop()
    partial.rename(output)
    shutil.rmtree(scratch, ignore_errors=True)


def kept_finished_files(partial: pathlib.Path, sizes: dict) -> set:
    """Trims a stopped run's partial output to the files it finished (all their statements
    written) and returns their names."""
    if not partial.exists():
        return set()
    records = load_finished_files(partial)
    counts = collections.Counter(r["file"] for r in records)
    done = {name for name, count in counts.items() if sizes.get(name) == count}
    partial.write_text("".join(json.dumps(r) + "\n" for r in records if r["file"] in done))
    return done


def run_file(spark, kind: str, name: str, stmts, confs, tables, warehouse):
    """One file in a fresh session: every statement's record, in order; then the catalog reset."""
    if suite() == "hive":
        session = hive_inputs.file_session(spark, stmts, extracted())
    else:
        session = file_session(spark, name, confs, stmts, tables)
    violations = ViolationReader(session, kind != "baseline")
    violations.new()
    written_randomly = False  # a table written by a non-deterministic statement of the file
    for index, sql in enumerate(stmts):
        random = bool(NONDETERMINISTIC.search(sql))
        record = {"file": name, "index": index, "sql": sql,
                  "nondeterministic": (random or written_randomly
                                       or bool(DISTINCT_GROUPS_EXPLAINED.search(sql)))}
        written_randomly |= random and bool(WRITES.search(sql))
        runs = (hive_inputs.confined(sql, warehouse.parent / "tmp", extracted() / hive_inputs.DATA)
                if suite() == "hive" else sql)
        record.update(run_statement(session, runs, warehouse, prepare=kind == "prepared"))
        record["violations"] = [
            {k: v.get(k) for k in ("id", "level", "phase", "rule", "differences")}
            for v in violations.new()]
        yield record
    reset_catalog(session, name)


# --- Normalising results ------------------------------------------------------------------------

def rows_digest(rows, warehouse: pathlib.Path) -> dict:
    """The rows as a sorted multiset of normalised rows: their count, a digest, the first few."""
    texts = sorted(json.dumps(normalised_row(row, warehouse), sort_keys=True) for row in rows
                   if list(row) != PLANGUARD_FUNCTION)
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:20]
    return {"rows": len(texts), "digest": digest, "sample": texts[:3]}


def normalised_row(row, warehouse: pathlib.Path):
    values = [normalised(value, warehouse) for value in row]
    if len(values) >= 2 and row[0] in RUN_SPECIFIC_ROWS:
        values[1] = "x"
    return values


def normalised(value, warehouse: pathlib.Path):
    """A value comparable across runs: floats to 9 significant digits, decimals, dates, bytes
    and the like as text, nested values recursively, run-specific text replaced."""
    if isinstance(value, float):
        return "NaN" if value != value else float(f"{value:.9g}")
    if isinstance(value, str):
        return normalised_text(value, warehouse)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return sorted(([normalised(k, warehouse), normalised(v, warehouse)]
                       for k, v in value.items()), key=json.dumps)
    if isinstance(value, (list, tuple)):  # arrays, and structs (Row is a tuple)
        return [normalised(v, warehouse) for v in value]
    if isinstance(value, (decimal.Decimal, datetime.date, datetime.time, datetime.timedelta)):
        return str(value)
    if value is None or isinstance(value, (bool, int)):
        return value
    return str(value)  # VariantVal, intervals and anything else: their text


def normalised_text(text: str, warehouse: pathlib.Path) -> str:
    text = text.replace(f"file:{warehouse}", "{warehouse}").replace(str(warehouse), "{warehouse}")
    text = text.replace(str(warehouse.parent), "{scratch}")  # the Hive suite's confined paths
    for pattern, replacement in RUN_SPECIFIC:
        text = pattern.sub(replacement, text)
    return text


# --- Comparing a planguard run with its baseline ------------------------------------------------

def is_planguard_error(record: dict) -> bool:
    return record["outcome"] == "error" and record["error"].startswith("PLANGUARD_")


def compare(baseline, guarded) -> dict:
    """The planguard run's statements by category, against the baseline's, statement by statement
    (both runs split the same files into the same statements)."""
    assert [(r["file"], r["sql"]) for r in baseline] == [(r["file"], r["sql"]) for r in guarded], \
        "the runs did not run the same statements"
    found = {"statements": len(baseline), "baseline_ok": 0, "false_alarms": [],
             "new_errors": [], "row_diffs": [], "warnings": [], "violations": 0}
    for base, run in zip(baseline, guarded):
        found["violations"] += len(run["violations"])
        if base["outcome"] != "ok":
            continue
        found["baseline_ok"] += 1
        if is_planguard_error(run):
            found["false_alarms"].append(run)
        elif run["outcome"] != "ok":
            found["new_errors"].append({**run, "baseline": base})
        else:
            if run["violations"]:
                found["warnings"].append(run)
            if not run["nondeterministic"] and run["digest"] != base["digest"]:
                found["row_diffs"].append({**run, "baseline": base})
    return found


def signature(record: dict) -> tuple:
    """A false alarm's or warning's group: invariant, phase, rule, the statement's first keyword
    and the kinds of its differences."""
    violation = main_violation(record)
    kinds = sorted({difference_kind(d) for d in violation.get("differences") or []})
    invariant = violation.get("id") or record.get("error", "?").removeprefix("PLANGUARD_")
    return (invariant, violation.get("phase") or "?", violation.get("rule") or "?",
            record["sql"].split(None, 1)[0].upper(), " ".join(kinds))


def difference_kind(difference: str) -> str:
    """What a difference says, without the columns it names: `missing`, `unexpected`,
    `metadata`, `names different columns`, ..."""
    if " names different columns" in difference:
        return "names different columns"
    difference = re.sub(r"^#\d+\s+", "", difference)
    if difference.startswith(("missing ", "unexpected ")):
        return difference.split(" ", 1)[0]
    change = re.search(r": (\w+)", difference)  # `#2 (a + b): metadata {} -> {...}`
    return change.group(1) if change else difference.split(" ", 1)[0]


def main_violation(record: dict) -> dict:
    """The violation that stopped the statement, else the first one recorded for it."""
    return next((v for v in record["violations"] if v["level"] == "fail"),
                record["violations"][0] if record["violations"] else {})


def first_difference(record: dict) -> str:
    return (main_violation(record).get("differences") or [""])[0]


def grouped(records) -> list:
    """[(signature, count, example record)], largest group first."""
    groups = collections.OrderedDict()
    for record in records:
        groups.setdefault(signature(record), []).append(record)
    return sorted(((key, len(rs), rs[0]) for key, rs in groups.items()), key=lambda g: -g[1])


def report(results: dict) -> str:
    """The summary table of every compared run, then the false alarms, new errors, row
    differences and warnings of each, grouped."""
    lines = ["| run | statements | ok in baseline | false alarms | new errors | row diffs "
             "| warnings | violations recorded |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for run, found in results.items():
        lines.append(f"| {run} | {found['statements']} | {found['baseline_ok']} | "
                     f"{len(found['false_alarms'])} | {len(found['new_errors'])} | "
                     f"{len(found['row_diffs'])} | {len(found['warnings'])} | "
                     f"{found['violations']} |")
    for run, found in results.items():
        for title, records in [("False alarms", found["false_alarms"]),
                               ("Warnings", found["warnings"])]:
            if records:
                lines += ["", f"{title}, {run}:"]
                for (invariant, phase, rule, keyword, kinds), count, example in grouped(records):
                    lines += [f"- {count} x {invariant} / {phase} / rule {rule} / {keyword} / "
                              f"differences: {kinds or '-'}",
                              f"    e.g. {example['file']}#{example['index']}: "
                              f"{_one_line(example['sql'])}",
                              f"    {example.get('message', '')}",
                              f"    first difference: {first_difference(example)}"]
        for title, records in [("New errors", found["new_errors"]),
                               ("Row differences", found["row_diffs"])]:
            if records:
                lines += ["", f"{title}, {run}:"]
                for record in records:
                    lines += [f"- {record['file']}#{record['index']}: {_one_line(record['sql'])}",
                              f"    {record.get('error', '')} {record.get('message', '')}"]
    return "\n".join(lines)


def _one_line(sql: str, width: int = 200) -> str:
    text = " ".join(sql.split())
    return text if len(text) <= width else text[:width - 3] + "..."


# --- Orchestration --------------------------------------------------------------------------------

def spark_version() -> str:
    import pyspark
    return pyspark.__version__


def baseline_path(aqe: bool, pattern: str, limit) -> pathlib.Path:
    """Where a baseline run is cached: keyed by the corpus jar, Spark's version, the selection
    and RECORD_FORMAT; for the Hive suite also by where its inputs are, which its statements name
    (another checkout's baseline would not run the same statements)."""
    key = [sha256(corpus_jar()), spark_version(), aqe, pattern, limit, RECORD_FORMAT]
    if suite() == "hive":
        key.append(str(extracted()))
    key = json.dumps(key)
    return CACHE / "baselines" / f"baseline-{hashlib.sha256(key.encode()).hexdigest()[:20]}.jsonl"


def worker(kind: str, aqe: bool, pattern: str, limit, output: pathlib.Path,
           resume: bool) -> float:
    """Runs one kind of run in its own process (its own JVM); returns its wall time in seconds."""
    output.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "corpora.sql_corpus", "--worker", kind,
               "--aqe", "on" if aqe else "off", "--files", pattern, "--output", str(output.resolve())]
    if limit is not None:
        command += ["--limit", str(limit)]
    if resume:
        command.append("--resume")
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT)
    return time.perf_counter() - started


def planned_runs(pattern: str, limit, aqe_settings, planner: bool, out: pathlib.Path,
                 prepared=(), partial: bool = False) -> dict:
    """{(kind, setting): (aqe, output path)}: a baseline (cached) and planguard's runs per AQE
    setting; the prepared run at the AQE settings `prepared` names."""
    kinds = ["planguard"] + (["planner"] if planner else []) + (["partial"] if partial else [])
    runs = {}
    for aqe in aqe_settings:
        setting = "aqe-on" if aqe else "aqe-off"
        runs[("baseline", setting)] = (aqe, baseline_path(aqe, pattern, limit))
        for kind in kinds + (["prepared"] if aqe in prepared else []):
            runs[(kind, setting)] = (aqe, out / f"{kind}-{setting}.jsonl")
    return runs


def execute(runs: dict, pattern: str, limit, jobs: int, resume: bool) -> dict:
    """Runs every planned run but the cached baselines, `jobs` at once; {run: seconds}."""
    seconds = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {key: pool.submit(worker, key[0], aqe, pattern, limit, path, resume)
                   for key, (aqe, path) in runs.items()
                   if key[0] != "baseline" or not path.exists()}
        for key, future in futures.items():
            seconds[key] = future.result()
    return seconds


def load_finished_files(path: pathlib.Path):
    """A run's records; of a run still going (or stopped), those of the files it finished."""
    if path.suffix != ".partial" and not path.exists():
        path = path.with_suffix(".partial")
    records = []
    with path.open() as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:  # the line being written when the run stopped
                break
    return records


def compared_runs(runs: dict) -> dict:
    """{run name: comparison} of each planguard run with its setting's baseline, over the files
    both have finished."""
    results = {}
    for (kind, setting), (_, path) in runs.items():
        if kind == "baseline":
            continue
        baseline = load_finished_files(runs[("baseline", setting)][1])
        guarded = load_finished_files(path)
        files = {r["file"] for r in baseline} & {r["file"] for r in guarded}
        results[f"{kind}, {setting}"] = compare([r for r in baseline if r["file"] in files],
                                                [r for r in guarded if r["file"] in files])
        results[f"{kind}, {setting}"]["files"] = len(files)
    return results


def measure(pattern: str = "*", limit=None, aqe_settings=(True, False), planner: bool = False,
            out: pathlib.Path = CACHE / "runs", jobs: int = 2, resume: bool = False,
            prepared=(), partial: bool = False) -> dict:
    """Runs the baseline (cached) and planguard runs (`prepared`: the AQE settings of the
    prepared run) and compares them: {run name: comparison}, each with the wall time of the run
    and of its baseline ('seconds', None when cached)."""
    corpus_jar()
    extracted()
    runs = planned_runs(pattern, limit, aqe_settings, planner, out, prepared, partial)
    seconds = execute(runs, pattern, limit, jobs, resume)
    results = compared_runs(runs)
    for (kind, setting) in runs:
        if kind != "baseline":
            results[f"{kind}, {setting}"]["seconds"] = {
                "run": seconds.get((kind, setting)), "baseline": seconds.get(("baseline", setting))}
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default="*",
                        help="globs, comma-separated, of files under sql-tests/inputs/ (of .q "
                             "files, for the Hive suite)")
    parser.add_argument("--limit", type=int, help="at most this many statements")
    parser.add_argument("--aqe", choices=["on", "off", "both"], default="both")
    parser.add_argument("--planner", action="store_true",
                        help="also run planguard with its planner (configure(planner=True))")
    parser.add_argument("--adaptive-partial", action="store_true",
                        help="also run planguard's planner with every adaptive partial aggregate "
                             "giving up after its first row and eager aggregation wherever sound")
    parser.add_argument("--prepared", action="store_true",
                        help="also run planguard preparing each statement's plan before "
                             "collecting it, outside any SQL execution (as explain does)")
    parser.add_argument("--out", type=pathlib.Path, default=CACHE / "runs",
                        help="directory for the planguard runs' JSON lines and the summary")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (one JVM each)")
    parser.add_argument("--resume", action="store_true",
                        help="runs stopped midway go on after the last file they finished")
    parser.add_argument("--compare-only", action="store_true",
                        help="run nothing: compare the runs in --out (and the cached baselines) "
                             "over the files they have finished, runs still going included")
    parser.add_argument("--spark-tests", metavar="VERSION",
                        help="the Spark release whose SQL test inputs to run (default "
                             f"{DEFAULT_SPARK_TESTS}; the workers inherit it)")
    parser.add_argument("--suite", choices=["sql", "hive"],
                        help="Spark's SQL tests (sql-tests/inputs/) or Hive's query tests "
                             "(ql/src/test/queries/clientpositive/ of spark-hive's tests jar); "
                             "default sql, the workers inherit it")
    parser.add_argument("--worker", choices=["baseline", "planguard", "planner", "partial", "prepared"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--output", type=pathlib.Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.spark_tests:
        os.environ[SPARK_TESTS] = args.spark_tests
    if args.suite:
        os.environ[SUITE] = args.suite
    if args.worker:
        run_worker(args.worker, args.aqe == "on", args.files, args.limit, args.output,
                   args.resume)
        return
    settings_ = {"on": (True,), "off": (False,), "both": (True, False)}[args.aqe]
    prepared = settings_ if args.prepared else ()
    if args.compare_only:
        results = compared_runs(planned_runs(args.files, args.limit, settings_, args.planner,
                                             args.out, prepared, args.adaptive_partial))
    else:
        results = measure(args.files, args.limit, settings_, args.planner, args.out, args.jobs,
                          args.resume, prepared, args.adaptive_partial)
    text = report(results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.md").write_text(text + "\n")
    (args.out / "summary.json").write_text(json.dumps(results, indent=1))
    print(text)
    for run, found in results.items():
        if "seconds" in found:
            print(f"{run}: {found['seconds']['run']} s (baseline {found['seconds']['baseline']} s)")


if __name__ == "__main__":
    main()
