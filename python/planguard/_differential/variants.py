"""The equivalent plans a query is run under in the differential mode, each set by session confs
for the length of one run: Spark must return the same rows under each.

In the order they are tried (``--planguard-differential-max-variants`` cuts the tail):
``codegen``, whole-stage code generation flipped; ``adaptive``, adaptive execution flipped;
``uncached``, the cached inputs computed instead of read; ``distinct``, each aggregation whose
aggregates are all DISTINCT over the same arguments computed as a grouping by its keys and those
arguments, then the aggregates without DISTINCT; ``joins``, each join of the optimized
plan with each other strategy Spark's planner has, by hint; ``rules``, each optimizer rule that
changed this query's plan excluded (``spark.sql.optimizer.excludedRules``), one at a time.
The last four use planguard's jar (``planguard.differential`` on the JVM)."""
from typing import NamedTuple

KINDS = ("codegen", "adaptive", "uncached", "distinct", "joins", "rules")

CODEGEN = "spark.sql.codegen.wholeStage"
ADAPTIVE = "spark.sql.adaptive.enabled"
EXCLUDED_RULES = "spark.sql.optimizer.excludedRules"
# planguard's own (confs.json), read by planguard.differential.PlanVariants on the JVM.
JOIN_HINT = "spark.planguard.differential.joinHint"
JOIN_NUMBER = "spark.planguard.differential.joinNumber"
UNCACHED = "spark.planguard.differential.uncached"
DISTINCT_AS_GROUPS = "spark.planguard.differential.distinctAsGroups"

# Each strategy hint Spark's planner takes, and the side it is on. A join's type or condition may
# not allow it: Spark then plans the join otherwise, and the variant is named by what it planned
# (``planned``); a variant planned as the baseline or as an earlier variant was is not run.
JOIN_HINTS = [("broadcast_left", "BROADCAST on its left side"),
              ("broadcast_right", "BROADCAST on its right side"),
              ("shuffle_hash_left", "SHUFFLE_HASH on its left side"),
              ("shuffle_hash_right", "SHUFFLE_HASH on its right side"),
              ("shuffle_merge", "SHUFFLE_MERGE")]


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
    if "distinct" in kinds and jvm.PlanVariants.groupsDistinct(optimized):
        found.append(Variant("distinct", "DISTINCT aggregates computed over a grouping of their "
                             "own", {DISTINCT_AS_GROUPS: "true"}))
    if "joins" in kinds:
        joins = [t for t in jvm.PlanVariants.joinTypes(optimized).split(",") if t]
        for n, join_type in enumerate(joins):
            for hint, hinted in JOIN_HINTS:
                found.append(Variant(
                    "joins", f"join {n + 1} of {len(joins)} ({join_type}) hinted {hinted}",
                    {JOIN_HINT: hint, JOIN_NUMBER: str(n + 1)}))
    if "rules" in kinds:
        excluded = spark.conf.get(EXCLUDED_RULES, None)
        for rule in jvm.EffectiveRules.of(spark._jsparkSession, query).splitlines():
            found.append(Variant("rules", f"optimizer rule {rule} excluded", {
                EXCLUDED_RULES: ",".join(filter(None, [excluded, rule]))}, rule))
    return found


def planned(spark, variant: Variant, query) -> Variant:
    """The variant named by what Spark planned under it (``query``, its JVM QueryExecution): a
    join's, by the strategy the join got, which is not the hint's where the join does not allow
    it."""
    if variant.kind != "joins":
        return variant
    number = int(variant.confs[JOIN_NUMBER])
    strategy = spark._jvm.planguard.differential.PlanVariants.plannedJoin(query, number)
    return variant._replace(name=f"{variant.name}, planned as {strategy or 'no join'}")


def _flipped(spark, kind: str, key: str, what: str) -> Variant:
    on = spark.conf.get(key).strip().lower() != "true"
    return Variant(kind, f"{what} {'on' if on else 'off'}", {key: str(on).lower()})
