"""The project's optimizer extension (here planguard's deliberately broken SwapRootColumns rule, from
the jar BROKEN_RULE_JAR names) on pytest-spark's session: its jar added to pytest-spark's options
once pytest-spark has read them from pytest.ini. Nothing here knows planguard."""
import os

import pytest
from pytest_spark.config import SparkConfigBuilder


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    if os.environ.get("BROKEN_RULE_JAR"):
        SparkConfigBuilder.get().set("spark.jars", os.environ["BROKEN_RULE_JAR"])
