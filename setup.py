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
    """Runs `dev/sbt package` and copies planguard's jar to planguard/jars/ in the build tree, the
    tools' jar (stages, explain, check) to planguard/jars/tools/, and the demo's jar (its
    deliberately broken rule, for `planguard demo` alone) to planguard/jars/demo/."""

    def run(self):
        super().run()
        subprocess.check_call(["bash", os.path.join(ROOT, "dev", "sbt"), "package"], cwd=ROOT)
        version = self.distribution.get_version()  # sbt names the jars with the same version
        for jar, folder in ((f"planguard-{version}.jar", "jars"),
                            (f"planguard-tools-{version}.jar", os.path.join("jars", "tools")),
                            (f"planguard-demo-{version}.jar", os.path.join("jars", "demo"))):
            source = os.path.join(ROOT, "target", jar)
            if not os.path.exists(source):
                raise RuntimeError(f"`dev/sbt package` did not produce {source}")
            destination = os.path.join(self.build_lib, "planguard", folder)
            os.makedirs(destination, exist_ok=True)
            for old in glob.glob(os.path.join(destination, "*.jar")):
                os.remove(old)
            shutil.copy2(source, destination)


setup(cmdclass={"build_py": BuildPyWithJar})
