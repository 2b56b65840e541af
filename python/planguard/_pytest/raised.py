"""The violations PySpark raises that no session's report holds: BATCH_SCHEMA, found where the
rows are produced (in tasks, in Python workers), phase ``execution``. A session's report
(``planguard.violations``) has every other violation, each level; these are only ever raised, so
the pytest plugin sees them as they are converted to Python exceptions (docs/pytest.md)."""
import functools

from pyspark.errors.exceptions import captured

from planguard._errors import InvariantViolation, install_error_conversion

# The one phase whose violations are raised without being reported to the session: the JVM's
# BatchSampler throws them from the task, a Python worker raises them (planguard.arrow).
UNREPORTED_PHASE = "execution"


class Raised:
    """While it is installed: the violations of phase execution that PySpark's error conversion
    raised since the last ``take``."""

    def __init__(self):
        install_error_conversion()
        self._original = captured.convert_exception
        self._raised = []

        # wraps copies `_planguard` from the conversion it wraps: install_error_conversion, called
        # again by planguard.configure, leaves this one in place.
        @functools.wraps(self._original)
        def convert_exception(e):
            converted = self._original(e)
            if isinstance(converted, InvariantViolation) and converted.phase == UNREPORTED_PHASE:
                self._raised.append(converted)
            return converted

        captured.convert_exception = convert_exception

    def uninstall(self):
        captured.convert_exception = self._original

    def take(self) -> list:
        taken, self._raised = self._raised, []
        return taken
