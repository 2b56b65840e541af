"""Builds planguard's jar with sbt (dev/sbt) and bundles it inside the wheel.

Everything else about the package is declared in pyproject.toml.
"""
import glob
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithJar(build_py):
    """Runs `dev/sbt package` and copies the jar to planguard/jars/ in the build tree."""

    def run(self):
        super().run()
        subprocess.check_call(["bash", os.path.join(ROOT, "dev", "sbt"), "package"], cwd=ROOT)
        jars = [j for j in glob.glob(os.path.join(ROOT, "target", "planguard-*.jar"))
                if not j.endswith("-tests.jar")]
        if len(jars) != 1:
            raise RuntimeError(f"expected one planguard jar in target/, found {jars}")
        destination = os.path.join(self.build_lib, "planguard", "jars")
        os.makedirs(destination, exist_ok=True)
        for old in glob.glob(os.path.join(destination, "*.jar")):
            os.remove(old)
        shutil.copy2(jars[0], destination)


setup(cmdclass={"build_py": BuildPyWithJar})
