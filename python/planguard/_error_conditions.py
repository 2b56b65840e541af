"""planguard's error conditions, read from the jar's ``planguard/error-conditions.json``, where
the JVM's errors read them too (``planguard.errors.PlanGuardErrors``): an error Python raises
itself (BATCH_SCHEMA at the Arrow boundary) has the JVM's message and SQLSTATE."""
import re

from planguard._jar import resource

_PARAMETER = re.compile(r"<([A-Za-z0-9_]+)>")


def _conditions() -> dict:
    return resource("planguard/error-conditions.json")


def message(condition: str, parameters: dict) -> str:
    """``[CONDITION] message``, its lines joined and each ``<parameter>`` filled in, as Spark
    formats the JVM's (``ErrorClassesJsonReader``). The parameters must be exactly the
    template's: one more or less is a bug here, not a message with a hole."""
    template = "\n".join(_conditions()[condition]["message"])
    named = set(_PARAMETER.findall(template))
    if named != set(parameters):
        raise ValueError(f"{condition} takes the parameters {sorted(named)}, "
                         f"not {sorted(parameters)}")
    return f"[{condition}] " + _PARAMETER.sub(lambda m: parameters[m.group(1)], template)


def sql_state(condition: str) -> str:
    return _conditions()[condition]["sqlState"]
