"""The project's own promises: one Spark version everywhere, docs that list every conf, docs
tables written by their generator."""
import json
import pathlib
import re
import subprocess
import sys
import zipfile

import pyspark

import planguard

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_spark_version_is_pinned_once_and_installed():
    sbt = re.search(r'val sparkVersion = "([^"]+)"', (ROOT / "build.sbt").read_text()).group(1)
    pin = re.search(r'"pyspark==([^"]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert sbt == pin == pyspark.__version__
    assert sbt.startswith("4.0.")


def test_every_conf_is_documented_with_its_default():
    confs = json.loads(zipfile.ZipFile(planguard.jar_path()).read("planguard/confs.json"))
    for doc in ["README.md", "docs/configuration.md"]:
        text = (ROOT / doc).read_text()
        for key, entry in confs.items():
            assert f"`{key}`" in text, f"{doc} does not mention {key}"
            assert f"`{entry['default']}`" in text, f"{doc} lacks {key}'s default"


def test_generated_docs_are_what_their_generator_writes():
    """The conf tables of README.md and docs/configuration.md are written from confs.json by
    dev/gen_docs.py."""
    run = subprocess.run([sys.executable, str(ROOT / "dev" / "gen_docs.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr + "run dev/gen_docs.py to rewrite them"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "./dev/test" in readme and "./dev/demo" in readme
    assert "exec ./dev/test" in (ROOT / ".ci" / "run").read_text()


def test_every_invariant_is_documented_with_an_example_error():
    """An invariant is an error condition of planguard's jar that is not about planguard's own
    input (confs, hints): each has a section in docs/invariants.md, an example error in it, and a
    row in README.md's table."""
    conditions = json.loads(zipfile.ZipFile(planguard.jar_path())
                            .read("planguard/error-conditions.json"))
    invariants = [c.removeprefix("PLANGUARD_") for c in conditions
                  if c not in ("PLANGUARD_INVALID_CONF", "PLANGUARD_INVALID_HINT")]
    assert len(invariants) >= 8
    docs = (ROOT / "docs" / "invariants.md").read_text()
    readme = (ROOT / "README.md").read_text()
    for invariant in invariants:
        section = docs.split(f"\n## {invariant}\n")[1].split("\n## ")[0]
        assert f"[PLANGUARD_{invariant}]" in section, f"no example error for {invariant}"
        assert f"| `{invariant}` |" in readme, f"README.md's table lacks {invariant}"


def _package_imports() -> dict:
    """{package of planguard's Scala sources: the other packages of planguard they import};
    the root package (the extensions, the session registry) is "planguard"."""
    found = {}
    sources = [s for tree in ("src", "tools/src", "demo/src")
               for s in (ROOT / "jvm" / tree / "main").rglob("*.scala")]
    for source in sources:
        text = source.read_text()
        package = re.search(r"^package (planguard(?:\.\w+)?)$", text, re.M)
        if package is None:
            continue  # Spark's packages (accessors to what Spark keeps private)
        imported = {("planguard." + sub) if sub else "planguard" for sub in
                    re.findall(r"^import planguard\.(?:([a-z]\w*)\b|[A-Z{])", text, re.M)}
        found.setdefault(package.group(1), set()).update(imported - {package.group(1)})
    return found


def test_packages_have_no_cycles():
    graph = _package_imports()
    assert {"planguard", "planguard.checks", "planguard.rules", "planguard.contract",
            "planguard.stages", "planguard.statements"} <= graph.keys()
    # Only the extensions' entry points sit in the root package: no package imports it but the
    # planner's extension (AppliedOnce).
    assert [p for p, imported in graph.items() if "planguard" in imported] == \
        ["planguard.planner"]
    done, path = set(), []

    def visit(package):
        assert package not in path, f"package cycle: {' -> '.join(path + [package])}"
        if package in done:
            return
        path.append(package)
        for other in sorted(graph.get(package, ())):
            visit(other)
        path.pop()
        done.add(package)

    for package in sorted(graph):
        visit(package)


def test_the_installed_package_declares_its_type_hints():
    """PEP 561: py.typed in the installed package, so that type checkers read planguard's hints."""
    assert (pathlib.Path(planguard.__file__).parent / "py.typed").is_file()


def test_every_public_function_is_documented_and_typed():
    """Every function a user calls (planguard's names, planguard.arrow's and planguard.testing's)
    has a docstring, and annotates each parameter and its result."""
    import inspect

    import planguard.arrow
    import planguard.testing

    missing = []
    for module in (planguard, planguard.arrow, planguard.testing):
        names = getattr(module, "__all__", None) or [n for n in vars(module) if n[0] != "_"]
        for name in names:
            value = getattr(module, name)
            if not inspect.isfunction(value) or not value.__module__.startswith("planguard"):
                continue
            signature = inspect.signature(value)
            if not (value.__doc__ or "").strip():
                missing.append(f"{module.__name__}.{name}: no docstring")
            missing += [f"{module.__name__}.{name}({parameter}): no annotation"
                        for parameter, p in signature.parameters.items()
                        if p.annotation is inspect.Parameter.empty]
            if signature.return_annotation is inspect.Signature.empty:
                missing.append(f"{module.__name__}.{name}: no return annotation")
    assert missing == [], missing


def test_the_lazily_imported_names_agree_in_all_three_lists():
    """planguard's names that need pyspark are imported on first use: each name its lazy map
    lists exists in its module, the TYPE_CHECKING imports (for type checkers) import exactly
    those names, and __all__ (a literal list, as type checkers read it) names exactly them and
    the names planguard imports without pyspark."""
    import ast

    source = pathlib.Path(planguard.__file__).read_text()
    type_checking = next(node for node in ast.parse(source).body
                         if isinstance(node, ast.If) and getattr(node.test, "id", "") ==
                         "TYPE_CHECKING")
    imported = {alias.name: node.module for node in type_checking.body
                for alias in node.names}
    assert imported == {name: f"planguard.{module}"
                        for name, module in planguard._WITH_PYSPARK.items()}
    assert sorted(planguard.__all__) == sorted(
        ["ConfigurationError", "jar_path", "tools_jar_path", *planguard._WITH_PYSPARK])
    assert all(getattr(planguard, name) is not None for name in planguard.__all__)
