"""planguard.stages and planguard.explain: a query's stages cut at every shuffle, broadcast and
subquery, from its prepared plan, without executing it; adaptive execution on and off."""
import pathlib
import xml.etree.ElementTree as ET

import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StructField, StructType

import planguard

SVG = "{http://www.w3.org/2000/svg}"


def left(spark):
    return spark.range(20).selectExpr("id AS k", "id * 2 AS v")


def right(spark):
    return spark.range(10).selectExpr("id AS k2", "CAST(id AS INT) AS w")


@pytest.fixture
def no_jobs(spark):
    """Asserts that the test ran no Spark job: stages are read from the plan, never executed."""
    sc = spark.sparkContext
    sc.setJobGroup("planguard-stages", "must stay empty")
    yield
    assert sc.statusTracker().getJobIdsForGroup("planguard-stages") == []
    sc.setJobGroup("", "")


def test_group_by_is_two_stages_cut_at_a_hash_exchange(spark, adaptive, no_jobs):
    df = spark.range(100).selectExpr("id % 10 AS k").groupBy("k").count()
    first, last = planguard.stages(df)
    assert (first.id, first.kind, last.id, last.kind) == (1, "shuffle map", 2, "result")
    assert first.output.kind == "HashKeys"
    assert first.output.keys == ("k",) and first.output.partitions == 2
    assert first.consumers == (2,)
    assert [op.name for op in first.operators.walk()] == ["HashAggregate", "Project", "Range"]
    assert "partial_count(1)" in first.operators.args
    (read,) = last.inputs
    assert (read.exchange, read.from_stage, read.partitioning) == ("shuffle", 1, first.output)
    assert [op.name for op in last.operators.walk()] == ["HashAggregate", "ShuffleRead"]
    assert last.operators.children[0].inputs == (0,)
    # The schema at the boundary: the partial aggregate's rows, names, types and nullability.
    assert read.schema == first.schema == StructType([
        StructField("k", LongType(), True), StructField("count", LongType(), False)])
    assert last.schema == df.schema
    notes = " ".join(planguard._stages.graph(df).notes)
    assert ("adaptive execution: the initial plan" in notes) == adaptive


def test_global_aggregate_goes_through_a_single_partition(spark, adaptive, no_jobs):
    first, last = planguard.stages(spark.range(10).agg(F.sum("id")))
    assert first.output.kind == "Single" and first.output.partitions == 1
    assert last.inputs[0].partitioning.kind == "Single"


def test_shuffle_join_is_three_stages_with_the_same_partitioning(spark, adaptive, no_jobs):
    df = left(spark).join(right(spark), F.col("k") == F.col("k2"))
    a, b, join = planguard.stages(df)
    assert [s.kind for s in (a, b, join)] == ["shuffle map", "shuffle map", "result"]
    assert [i.from_stage for i in join.inputs] == [1, 2]
    assert [i.partitioning.keys for i in join.inputs] == [("k",), ("k2",)]
    assert {i.partitioning.partitions for i in join.inputs} == {2}
    assert join.operators.name == "SortMergeJoin" and "[k] = [k2]" in join.operators.args
    assert [f.name for f in join.inputs[1].schema] == ["k2", "w"]
    assert a.consumers == b.consumers == (3,)


def test_broadcast_join_has_a_broadcast_edge(spark, adaptive, no_jobs):
    df = left(spark).join(F.broadcast(right(spark)), F.col("k") == F.col("k2"))
    build, probe = planguard.stages(df)
    assert build.kind == "broadcast"
    assert build.output.kind == "Broadcast" and build.output.keys == ("k2",)
    (read,) = probe.inputs
    assert (read.exchange, read.from_stage) == ("broadcast", 1)
    assert "BroadcastRead" in [op.name for op in probe.operators.walk()]


def test_order_by_is_a_range_exchange(spark, adaptive, no_jobs):
    first, last = planguard.stages(spark.range(10).selectExpr("id % 3 AS k").orderBy("k"))
    assert first.output.kind == "Range"
    assert first.output.ordering == ("k ASC NULLS FIRST",) and first.output.partitions == 2
    assert last.operators.name == "Sort" and last.operators.args.endswith("global")


def test_repartition_is_round_robin(spark, adaptive, no_jobs):
    first, last = planguard.stages(spark.range(10).repartition(3))
    assert first.output.kind == "RoundRobin" and first.output.partitions == 3
    assert last.operators.name == "ShuffleRead"


def test_union_of_aggregates_reads_two_stages(spark, adaptive, no_jobs):
    counts = spark.range(10).selectExpr("id % 2 AS k").groupBy("k").count()
    *producers, result = planguard.stages(counts.union(counts.withColumn("count", F.lit(0))))
    assert result.operators.name == "Union"
    assert len(producers) == len(result.inputs) == 2


def test_scalar_subquery_is_a_stage_of_its_own(spark, adaptive, no_jobs):
    df = spark.sql("SELECT id FROM range(10) WHERE id > (SELECT avg(id) FROM range(5))")
    stages = planguard.stages(df)
    result = stages[-1]
    (value,) = [i for i in result.inputs if i.exchange == "scalar subquery"]
    assert stages[value.from_stage - 1].kind == "subquery"
    assert value.partitioning.kind == "Collected"
    (filter_,) = [op for op in result.operators.walk() if op.name == "Filter"]
    assert "scalar-subquery" in filter_.args and filter_.inputs


def test_reused_exchange_is_read_from_one_stage(spark, conf, no_jobs):
    conf("spark.sql.adaptive.enabled", "false")
    counts = spark.range(10).selectExpr("id % 3 AS k").groupBy("k").count()
    stages = planguard.stages(counts.alias("x").join(counts.alias("y"), "k"))
    reads = [i for s in stages for i in s.inputs]
    reused = [i for i in reads if i.reused]
    assert reused and all(any(r.from_stage == i.from_stage and not r.reused for r in reads)
                          for i in reused)


@pytest.fixture
def table(spark, tmp_path):
    location = tmp_path / "t"
    spark.sql(f"CREATE TABLE stages_t (k BIGINT, n BIGINT) USING parquet LOCATION '{location}'")
    yield location
    spark.sql("DROP TABLE IF EXISTS stages_t")


def files(path: pathlib.Path) -> list:
    return [p for p in path.rglob("*") if p.is_file()] if path.exists() else []


def test_insert_is_planned_with_its_write_node_and_writes_nothing(spark, adaptive, table):
    stages = planguard.stages(
        "INSERT INTO stages_t SELECT id % 3, count(*) FROM range(10) GROUP BY 1", spark)
    last = stages[-1]
    assert last.operators.name == "Execute InsertIntoHadoopFsRelationCommand"
    assert "stages_t" in last.operators.args
    assert len(last.schema) == 0  # a write returns no rows
    assert stages[0].output.kind == "HashKeys"
    assert files(table) == []
    assert spark.table("stages_t").count() == 0


def test_ctas_shows_its_query_under_the_command_and_creates_nothing(spark, adaptive, tmp_path):
    location = tmp_path / "u"
    stages = planguard.stages(f"CREATE TABLE stages_u USING parquet LOCATION '{location}' AS "
                              "SELECT id % 3 AS k, count(*) AS n FROM range(10) GROUP BY 1",
                              spark)
    last = stages[-1]
    assert last.operators.name.startswith("Execute ")
    assert "AsSelect" in last.operators.name
    assert last.operators.children[0].name == "HashAggregate"
    assert len(stages) == 2
    assert not location.exists()
    assert not spark.catalog.tableExists("stages_u")


def shapes(svg: str):
    """The stage boxes and exchange tags of a rendered SVG, as (x0, y0, x1, y1)."""
    root = ET.fromstring(svg)
    boxes, tags = [], []
    for group in root.iter(f"{SVG}g"):
        rect = group.find(f"{SVG}rect")
        area = tuple(float(rect.get(a)) for a in ("x", "y", "width", "height"))
        area = (area[0], area[1], area[0] + area[2], area[1] + area[3])
        (boxes if group.get("class") == "stage" else tags).append(area)
    return root, boxes, tags


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_pictures_are_well_formed_and_nothing_overlaps(spark, adaptive):
    orders = spark.range(100).selectExpr("id AS o", "id % 7 AS customer")
    customers = spark.range(20).selectExpr("id AS c", "CAST(id % 3 AS INT) AS nation")
    nations = spark.createDataFrame([(0, "FR"), (1, "DE")], "n INT, name STRING")
    df = (orders.join(customers, F.col("customer") == F.col("c"))
          .join(F.broadcast(nations), F.col("nation") == F.col("n"))
          .groupBy("name").count().orderBy("name"))
    graph = planguard._stages.graph(df)
    inputs = sum(len(s.inputs) for s in graph.stages)

    root, boxes, tags = shapes(planguard.explain(df, format="svg"))
    assert len(boxes) == len(graph.stages) and len(tags) == len(graph.stages) - 1
    assert len([p for p in root.iter(f"{SVG}path") if p.get("class") == "edge"]) == inputs
    width, height = float(root.get("width")), float(root.get("height"))
    shapes_ = boxes + tags
    for n, a in enumerate(shapes_):
        assert 0 <= a[0] and a[2] <= width and 0 <= a[1] and a[3] <= height
        assert not any(overlap(a, b) for b in shapes_[n + 1:]), a
    texts = "".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "Stage 1 · shuffle map" in texts and "HashKeys{keys=[customer], partitions=2}" in texts

    dot = planguard.explain(df, format="dot")
    assert dot.startswith("digraph stages {") and dot.rstrip().endswith("}")
    assert dot.count(" -> ") == inputs
    assert dot.count("[label=<<table") == len(graph.stages)

    page = planguard.explain(df, format="html")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "┌ Stage 1" in page
    ET.fromstring(page[page.index("<svg"):page.index("</svg>") + 6])


def test_explain_prints_the_stages_in_order(spark, adaptive, capsys):
    planguard.explain(spark.range(100).selectExpr("id % 10 AS k").groupBy("k").count())
    text = capsys.readouterr().out
    assert text.startswith("planguard: 2 stages")
    assert text.index("┌ Stage 1 · shuffle map") < text.index("┌ Stage 2 · result")
    assert "└ shuffle HashKeys{keys=[k], partitions=2} → stage 2" in text
    assert "  schema: k BIGINT, count BIGINT NOT NULL" in text
    assert "ShuffleRead ◀ stage 1" in text
    with pytest.raises(ValueError, match="Unknown format"):
        planguard.explain(spark.range(1), format="png")


def test_a_broken_plan_raises_its_violation(spark, conf):
    """Reading the stages prepares the plan, so planguard's checks run first (mode fail)."""
    conf("planguard.testing.SwapRootColumns", "true")
    with pytest.raises(planguard.InvariantViolation) as caught:
        planguard.stages(spark.range(5).selectExpr("id AS a", "id * 2 AS b"))
    assert caught.value.invariant == "OPTIMIZER_SCHEMA"
    with pytest.raises(planguard.InvariantViolation):
        planguard.stages("SELECT id AS a, id * 2 AS b FROM range(5)", spark)


WITHOUT_TOOLS = """
from pyspark.sql import SparkSession
import planguard
spark = planguard.configure(SparkSession.builder.master("local[1]")
                            .config("spark.ui.enabled", "false")).getOrCreate()
assert planguard.installed(spark)
try:
    planguard.stages(spark.range(3))
except planguard.ConfigurationError as e:
    print("RAISED", e)
"""


def test_without_the_tools_jar_stages_say_how_to_add_it():
    """The checks' jar alone has no stage tooling: asking for stages says what to add."""
    import os
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", WITHOUT_TOOLS], capture_output=True,
                            text=True, timeout=300,
                            env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert "RAISED" in result.stdout, result.stderr[-3000:]
    assert "planguard.configure(builder, tools=True)" in result.stdout


def test_an_adaptive_partial_aggregate_is_in_its_stage_and_says_what_it_did(spark, adaptive,
                                                                            conf, tmp_path):
    """planguard's planner with adaptive partial aggregation: the shuffle-map stage shows the
    probe under the partial aggregate; run, the aggregate gave up on the unique keys (its
    metrics say how many rows it passed through) and the rows are Spark's."""
    spark.range(0, 4000, 1, 2).selectExpr("id", "id % 3 AS low", "id * 0.5 AS x") \
        .write.parquet(str(tmp_path / "t"))
    table = spark.read.parquet(str(tmp_path / "t"))
    query = table.groupBy("id").agg(F.sum("x").alias("x"), F.count("low").alias("n"))
    expected = sorted(query.collect())
    conf("spark.planguard.planner.enabled", "true")
    conf("spark.planguard.planner.partialAggregation.adaptive", "true")
    conf("spark.planguard.planner.partialAggregation.probeRows", "100")
    conf("spark.sql.parquet.columnarReaderBatchSize", "100")  # a probe decides between batches
    df = table.groupBy("id").agg(F.sum("x").alias("x"), F.count("low").alias("n"))
    first, _ = planguard.stages(df)
    operators = list(first.operators.walk())
    names = [op.name for op in operators]
    # The probe reads the scan's batches: the scan and the aggregate stay one generated stage
    # (the transition above the probe is there once the plan is prepared: adaptive execution's
    # initial plan has none yet).
    assert names[:2] == ["AdaptivePartialAggregate", "HashAggregate"], names
    assert names[-2] == "ProbedInput" and names[-1].startswith("Scan parquet"), names
    assert ("ColumnarToRow" in names) == (not adaptive), names
    assert operators[-2].args == "[id]: probe 100 rows, give up above 0.8 distinct keys per row"
    assert sorted(df.collect()) == expected
    plan = df._jdf.queryExecution().executedPlan()
    text = plan.toString() if not adaptive else plan.finalPhysicalPlan().toString()
    assert "AdaptivePartialAggregate" in text
    metrics = spark._jvm.planguard.testing.PlanMetrics.named(df._jdf, "rows passed through")
    assert metrics == 4000 - 2 * 100, metrics


def test_an_eager_aggregation_says_in_its_stage_what_was_pushed_and_why(spark, adaptive, conf,
                                                                         no_jobs):
    """planguard's planner with eager aggregation: the aggregates computed below the join say
    which functions were pushed, to which side and why."""
    conf("spark.planguard.planner.enabled", "true")
    conf("spark.planguard.planner.eagerAggregation", "always")
    facts = spark.range(40).selectExpr("id % 4 AS k", "id AS v")
    dims = spark.range(8).selectExpr("id % 4 AS k2", "id % 2 AS h")
    df = facts.join(dims, F.col("k") == F.col("k2")).groupBy("h").agg(F.sum("v"))
    pushed = [op.args for stage in planguard.stages(df) for op in stage.operators.walk()
              if "eager aggregation" in op.args]
    assert pushed and all(args.endswith(
        " (eager aggregation: sum(v) computed below the INNER join on its left side, grouped by "
        "k: spark.planguard.planner.eagerAggregation is always (wherever sound))")
        for args in pushed), pushed
