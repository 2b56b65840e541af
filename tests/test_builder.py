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


def test_configure_sets_confs_with_or_without_prefix():
    builder = SparkSession.builder
    planguard.configure(builder, enabled=False, **{"check.OPTIMIZER_SCHEMA": "off",
                                                  "spark.planguard.internalErrors": "fail"})
    assert builder._options["spark.planguard.enabled"] == "false"
    assert builder._options["spark.planguard.check.OPTIMIZER_SCHEMA"] == "off"
    assert builder._options["spark.planguard.internalErrors"] == "fail"
    planguard.configure(builder, **{"batchSchema.every": 50})
    assert builder._options["spark.planguard.batchSchema.every"] == "50"


@pytest.mark.parametrize("kwargs,message", [
    ({"mode": "fial"}, "spark.planguard.mode: allowed values are fail, warn, off"),
    ({"enabled": "maybe"}, "spark.planguard.enabled: allowed values are true, false"),
    ({"mdoe": "warn"}, "Unknown planguard conf 'spark.planguard.mdoe'"),
    ({"batchSchema.every": "0"}, "spark.planguard.batchSchema.every: allowed values are "
                                 "<positive integer>"),
    ({"batchSchema.scope": "all"}, "spark.planguard.batchSchema.scope: allowed values are root"),
])
def test_configure_rejects_invalid_confs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        planguard.configure(SparkSession.builder, **kwargs)
