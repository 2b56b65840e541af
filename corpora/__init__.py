"""planguard's correctness corpora: programs run with planguard and without it, whose outcomes
(rows, errors, test results) must agree. The query corpus (``corpus``: TPC-H, TPC-DS and our own
Spark queries in ``spark_queries.sql``), the external corpora (``sql_corpus``: Spark's SQL test
inputs, and Hive's query tests with ``hive_inputs``; ``doctest_corpus``: PySpark's doctests;
``pyspark_suite``: Spark's PySpark SQL tests under the pytest plugin), the differential fuzzer
(``fuzzing``: its generator and workers; ``fuzz``: its long mode), and ``built_jars``, the test
jar of the installed pyspark's line. The tests import them (pytest puts the repository's root on
``sys.path``: ``pythonpath`` in pyproject.toml) and so do the timing scripts in ``benchmarks/``;
the scripts run as modules from the root, e.g. ``python -m corpora.sql_corpus --help``. Not part
of the planguard wheel."""
