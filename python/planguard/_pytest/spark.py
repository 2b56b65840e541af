"""The ``spark`` fixture of the pytest plugin, registered only while planguard is on, so that it
never shadows another plugin's fixture of the same name in a run that did not ask for it."""
import pytest
from pyspark.sql import SparkSession


@pytest.fixture(scope="session")
def spark():
    """A local SparkSession with planguard, for suites that have no ``spark`` fixture of their
    own: the plugin installs planguard in it like in any other."""
    session = (SparkSession.builder.master("local[2]").appName("pytest-planguard")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    yield session
    session.stop()
