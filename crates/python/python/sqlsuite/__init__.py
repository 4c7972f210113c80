"""sqlsuite from Python: text-to-SQL evaluation, and a judge for reward loops.

    import sqlsuite
    rows = sqlsuite.evaluate("datasets/spider.toml")           # what `sqlsuite eval --format jsonl` prints
    judge = sqlsuite.Judge("spider/database/{db_id}/{db_id}.sqlite", timeout_ms=2000)
    rewards = [v.correct for v in judge.judge_many(triples)]   # [(gold, prediction, db_id), ...]

Predictions are untrusted SQL: databases are opened read-only and every query runs under the
metric's limits (time, SQLite steps, rows, memory), whatever the caller passes.
"""

from __future__ import annotations

import json
import os
from typing import Iterable, Optional, Sequence

from ._sqlsuite import Judge, Verdict, __version__, set_threads
from ._sqlsuite import evaluate_jsonl as _evaluate_jsonl

__all__ = ["Judge", "Verdict", "evaluate", "set_threads", "__version__"]


def evaluate(
    manifest: "str | os.PathLike[str]", predictions: Optional[Iterable[str]] = None
) -> list[dict]:
    """Evaluates a dataset manifest (every prediction set, or the named ones).

    Returns the objects `sqlsuite eval --format jsonl` prints, in its order: per prediction
    set, a provenance object, then one object per item and metric (`index`, `db_id`,
    `metric`, `verdict`, `reason`, `message`, ...). Raises ValueError for a manifest that
    cannot be loaded, naming its file and line.
    """
    names: Optional[Sequence[str]] = None if predictions is None else list(predictions)
    return [json.loads(line) for line in _evaluate_jsonl(os.fspath(manifest), names)]
