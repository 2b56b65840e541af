"""A sample of the second external corpus (Apache Hive's query tests: `sql_corpus.py --suite
hive`) in fail mode, adaptive execution on: Hive's own SQL in sessions with Hive support — Hive
tables with SerDes and storage formats, multi-insert, dynamic partitions, buckets, TRANSFORM,
LATERAL VIEW, Hive UDAFs, CTAS, CHAR/VARCHAR — with no false alarm, no new error, the same rows as
Spark without planguard, and no violation recorded on the JVM.

The baseline runs in a subprocess without planguard (cached like the SQL corpus's), the planguard
run in another. Run it alone with `pytest -m sql_corpus tests/test_hive_corpus.py`.
"""
import pathlib

import pytest

from conftest import FULL, ROOT
from corpora import sql_corpus

pytestmark = pytest.mark.sql_corpus

# TRANSFORM, LATERAL VIEW, dynamic partitions, buckets, unions into tables, RCFile,
# per-partition file formats, grouping sets, CHAR and VARCHAR tables, INSERT OVERWRITE [LOCAL]
# DIRECTORY of a query with adaptive execution (a write command over an adaptive plan, whose
# columns a filter proved NOT NULL: a false alarm once); `dev/test full` adds
# multi-insert with common DISTINCTs, CTAS with storage formats, INSERT, null-safe joins, SHOW
# TABLES and Hive's percentile UDAF.
SAMPLE = [
    "transform1.q", "lateral_view.q", "load_dyn_part1.q", "bucket1.q", "union_remove_1.q",
    "rcfile_columnar.q", "partition_wise_fileformat2.q", "groupby_grouping_sets1.q",
    "varchar_1.q", "char_1.q", "schemeAuthority.q",
]
if FULL:
    SAMPLE += ["groupby_multi_insert_common_distinct.q", "ctas.q", "insert1.q",
               "join_nullsafe.q", "show_tables.q", "udf_percentile.q"]
SAMPLE = ",".join(SAMPLE)
RUN = "planguard, aqe-on"


@pytest.fixture(scope="module")
def hive_suite():
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(sql_corpus.SUITE, "hive")
        yield


@pytest.fixture(scope="module")
def results(hive_suite, tmp_path_factory):
    """The sample run without and with planguard, adaptive execution on, compared."""
    return sql_corpus.measure(SAMPLE, aqe_settings=(True,),
                              out=tmp_path_factory.mktemp("hive-corpus"), jobs=2)[RUN]


def described(records) -> list:
    return [f"{r['file']}#{r['index']}: {r.get('error', '')} {r.get('message', '')} "
            f"| {' '.join(r['sql'].split())[:160]}" for r in records]


def test_the_sample_has_its_size_most_of_it_run_by_spark(hive_suite, results):
    count = sum(len(stmts) for _, stmts, _ in sql_corpus.corpus(SAMPLE))
    assert 200 <= count <= 400 if FULL else 80 <= count <= 160
    assert results["statements"] == count
    # schemeAuthority.q's `dfs` commands fail without planguard too.
    assert results["baseline_ok"] >= 0.85 * count


def test_no_false_alarm_new_error_or_row_difference(results):
    assert described(results["false_alarms"] + results["new_errors"] + results["row_diffs"]) == []


def test_no_violation_recorded_on_the_jvm(results):
    """Counted statement by statement on the JVM: not even a warning."""
    assert results["violations"] == 0


def test_statements_write_nowhere_outside_the_run():
    """A Hive file that gives a managed table the location file:///tmp, dropped at the catalog
    reset after the file, deleted the machine's /tmp: such paths run under the run's own."""
    tmp, data = ROOT / "scratch" / "tmp", ROOT / "inputs" / "data"

    def confined(sql):
        return sql_corpus.hive_inputs.confined(sql, tmp, data)
    assert confined("alter table T7 set location 'file:///tmp';") == \
        f"alter table T7 set location '{tmp}';"
    assert confined("insert overwrite local directory '/tmp/a' select 1") == \
        f"insert overwrite local directory '{tmp}/a' select 1"
    assert confined("LOCATION 'pfile:${system:test.tmp.dir}/t'") == f"LOCATION '{tmp}/t'"
    assert confined("LOCATION '${hiveconf:hive.metastore.warehouse.dir}/fact_tz'") == \
        f"LOCATION '{tmp}/warehouse/fact_tz'"
    assert confined('set location "file:/test/test/"') == f'set location "{tmp}/root/test/test/"'
    assert confined(f"LOAD DATA LOCAL INPATH '{data}/files/kv1.txt'") == \
        f"LOAD DATA LOCAL INPATH '{data}/files/kv1.txt'"
    assert confined("LOCATION 'A'") == "LOCATION 'A'"  # relative: the JVM starts in the scratch
    # A checkout under /tmp (CI's fresh clone): its data files and scratch stay where they are.
    data_in_tmp = pathlib.Path("/tmp/clone/main/inputs/data")
    assert sql_corpus.hive_inputs.confined(
        f"LOAD DATA LOCAL INPATH '{data_in_tmp}/files/kv1.txt'", tmp, data_in_tmp) == \
        f"LOAD DATA LOCAL INPATH '{data_in_tmp}/files/kv1.txt'"
    assert sql_corpus.hive_inputs.confined("SELECT '/tmp/x'", tmp, data_in_tmp) == \
        f"SELECT '{tmp}/x'"
    assert confined("SELECT '/a/b', split(s, '/')") == "SELECT '/a/b', split(s, '/')"
