"""planguard's timing scripts (planning, DataFrame-pipeline, BATCH_SCHEMA and planner overhead),
run as modules from the repository's root, e.g. ``python -m benchmarks.planning_overhead``. The
correctness corpora they time are in ``corpora/``. Not part of the planguard wheel."""
