"""`planguard explain` and `planguard check` in their own processes, as a SQL project's CI runs
them: statements are planned, never run (no file is written), every invariant is reported, and
the exit code is 0 clean, 1 violations, 2 usage or SQL errors."""
import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

from planguard._check import sql_text as _sql_text
from conftest import TESTS_JAR

GROUP_BY = "SELECT k, count(*) AS n FROM (SELECT id % 5 AS k FROM range(100)) GROUP BY k"


def planguard_cli(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planguard.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=cwd,
                          env=dict(os.environ, PYSPARK_PYTHON=sys.executable))


def test_jar_prints_the_checks_jar_or_the_tools_jar(tmp_path):
    import planguard

    assert planguard_cli("jar", cwd=tmp_path).stdout.strip() == planguard.jar_path()
    assert planguard_cli("jar", "--tools", cwd=tmp_path).stdout.strip() == \
        planguard.tools_jar_path()


def test_jar_runs_where_no_pyspark_is_installed(tmp_path):
    """Staging the jars for a cluster needs no pyspark: `planguard jar --spark` imports none
    (pyspark and py4j are made unimportable in the child); what needs pyspark says so."""
    import planguard

    script = "\n".join([
        "import sys",
        "sys.modules['pyspark'] = sys.modules['py4j'] = None",
        "from planguard.cli import main",
        "main(['jar', '--spark', '4.1'])",
        "import planguard",
        "try:",
        "    planguard.configure",
        "except ImportError as e:",
        "    print(e)"])
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        planguard.jar_path("4.1"),
        "planguard.configure needs pyspark, which is not installed: install the pyspark of your "
        "Spark (or pip install 'planguard[pyspark]')"], result.stdout


def test_explain_draws_the_stages(tmp_path):
    picture = tmp_path / "stages.svg"
    result = planguard_cli("explain", "--sql", GROUP_BY, "--format", "svg", "--output", picture,
                           "--conf", "spark.sql.shuffle.partitions=3", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    root = ET.parse(picture).getroot()
    text = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "Stage 2 · result" in text and "HashKeys{keys=[k], partitions=3}" in text


def test_check_plans_writes_without_running_them(tmp_path):
    """INSERT and CTAS are planned and checked, and write nothing: no file, no table."""
    warehouse, data = tmp_path / "warehouse", tmp_path / "data"
    setup = tmp_path / "setup.sql"
    setup.write_text(f"""
        CREATE TABLE orders (id BIGINT, customer BIGINT) USING parquet LOCATION '{data}';
        CREATE TEMP VIEW customers AS SELECT id, concat('c', id) AS name FROM range(10);
    """)
    queries = tmp_path / "queries.sql"
    queries.write_text(f"""
        -- the project's statements
        SELECT c.name, count(*) AS n FROM orders o JOIN customers c ON o.customer = c.id
        GROUP BY c.name;
        INSERT INTO orders SELECT id, id % 10 FROM range(100);
        CREATE TABLE summary USING parquet AS SELECT customer, count(*) AS n FROM orders
        GROUP BY customer;
        INSERT OVERWRITE DIRECTORY '{tmp_path / "export"}' USING parquet SELECT * FROM orders
    """)
    result = planguard_cli("check", "--setup", setup, queries,
                           "--conf", f"spark.sql.warehouse.dir={warehouse}", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    out = result.stdout
    assert "4 statements: 4 clean, 0 with violations, 0 not planned" in out
    assert f"{queries}:2  SELECT c.name" in out
    for invariant in ("UNIQUE_FIELD", "OPTIMIZER_SCHEMA", "PLANNING_SCHEMA", "PHYSICAL_SCHEMA"):
        assert out.count(f"PASS  {invariant}\n") == 4, invariant
    assert out.count("PASS  NAMING") == 2 and out.count("n/a   NAMING  (not a write)") == 1
    assert out.count("n/a   NAMING  (a write into an existing table stores the table's names)") == 1
    assert out.count("n/a   BATCH_SCHEMA") == 4
    assert [p for p in tmp_path.rglob("*") if p.is_file() and p.parent != tmp_path] == []
    assert not (warehouse / "summary").exists() and not (tmp_path / "export").exists()


def test_check_fails_naming_the_broken_invariant(tmp_path):
    result = planguard_cli("check", "--sql", "SELECT id AS a, id * 2 AS b FROM range(5)",
                           "--jars", TESTS_JAR,
                           "--conf", "spark.sql.extensions=planguard.testing.SwapRootColumnsExtension",
                           cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr[-3000:]
    out = result.stdout
    assert "FAIL  OPTIMIZER_SCHEMA" in out
    assert "rule planguard.testing.SwapRootColumns (batch " in out
    assert "expected: a BIGINT NOT NULL, b BIGINT NOT NULL" in out
    # Every check ran: the later ones report too.
    assert "PASS  PLANNING_SCHEMA" in out and "PASS  PHYSICAL_SCHEMA" in out
    assert "1 statement: 0 clean, 1 with violations, 0 not planned" in out


def test_check_sees_the_initial_adaptive_plan(tmp_path):
    """A statement that is never run has only its initial adaptive plan: check inspects that
    plan's operators, which a run would check stage by stage."""
    result = planguard_cli("check", "--sql", GROUP_BY, "--jars", TESTS_JAR,
                           "--conf", "spark.sql.extensions="
                           "planguard.testing.RemoveFinalAggregateExchangeStagePrepExtension",
                           "--conf", "spark.sql.adaptive.enabled=true", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr[-3000:]
    out = result.stdout
    assert "FAIL  DISTRIBUTION" in out
    assert "rule planguard.testing.RemoveFinalAggregateExchange (adaptive query-stage" in out
    assert "PASS  OPERATOR_CONTRACT" in out


def test_check_reports_bad_sql_with_exit_2(tmp_path):
    bad = tmp_path / "bad.sql"
    bad.write_text(f"{GROUP_BY};\nSELECT nope FROM range(1);\nSELEC 1")
    result = planguard_cli("check", bad, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr[-3000:]
    out = result.stdout
    assert "ERROR  [UNRESOLVED_COLUMN" in out and "ERROR  [PARSE_SYNTAX_ERROR]" in out
    assert "3 statements: 1 clean, 0 with violations, 2 not planned" in out


def test_usage_errors_exit_2_before_any_session(tmp_path):
    assert planguard_cli("check", cwd=tmp_path).returncode == 2
    missing = planguard_cli("check", tmp_path / "missing.sql", cwd=tmp_path)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    several = planguard_cli("explain", "--sql", "SELECT 1; SELECT 2", cwd=tmp_path)
    assert several.returncode == 2 and "explain takes one statement" in several.stderr


def test_sql_files_split_at_semicolons_outside_quotes_and_comments():
    text = ("-- header; comment\nSELECT ';' AS a; /* ; */\n"
            "SELECT \"x;y\", `c;d` FROM t -- tail ;\n;\n\n  ;  -- only a comment\n"
            "SELECT 'it''s;' AS b")
    statements = _sql_text.split(text, "f.sql")
    assert [s.sql for s in statements] == [
        "-- header; comment\nSELECT ';' AS a",
        "/* ; */\nSELECT \"x;y\", `c;d` FROM t -- tail ;",
        "-- only a comment\nSELECT 'it''s;' AS b"]
    assert [s.where for s in statements] == ["f.sql:1", "f.sql:2", "f.sql:6"]
