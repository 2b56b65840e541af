"""Reruns the order-dependent checks with planguard listed after the broken rules.

In CI, the legal Delta and Parquet workloads (DML, writes) are left to the first order: with the
broken rules off, where planguard is listed among them changes nothing for those; `dev/test full`
reruns them too."""
import os
import subprocess
import sys

from conftest import FULL, ROOT

SELECTION = [] if FULL else [
    "-k", "not delta_dml and not delta_table_features and not legal_delta_and_parquet_writes"]


def test_checks_hold_with_planguard_listed_last():
    env = dict(os.environ, PLANGUARD_TEST_ORDER="last")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(ROOT / "tests" / "test_checks.py")] + SELECTION,
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
