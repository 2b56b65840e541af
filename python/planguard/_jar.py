"""The jar bundled inside the wheel."""
import functools
import glob
import json
import os
import zipfile


def jar_path() -> str:
    """The absolute path of planguard's jar, bundled inside this package."""
    jars = glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", "*.jar"))
    if len(jars) != 1:
        raise FileNotFoundError(
            f"planguard's jar is missing from {os.path.dirname(__file__)}/jars "
            f"(found {jars}); reinstall planguard with `pip install .` from a checkout")
    return jars[0]


@functools.lru_cache(maxsize=None)
def resource(path: str):
    """A JSON file of the jar, read once: what the JVM declares, for Python to read the same."""
    with zipfile.ZipFile(jar_path()) as jar:
        return json.loads(jar.read(path))


def declared_confs() -> dict:
    """The confs declared in the jar's planguard/confs.json: key -> {default, allowed, doc}."""
    return resource("planguard/confs.json")
