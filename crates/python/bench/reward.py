"""Reward throughput: `sqlsuite.Judge.judge_many` against a reward function as training
repositories write it (Python's sqlite3, a read-only connection per call, a per-call time limit
through a progress handler, reward 1 when the result sets are equal), in one run, on the same
(gold, prediction, db_id) triples.

    target/python/venv/bin/python crates/python/bench/reward.py [--pairs 10000] [--seed 0]

(after `MATURIN_PROFILE=release .ci/python`). The triples are drawn from the 14 Spider
submissions on Spider dev's databases (SQLSUITE_SHARED, default ../shared), with answers fenced
in markdown (5 %), cut in half (3 %) and an endless recursive query (1 %) mixed in. Each side runs
in a process of its own, so that its peak memory is its own. The judge uses BIRD's EX
(`compat="bird"`: equal result sets, the Python function's own rule), so that the verdicts
compare one for one: every pair both sides judged (neither stopped at a limit) must agree; and a
step budget of 1,000,000 + 100 x the gold's SQLite steps, so that a runaway query stops after
milliseconds instead of at the 2 s limit both sides also have. The judge
runs twice more (one worker, then the default) and must give the same verdicts byte for byte.
"""

import argparse
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

TIMEOUT_S = 2.0
SLOW = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"


def triples(shared: Path, n: int, seed: int):
    gold = [l.rstrip("\n").split("\t") for l in open(shared / "data/spider/dev_gold.sql")]
    # Items whose database the shared data has (it lacks some of Spider dev's).
    database = shared / "data/spider/database"
    have = [j for j, (_, db) in enumerate(gold) if (database / db / f"{db}.sqlite").is_file()]
    sets = [
        (shared / f"data/spider/predictions/dev_{k}.txt").read_text().splitlines()
        for k in range(1, 15)
    ]
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        j = have[rnd.randrange(len(have))]
        g, db = gold[j][0], gold[j][1]
        p = sets[rnd.randrange(len(sets))][j].split("\t")[0].strip()
        r = rnd.random()
        if r < 0.05:
            p = f"```sql\n{p}\n```"
        elif r < 0.08:
            p = p[: len(p) // 2]
        elif r < 0.09:
            p = SLOW
        out.append((g, p, db))
    return out


def python_reward(database: Path, gold: str, prediction: str, db_id: str):
    """The reward function most training code has: 1 if the result sets are equal."""
    path = database / db_id / f"{db_id}.sqlite"
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    deadline = time.monotonic() + TIMEOUT_S
    con.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10000)
    try:
        p = con.execute(prediction).fetchall()
        g = con.execute(gold).fetchall()
        return (1 if set(p) == set(g) else 0), "ok"
    except sqlite3.OperationalError as e:
        return 0, ("timeout" if "interrupted" in str(e) else "error")
    except Exception:
        return 0, "error"
    finally:
        con.close()


def side(args):
    shared = Path(os.environ.get("SQLSUITE_SHARED", "../shared")).resolve()
    pairs = triples(shared, args.pairs, args.seed)
    database = shared / "data/spider/database"
    start = time.perf_counter()
    if args.side == "python":
        results = [python_reward(database, g, p, d) for g, p, d in pairs]
    else:
        import sqlsuite

        sqlsuite.set_threads(args.threads)
        judge = sqlsuite.Judge(
            str(database / "{db_id}" / "{db_id}.sqlite"),
            compat="bird",
            timeout_ms=int(TIMEOUT_S * 1000),
            gold_relative_budget={"floor": 1_000_000, "multiplier": 100},
        )
        verdicts = judge.judge_many(pairs)
        results = [(int(v.correct), v.reason) for v in verdicts]
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "peak_kib": peak_kib, "results": results}))


def run(name, args, threads=0):
    cmd = [sys.executable, __file__, "--side", name, "--pairs", str(args.pairs), "--seed", str(args.seed)]
    cmd += ["--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--side", choices=["python", "judge"])
    parser.add_argument("--threads", type=int, default=0, help="the judge's workers (0: one per core)")
    args = parser.parse_args()
    if args.side:
        return side(args)
    theirs = run("python", args)
    ours = run("judge", args)
    one = run("judge", args, threads=1)
    again = run("judge", args)
    both = [
        (t, o)
        for t, o in zip(theirs["results"], ours["results"])
        if t[1] != "timeout" and o[1] not in ("timeout", "step_budget", "gold_error")
    ]
    disagree = sum(1 for t, o in both if t[0] != o[0])
    n = args.pairs
    print(f"{n} (gold, prediction) pairs, Spider dev, 14 submissions + fenced, cut and endless ones")
    print(
        f"python sqlite3 reward, 1 process: {theirs['seconds']:.2f} s = {n / theirs['seconds']:.0f} judgments/s, "
        f"peak {theirs['peak_kib'] / 1024:.0f} MiB"
    )
    print(
        f"sqlsuite Judge.judge_many:        {ours['seconds']:.2f} s = {n / ours['seconds']:.0f} judgments/s, "
        f"peak {ours['peak_kib'] / 1024:.0f} MiB"
    )
    print(f"throughput ratio: {theirs['seconds'] / ours['seconds']:.1f}")
    print(f"verdicts compared (neither side at its limit): {len(both)}; disagreeing: {disagree}")
    print(
        "the judge's verdicts byte-identical with one worker and on a second run: "
        f"{ours['results'] == one['results'] == again['results']}"
    )
    stopped = sum(1 for o in ours["results"] if o[1] in ("timeout", "step_budget"))
    print(f"stopped at a limit: python {sum(1 for t in theirs['results'] if t[1] == 'timeout')}, sqlsuite {stopped}")
    rewards = lambda r: sum(x[0] for x in r["results"])
    print(f"rewards: python {rewards(theirs)}, sqlsuite {rewards(ours)}")
    if disagree or not (ours["results"] == one["results"] == again["results"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
