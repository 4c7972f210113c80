"""The Python package against the command line, and the judge under hostile predictions.

Run by .ci/python (wheel built, installed into a fresh venv): the repository root is the working
directory, SQLSUITE_BIN the `sqlsuite` binary whose `eval --format jsonl` output the package must
reproduce, byte for byte: the manifests compared pin their clock, so two runs' provenance is the
same. All 14 Spider sets are compared (SQLSUITE_PY_SPIDER=dev_1 compares one, for a quick run);
Spider and SQL-Eval need the shared data (SQLSUITE_SHARED, default ../shared).
"""

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

import sqlsuite

ROOT = Path.cwd()
SHARED = Path(os.environ.get("SQLSUITE_SHARED", "../shared"))
REQUIRED = os.environ.get("SQLSUITE_REQUIRE_SHARED") == "1"


def cli_jsonl(manifest, *sets):
    binary = os.environ.get("SQLSUITE_BIN", "sqlsuite")
    args = [binary, "eval", manifest, "--format", "jsonl"]
    for s in sets:
        args += ["--predictions", s]
    out = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    return [json.loads(line) for line in out.stdout.splitlines()]


def needs_shared(path):
    if not (SHARED / path).exists():
        if REQUIRED:
            pytest.fail(f"{SHARED / path} not found (SQLSUITE_REQUIRE_SHARED=1)")
        pytest.skip(f"shared data not found: {SHARED / path}")


def test_evaluate_equals_the_command_line_on_the_demo():
    ours = sqlsuite.evaluate("datasets/demo/demo.toml")
    assert ours == cli_jsonl("datasets/demo/demo.toml")
    assert sum(1 for r in ours if "provenance" in r) == 2
    assert {r["verdict"] for r in ours if "verdict" in r} == {"correct", "incorrect"}


def test_evaluate_one_set_and_an_unknown_set():
    ours = sqlsuite.evaluate("datasets/demo/demo.toml", predictions=["v2"])
    assert ours == cli_jsonl("datasets/demo/demo.toml", "v2")
    with pytest.raises(ValueError, match='no prediction set named "v9"'):
        sqlsuite.evaluate("datasets/demo/demo.toml", predictions=["v9"])
    with pytest.raises(ValueError, match="no_such.toml"):
        sqlsuite.evaluate("datasets/no_such.toml")


def test_evaluate_equals_the_command_line_on_spider():
    needs_shared("data/spider/dev_gold.sql")
    one = os.environ.get("SQLSUITE_PY_SPIDER", "all")
    sets = [] if one == "all" else [one]
    ours = sqlsuite.evaluate("datasets/spider.toml", predictions=sets or None)
    assert ours == cli_jsonl("datasets/spider.toml", *sets)
    assert len(ours) > 1000


def test_evaluate_equals_the_command_line_on_sqleval():
    needs_shared("data/sqleval")
    ours = sqlsuite.evaluate("datasets/sqleval_sqlite.toml")
    assert ours == cli_jsonl("datasets/sqleval_sqlite.toml")


def demo_pairs():
    gold = [l.split("\t") for l in (ROOT / "datasets/demo/gold.sql").read_text().splitlines()]
    v1 = (ROOT / "datasets/demo/predictions/v1.txt").read_text().splitlines()
    return [(g, p, db) for (g, db), p in zip(gold, v1)]


def test_the_judge_gives_the_evaluations_verdicts():
    judge = sqlsuite.Judge("datasets/demo/db/{db_id}/{db_id}.sql", timeout_ms=2000)
    verdicts = judge.judge_many(demo_pairs())
    evaluated = [r for r in sqlsuite.evaluate("datasets/demo/demo.toml", ["v1"]) if "index" in r]
    assert [(v.status, v.reason, v.message) for v in verdicts] == [
        (r["verdict"], r["reason"], r["message"]) for r in evaluated
    ]
    one = judge.judge(*demo_pairs()[0])
    assert one.correct and one.metric == "exec" and one.gold_steps > 0


def test_the_judge_is_deterministic_across_batches_and_threads():
    judge = sqlsuite.Judge("datasets/demo/db/{db_id}/{db_id}.sql", timeout_ms=2000)
    pairs = demo_pairs() * 5
    key = lambda vs: [(v.status, v.reason, v.message, v.gold_steps, v.prediction_steps) for v in vs]
    first = key(judge.judge_many(pairs))
    results = []
    threads = [threading.Thread(target=lambda: results.append(key(judge.judge_many(pairs)))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == first for r in results)
    assert key([judge.judge(*p) for p in pairs]) == first


def test_threads_are_set_before_the_pool_runs_only():
    sqlsuite.Judge("datasets/demo/db/{db_id}/{db_id}.sql").judge_many(demo_pairs())
    with pytest.raises(ValueError, match="already runs"):
        sqlsuite.set_threads(1000)


def test_judge_options_are_checked():
    with pytest.raises(ValueError, match="unknown field `timeout`"):
        sqlsuite.Judge("x/{db_id}.sqlite", timeout=5)
    with pytest.raises(ValueError, match='no metric named "exe"'):
        sqlsuite.Judge("x/{db_id}.sqlite", metric="exe")
    missing = sqlsuite.Judge("nowhere/{db_id}.sqlite").judge("SELECT 1", "SELECT 1", "x")
    assert (missing.status, missing.reason) == ("skipped", "missing_database")


HOSTILE = [
    "DELETE FROM t",
    "DROP TABLE t",
    "UPDATE t SET a = 0",
    "INSERT INTO t VALUES (9)",
    "CREATE TABLE u (x)",
    "ATTACH DATABASE '/tmp/sqlsuite_py_attack.sqlite' AS evil",
    "PRAGMA writable_schema = 1",
    "VACUUM",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
    "SELECT count(*) FROM t a, t b, t c, t d, t e, t f, t g, t h, t i, t j",
    "SELECT randomblob(2000000000)",
    "SELECT zeroblob(1000000000)",
    "SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')",
    "\x00",
    "SELECT '" + "x" * 1_000_000 + "'",
    "```sql\nSELECT a FROM t\n```",
    "",
]


def test_hostile_predictions_change_no_byte_and_every_call_returns(tmp_path):
    db = tmp_path / "h" / "h.sqlite"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (a INTEGER)")
    con.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(40)])
    con.commit()
    con.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    judge = sqlsuite.Judge(str(tmp_path / "{db_id}" / "{db_id}.sqlite"), timeout_ms=1000)
    verdicts = judge.judge_many([("SELECT a FROM t", p, "h") for p in HOSTILE])
    assert len(verdicts) == len(HOSTILE)
    assert all(v.status == "incorrect" for v in verdicts), [(p[:40], v) for p, v in zip(HOSTILE, verdicts)]
    # Several statements are an error by default and judged on the first under the official
    # evaluator's compat (spec/exec.md §3a); the second never runs either way.
    several = judge.judge("SELECT a FROM t", "SELECT a FROM t; DELETE FROM t", "h")
    assert (several.status, several.reason) == ("incorrect", "several_statements"), several
    compat = sqlsuite.Judge(
        str(tmp_path / "{db_id}" / "{db_id}.sqlite"), timeout_ms=1000, compat="test_suite_sql_eval"
    )
    assert compat.judge("SELECT a FROM t", "SELECT a FROM t; DELETE FROM t", "h").correct
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not Path("/tmp/sqlsuite_py_attack.sqlite").exists()
    reasons = {v.reason for v in verdicts}
    assert "timeout" in reasons or "step_budget" in reasons or "resource_limit" in reasons, reasons


def test_a_bird_judge_stops_at_the_first_row_the_gold_lacks(tmp_path):
    db = tmp_path / "s" / "s.sqlite"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (a INTEGER)")
    con.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
    con.commit()
    con.close()
    pattern = str(tmp_path / "{db_id}" / "{db_id}.sqlite")
    stopping = sqlsuite.Judge(pattern, compat="bird")
    whole = sqlsuite.Judge(pattern, compat="bird", stop_at_foreign_row=False)
    gold = "SELECT a FROM t WHERE a < 10"
    # A foreign row (10), then an integer overflow the whole run reaches: incorrect both ways.
    pred = "SELECT a FROM t WHERE a >= 10 UNION ALL SELECT abs(-9223372036854775807 - 1)"
    stopped, ran = stopping.judge(gold, pred, "s"), whole.judge(gold, pred, "s")
    assert (stopped.status, stopped.reason) == ("incorrect", "rows_differ"), stopped
    assert "(10,)" in stopped.message and stopped.prediction_steps is None
    assert (ran.status, ran.reason) == ("incorrect", "sql_error"), ran
    # Both sides of the set rule: the same verdicts and reasons where nothing is cut short.
    for pred in ["SELECT DISTINCT a FROM t WHERE a < 10", "SELECT a FROM t WHERE a < 9", "SELECT a, a FROM t"]:
        a, b = stopping.judge(gold, pred, "s"), whole.judge(gold, pred, "s")
        assert (a.status, a.reason) == (b.status, b.reason), (pred, a, b)
    assert stopping.judge(gold, "SELECT a FROM t WHERE a < 10 UNION ALL SELECT 0", "s").correct
