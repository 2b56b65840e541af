"""How Python reads the shapes the JVM sends: each JSON object has exactly the fields of the
dataclass that reads it, under the same names, and each word the JVM invents is an enumeration
declared once on each side, under the same name, whose values are the strings sent."""
from dataclasses import fields
from enum import Enum


class Word(str, Enum):
    """A word the JVM sends: a string, equal to its value, and printed as it."""

    def __str__(self) -> str:
        return self.value


def build(cls, data: dict, **converted):
    """``cls`` from a JSON object with exactly its fields: those in ``converted`` as converted
    here, the others as they are. A field the JVM adds or drops fails here, not downstream."""
    names = {f.name for f in fields(cls)}
    if set(data) != names:
        raise ValueError(f"planguard: the JVM's {cls.__name__} has fields {sorted(data)}, "
                         f"Python's {sorted(names)}: the jar and the package do not match")
    return cls(**{**data, **converted})
