"""Builds planguard's jars with sbt (dev/sbt), one set per Spark line, and bundles them inside the
wheel.

Everything else about the package is declared in pyproject.toml.
"""
import glob
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def spark_lines():
    """The lines build.sbt builds for (its `sparkLines`), or those PLANGUARD_SPARK_LINES names
    ("4.0" or "3.5,4.1": a quicker build for development; a wheel for users has every line)."""
    with open(os.path.join(ROOT, "build.sbt")) as build:
        lines = re.findall(r'SparkLine\("([^"]+)"', build.read())
    wanted = os.environ.get("PLANGUARD_SPARK_LINES")
    if not wanted:
        return lines
    chosen = [line.strip() for line in wanted.split(",")]
    unknown = sorted(set(chosen) - set(lines))
    if unknown:
        raise RuntimeError(f"PLANGUARD_SPARK_LINES names {unknown}; build.sbt builds {lines}")
    return chosen


class BuildPyWithJars(build_py):
    """For each Spark line, runs `dev/sbt -Dspark.line=<line> package` and copies the line's jars
    from target/spark-<line>/ to planguard/jars/spark-<line>/ in the build tree: planguard's, the
    tools' (stages, explain, check) and the demo's (its deliberately broken rule, for
    `planguard demo` alone)."""

    def run(self):
        super().run()
        jars = os.path.join(self.build_lib, "planguard", "jars")
        shutil.rmtree(jars, ignore_errors=True)
        version = self.distribution.get_version()  # sbt names the jars with the same version
        for line in spark_lines():
            subprocess.check_call(["bash", os.path.join(ROOT, "dev", "sbt"),
                                   f"-Dspark.line={line}", "package"], cwd=ROOT)
            built = os.path.join(ROOT, "target", f"spark-{line}")
            found = [jar for pattern in (f"planguard-spark{line}_*-{version}.jar",
                                         f"tools/planguard-tools-spark{line}_*-{version}.jar",
                                         f"demo/planguard-demo-spark{line}_*-{version}.jar")
                     for jar in glob.glob(os.path.join(built, pattern))]
            if len(found) != 3:
                raise RuntimeError(f"`dev/sbt -Dspark.line={line} package` did not produce the "
                                   f"line's three jars in {built} (found {found})")
            destination = os.path.join(jars, f"spark-{line}")
            os.makedirs(destination)
            for jar in found:
                shutil.copy2(jar, destination)


setup(cmdclass={"build_py": BuildPyWithJars})
