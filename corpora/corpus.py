"""planguard's query corpus: TPC-H (22 queries) and TPC-DS (99 queries) at scale factor 0.01,
generated with DuckDB's tpch/tpcds extensions (from PyPI) and transpiled to Spark SQL with
sqlglot, plus Spark-specific queries of our own (spark_queries.sql).

The data and queries are generated once into .cache/corpus/ (git-ignored). Usage:

    python -m corpora.corpus results OUT.json [sample]   # run every query (or the sample)
                                                        # in a plain local session
"""
import glob
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "corpus"
SCALE = 0.01
OWN_QUERIES = pathlib.Path(__file__).resolve().parent / "spark_queries.sql"

# Queries left out, with the reason. Everything else must pass in fail mode with equal results.
EXCLUDED = {}


def _generate() -> None:
    import duckdb
    import duckdb_extension_tpcds
    import duckdb_extension_tpch
    import sqlglot

    queries = {}
    for bench, module, generator, listing in [
            ("tpch", duckdb_extension_tpch, "dbgen", "tpch_queries"),
            ("tpcds", duckdb_extension_tpcds, "dsdgen", "tpcds_queries")]:
        con = duckdb.connect()
        con.load_extension(glob.glob(
            os.path.join(os.path.dirname(module.__file__), "extensions", "*", "*.duckdb_extension"))[0])
        con.execute(f"CALL {generator}(sf={SCALE})")
        (CACHE / bench).mkdir(parents=True, exist_ok=True)
        for (table,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
            con.execute(f"COPY {table} TO '{CACHE / bench / table}.parquet' (FORMAT parquet)")
        for number, sql in con.execute(f"SELECT query_nr, query FROM {listing}()").fetchall():
            queries[f"{bench}-q{number:02d}"] = {
                "bench": bench, "sql": sqlglot.transpile(sql, read="duckdb", write="spark")[0]}
    (CACHE / "queries.json").write_text(json.dumps(queries, indent=1))


def own_queries() -> dict:
    """The Spark-specific queries: blocks separated by lines `-- name: <name>`, on TPC-H tables."""
    queries, name = {}, None
    for line in OWN_QUERIES.read_text().splitlines():
        if line.startswith("-- name:"):
            name = "spark-" + line.split(":", 1)[1].strip()
            queries[name] = {"bench": "tpch", "sql": ""}
        elif name and not line.startswith("--"):
            queries[name]["sql"] += line + "\n"
    return {k: {"bench": v["bench"], "sql": v["sql"].strip().rstrip(";")} for k, v in queries.items()}


def queries(sample: bool = False) -> dict:
    """name -> {bench, sql}: TPC-H, TPC-DS and our own, less EXCLUDED; the sample (CI's) has every
    TPC-H query and every one of our own, and every eighth TPC-DS query."""
    if not (CACHE / "queries.json").exists():
        _generate()
    found = json.loads((CACHE / "queries.json").read_text())
    found.update(own_queries())
    found = {k: v for k, v in sorted(found.items()) if k not in EXCLUDED}
    if sample:
        tpcds = [k for k, v in found.items() if v["bench"] == "tpcds"]
        found = {k: v for k, v in found.items() if v["bench"] != "tpcds" or k in tpcds[::8]}
    return found


def register(spark, bench: str) -> None:
    """Temp views over one benchmark's tables (TPC-H and TPC-DS share table names)."""
    for path in sorted((CACHE / bench).glob("*.parquet")):
        spark.read.parquet(str(path)).createOrReplaceTempView(path.stem)


def _normal(value):
    if isinstance(value, float):
        return round(value, 6)
    return value


def rows(df) -> list:
    """A query's rows, order-insensitive and with floats rounded, comparable as JSON."""
    return sorted((json.dumps([_normal(v) for v in row], default=str) for row in df.collect()))


def results(spark, sample: bool = False) -> dict:
    """name -> the query's rows, or the error it raised (so one failure hides no other)."""
    out, current = {}, None
    for name, query in queries(sample).items():
        if query["bench"] != current:
            register(spark, query["bench"])
            current = query["bench"]
        try:
            out[name] = rows(spark.sql(query["sql"]))
        except Exception as e:  # recorded, compared, reported by the caller
            out[name] = f"ERROR {type(e).__name__}: {str(e)[:500]}"
    return out


if __name__ == "__main__" and sys.argv[1:2] == ["results"]:
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    pathlib.Path(sys.argv[2]).write_text(json.dumps(results(session, sys.argv[3:] == ["sample"])))
