"""`planguard demo`, as README's first command runs it."""
import subprocess
import sys
import pathlib


def test_demo_passes_its_queries_and_catches_the_broken_rule():
    planguard = pathlib.Path(sys.executable).parent / "planguard"
    result = subprocess.run([str(planguard), "demo"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.count("   ok  ") == 5
    assert "caught in fail mode: OPTIMIZER_SCHEMA in phase optimization" in result.stdout
    assert "broken by planguard.demo.ReverseRootColumns" in result.stdout
    assert "[PLANGUARD_OPTIMIZER_SCHEMA]" in result.stderr  # warn mode: one line
    assert result.stderr.count("WARN planguard") == 1


def test_the_demo_rule_is_not_in_planguards_jar():
    import zipfile

    import planguard
    from planguard._jar import demo_jar_path

    with zipfile.ZipFile(planguard.jar_path()) as jar:
        assert [n for n in jar.namelist() if n.startswith("planguard/demo/")] == []
    with zipfile.ZipFile(demo_jar_path()) as jar:
        assert "planguard/demo/BrokenRuleDemoExtension.class" in jar.namelist()
