"""planguard.configure on a builder: merging, no duplicates, validation. No session is started."""
import pytest
from pyspark.sql import SparkSession

import planguard


def test_package_exposes_the_extension_class_and_the_jar():
    assert planguard.EXTENSION_CLASS == "planguard.PlanGuardExtensions"
    jar = planguard.jar_path()
    assert jar.endswith(".jar") and jar.startswith("/")
    import zipfile
    names = zipfile.ZipFile(jar).namelist()
    assert "planguard/PlanGuardExtensions.class" in names
    # Spark is provided: only planguard's classes (accessors to what Spark keeps private live in
    # planguard sub-packages of Spark's packages).
    classes = [n for n in names if n.endswith(".class")]
    assert classes and all(n.startswith(("planguard/", "org/apache/spark/sql/planguard/",
                                         "org/apache/spark/sql/execution/planguard/"))
                           for n in classes)


def test_configure_keeps_existing_extensions_and_jars_and_adds_once():
    builder = (SparkSession.builder
               .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
               .config("spark.jars", "/opt/other.jar"))
    assert planguard.configure(builder) is builder
    planguard.configure(builder, mode="warn")
    options = builder._options
    assert options["spark.sql.extensions"] == \
        "io.delta.sql.DeltaSparkSessionExtension,planguard.PlanGuardExtensions"
    assert options["spark.jars"] == "/opt/other.jar," + planguard.jar_path()
    assert options["spark.planguard.mode"] == "warn"


def test_the_tools_are_a_jar_of_their_own_added_only_when_asked_for():
    import zipfile

    def packages(jar):
        return {"/".join(n.split("/")[:2]) for n in zipfile.ZipFile(jar).namelist()
                if n.startswith("planguard/") and n.endswith(".class")}

    assert {"planguard/stages", "planguard/statements"} & packages(planguard.jar_path()) == set()
    assert packages(planguard.tools_jar_path()) == {"planguard/stages", "planguard/statements"}
    builder = planguard.configure(SparkSession.builder)
    assert builder._options["spark.jars"] == planguard.jar_path()
    planguard.configure(builder, tools=True)
    planguard.configure(builder, tools=True)
    assert builder._options["spark.jars"] == \
        planguard.jar_path() + "," + planguard.tools_jar_path()


def test_the_planner_is_listed_only_when_asked_for():
    builder = planguard.configure(SparkSession.builder)
    assert planguard.PLANNER_EXTENSION_CLASS not in builder._options["spark.sql.extensions"]
    planguard.configure(builder, planner=True)
    planguard.configure(builder, planner=True, **{"planner.enabled": False})
    assert builder._options["spark.sql.extensions"] == \
        "planguard.PlanGuardExtensions,planguard.planner.PlanGuardPlannerExtensions"
    assert builder._options["spark.planguard.planner.enabled"] == "false"
    with pytest.raises(ValueError, match="configure\\(builder, planner=True\\) installs it"):
        planguard.configure(SparkSession.builder, **{"planner.enabled": True})


def test_configure_lists_the_explain_provider_when_asked_once_keeping_the_users():
    """EXPLAIN's planguard section (Spark 4): not by default (Spark would add it to every
    EXPLAIN); with explain=True appended to the providers listed, never twice, and a class the
    jar of the installed pyspark's line has."""
    import zipfile

    key = "spark.sql.extendedExplainProviders"
    builder = SparkSession.builder.config(key, "com.example.Explain")
    planguard.configure(builder)
    assert builder._options[key] == "com.example.Explain"
    planguard.configure(builder, explain=True)
    planguard.configure(builder, mode="warn", explain=True)
    assert builder._options[key] == "com.example.Explain," + planguard.EXPLAIN_CLASS
    builder._options.pop(key)
    assert planguard.EXPLAIN_CLASS.replace(".", "/") + ".class" in \
        zipfile.ZipFile(planguard.jar_path()).namelist()


def test_importing_planguard_changes_nothing_in_pyspark():
    """The error conversion is installed by configure (or install_error_conversion), not by an
    import: a process that imports planguard and never configures it keeps PySpark as it was."""
    import subprocess
    import sys

    script = (
        "from pyspark.errors.exceptions import captured\n"
        "from pyspark.sql import SparkSession, DataFrame\n"
        "before = (captured.convert_exception, SparkSession.Builder.getOrCreate,\n"
        "          DataFrame.mapInArrow, SparkSession.createDataFrame)\n"
        "import planguard, planguard.arrow, planguard.testing\n"
        "after = (captured.convert_exception, SparkSession.Builder.getOrCreate,\n"
        "         DataFrame.mapInArrow, SparkSession.createDataFrame)\n"
        "assert before == after, 'import changed PySpark'\n"
        "from pyspark.sql.connect.client import core\n"
        "connect = core.convert_exception\n"
        "assert not hasattr(connect, '_planguard')\n"
        "planguard.install_error_conversion()\n"
        "planguard.install_error_conversion()\n"
        "assert captured.convert_exception is not before[0]\n"
        "assert captured.convert_exception._planguard\n"
        "assert core.convert_exception is not connect\n"
        "assert core.convert_exception._planguard\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_error_conversion_installs_without_a_spark_connect_client():
    """Where the Spark Connect client cannot load (grpcio missing, here), the classic conversion
    is installed all the same."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "sys.modules['grpc'] = None  # import grpc fails, as without grpcio\n"
        "from pyspark.errors.exceptions import captured\n"
        "import planguard\n"
        "planguard.install_error_conversion()\n"
        "assert captured.convert_exception._planguard\n"
        "assert 'pyspark.sql.connect.client.core' not in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_configure_sets_confs_with_or_without_prefix():
    builder = SparkSession.builder
    planguard.configure(builder, enabled=False, **{"check.OPTIMIZER_SCHEMA": "off",
                                                  "spark.planguard.internalErrors": "fail"})
    assert builder._options["spark.planguard.enabled"] == "false"
    assert builder._options["spark.planguard.check.OPTIMIZER_SCHEMA"] == "off"
    assert builder._options["spark.planguard.internalErrors"] == "fail"
    planguard.configure(builder, **{"batchSchema.every": 50})
    assert builder._options["spark.planguard.batchSchema.every"] == "50"
    planguard.configure(builder, **{"planner.partialAggregation.skipRatio": 0.95})
    assert builder._options["spark.planguard.planner.partialAggregation.skipRatio"] == "0.95"


@pytest.mark.parametrize("kwargs,message", [
    ({"mode": "fial"}, "spark.planguard.mode: allowed values are fail, warn, off"),
    ({"enabled": "maybe"}, "spark.planguard.enabled: allowed values are true, false"),
    ({"mdoe": "warn"}, "Unknown planguard conf 'spark.planguard.mdoe'"),
    ({"batchSchema.every": "0"}, "spark.planguard.batchSchema.every: allowed values are "
                                 "<positive integer>"),
    ({"batchSchema.scope": "all"}, "spark.planguard.batchSchema.scope: allowed values are root"),
    ({"planner.partialAggregation.skipRatio": "1.5"},
     "spark.planguard.planner.partialAggregation.skipRatio: allowed values are <fraction between "
     "0 and 1>"),
    ({"planner.partialAggregation.skipRatio": "most"}, "skipRatio: allowed values are <fraction"),
])
def test_configure_rejects_invalid_confs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        planguard.configure(SparkSession.builder, **kwargs)
