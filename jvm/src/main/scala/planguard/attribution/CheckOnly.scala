package planguard.attribution

/**
 * A rule of planguard's that only checks (or remembers) the plan it is given: a replay of Spark's
 * rules leaves it out, since it changes no plan and would check (and report, or remember) each
 * replayed step.
 */
trait CheckOnly
