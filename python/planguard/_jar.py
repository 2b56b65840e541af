"""The jars bundled inside the wheel, one set per Spark line: planguard's, the tools' and the
demo's, in planguard/jars/spark-<line>/, and which line's set a Spark version takes."""
import functools
import glob
import json
import os
import re
import warnings
import zipfile
from typing import List, Optional

from planguard._configuration_error import ConfigurationError

_JARS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")


def spark_lines() -> List[str]:
    """The Spark lines whose jars this package bundles, oldest first: ``["3.5", "4.0", ...]``."""
    found = [os.path.basename(d)[len("spark-"):] for d in glob.glob(os.path.join(_JARS, "spark-*"))]
    if not found:
        raise FileNotFoundError(f"planguard's jars are missing from {_JARS}; reinstall planguard "
                                "with `pip install .` from a checkout")
    return sorted(found, key=_numbers)


def line_for(spark_version: str) -> str:
    """The line whose jars run on Spark ``spark_version`` ("4.1.4", "4.1", "3.5.1-amzn-0"): its
    own line; the newest line for a newer Spark (with a warning: its checks run, its planner
    does not); ConfigurationError for a Spark older than every line, or between two."""
    wanted = ".".join(re.split(r"[.-]", spark_version)[:2])
    lines = spark_lines()
    if wanted in lines:
        return wanted
    try:
        newer = _numbers(wanted) > _numbers(lines[-1])
    except ValueError:
        raise ConfigurationError(f"{spark_version!r} is not a Spark version; planguard has jars "
                                 f"for Spark {', '.join(lines)}") from None
    if newer:
        warnings.warn(f"planguard has no jar built for Spark {wanted}: Spark {spark_version} "
                      f"takes the jar of Spark {lines[-1]}, the newest line planguard builds for. "
                      "Its checks run; its planner installs nothing on a newer line.",
                      stacklevel=3)
        return lines[-1]
    raise ConfigurationError(f"planguard supports Spark {', '.join(lines)}, not Spark "
                             f"{spark_version}: upgrade Spark, or run without planguard")


def running_line() -> str:
    """The line of the installed pyspark, whose jars a session started from Python needs."""
    try:
        import pyspark
    except ImportError:
        raise ConfigurationError("pyspark is not installed, so planguard cannot tell which "
                                 "Spark line's jar to use: install pyspark, or name the line "
                                 "(`planguard jar --spark 4.1`)") from None
    return line_for(pyspark.__version__)


def jar_path(spark: Optional[str] = None) -> str:
    """The absolute path of planguard's jar for Spark ``spark`` (a line, "4.1", or a version,
    "4.1.4"); by default for the installed pyspark's line."""
    return _bundled(spark, "planguard-spark", "planguard's jar")


def tools_jar_path(spark: Optional[str] = None) -> str:
    """The absolute path of the tools' jar (``planguard.stages``, ``planguard.explain``,
    ``planguard check``) for Spark ``spark``, by default the installed pyspark's: add it to
    ``spark.jars`` beside :func:`jar_path` to use them in a session (``configure(builder,
    tools=True)`` does)."""
    return _bundled(spark, "planguard-tools-", "planguard's tools jar")


def demo_jar_path(spark: Optional[str] = None) -> str:
    """The absolute path of the demo's jar: the deliberately broken optimizer rule that
    ``planguard demo`` installs. Never put it on a real session's classpath."""
    return _bundled(spark, "planguard-demo-", "planguard's demo jar")


def _bundled(spark: Optional[str], prefix: str, what: str) -> str:
    line = running_line() if spark is None else line_for(spark)
    where = os.path.join(_JARS, f"spark-{line}")
    jars = glob.glob(os.path.join(where, prefix + "*.jar"))
    if len(jars) != 1:
        raise FileNotFoundError(f"{what} for Spark {line} is missing from {where} (found "
                                f"{jars}); reinstall planguard with `pip install .` from a "
                                "checkout")
    return jars[0]


def _numbers(line: str):
    return tuple(int(part) for part in line.split("."))


@functools.lru_cache(maxsize=None)
def resource(path: str):
    """A JSON file of the jar, read once: what the JVM declares, for Python to read the same.
    Every line's jar holds the same files: this reads the newest line's, so that it needs no
    pyspark."""
    with zipfile.ZipFile(jar_path(spark_lines()[-1])) as jar:
        return json.loads(jar.read(path))


def declared_confs() -> dict:
    """The confs declared in the jar's planguard/confs.json: key -> {default, allowed, doc}."""
    return resource("planguard/confs.json")
