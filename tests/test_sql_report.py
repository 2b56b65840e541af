"""planguard's findings where users look without Python's API: EXPLAIN's planguard section (its
provider, which configure lists on Spark 4) in a real session with the broken test rules."""
import planguard
from test_checks import SWAP_COLUMNS, projected

SECTION = "== Extended Information (planguard) =="


def _section(text: str) -> str:
    assert SECTION in text, text
    return text.split(SECTION, 1)[1].strip()


def test_explain_shows_a_warn_level_finding(spark, adaptive, conf, capsys):
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
    conf("spark.sql.adaptive.enabled", "false")
    before = planguard.violation_count(spark)
    spark.range(5).selectExpr("id * 2 AS b").explain("extended")
    assert _section(capsys.readouterr().out) == "all invariants hold"
    assert planguard.violation_count(spark) == before
