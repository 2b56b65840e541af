"""``planguard check`` and ``planguard explain``: SQL files split into statements, planned and
never run, and the verdicts' report."""
