from typing import Optional, Sequence

__version__: str

class Verdict:
    """One judgement of a prediction."""

    metric: str
    status: str
    """`correct`, `incorrect`, `gold_error` (the gold itself failed) or `skipped` (no database)."""
    reason: str
    """The stable reason code: `correct`, `row_count`, `rows_differ`, `sql_error`, `timeout`, ..."""
    message: str
    details: str
    gold_steps: Optional[int]
    prediction_steps: Optional[int]
    scores: list[tuple[str, float]]
    @property
    def correct(self) -> bool: ...

class Judge:
    """A metric opened once on databases.

    `databases` is a path pattern with `{db_id}` (one SQLite file per schema, or a glob naming
    a test suite); the keyword options are the metric's manifest table (`timeout_ms=2000`,
    `compat="test_suite_sql_eval"`, ...). Gold results are reused for the judge's life.

    Where rows are compared as sets (`compat="bird"`), a judge of the `exec` metric stops a
    prediction at its first row the gold lacks (`stop_at_foreign_row=True`, its default here,
    off in manifests): the verdict is the one a whole run gives; the reason is `rows_differ`
    where the whole query would have gone on to fail. Pass `stop_at_foreign_row=False` for
    the reasons of `sqlsuite eval`.
    """

    def __init__(self, databases: str, metric: str = "exec", **options: object) -> None: ...
    @property
    def metric(self) -> str: ...
    def judge(self, gold: str, prediction: str, db_id: str) -> Verdict:
        """Judges one prediction; releases the GIL while the queries run."""
    def judge_many(self, triples: Sequence[tuple[str, str, str]]) -> list[Verdict]:
        """Judges (gold, prediction, db_id) triples in parallel, GIL released; verdicts in order."""

def set_threads(n: int) -> None:
    """Worker threads of the work pool (0: one per core); before its first use only."""

def evaluate_jsonl(manifest: str, predictions: Optional[Sequence[str]] = None) -> list[str]: ...
