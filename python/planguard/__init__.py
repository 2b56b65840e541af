"""planguard: checks Spark's planning contracts on every query.

Install it into a SparkSession builder with :func:`configure`; every query the session runs is
then checked before it produces a row or writes a file, and a broken contract raises
:class:`InvariantViolation`.
"""
from planguard._errors import BatchSchemaViolation, ConfigurationError, InvariantViolation
from planguard._jar import jar_path
from planguard._session import EXTENSION_CLASS, configure, installed, violations

__all__ = [
    "BatchSchemaViolation",
    "EXTENSION_CLASS",
    "ConfigurationError",
    "InvariantViolation",
    "configure",
    "installed",
    "jar_path",
    "violations",
]
__version__ = "0.1.0"
