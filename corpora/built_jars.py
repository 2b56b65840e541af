"""The test jar `dev/sbt Test/package` builds for the installed pyspark's Spark line (the line
whose planguard jar the package takes, planguard._jar.line_for): deliberately broken rules, in
target/spark-<line>/planguard-tests-spark<line>_<scala>.jar. The tests and benchmarks load it."""
import pathlib
import re

import pyspark

from planguard._jar import line_for

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINE = line_for(pyspark.__version__)
_SCALA = "2.12" if LINE == "3.5" else "2.13"  # Spark 3.5 runs Scala 2.12, Spark 4 runs 2.13
TESTS_JAR = ROOT / "target" / f"spark-{LINE}" / f"planguard-tests-spark{LINE}_{_SCALA}.jar"
BUILD_TESTS_JAR = f"dev/sbt -Dspark.line={LINE} Test/package"
# The line the development environment and CI's full tier run (build.sbt's defaultLine).
DEFAULT_LINE = re.search(r'val defaultLine = "([^"]+)"', (ROOT / "build.sbt").read_text()).group(1)
