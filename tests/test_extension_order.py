"""Reruns the order-dependent checks with planguard listed after the broken rules."""
import os
import subprocess
import sys

from conftest import ROOT


def test_checks_hold_with_planguard_listed_last():
    env = dict(os.environ, PLANGUARD_TEST_ORDER="last")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(ROOT / "tests" / "test_checks.py")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
