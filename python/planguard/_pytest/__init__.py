"""The pytest plugin's parts (``planguard.pytest_plugin`` is its entry point): the guard that
reports a test's violations, the sessions it reaches, the exceptions PySpark raised, the
``spark`` fixture."""
