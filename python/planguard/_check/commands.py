"""`planguard explain` and `planguard check`: SQL statements planned in a local session, never run.

Each statement is planned the way EXPLAIN plans it (``planguard.statements.PlannedStatement``):
parsed, analyzed with commands left unexecuted, optimized, planned and prepared; a write plans
its query and its write node, a CTAS its query. No statement produces a row or writes a file.
Only the setup files (``--setup``) are run: the tables and views the checked SQL reads; and,
with ``check --differential``, each query, under its plan and plans Spark must agree with
(``planguard._check.differential``).
"""
import re
import sys

from planguard import _explain
from planguard._check import differential as _differential, report as _check_report, \
    sql_text as _sql_text
from planguard._check.report import VerdictStatus

# Exit codes: a lint step fails the build on 1 and 2.
CLEAN, VIOLATIONS, ERROR = 0, 1, 2
_MARK = {VerdictStatus.PASS: "PASS", VerdictStatus.FAIL: "FAIL", VerdictStatus.WARN: "WARN",
         VerdictStatus.OFF: "OFF", VerdictStatus.NOT_APPLICABLE: "n/a"}


class UsageError(Exception):
    """The command line, a file or a setup statement is wrong: exit 2."""


def add_arguments(parser, check: bool):
    parser.add_argument("files", nargs="*", metavar="FILE.sql",
                        help="SQL files of ;-separated statements" if check else
                        "a SQL file holding the statement")
    parser.add_argument("--sql", action="append", default=[], metavar="SQL",
                        help="SQL text (repeatable)" if check else "the statement")
    parser.add_argument("--setup", action="append", default=[], metavar="FILE.sql",
                        help="SQL run before, e.g. CREATE TEMP VIEW or CREATE TABLE ... USING "
                             "parquet LOCATION ... (repeatable; the only SQL that is run)")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark or planguard conf (repeatable), e.g. "
                             "spark.sql.shuffle.partitions=8 or spark.sql.extensions=...")
    parser.add_argument("--jars", action="append", default=[], metavar="JARS",
                        help="comma-separated jars for the session (extensions, catalogs)")
    parser.add_argument("--master", default="local[2]",
                        help="Spark master (default local[2]: with one core Spark plans one "
                             "partition and no exchange)")
    if check:
        parser.add_argument("--strict", action="store_true",
                            help="warnings (WARN) fail the check too")
        parser.add_argument("--differential", action="store_true",
                            help="also run each query (on the --setup data) under plans Spark "
                                 "must agree with, and fail it where its rows differ")
    else:
        parser.add_argument("--format", choices=_explain.FORMATS, default="text")
        parser.add_argument("--output", metavar="FILE", help="write to FILE, not stdout")


def explain(args) -> int:
    statements = _statements(args)
    if len(statements) != 1:
        raise UsageError(f"explain takes one statement; got {len(statements)}")
    spark = _session(args, "explain")
    try:
        from planguard import _stages
        text = _explain.render(_stages.graph(statements[0].sql, spark), args.format)
    except Exception as e:  # noqa: BLE001 - reported as the command's result
        error = _converted(e)
        print(f"planguard explain: {statements[0].where}: {_message(error)}", file=sys.stderr)
        return VIOLATIONS if getattr(error, "invariant", None) else ERROR
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return CLEAN


def check(args) -> int:
    statements = _statements(args)
    if not statements:
        raise UsageError("nothing to check: give FILE.sql arguments or --sql")
    spark = _session(args, "check")
    from planguard import _stages
    checker = _stages.tools(spark).statements.StatementCheck
    failed, errors = 0, 0
    for statement in statements:
        print(f"{statement.where}  {_headline(statement.sql)}")
        try:
            report = _check_report.from_json(checker.json(spark._jsparkSession, statement.sql))
        except Exception as e:  # noqa: BLE001 - a statement that does not plan
            errors += 1
            print(f"  ERROR  {_message(_converted(e))}".replace("\n", "\n         "))
            continue
        bad = [v for v in report.invariants if v.status == VerdictStatus.FAIL
               or (args.strict and v.status == VerdictStatus.WARN)]
        for verdict in report.invariants:
            print(_verdict(verdict))
        if args.differential and report.kind == _check_report.StatementKind.QUERY:
            differs = _differential.checked(spark.sql(statement.sql))
            bad = bad or differs
        failed += bool(bad)
    clean = len(statements) - failed - errors
    print(f"planguard check: {len(statements)} statement{'s' if len(statements) != 1 else ''}: "
          f"{clean} clean, {failed} with violations, {errors} not planned")
    return ERROR if errors else VIOLATIONS if failed else CLEAN


def _verdict(verdict: _check_report.InvariantVerdict) -> str:
    line = f"  {_MARK[verdict.status]:<5} {verdict.invariant}"
    if verdict.reason and verdict.status != VerdictStatus.OFF:
        line += f"  ({verdict.reason})"
    for v in verdict.violations:
        rule = f", rule {v['rule']}" if v["rule"] else ""
        line += (f"\n          phase {v['phase']}{rule}"
                 f"\n          expected: {v['expected']}\n          actual:   {v['actual']}")
        line += "".join(f"\n          {d}" for d in v["differences"])
    return line


def _message(error: Exception) -> str:
    """The error's message; for errors other than parse errors (whose lines point at the SQL),
    its first line, without the plan Spark appends."""
    text = str(error).strip()
    return text if type(error).__name__ == "ParseException" else text.splitlines()[0]


def _headline(sql: str) -> str:
    """The statement on one line, without its leading comments."""
    sql = re.sub(r"^(\s*(--[^\n]*(\n|$)|/\*.*?\*/))*", "", sql, flags=re.S)
    line = " ".join(sql.split())
    return line if len(line) <= 90 else line[:89] + "…"


def _statements(args) -> list:
    statements = []
    for n, text in enumerate(args.sql):
        statements += _sql_text.split(text, "--sql" if len(args.sql) == 1 else f"--sql#{n + 1}")
    for path in args.files:
        statements += _sql_text.split(_read(path), path)
    return statements


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from e


def _session(args, command: str):
    """A local session with planguard and the user's confs and jars; the setup files run."""
    from pyspark.sql import SparkSession

    import planguard

    confs = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--conf takes KEY=VALUE, got {item!r}")
        confs[key.strip()] = value.strip()
    builder = (SparkSession.builder.master(args.master).appName(f"planguard {command}")
               .config("spark.ui.enabled", "false")
               # A statement planguard could not check is not clean.
               .config("spark.planguard.internalErrors", "fail"))
    for key, value in confs.items():
        builder.config(key, value)
    jars = [j.strip() for arg in args.jars for j in arg.split(",") if j.strip()]
    if jars:
        builder.config("spark.jars", ",".join(jars))
    mode = confs.pop("spark.planguard.mode", "fail")
    try:
        spark = planguard.configure(builder, mode=mode, tools=True).getOrCreate()
    except ValueError as e:
        raise UsageError(str(e)) from e
    spark.sparkContext.setLogLevel("ERROR")
    for path in args.setup:
        for statement in _sql_text.split(_read(path), path):
            try:
                spark.sql(statement.sql)
            except Exception as e:  # noqa: BLE001 - a setup that fails is a usage error
                raise UsageError(f"setup {statement.where} failed: {_converted(e)}") from e
    return spark


def _converted(e: Exception) -> Exception:
    """A Java exception as PySpark raises it (AnalysisException, InvariantViolation, ...)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions import captured

    if isinstance(e, Py4JJavaError):
        return captured.convert_exception(e.java_exception)
    return e
