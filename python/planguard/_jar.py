"""The jars bundled inside the wheel: planguard's, the tools' and the demo's."""
import functools
import glob
import json
import os
import zipfile


def jar_path() -> str:
    """The absolute path of planguard's jar, bundled inside this package."""
    return _bundled("jars", "planguard's jar")


def tools_jar_path() -> str:
    """The absolute path of the tools' jar (``planguard.stages``, ``planguard.explain``,
    ``planguard check``): add it to ``spark.jars`` beside :func:`jar_path` to use them in a
    session (``configure(builder, tools=True)`` does)."""
    return _bundled(os.path.join("jars", "tools"), "planguard's tools jar")


def demo_jar_path() -> str:
    """The absolute path of the demo's jar: the deliberately broken optimizer rule that
    ``planguard demo`` installs. Never put it on a real session's classpath."""
    return _bundled(os.path.join("jars", "demo"), "planguard's demo jar")


def _bundled(folder: str, what: str) -> str:
    where = os.path.join(os.path.dirname(os.path.abspath(__file__)), folder)
    jars = glob.glob(os.path.join(where, "*.jar"))
    if len(jars) != 1:
        raise FileNotFoundError(f"{what} is missing from {where} (found {jars}); reinstall "
                                "planguard with `pip install .` from a checkout")
    return jars[0]


@functools.lru_cache(maxsize=None)
def resource(path: str):
    """A JSON file of the jar, read once: what the JVM declares, for Python to read the same."""
    with zipfile.ZipFile(jar_path()) as jar:
        return json.loads(jar.read(path))


def declared_confs() -> dict:
    """The confs declared in the jar's planguard/confs.json: key -> {default, allowed, doc}."""
    return resource("planguard/confs.json")
