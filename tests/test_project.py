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


# A JVM source's package: planguard's (`planguard`, `planguard.rules`, ...) or one of planguard's
# inside Spark's (`org.apache.spark.sql.planguard.ui`: accessors to what Spark keeps private).
_PACKAGE = re.compile(
    r"^package ((?:org\.apache\.spark\.sql\.(?:\w+\.)*)?planguard(?:\.\w+)*);?$", re.M)
# What names no package: comments, string and character literals, access qualifiers
# (`private[planguard]`).
_NOT_CODE = re.compile(r"""//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])'|"{3}.*?"{3}|"(?:\\.|[^"\\\n])*"|"""
                       r"(?:private|protected)\[\w+\]", re.S)
# A name of planguard's, imported or written out in code (`planguard.report.Violations`).
_REFERENCE = re.compile(
    r"(?<![\w.])(?:_root_\.)?((?:org\.apache\.spark\.sql\.(?:\w+\.)*)?planguard(?:\.\w+)*)")


def _package_imports() -> dict:
    """{package of planguard's JVM sources: the other packages of planguard its files import or
    name in full}, over the main sources of every jar and every Spark line's folder (Scala and
    Java); the root package (the extensions, the session registry) is "planguard"."""
    code = {source: _NOT_CODE.sub(" ", source.read_text())
            for tree in ("src", "tools/src", "demo/src")
            for source in (ROOT / "jvm" / tree / "main").rglob("*")
            if source.suffix in (".scala", ".java")}
    packages = {source: _PACKAGE.search(text).group(1) for source, text in code.items()}
    found = {package: set() for package in packages.values()}
    for source, text in code.items():
        for name in _REFERENCE.findall(_PACKAGE.sub(" ", text)):
            parts = name.split(".")
            # the longest package the name starts with: planguard.report.Violations is report's
            package = next((".".join(parts[:n]) for n in range(len(parts), 0, -1)
                            if ".".join(parts[:n]) in found), None)
            if package is not None and package != packages[source]:
                found[packages[source]].add(package)
    return found


def _package_table() -> dict:
    """{package: the packages it may depend on}, docs/architecture.md's package table."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("\n| package | what it is | may depend on |\n|---|---|---|\n")[1]

    def package(cell):
        name = re.sub(r"\(.*?\)", "", cell).strip().strip("`")
        return ("planguard" if name in ("root", "planguard") else
                name if name.startswith("org.") else "planguard." + name)

    rows = {}
    for row in table.split("\n\n")[0].splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        depends = re.sub(r"\(.*?\)", "", cells[2])
        rows[package(cells[0])] = {package(d) for d in depends.split(",") if d.strip() != "—"}
    return rows


def test_each_package_depends_on_what_its_row_says():
    """docs/architecture.md's package table is the package graph: every package a row, and a row
    lists the packages it imports, no more, no fewer."""
    graph, table = _package_imports(), _package_table()
    assert {"planguard", "planguard.checks", "planguard.rules", "planguard.contract",
            "planguard.stages", "planguard.statements", "planguard.shims",
            "org.apache.spark.sql.planguard.ui"} <= graph.keys()
    wrong = {package: {"imports, not in its row": sorted(graph.get(package, set()) - allowed),
                       "in its row, not imported": sorted(allowed - graph.get(package, set()))}
             for package, allowed in table.items() if graph.get(package) != allowed}
    wrong.update({package: "no row" for package in graph.keys() - table.keys()})
    wrong.update({package: "a row, no source" for package in table.keys() - graph.keys()})
    assert not wrong, "docs/architecture.md's package table is not the imports:\n" + \
        "\n".join(f"{package}: {why}" for package, why in sorted(wrong.items()))


def test_packages_have_no_cycles():
    graph = _package_imports()
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
    # Only the extensions' entry points sit in the root package: no package imports it but the
    # planner's extension (AppliedOnce).
    assert [p for p, imported in graph.items() if "planguard" in imported] == \
        ["planguard.planner"]


def test_the_checks_report_nothing():
    """A check returns what it found (a Departure) and reports nothing: no package of checks
    reaches `report`, through any package."""
    graph = _package_imports()

    def reached(package, seen):
        for other in graph.get(package, ()):
            if other not in seen:
                seen.add(other)
                reached(other, seen)
        return seen

    for checks in ["planguard.checks", "planguard.claims"]:
        assert "planguard.report" not in reached(checks, set()), f"{checks} reaches report"


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
