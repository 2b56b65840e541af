"""The equivalent plans a query is run under in the differential mode, each set by session confs
for the length of one run: Spark must return the same rows under each.

In the order they are tried (``--planguard-differential-max-variants`` cuts the tail):
``codegen``, whole-stage code generation flipped; ``adaptive``, adaptive execution flipped;
``uncached``, the cached inputs computed instead of read; ``joins``, each join of the optimized
plan with each other strategy Spark's planner has, by hint; ``rules``, each optimizer rule that
changed this query's plan excluded (``spark.sql.optimizer.excludedRules``), one at a time.
The last three use planguard's jar (``planguard.differential`` on the JVM)."""
from typing import NamedTuple

KINDS = ("codegen", "adaptive", "uncached", "joins", "rules")

CODEGEN = "spark.sql.codegen.wholeStage"
ADAPTIVE = "spark.sql.adaptive.enabled"
EXCLUDED_RULES = "spark.sql.optimizer.excludedRules"
JOIN = "planguard.differential.join"  # planguard.differential.PlanVariants.JoinKey
UNCACHED = "planguard.differential.uncached"  # PlanVariants.UncachedKey

# Each strategy Spark's planner takes from a hint, and the side the hint is on: a join gets the
# ones its type and condition allow; the others plan as without the hint, and are not run.
JOIN_STRATEGIES = [
    ("BROADCAST", "left", "broadcast, the left side built"),
    ("BROADCAST", "right", "broadcast, the right side built"),
    ("SHUFFLE_HASH", "left", "shuffled hash, the left side built"),
    ("SHUFFLE_HASH", "right", "shuffled hash, the right side built"),
    ("SHUFFLE_MERGE", "left", "sort-merge"),
]


class Variant(NamedTuple):
    kind: str  # one of KINDS
    name: str  # as reports name it
    confs: dict  # the session confs that make it
    rule: str = ""  # the rule excluded, for kind "rules"


def check(kinds) -> None:
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown variants {unknown}: the kinds are {', '.join(KINDS)}")


def of(spark, query, kinds=KINDS) -> list:
    """The variants of a query (its JVM QueryExecution, optimized), in the order they are tried."""
    jvm = spark._jvm.planguard.differential
    optimized = query.optimizedPlan()
    found = []
    if "codegen" in kinds:
        found.append(_flipped(spark, "codegen", CODEGEN, "whole-stage codegen"))
    if "adaptive" in kinds:
        found.append(_flipped(spark, "adaptive", ADAPTIVE, "adaptive execution"))
    if "uncached" in kinds and jvm.PlanVariants.readsCache(optimized):
        found.append(Variant("uncached", "cached inputs computed, not read", {UNCACHED: "true"}))
    if "joins" in kinds:
        joins = [t for t in jvm.PlanVariants.joinTypes(optimized).split(",") if t]
        for n, join_type in enumerate(joins):
            for hint, side, strategy in JOIN_STRATEGIES:
                found.append(Variant(
                    "joins", f"join {n + 1} of {len(joins)} ({join_type}) as {strategy} (hint "
                             f"{hint} on its {side} side)", {JOIN: f"{n}:{hint}:{side}"}))
    if "rules" in kinds:
        excluded = spark.conf.get(EXCLUDED_RULES, None)
        for rule in jvm.EffectiveRules.of(spark._jsparkSession, query).splitlines():
            found.append(Variant("rules", f"optimizer rule {rule} excluded", {
                EXCLUDED_RULES: ",".join(filter(None, [excluded, rule]))}, rule))
    return found


def _flipped(spark, kind: str, key: str, what: str) -> Variant:
    on = spark.conf.get(key).strip().lower() != "true"
    return Variant(kind, f"{what} {'on' if on else 'off'}", {key: str(on).lower()})
