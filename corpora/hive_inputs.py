"""Apache Hive's query tests as a second external corpus for corpora/sql_corpus.py (`--suite
hive`): SQL written by Hive's developers, run by Spark's HiveCompatibilitySuite.

The `.q` files of `ql/src/test/queries/clientpositive/` (1,561 files, ~19,600 statements: HiveQL
queries, multi-insert `FROM ... INSERT ...`, Hive DDL with SerDes and storage formats, partitioned
and bucketed tables, LOAD DATA, TRANSFORM scripts, LATERAL VIEW, Hive UDFs, EXPLAIN, SET) and
their data files (`data/files/`) come from the Maven Central artifact
org.apache.spark:spark-hive_2.13:<version> with classifier `tests` (Apache License 2.0). They are
split as Spark's HiveComparisonTest splits them, and run in sessions with Hive support (an
embedded Derby metastore per run), each file with the Hive test tables it names (src, src1,
srcpart, src_json), created as Spark's TestHive creates them.
"""
import fnmatch
import hashlib
import pathlib
import re
import tempfile
import zipfile

QUERIES = "ql/src/test/queries/clientpositive/"
DATA = "data/"

# HiveComparisonTest leaves out statements that set these: Hive's answers with them are wrong
# on purpose (outer joins), or they name Hive's hook classes.
LEFT_OUT_SETTINGS = ("hive.outerjoin.supports.filters", "hive.exec.post.hooks")

# Paths outside a run's scratch directory that the files write to, or give a table that dropping
# it deletes. On 28 Nov, dbtxnmgr_ddl1.q gave a managed table the location `file:///tmp`, and the
# catalog reset after the file, dropping it, deleted all of the machine's /tmp, the run's own files
# included; Spark reads the variables of Hive's test harness it does not know as empty strings, so
# `${hiveconf:hive.metastore.warehouse.dir}/fact_tz` made /fact_tz. `confined` points /tmp, those
# variables and every other absolute path a LOCATION, DIRECTORY or INPATH names (but the data
# files') into the run's scratch directory.
TMP = re.compile(r"(?<=['\"])(?:p?file:)?/+tmp(/[^'\"]*)?(?=['\"])")
PATH_VARIABLES = {"system:test.tmp.dir": "", "system:test.warehouse.dir": "/warehouse",
                  "hiveconf:hive.metastore.warehouse.dir": "/warehouse",
                  "system:hive.root": "/hive-root", "system:build.dir": "/build-dir",
                  "system:maven.local.repository": "/maven-repository"}
VARIABLE = re.compile(r"\$\{(" + "|".join(map(re.escape, PATH_VARIABLES)) + r")\}")
LOCAL_PATH = re.compile(r"(?i)\b(location|directory|inpath)(\s+['\"])(?:p?file:)?(/[^'\"]*)")


def extracted(jar: pathlib.Path, cache: pathlib.Path) -> pathlib.Path:
    """A directory with the jar's query files and data files, extracted once."""
    target = cache / f"extracted-hive-{jar.stem}"
    if not (target / QUERIES).is_dir():
        partial = pathlib.Path(tempfile.mkdtemp(dir=cache))
        with zipfile.ZipFile(jar) as z:
            z.extractall(partial, [n for n in z.namelist() if n.startswith((QUERIES, DATA))])
        partial.rename(target)
    return target


def statements(path: pathlib.Path, data: pathlib.Path):
    """A file's statements, as HiveComparisonTest reads them: a comment line ending in `;` is
    dropped, the rest split at every `;` not escaped by a backslash; `../../data` names the data
    files. Comment lines are dropped from each statement, and statements left empty with them."""
    text = path.read_text(errors="replace")
    kept = "\n".join(line for line in text.split("\n")
                     if not re.fullmatch(r"--.*(?<=[^\\]);", line))
    result = []
    for piece in re.split(r"(?<=[^\\]);", kept):
        if any(setting in piece for setting in LEFT_OUT_SETTINGS):
            continue
        code = "\n".join(line for line in piece.split("\n")
                         if not line.strip().startswith("--")).strip()
        if code:
            result.append(code.replace("../../data", str(data)))
    return result


def confined(sql: str, tmp: pathlib.Path, data: pathlib.Path) -> str:
    """`sql` as it runs: the paths outside the run's scratch directory under `tmp` (see TMP).
    Records keep the statement as the file has it, which is the same in every run."""
    def inside(path: str) -> bool:  # a checkout under /tmp has its data files there too
        return path.startswith((str(tmp), str(data)))

    def in_tmp(m):
        return m.group(0) if inside("/tmp" + (m.group(1) or "")) else f"{tmp}{m.group(1) or ''}"

    def rooted(m):
        keyword, quote, path = m.groups()
        return f"{keyword}{quote}{path if inside(path) else f'{tmp}/root{path}'}"
    sql = TMP.sub(in_tmp, sql)
    sql = VARIABLE.sub(lambda m: f"{tmp}{PATH_VARIABLES[m.group(1)]}", sql)
    return LOCAL_PATH.sub(rooted, sql)


def corpus(inputs: pathlib.Path, pattern: str = "*", limit: int = None):
    """[(file, [statements], [])] in a fixed order that mixes the files (by a hash of the name),
    at most `limit` statements in all."""
    names = [p.name for p in (inputs / QUERIES).glob("*.q")
             if any(fnmatch.fnmatch(p.name, g) for g in pattern.split(","))]
    result, count = [], 0
    for name in sorted(names, key=lambda n: hashlib.sha1(n.encode()).hexdigest()):
        stmts = statements(inputs / QUERIES / name, inputs / DATA)
        if limit is not None:
            stmts = stmts[:max(0, limit - count)]
        if stmts:
            result.append((name, stmts, []))
            count += len(stmts)
    return result


def session_confs(scratch: pathlib.Path) -> dict:
    """A session with Hive support, its metastore an embedded Derby database of this run's."""
    return {"spark.sql.catalogImplementation": "hive",
            "spark.hadoop.javax.jdo.option.ConnectionURL":
                f"jdbc:derby:;databaseName={scratch / 'metastore'};create=true",
            "spark.hadoop.datanucleus.schema.autoCreateAll": "true",
            "spark.hadoop.hive.metastore.schema.verification": "false"}


def test_tables(data: pathlib.Path) -> dict:
    """The Hive test tables of Spark's TestHive (from Hive's QTestUtil) that the files use,
    {name: statements creating it}."""
    kv1, kv3, json_ = (data / "files" / f for f in ("kv1.txt", "kv3.txt", "json.txt"))
    partitions = [(ds, hr) for ds in ("2008-04-08", "2008-04-09") for hr in ("11", "12")]
    return {
        "src": ["CREATE TABLE src (key INT, value STRING) STORED AS TEXTFILE",
                f"LOAD DATA LOCAL INPATH '{kv1}' INTO TABLE src"],
        "src1": ["CREATE TABLE src1 (key INT, value STRING) STORED AS TEXTFILE",
                 f"LOAD DATA LOCAL INPATH '{kv3}' INTO TABLE src1"],
        "srcpart": ["CREATE TABLE srcpart (key INT, value STRING) "
                    "PARTITIONED BY (ds STRING, hr STRING) STORED AS TEXTFILE"] + [
            f"LOAD DATA LOCAL INPATH '{kv1}' OVERWRITE INTO TABLE srcpart "
            f"PARTITION (ds='{ds}', hr='{hr}')" for ds, hr in partitions],
        "src_json": ["CREATE TABLE src_json (json STRING) STORED AS TEXTFILE",
                     f"LOAD DATA LOCAL INPATH '{json_}' INTO TABLE src_json"],
    }


def file_session(spark, stmts, inputs: pathlib.Path):
    """A new session for one file, with the test tables its statements name (every one when a
    statement shows the tables, as Spark's suite does)."""
    session = spark.newSession()
    text = "\n".join(stmts).lower()
    for table, creating in test_tables(inputs / DATA).items():
        if re.search(rf"\b{table}\b", text) or "show tables" in text:
            for sql in creating:
                session.sql(sql).collect()
    return session
