"""planguard's findings where users look without Python's API, in a real session with the broken
test rules: EXPLAIN's planguard section (its provider, which configure(explain=True) lists on
Spark 4, and a session may set) and the SQL table-valued function planguard_violations()."""
import planguard
from test_checks import SWAP_COLUMNS, projected

SECTION = "== Extended Information (planguard) =="
PROVIDERS = "spark.sql.extendedExplainProviders"


def _section(text: str) -> str:
    assert SECTION in text, text
    return text.split(SECTION, 1)[1].strip()


def test_explain_is_what_spark_prints_unless_the_section_is_asked_for(spark, conf, capsys):
    conf(SWAP_COLUMNS, "true")
    conf("spark.planguard.mode", "warn")
    spark.range(5).selectExpr("id * 2 AS b").explain("extended")
    assert "== Physical Plan ==" in capsys.readouterr().out
    assert SECTION not in spark.sql("EXPLAIN EXTENDED SELECT CAST(id AS INT) AS a, id * 2 AS b "
                                    "FROM range(5)").head()[0]


def test_explain_shows_a_warn_level_finding(spark, adaptive, conf, capsys):
    conf(PROVIDERS, planguard.EXPLAIN_CLASS)
    conf(SWAP_COLUMNS, "true")
    conf("spark.planguard.mode", "warn")
    for df in projected(spark):
        capsys.readouterr()
        df.explain("extended")
        found = _section(capsys.readouterr().out)
        assert found.startswith("OPTIMIZER_SCHEMA broken in phase optimization (warn). "
                                "Rule: planguard.testing.SwapRootColumns (batch "), found
        assert "\n  Expected: a INT NOT NULL, b BIGINT" in found
        assert "\n  Actual:   b BIGINT" in found
    statement = spark.sql("EXPLAIN EXTENDED SELECT CAST(id AS INT) AS a, id * 2 AS b "
                          "FROM range(5)").head()[0]
    assert _section(statement).startswith("OPTIMIZER_SCHEMA broken in phase optimization")


def test_explain_of_a_legal_query_says_all_invariants_hold(spark, conf, capsys):
    conf(PROVIDERS, planguard.EXPLAIN_CLASS)
    conf("spark.sql.adaptive.enabled", "false")
    before = planguard.violation_count(spark)
    spark.range(5).selectExpr("id * 2 AS b").explain("extended")
    assert _section(capsys.readouterr().out) == "all invariants hold"
    assert planguard.violation_count(spark) == before


def test_planguard_violations_reads_the_report_from_sql(spark, conf):
    """Its rows are the records planguard.violations(spark) returns (test_shapes.py compares
    them field for field)."""
    conf(SWAP_COLUMNS, "true")
    conf("spark.planguard.mode", "warn")
    for df in projected(spark):
        df.collect()
    conf(SWAP_COLUMNS, "false")
    found = spark.sql("SELECT id, level, phase, rule FROM planguard_violations() "
                      "ORDER BY time DESC LIMIT 2").collect()
    assert [(r.id, r.level, r.phase, r.rule.split(" ")[0]) for r in found] == \
        [("OPTIMIZER_SCHEMA", "warn", "optimization", SWAP_COLUMNS)] * 2


def test_planguard_violations_runs_clean_in_fail_mode(spark, adaptive, conf):
    conf("spark.planguard.mode", "fail")
    before = planguard.violation_count(spark)
    for sql in ["SELECT * FROM planguard_violations()",
                "SELECT id, count(*) AS n FROM planguard_violations() GROUP BY id",
                "SELECT a.id FROM planguard_violations() a JOIN planguard_violations() b "
                "ON a.time = b.time ORDER BY a.time"]:
        spark.sql(sql).collect()
    assert planguard.violation_count(spark) == before
