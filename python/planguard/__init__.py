"""planguard: checks Spark's planning contracts on every query.

Install it into a SparkSession builder with :func:`configure`; every query the session runs is
then checked before it produces a row or writes a file, and a broken contract raises
:class:`InvariantViolation`. Importing planguard changes nothing in PySpark: :func:`configure`
(or :func:`install_error_conversion`, where planguard is installed another way) does.
"""
import importlib
from typing import TYPE_CHECKING

from planguard._configuration_error import ConfigurationError
from planguard._jar import jar_path, tools_jar_path

if TYPE_CHECKING:
    from planguard._errors import BatchSchemaViolation, InvariantViolation, install_error_conversion
    from planguard._explain import explain
    from planguard._session import (EXPLAIN_CLASS, EXTENSION_CLASS, PLANNER_EXTENSION_CLASS,
                                    configure, installed, violation_count, violations)
    from planguard._stages import Input, Operator, Partitioning, Stage, stages

# The rest needs pyspark, which planguard does not depend on (platforms bring their own): each
# name is imported from its module on first use, so that jar_path() and `planguard jar` work where
# no pyspark is installed (staging the jars for a cluster).
_WITH_PYSPARK = {
    "BatchSchemaViolation": "_errors", "InvariantViolation": "_errors",
    "install_error_conversion": "_errors", "explain": "_explain",
    "EXPLAIN_CLASS": "_session", "EXTENSION_CLASS": "_session",
    "PLANNER_EXTENSION_CLASS": "_session", "configure": "_session", "installed": "_session",
    "violation_count": "_session", "violations": "_session",
    "Input": "_stages", "Operator": "_stages", "Partitioning": "_stages", "Stage": "_stages",
    "stages": "_stages",
}


def __getattr__(name: str):
    module = _WITH_PYSPARK.get(name)
    if module is None:
        raise AttributeError(f"module 'planguard' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(f"planguard.{module}"), name)
    except ImportError as e:
        raise ImportError(f"planguard.{name} needs pyspark, which is not installed: install the "
                          "pyspark of your Spark (or pip install 'planguard[pyspark]')") from e
    globals()[name] = value
    return value


# A literal list, as type checkers read it (they take a py.typed package's imports as private
# unless __all__ names them); tests/test_project.py holds it to the names above.
__all__ = [
    "BatchSchemaViolation",
    "EXPLAIN_CLASS",
    "EXTENSION_CLASS",
    "ConfigurationError",
    "InvariantViolation",
    "Input",
    "Operator",
    "PLANNER_EXTENSION_CLASS",
    "Partitioning",
    "Stage",
    "configure",
    "explain",
    "install_error_conversion",
    "installed",
    "jar_path",
    "stages",
    "tools_jar_path",
    "violation_count",
    "violations",
]
__version__ = "0.1.0"
