#!/usr/bin/env python3
"""Prints a cluster's EMR configurations with planguard's spark-defaults merged in.

    python3 configurations.py [EXISTING.json] > configurations.json

A cluster has one spark-defaults classification, so planguard's properties join the one it
already has, if any: spark.jars and spark.sql.extensions get planguard's entry appended (order
kept, blanks and repeats dropped), spark.planguard.mode is set unless it is set already. Every
other classification is kept as it is. With no file, the result is configurations.json.
"""
import json
import sys

JAR = "/usr/lib/planguard/planguard.jar"  # where planguard-bootstrap.sh links the jar
EXTENSION = "planguard.PlanGuardExtensions"


def appended(csv, item: str) -> str:
    items = []
    for entry in (csv or "").split(",") + [item]:
        entry = entry.strip()
        if entry and entry not in items:
            items.append(entry)
    return ",".join(items)


def merged(configurations: list) -> list:
    defaults = next((c for c in configurations if c.get("Classification") == "spark-defaults"),
                    None)
    if defaults is None:
        defaults = {"Classification": "spark-defaults", "Properties": {}}
        configurations.append(defaults)
    properties = defaults.setdefault("Properties", {})
    properties["spark.jars"] = appended(properties.get("spark.jars"), JAR)
    properties["spark.sql.extensions"] = appended(properties.get("spark.sql.extensions"),
                                                  EXTENSION)
    properties.setdefault("spark.planguard.mode", "fail")
    return configurations


if __name__ == "__main__":
    existing = []
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            existing = json.load(f)
    print(json.dumps(merged(existing), indent=2))
