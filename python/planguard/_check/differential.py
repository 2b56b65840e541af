"""``planguard check --differential``: a query run on the setup's data under its plan and under
the plans of the differential mode (``planguard._differential``), its verdict printed as the
invariants' are."""
from planguard._differential import report
from planguard._differential.second_opinion import second_opinion


def checked(df) -> bool:
    """Prints the query's differential verdict; True when its rows differ under a variant."""
    outcome = second_opinion(df)
    if outcome.not_compared:
        print(f"  n/a   DIFFERENTIAL  (not compared: {outcome.not_compared})")
    elif outcome.differences:
        print("  FAIL  DIFFERENTIAL  " + report.differences(outcome).replace("\n", "\n        "))
    else:
        print(f"  PASS  DIFFERENTIAL  ({report.counts(outcome)})")
    return bool(outcome.differences)
