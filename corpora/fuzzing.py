"""A differential fuzzer for planguard: random SQL and DataFrame programs run with planguard (fail
mode) and without it, in two worker processes, and their outcomes compared.

A program is a list of statements over a small fixed schema (TABLES). A statement is either SQL
(``{"sql": ...}``) or a DataFrame expression in Python source (``{"df": ...}``, evaluated with
``spark`` and ``F`` in scope). Every statement's result is collected. Its outcome is its rows (a
sorted multiset, floats rounded: ``corpus.rows``) or its error class; two runs agree when every
statement's outcome does (``agree``: a statement Spark fails and planguard stops first agrees).

Spark reads ``spark.sql.extensions`` once per JVM, so each side is a worker process
(``python -m corpora.fuzzing worker plain|planguard``, from the repository's root) reading
programs as JSON lines on stdin and answering one JSON line each. ``corpora/fuzz.py`` (long mode) and ``tests/test_fuzz.py`` (CI
mode) drive them through ``Differ``.
"""
import atexit
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from hypothesis import strategies as st

from corpora import corpus  # corpus.rows: the comparable form of a query's rows
from corpora.sql_corpus import EAGER_WHEREVER_SOUND, GIVE_UP_AT_ONCE

ROOT = pathlib.Path(__file__).resolve().parent.parent

# name -> (columns, DDL clause, rows). A column is (name, kind); kinds drive the generator.
TABLES = {
    "t1": ([("c1", "int"), ("Col2", "bigint"), ("c3", "double"), ("D4", "decimal"),
            ("s5", "string"), ("dt", "date"), ("ch", "char"), ("vc", "varchar"),
            ("arr", "array"), ("st", "struct")],
           "USING parquet",
           ["(1, 10, 1.5, 2.25, 'a', DATE'2024-01-01', 'ab', 'xy', array(1, 2), "
            "named_struct('a', 1, 'B', 'p'))",
            "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
            "(3, 30, -0.5, 10.00, 'it''s', DATE'2024-02-29', 'c', 'hello', array(), "
            "named_struct('a', NULL, 'B', 'q'))",
            "(3, 30, 2.0, 1.10, 'b', DATE'2023-12-31', 'abc', 'b', array(NULL), NULL)"]),
    "t2": ([("c1", "int"), ("C2", "string"), ("c3", "bigint")],
           "USING parquet",
           ["(1, 'a', 100)", "(3, 'b', NULL)", "(NULL, 'c', 7)", "(4, 'it''s', 10)",
            "(1, 'a', 100)"]),
    "t3": ([("k", "int"), ("Val", "string"), ("amt", "decimal")],
           "USING delta",
           ["(1, 'x', 1.50)", "(2, NULL, NULL)", "(NULL, 'z', 3.25)"]),
}
NOT_NULL = {("t1", "c1"), ("t2", "C2")}
# The tables aggregate-over-join programs read (``aggregate_over_join``), rows generated:
# name -> (columns, the query their rows come from). `fact`'s join key has nulls, duplicates and
# one key on a third of the rows (skew); its doubles are tenths, which binary floating point
# does not hold exactly, so that sums in another order differ in the last bits; `dim` has
# duplicate and null keys and keys `fact` lacks; `empty` has no row.
JOIN_TABLES = {
    "fact": ([("k", "int"), ("g", "string"), ("x", "double"), ("amt", "decimal"),
              ("q", "bigint")],
             "SELECT CASE WHEN id % 11 = 0 THEN NULL WHEN id % 3 = 0 THEN 1 "
             "ELSE CAST(id % 17 AS INT) END, "
             "CASE WHEN id % 13 = 0 THEN NULL ELSE concat('g', id % 4) END, "
             "CASE WHEN id % 7 = 0 THEN NULL ELSE CAST(id % 10 AS DOUBLE) / 10 END, "
             "CAST(id % 23 AS DECIMAL(10,2)) / 4, id FROM range(240)"),
    "dim": ([("k", "int"), ("name", "string"), ("w", "double")],
            "SELECT CASE WHEN id = 5 THEN NULL ELSE CAST(id % 12 + 10 * (id % 2) AS INT) END, "
            "concat('n', id % 3), CAST(id AS DOUBLE) / 10 FROM range(16)"),
    "empty": ([("k", "int"), ("v", "bigint")], "SELECT 1, CAST(1 AS BIGINT) WHERE false"),
}
TYPES = {"int": "INT", "bigint": "BIGINT", "double": "DOUBLE", "decimal": "DECIMAL(10,2)",
         "string": "STRING", "date": "DATE", "char": "CHAR(3)", "varchar": "VARCHAR(5)",
         "array": "ARRAY<INT>", "struct": "STRUCT<a: INT, B: STRING>"}
# The temp view v1 over VALUES: columns as in t2, by other names and case.
VIEW = ("v1", [("ID", "int"), ("name", "string"), ("Score", "double")],
        "SELECT * FROM VALUES (1, 'a', 0.5), (2, NULL, NULL), (3, 'b', 2.5) AS v(ID, name, Score)")
RELATIONS = {**{name: cols for name, (cols, _, _) in TABLES.items()}, VIEW[0]: VIEW[1]}
NUMERIC = ("int", "bigint", "double", "decimal")
TEXT = ("string", "char", "varchar")
SCRATCH = ("scratch", "scratch_view")


# ---------------------------------------------------------------- the workers


def has_delta() -> bool:
    """Whether Delta Lake's Python package is installed. Delta has no release for every Spark
    line (none for 4.3): without it t3 is a Parquet table, and the Differ says so."""
    return importlib.util.find_spec("delta") is not None


def setup_statements() -> list:
    """The SQL that creates the fixed schema, the same in both workers."""
    out = []
    for name, (cols, using, rows) in TABLES.items():
        using = using if has_delta() else using.replace("delta", "parquet")
        body = ", ".join(f"{c} {TYPES[k]}{' NOT NULL' if (name, c) in NOT_NULL else ''}"
                         for c, k in cols)
        out += [f"DROP TABLE IF EXISTS {name}", f"CREATE TABLE {name} ({body}) {using}",
                f"INSERT INTO {name} VALUES {', '.join(rows)}"]
    out.append(f"CREATE OR REPLACE TEMP VIEW {VIEW[0]} AS {VIEW[2]}")
    for name, (cols, rows) in JOIN_TABLES.items():
        body = ", ".join(f"{c} {TYPES[k]}" for c, k in cols)
        out += [f"DROP TABLE IF EXISTS {name}", f"CREATE TABLE {name} ({body}) USING parquet",
                f"INSERT INTO {name} {rows}"]
    return out


# A worker's directories are named after its process, which deletes them at exit; a worker ended
# from outside (its parent killed) never does, and the next worker deletes them (sweep_stale).
TEMPORARY = pathlib.Path(tempfile.gettempdir())
STALE = re.compile(r"planguard-fuzz-(?:write-)?(\d+)(?:-.*)?")


def sweep_stale(directory: pathlib.Path = TEMPORARY) -> list:
    """Deletes the directories of fuzzer workers whose process is no longer running; returns them."""
    swept = []
    for path in directory.glob("planguard-fuzz-*"):
        found = STALE.fullmatch(path.name)
        if found and path.is_dir() and not running(int(found.group(1))):
            shutil.rmtree(path, True)
            swept.append(path)
    return swept


def running(pid: int) -> bool:
    """Whether a process with this id runs (as this user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def session(with_planguard: bool):
    """A local session with Delta (when installed), and planguard in fail mode when asked."""
    from pyspark.sql import SparkSession

    sweep_stale()
    warehouse = str(TEMPORARY / f"planguard-fuzz-{os.getpid()}")  # the programs' tables
    atexit.register(shutil.rmtree, warehouse, True)
    builder = (SparkSession.builder.master("local[2]").appName("planguard-fuzz")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.warehouse.dir", warehouse)
               .config("spark.sql.ui.retainedExecutions", "20"))
    if has_delta():
        from delta import configure_spark_with_delta_pip
        builder = configure_spark_with_delta_pip(
            builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config("spark.sql.catalog.spark_catalog",
                    "org.apache.spark.sql.delta.catalog.DeltaCatalog"))
    if with_planguard:
        import planguard
        # The planner listed but off: each run turns it on or off (Fuzzer.planner).
        planguard.configure(builder, mode="fail", internalErrors="fail", planner=True,
                            **{"planner.enabled": "false"})
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


def error_class(error: Exception) -> str:
    """What an outcome compares of an error: its condition (error class), else its type."""
    condition = getattr(error, "getCondition", lambda: None)()
    return condition or type(error).__name__


def first_line(error: Exception) -> str:
    """The error's first line, for reports."""
    return (str(error).strip().splitlines() or [""])[0][:300]


def run_statement(spark, statement: dict) -> dict:
    """One statement's outcome: its rows, or its error class and first line."""
    from pyspark.sql import functions as F

    try:
        if "sql" in statement:
            df = spark.sql(statement["sql"])
        else:  # our own programs
            df = eval(statement["df"], {"spark": spark, "F": F,  # noqa: S307
                                        "renamed": renamed, "written": written})
        return {"rows": corpus.rows(df)}
    except Exception as e:  # the outcome compared
        return {"error": error_class(e), "message": first_line(e)}


# How a program renames every column a DataFrame has whose name is not a plain identifier (the
# names Spark generated: the programs that use it name no literal): ``renamed(df, how)``.
RENAMES = ("toDF", "withColumnRenamed", "selectExpr", "alias", "sql")


def renamed(df, how: str):
    """``df`` with its generated names replaced by the user's (n0, n1, ...), by ``how``."""
    from pyspark.sql import functions as F

    names = [c if re.fullmatch(r"[A-Za-z_]\w*", c) else f"n{i}"
             for i, c in enumerate(df.columns)]
    quoted = [f"`{c.replace('`', '``')}`" for c in df.columns]
    if how == "toDF":
        return df.toDF(*names)
    if how == "withColumnRenamed":
        for old, new in zip(df.columns, names):
            df = df.withColumnRenamed(old, new) if old != new else df
        return df
    if how == "selectExpr":
        return df.selectExpr(*[f"{q} AS {n}" for q, n in zip(quoted, names)])
    if how == "alias":
        return df.select(*[F.col(q).alias(n) for q, n in zip(quoted, names)])
    df.createOrReplaceTempView("fuzz_renamed")
    return df.sparkSession.sql(
        f"SELECT {', '.join(f'{q} AS {n}' for q, n in zip(quoted, names))} FROM fuzz_renamed")


# How a program writes a DataFrame and reads it back: ``written(df, how)``.
WRITES = ("parquet", "saveAsTable", "CTAS")
# Where the parquet writes go, deleted when the process exits (a program reads its write back
# lazily, so each keeps its own directory until then).
PARQUET_WRITES = tempfile.mkdtemp(prefix=f"planguard-fuzz-write-{os.getpid()}-")
atexit.register(shutil.rmtree, PARQUET_WRITES, True)


def written(df, how: str):
    """``df`` written by ``how`` with NAMING at ``fail`` (a write the user named fully must never
    be stopped: it is set in both workers, and means nothing without planguard), read back."""
    spark = df.sparkSession
    spark.conf.set("spark.planguard.check.NAMING", "fail")
    try:
        if how == "parquet":
            path = tempfile.mkdtemp(dir=PARQUET_WRITES) + "/out"
            df.write.parquet(path)
            return spark.read.parquet(path)
        if how == "saveAsTable":
            df.write.saveAsTable(SCRATCH[0])
        else:
            df.createOrReplaceTempView(SCRATCH[1])
            spark.sql(f"CREATE TABLE {SCRATCH[0]} USING parquet AS SELECT * FROM {SCRATCH[1]}")
        return spark.table(SCRATCH[0])
    finally:
        spark.conf.unset("spark.planguard.check.NAMING")


def run_program(spark, request: dict) -> list:
    """Every statement's outcome, under the request's confs, scratch objects dropped first."""
    spark.sql(f"DROP TABLE IF EXISTS {SCRATCH[0]}")
    spark.sql(f"DROP VIEW IF EXISTS {SCRATCH[1]}")
    for key, value in request["confs"].items():
        spark.conf.set(key, value)
    return [run_statement(spark, s) for s in request["program"]]


def serve(with_planguard: bool) -> None:
    """The worker loop: a JSON request per stdin line, a JSON answer per stdout line."""
    # Nothing but answers on the protocol's stream, a copy of stdout: stdout itself goes to stderr,
    # for Python and for the JVM the session starts (Spark 3.5's Ivy prints its settings there).
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    spark = session(with_planguard)
    for statement in setup_statements():
        spark.sql(statement)
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        out.write(json.dumps(run_program(spark, json.loads(line))) + "\n")
        out.flush()


class Worker:
    """A worker process and its pipes; ``ready`` waits for its session and tables. Its stderr
    (Spark's log) goes to a temporary file, whose end a worker that died is reported with."""

    def __init__(self, with_planguard: bool):
        self.kind = "planguard" if with_planguard else "plain"
        self.log = tempfile.NamedTemporaryFile(prefix=f"planguard-fuzz-{self.kind}-",
                                               suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "corpora.fuzzing", "worker", self.kind], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT)

    def answer(self):
        """The worker's next answer; a worker that ended answers nothing, and that is an error."""
        line = self.process.stdout.readline()
        if not line:
            tail = pathlib.Path(self.log.name).read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the {self.kind} worker ended (exit {self.process.wait()}); "
                               f"the end of its log, {self.log.name}:\n{tail}")
        return json.loads(line)

    def ready(self) -> None:
        """Waits until the worker has set its tables up."""
        assert self.answer() == {"ready": True}, self.kind

    def run(self, program: list, confs: dict) -> list:
        """The program's outcomes in this worker."""
        self.process.stdin.write(json.dumps({"program": program, "confs": confs}) + "\n")
        self.process.stdin.flush()
        return self.answer()

    def close(self) -> None:
        """Ends the worker: it exits when its stdin closes. Its log goes with it."""
        self.process.stdin.close()
        self.process.wait(timeout=120)
        self.log.close()
        os.unlink(self.log.name)


# ---------------------------------------------------------------- comparing


def agree(plain: dict, guarded: dict) -> bool:
    """Whether a statement's two outcomes agree: the same rows, or the same error class (messages
    carry expression ids); or Spark failed the statement and planguard stopped it first, naming
    the contract its plan broke (Spark 3.5 plans `c1 IN (SELECT ...)` in a grouped select list
    into an aggregate that reads a column it does not have, and fails running it)."""
    if "error" in plain and guarded.get("error", "").startswith("PLANGUARD_"):
        return True
    return plain.get("rows", plain.get("error")) == guarded.get("rows", guarded.get("error"))


def render(program: list) -> str:
    """A program as text: SQL statements end with ';', DataFrame programs are prefixed 'df:'."""
    return "\n".join(s["sql"] + ";" if "sql" in s else "df: " + s["df"] for s in program)


def describe(program: list, confs: dict, plain: list, guarded: list) -> str:
    """A difference, for a failure message: the program, the confs, and each side's outcome."""
    lines = ["planguard changed the outcome of:", render(program), f"confs: {confs}"]
    for statement, a, b in zip(program, plain, guarded):
        if not agree(a, b):
            lines.append(f"  statement: {statement.get('sql', statement.get('df'))}")
            lines.append(f"    without planguard: {summary(a)}")
            lines.append(f"    with planguard:    {summary(b)}")
    return "\n".join(lines)


def summary(outcome: dict) -> str:
    """One outcome in a line."""
    if "rows" in outcome:
        return f"{len(outcome['rows'])} rows {outcome['rows'][:3]}"
    return f"{outcome['error']}: {outcome['message']}"


def signature(plain: list, guarded: list) -> str:
    """What tells one difference from another: the differing statements' distinct errors,
    numbers blanked (expression ids, positions), or "rows" when only rows differ."""
    parts = set()
    for a, b in zip(plain, guarded):
        if not agree(a, b):
            text = b["message"] if "error" in b else (a["message"] if "error" in a else "rows")
            parts.add(re.sub(r"\d+", "N", text))
    return " | ".join(sorted(parts))


class Differ:
    """The two workers; ``difference`` runs a program in both under each conf variant."""

    VARIANTS = [{"spark.sql.adaptive.enabled": aqe} for aqe in ("true", "false")]

    def __init__(self, planner: bool = False):
        self.plain, self.guarded = Worker(False), Worker(True)  # both start at once
        self.plain.ready()
        self.guarded.ready()
        self.planner = planner
        if not has_delta():
            print("fuzzing: no Delta Lake installed for this Spark line: t3 is a Parquet table",
                  file=sys.stderr)

    def difference(self, program: list, planner: bool = None):
        """(description, signature) of the first difference, or None when both sides agree;
        `planner` (default: the Differ's) runs the planguard side with its planner."""
        planner = self.planner if planner is None else planner
        for variant in self.VARIANTS:
            plain = self.plain.run(program, variant)
            guarded_confs = {**variant,
                             "spark.planguard.planner.enabled": str(planner).lower(),
                             # The planner's adaptive partial aggregates pass every row through,
                             # and aggregations over joins aggregate eagerly wherever sound.
                             **({**GIVE_UP_AT_ONCE, **EAGER_WHEREVER_SOUND} if planner else {})}
            guarded = self.guarded.run(program, guarded_confs)
            if not all(map(agree, plain, guarded)):
                return (describe(program, guarded_confs, plain, guarded),
                        signature(plain, guarded))
        return None

    def close(self) -> None:
        """Ends both workers."""
        self.plain.close()
        self.guarded.close()


# ---------------------------------------------------------------- generating SQL


def cased(draw, name: str) -> str:
    """The identifier as written in some case: Spark resolves it case-insensitively."""
    return draw(st.sampled_from([name, name.lower(), name.upper()]))


@st.composite
def literal(draw, kind: str) -> str:
    """A literal of the kind, NULL included (typed, so that set operations line up)."""
    if draw(st.integers(0, 5)) == 0:
        return f"CAST(NULL AS {TYPES[kind]})" if kind in TYPES else "NULL"
    if kind in NUMERIC:
        return draw(st.sampled_from(["0", "1", "3", "-2", "2.5", "100"]))
    if kind in TEXT:
        return draw(st.sampled_from(["'a'", "'b'", "'it''s'", "''", "'A b'"]))
    if kind == "date":
        return "DATE'2024-01-01'"
    return "NULL"


@st.composite
def relation(draw, depth: int):
    """A FROM clause and its columns as (reference, name, kind): a table, a view, a join, a
    LATERAL subquery or a derived table."""
    choice = draw(st.integers(0, 9)) if depth > 0 else 0
    if choice <= 4:
        name = draw(st.sampled_from(sorted(RELATIONS)))
        alias = draw(st.sampled_from(["a", "b", "x"]))
        return f"{cased(draw, name)} {alias}", [(f"{alias}.{cased(draw, c)}", c, k)
                                                  for c, k in RELATIONS[name]]
    if choice <= 7:
        return draw(join(depth))
    sql, cols = draw(query(depth - 1))
    names = [f"q{i}" for i in range(len(cols))]
    return f"({sql}) AS d({', '.join(names)})", [(f"d.{n}", n, k) for n, (_, k) in
                                                  zip(names, cols)]


@st.composite
def join(draw, depth: int):
    """Two tables joined: any join type, with ON, USING, NATURAL, CROSS or LATERAL."""
    left, right = draw(st.permutations(sorted(TABLES) + [VIEW[0]]))[:2]
    lcols, rcols = RELATIONS[left], RELATIONS[right]
    lref = [(f"l.{cased(draw, c)}", c, k) for c, k in lcols]
    rref = [(f"r.{cased(draw, c)}", c, k) for c, k in rcols]
    how = draw(st.sampled_from(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN",
                                "LEFT SEMI JOIN", "LEFT ANTI JOIN", "CROSS JOIN", "USING",
                                "NATURAL", "LATERAL"]))
    base = f"{cased(draw, left)} l"
    if how == "CROSS JOIN":
        return f"{base} CROSS JOIN {right} r", lref + rref
    if how in ("USING", "NATURAL"):
        shared = [c for c, _ in lcols if c.lower() in {r.lower() for r, _ in rcols}]
        if not shared:
            return f"{base} CROSS JOIN {right} r", lref + rref
        kind = draw(st.sampled_from(["", "LEFT ", "RIGHT ", "FULL "]))
        if how == "NATURAL":
            return f"{base} NATURAL {kind}JOIN {right} r", lref + rref
        using = cased(draw, draw(st.sampled_from(shared)))
        return f"{base} {kind}JOIN {right} r USING ({using})", lref + rref
    lkey = draw(st.sampled_from([c for c in lref if c[2] in NUMERIC]))
    rkey = draw(st.sampled_from([c for c in rref if c[2] in NUMERIC]))
    if how == "LATERAL":
        agg = draw(st.sampled_from(["COUNT(*)", f"max({rkey[0]})", f"sum({rkey[0]})"]))
        return (f"{base}, LATERAL (SELECT {agg} AS cnt FROM {right} r WHERE {rkey[0]} = "
                f"{lkey[0]})", lref + [("cnt", "cnt", "bigint")])
    on = f"{lkey[0]} = {rkey[0]}"
    if draw(st.booleans()):
        on += f" AND {draw(predicate(lref + rref, 0))}"
    # A null-rejecting conjunct on a nullable column: the join may declare the column NOT NULL.
    if draw(st.integers(0, 3)) == 0:
        key = draw(st.sampled_from([lkey, rkey]))[0]
        on += draw(st.sampled_from([f" AND {key} IS NOT NULL", f" AND {key} > 0"]))
    visible = lref if "SEMI" in how or "ANTI" in how else lref + rref
    return f"{base} {how} {right} r ON {on}", visible


@st.composite
def expression(draw, cols: list, depth: int) -> tuple:
    """A select-list expression over the columns: (sql, kind)."""
    ref, _, kind = draw(st.sampled_from(cols))
    choice = draw(st.integers(0, 10))
    if choice <= 3 or depth < 0:
        return ref, kind
    if choice == 4 and kind in NUMERIC:
        return f"({ref} + {draw(literal('int'))})", kind
    if choice == 5:
        target = draw(st.sampled_from(["char", "varchar", "string", "int", "double"]))
        if kind in ("array", "struct"):
            target = "string"
        return f"CAST({ref} AS {TYPES[target]})", target
    if choice == 6 and kind in TEXT:
        return f"concat({ref}, {draw(literal('string'))})", "string"
    if choice == 7:
        return f"coalesce({ref}, {draw(literal(kind))})", kind
    if choice == 8:
        return draw(scalar_subquery(cols)), "bigint"
    if choice in (4, 6, 9) and kind == "struct":
        return draw(field_access(ref))
    if choice == 10:
        return f"CASE WHEN {ref} IS NULL THEN {draw(literal(kind))} ELSE {ref} END", kind
    return draw(literal(kind)), kind


STRUCT_FIELDS = [("a", "int"), ("B", "string")]


@st.composite
def field_access(draw, ref: str) -> tuple:
    """A field of the struct column `ref` (STRUCT<a: INT, B: STRING>), read directly, through a
    JSON round trip (which the optimizer rewrites: from_json(to_json(s)) is s, and from_json's
    struct is pruned to the fields read) or from an array of it: (sql, kind)."""
    field, kind = draw(st.sampled_from(STRUCT_FIELDS))
    name = cased(draw, field)
    shape = draw(st.sampled_from(["direct", "json", "json array"]))
    if shape == "direct":
        return f"{ref}.{name}", kind
    if shape == "json":
        return f"from_json(to_json({ref}), 'a INT, B STRING').{name}", kind
    return (f"from_json(to_json(array({ref}, {ref})), 'array<struct<a: INT, B: STRING>>')"
            f".{name}"), "array"


@st.composite
def scalar_subquery(draw, cols: list) -> str:
    """A scalar subquery over t2, correlated on a numeric column or not."""
    agg = draw(st.sampled_from(["max(c3)", "count(*)", "min(c1)", "count(DISTINCT C2)"]))
    numeric = [c for c in cols if c[2] in NUMERIC]
    if numeric and draw(st.booleans()):
        outer = draw(st.sampled_from(numeric))[0]
        return f"(SELECT {agg} FROM t2 WHERE t2.c1 = {outer})"
    return f"(SELECT {agg} FROM t2)"


@st.composite
def predicate(draw, cols: list, depth: int) -> str:
    """A boolean condition: comparisons, NULL tests, IN / EXISTS subqueries, AND / OR."""
    ref, _, kind = draw(st.sampled_from(cols))
    choice = draw(st.integers(0, 7))
    if choice == 0 and depth > 0:
        op = draw(st.sampled_from(["AND", "OR"]))
        return f"({draw(predicate(cols, depth - 1))} {op} {draw(predicate(cols, depth - 1))})"
    if choice == 1:
        return f"{ref} IS {draw(st.sampled_from(['', 'NOT ']))}NULL"
    if choice == 2 and kind in NUMERIC:
        negated = draw(st.sampled_from(["", "NOT "]))
        sub = draw(st.sampled_from(["SELECT c1 FROM t2", "SELECT k FROM t3",
                                    "SELECT c1 FROM t2 INTERSECT SELECT k FROM t3"]))
        return f"{ref} {negated}IN ({sub})"
    if choice == 3:
        numeric = [c for c in cols if c[2] in NUMERIC]
        corr = f" WHERE t3.k = {draw(st.sampled_from(numeric))[0]}" if numeric else ""
        body = draw(st.sampled_from([f"SELECT 1 FROM t3{corr}",
                                     "SELECT k FROM t3 UNION SELECT c1 FROM t2"]))
        return f"{draw(st.sampled_from(['', 'NOT ']))}EXISTS ({body})"
    if kind == "struct":
        ref, kind = draw(field_access(ref))
        if kind == "array":
            return f"size({ref}) > 0"
    if kind in NUMERIC or kind in TEXT or kind == "date":
        op = draw(st.sampled_from(["=", "<>", "<", ">=", "<=>"]))
        return f"{ref} {op} {draw(literal(kind))}"
    return f"{ref} IS NOT NULL"


@st.composite
def simple_select(draw, depth: int):
    """SELECT [DISTINCT] expressions FROM relation [WHERE]."""
    from_sql, cols = draw(relation(depth))
    exprs = draw(st.lists(expression(cols, depth), min_size=1, max_size=4))
    distinct = "DISTINCT " if draw(st.integers(0, 5)) == 0 else ""
    where = f" WHERE {draw(predicate(cols, 1))}" if draw(st.booleans()) else ""
    select = ", ".join(f"{e} AS e{i}" if draw(st.booleans()) else e
                       for i, (e, _) in enumerate(exprs))
    return f"SELECT {distinct}{select} FROM {from_sql}{where}", exprs


@st.composite
def aggregate(draw, depth: int):
    """GROUP BY (plain, GROUPING SETS, ROLLUP or CUBE) with aggregates, HAVING, and keys
    referred to in another case than in the select list."""
    from_sql, cols = draw(relation(depth))
    groupable = [c for c in cols if c[2] not in ("array", "struct")] or cols[:1]
    keys = draw(st.lists(st.sampled_from(groupable), min_size=1, max_size=2, unique=True))
    numeric = [c for c in cols if c[2] in NUMERIC] or cols[:1]
    measure = draw(st.sampled_from(numeric))[0]
    aggs = draw(st.lists(st.sampled_from(
        ["count(*)", f"sum({measure})", f"avg({measure})", f"max({measure})",
         f"count(DISTINCT {measure})", f"min({keys[0][0]})"]), min_size=1, max_size=3))
    select = [k[0] for k in keys] + [f"{a} AS m{i}" for i, a in enumerate(aggs)]
    if draw(st.integers(0, 4)) == 0:
        select.append(f"{keys[0][0]} IN (SELECT c1 FROM t2) AS in_t2")
    shape = draw(st.sampled_from(["plain", "GROUPING SETS", "ROLLUP", "CUBE"]))
    written = [cased(draw, k[0]) for k in keys]
    if shape == "plain":
        group = ", ".join(written)
    elif shape == "GROUPING SETS":
        group = f"GROUPING SETS (({', '.join(written)}), ())"
    else:
        group = f"{shape}({', '.join(written)})"
    having = ""
    if draw(st.booleans()):
        having = draw(st.sampled_from([" HAVING count(*) > 0", f" HAVING max({measure}) IS NULL",
                                       f" HAVING count(*) >= (SELECT count(*) FROM t3 WHERE k > 1)"]))
    kinds = [(k[0], k[2]) for k in keys] + [("", "bigint")] * (len(select) - len(keys))
    return f"SELECT {', '.join(select)} FROM {from_sql} GROUP BY {group}{having}", kinds


@st.composite
def aggregate_over_join(draw) -> str:
    """An aggregate over a join, the shape the planner's aggregates and exchanges change: `fact`
    joined to `dim`, to `empty` or to itself by any join type and strategy (a hint), grouped by
    keys of either side, the join key among them or not (or by none: a global aggregate), plain
    or by GROUPING SETS, ROLLUP or CUBE; the aggregates decimal and floating sums, averages,
    counts, minima and maxima, DISTINCT ones and ones with a FILTER clause."""
    right = draw(st.sampled_from(["dim", "dim", "empty", "fact"]))
    how = draw(st.sampled_from(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN",
                                "LEFT SEMI JOIN", "LEFT ANTI JOIN", "CROSS JOIN"]))
    hint = draw(st.sampled_from(["", "", "BROADCAST(r)", "MERGE(r)", "SHUFFLE_HASH(r)",
                                 "SHUFFLE_HASH(l)", "SHUFFLE_REPLICATE_NL(r)"]))
    left_cols = [(f"l.{c}", k) for c, k in JOIN_TABLES["fact"][0]]
    right_cols = [(f"r.{c}", k) for c, k in JOIN_TABLES[right][0]]
    visible = left_cols if "SEMI" in how or "ANTI" in how else left_cols + right_cols
    join = f"fact l {how} {right} r"
    if how != "CROSS JOIN":
        join += " ON l.k = r.k"
        join += draw(st.sampled_from(["", "", " AND l.x > 0.2", " AND l.g IS NOT NULL",
                                      " AND r.k > 2"]))
    groupable = [c for c, k in visible if k != "double"]
    keys = draw(st.lists(st.sampled_from(groupable), min_size=0, max_size=2, unique=True))
    numeric = [c for c, k in visible if k in NUMERIC]
    measure = draw(st.sampled_from(numeric))
    condition = draw(st.sampled_from(["l.x > 0.3", "l.g = 'g1'", "r.k IS NULL", "l.q % 2 = 0"]
                                     if visible is not left_cols else
                                     ["l.x > 0.3", "l.g = 'g1'", "l.q % 2 = 0"]))
    aggs = draw(st.lists(st.sampled_from([
        "count(*)", f"count({measure})", "sum(l.amt)", "sum(l.x)", "avg(l.x)", "avg(l.amt)",
        f"min({measure})", f"max({measure})", f"sum({measure})", "count(DISTINCT l.g)",
        "sum(DISTINCT l.k)", f"sum(l.q) FILTER (WHERE {condition})",
        f"count(*) FILTER (WHERE {condition})", f"avg(l.x) FILTER (WHERE {condition})"]),
        min_size=1, max_size=4))
    select = keys + [f"{a} AS m{i}" for i, a in enumerate(aggs)]
    group = ""
    if keys:
        shape = draw(st.sampled_from(["plain", "plain", "GROUPING SETS", "ROLLUP", "CUBE"]))
        group = (" GROUP BY " + ", ".join(keys) if shape == "plain" else
                 f" GROUP BY GROUPING SETS (({', '.join(keys)}), ())" if shape == "GROUPING SETS"
                 else f" GROUP BY {shape}({', '.join(keys)})")
    where = draw(st.sampled_from(["", "", " WHERE l.q % 5 <> 0", " WHERE l.x IS NOT NULL"]))
    having = draw(st.sampled_from(["", "", " HAVING count(*) > 1"])) if keys else ""
    hint = f"/*+ {hint} */ " if hint else ""
    return f"SELECT {hint}{', '.join(select)} FROM {join}{where}{group}{having}"


@st.composite
def windowed(draw, depth: int):
    """A window function over a partition and an order."""
    from_sql, cols = draw(relation(depth))
    plain = [c for c in cols if c[2] not in ("array", "struct")]
    part, order = draw(st.sampled_from(plain))[0], draw(st.sampled_from(plain))[0]
    fn = draw(st.sampled_from(["row_number()", "rank()", "count(*)", f"lag({order})",
                               f"max({order})"]))
    frame = draw(st.sampled_from(["", " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"]))
    over = f"OVER (PARTITION BY {part} ORDER BY {order}{frame})"
    return f"SELECT {part}, {order}, {fn} {over} AS w FROM {from_sql}", [("", "string")] * 3


@st.composite
def set_operation(draw, depth: int):
    """Two selects of one numeric and one text column combined by a set operator."""
    def side(name):
        cols = RELATIONS[name]
        num = draw(st.sampled_from([c for c, k in cols if k in NUMERIC]))
        text = draw(st.sampled_from([c for c, k in cols if k in TEXT] or ["'t'"]))
        where = f" WHERE {cased(draw, num)} IS NOT NULL" if draw(st.booleans()) else ""
        return f"SELECT {cased(draw, num)}, CAST({text} AS STRING) FROM {name}{where}"

    op = draw(st.sampled_from(["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT",
                               "EXCEPT ALL"]))
    left, right = draw(st.sampled_from(sorted(RELATIONS))), draw(st.sampled_from(sorted(RELATIONS)))
    return f"{side(left)} {op} {side(right)}", [("", "double"), ("", "string")]


@st.composite
def query(draw, depth: int = 2):
    """A query and its output columns' (sql, kind)."""
    shape = draw(st.sampled_from(["select", "aggregate", "window", "set", "cte"]))
    if shape == "select":
        return draw(simple_select(depth))
    if shape == "aggregate":
        return draw(aggregate(depth))
    if shape == "window":
        return draw(windowed(depth))
    if shape == "set":
        return draw(set_operation(depth))
    inner, cols = draw(simple_select(max(depth - 1, 0)))
    names = ", ".join(f"w{i}" for i in range(len(cols)))
    refs = ", ".join(cased(draw, f"w{i}") for i in range(len(cols)))
    return f"WITH cte({names}) AS ({inner}) SELECT {refs} FROM cte", cols


@st.composite
def top_query(draw) -> str:
    """A query with optional ORDER BY, LIMIT and OFFSET."""
    sql, cols = draw(query())
    if draw(st.booleans()):
        positions = ", ".join(str(i + 1) for i in range(len(cols)))
        sql += f" ORDER BY {positions}"
        if draw(st.booleans()):
            sql += f" LIMIT {draw(st.integers(0, 3))}"
            if draw(st.booleans()):
                sql += f" OFFSET {draw(st.integers(1, 2))}"
    return sql


@st.composite
def command(draw) -> list:
    """Commands and DML, each result collected: CTAS, INSERT ... SELECT / VALUES, SHOW,
    DESCRIBE, SET, SET VAR, EXECUTE IMMEDIATE, CREATE TEMP VIEW."""
    choice = draw(st.integers(0, 8))
    if choice == 0:
        return ["SHOW TABLES"]
    if choice == 1:
        return [f"DESCRIBE {draw(st.sampled_from(sorted(RELATIONS)))}"]
    if choice == 2:
        return ["SET spark.sql.shuffle.partitions=2"]
    if choice == 3:
        return ["DECLARE OR REPLACE VARIABLE fuzz_var INT DEFAULT 0",
                f"SET VAR fuzz_var = (SELECT max(c1) FROM t2)", "SELECT fuzz_var"]
    sql = draw(top_query())
    if choice == 4:
        return [f"CREATE TABLE {SCRATCH[0]} USING parquet AS {sql}",
                f"INSERT INTO {SCRATCH[0]} {sql}", f"SELECT * FROM {SCRATCH[0]}"]
    if choice == 5:
        return [f"CREATE TEMP VIEW {SCRATCH[1]} AS {sql}", f"SELECT * FROM {SCRATCH[1]}"]
    if choice == 6:
        values = draw(st.sampled_from(["(5, 'it''s', 1)", "(NULL, 'n', NULL)"]))
        return [f"CREATE TABLE {SCRATCH[0]} (c1 INT, C2 STRING, c3 BIGINT) USING parquet",
                f"INSERT INTO {SCRATCH[0]} VALUES {values}",
                f"INSERT INTO {SCRATCH[0]} SELECT C1, c2, C3 FROM t2",
                f"SELECT * FROM {SCRATCH[0]}"]
    if choice == 7:
        return [f"CREATE TABLE {SCRATCH[0]} (c1 INT, C2 STRING, c3 BIGINT) USING parquet",
                f"EXECUTE IMMEDIATE 'INSERT INTO {SCRATCH[0]} VALUES (1, ''x'', 2)'"]
    return [sql]


# ---------------------------------------------------------------- generating DataFrame programs


@st.composite
def dataframe(draw) -> str:
    """A DataFrame-API program: a table, then filters, joins, aggregations, windows, set
    operations, sorts and limits, columns named in any case."""
    name = draw(st.sampled_from(sorted(TABLES)))
    cols = RELATIONS[name]
    code = f"spark.table({name!r})"
    plain = [c for c, k in cols if k not in ("array", "struct")]
    numeric = [c for c, k in cols if k in NUMERIC]
    for _ in range(draw(st.integers(1, 3))):
        step = draw(st.sampled_from(["filter", "join", "agg", "window", "set", "sort",
                                     "select", "distinct"]))
        col = cased(draw, draw(st.sampled_from(plain)))
        num = cased(draw, draw(st.sampled_from(numeric)))
        if step == "filter":
            code += draw(st.sampled_from([f".filter(F.col({col!r}).isNotNull())",
                                          f".filter(F.col({num!r}) > 0)"]))
        elif step == "join" and "c1" in plain:
            how = draw(st.sampled_from(["inner", "left", "right", "full", "left_semi",
                                        "left_anti", "cross"]))
            other = draw(st.sampled_from(["t1", "t2"]))
            if how == "cross":
                code += f".crossJoin(spark.table({other!r}).select(F.col('c3').alias('o3')))"
            else:
                code += f".join(spark.table({other!r}), {cased(draw, 'c1')!r}, {how!r})"
            return code
        elif step == "agg":
            fn = draw(st.sampled_from(["count", "max", "sum", "countDistinct"]))
            code += f".groupBy({col!r}).agg(F.{fn}({num!r}).alias('m'))"
            return code
        elif step == "window":
            code += (f".withColumn('w', F.row_number().over("
                     f"__import__('pyspark.sql.window').sql.window.Window"
                     f".partitionBy({col!r}).orderBy({num!r})))")
        elif step == "set":
            op = draw(st.sampled_from(["union", "unionAll", "intersect", "intersectAll",
                                       "subtract", "exceptAll"]))
            code += f".select({num!r})"
            code += f".{op}(spark.table('t2').select({cased(draw, 'c3')!r}))"
            return code
        elif step == "sort":
            code += f".orderBy({col!r}).limit({draw(st.integers(0, 3))})"
        elif step == "select":
            if name == "t1" and draw(st.booleans()):
                field = cased(draw, draw(st.sampled_from(STRUCT_FIELDS))[0])
                code += f".select({col!r}, F.col('st.{field}').alias('f'))"
            else:
                code += f".select({col!r}, (F.col({num!r}) + 1).alias('p'))"
            return code
        else:
            code += ".distinct()"
    return code


@st.composite
def named_write(draw) -> str:
    """A DataFrame with names Spark generated (aggregates and expressions over columns, in SQL or
    the DataFrame API), every one renamed by the user, perhaps projected again, written and read
    back (``written``: NAMING at fail)."""
    name = draw(st.sampled_from(["t1", "t2", "v1"]))
    cols = RELATIONS[name]
    key = cased(draw, draw(st.sampled_from([c for c, k in cols if k in NUMERIC + TEXT])))
    num = cased(draw, draw(st.sampled_from([c for c, k in cols if k in NUMERIC])))
    fn = draw(st.sampled_from(["sum", "max", "count", "avg", "min"]))
    base = draw(st.sampled_from([
        f"spark.sql('SELECT {key}, {fn}({num}), count(*) FROM {name} GROUP BY {key}')",
        f"spark.table({name!r}).groupBy({key!r}).agg({{{num!r}: {fn!r}}})",
        f"spark.table({name!r}).groupBy({key!r}).agg(F.{fn}({num!r}), F.count({key!r}))",
        f"spark.table({name!r}).groupBy({key!r}).sum({num!r})",
        f"spark.table({name!r}).select({key!r}, F.col({num!r}) + 1, F.upper(F.col({key!r})))",
        f"spark.sql('SELECT {key}, abs({num}) FROM {name}')"]))
    code = f"renamed({base}, {draw(st.sampled_from(RENAMES))!r})"
    code += draw(st.sampled_from(["", ".select('*')",
                                  f".filter(F.col({cased(draw, 'n1')!r}).isNotNull())"]))
    return f"written({code}, {draw(st.sampled_from(WRITES))!r})"


@st.composite
def program(draw) -> list:
    """A program: one to three SQL statements or DataFrame programs."""
    statements = []
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from(["query", "query", "command", "dataframe", "write",
                                     "aggregate over join"]))
        if kind == "query":
            statements.append({"sql": draw(top_query())})
        elif kind == "aggregate over join":
            statements.append({"sql": draw(aggregate_over_join())})
        elif kind == "command":
            statements += [{"sql": s} for s in draw(command())]
        elif kind == "write":
            statements.append({"df": draw(named_write())})
        else:
            statements.append({"df": draw(dataframe())})
    return statements


if __name__ == "__main__" and sys.argv[1:2] == ["worker"]:
    serve(sys.argv[2] == "planguard")
