"""The differential mode's outcome of a query in words: what fails a test or a statement."""
from planguard._differential.second_opinion import Outcome


def differences(outcome: Outcome) -> str:
    """The query, and for each variant whose rows differ: the variant (the rule, when it is one
    excluded), the rows that differ, the baseline's plan and the variant's."""
    parts = [f"planguard differential: this query's rows differ under {len(outcome.differences)} "
             "plan(s) Spark must agree with (the same query, another legal plan: one of the two "
             "plans computes something else).",
             "Query (analyzed plan):\n" + _indented(outcome.query)]
    for d in outcome.differences:
        rule = f"\nRule: {d.variant.rule}" if d.variant.rule else ""
        parts.append(f"Variant: {d.variant.name} ({_confs(d.variant.confs)}){rule}\n"
                     f"Rows: under the variant {d.what}\n"
                     f"Plan of the query as the session ran it:\n{_indented(d.baseline_plan)}\n"
                     f"Plan under the variant:\n{_indented(d.variant_plan)}")
    return "\n\n".join(parts)


def counts(outcome: Outcome) -> str:
    """What ran: how many variants, planned alike, cut by the budget, failed."""
    words = [f"{outcome.ran} variant(s) run",
             f"{outcome.alike} planned as the query or an earlier variant (not run)"]
    if outcome.cut:
        words.append(f"{outcome.cut} past the budget (not tried)")
    if outcome.failed:
        words.append(f"{len(outcome.failed)} failed where the query ran: " + "; ".join(
            f"{variant.name}: {error}" for variant, error in outcome.failed))
    return ", ".join(words)


def headline(outcome: Outcome) -> str:
    """The query's analyzed plan on one line."""
    line = " ".join(outcome.query.split())
    return line if len(line) <= 100 else line[:99] + "…"


def _confs(confs: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in confs.items())


def _indented(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
