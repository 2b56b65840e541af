"""The error for planguard configured as it cannot be: apart from planguard's other errors (which
need PySpark's error classes), so that choosing a jar needs nothing else."""


class ConfigurationError(RuntimeError):
    """planguard cannot be configured as asked (e.g. a session is already running, or no jar of
    planguard's fits the Spark that runs)."""
