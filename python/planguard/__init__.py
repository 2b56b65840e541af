"""planguard: checks Spark's planning contracts on every query.

Install it into a SparkSession builder with :func:`configure`; every query the session runs is
then checked before it produces a row or writes a file, and a broken contract raises
:class:`InvariantViolation`. Importing planguard changes nothing in PySpark: :func:`configure`
(or :func:`install_error_conversion`, where planguard is installed another way) does.
"""
from planguard._configuration_error import ConfigurationError
from planguard._errors import BatchSchemaViolation, InvariantViolation, install_error_conversion
from planguard._explain import explain
from planguard._jar import jar_path, tools_jar_path
from planguard._session import (EXPLAIN_CLASS, EXTENSION_CLASS, PLANNER_EXTENSION_CLASS, configure,
                                installed, violation_count, violations)
from planguard._stages import Input, Operator, Partitioning, Stage, stages

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
