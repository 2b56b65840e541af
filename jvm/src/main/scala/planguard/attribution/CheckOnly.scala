package planguard.attribution

/**
 * A rule of planguard's that only checks the plan it is given: a replay of Spark's rules leaves
 * it out, since it changes no plan and would check (and report) each replayed step.
 */
trait CheckOnly
