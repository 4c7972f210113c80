"""Runs every clock-reading query of SQL-Eval's reference pairs (pairs_<dialect>.tsv, gold
alternatives and candidates) on the SQLite databases, under whatever clock the process has
(run it under faketime), and prints one line per query: pair_id, role, and whether its rows
equal the rows the reference recorded (gold_rows / cand_rows). spec/sqleval.md section 7:

    TZ=UTC faketime -f '@2026-11-21 12:00:00' python3 tests/conformance/sqleval_clock_probe.py \
        "${SQLSUITE_SHARED:-../shared}" | awk '{a+=$3} END {print a "/" NR}'

With a second argument, a libpq connection string, it runs pairs_postgres.tsv's queries on that
PostgreSQL server through `psql --csv` instead, under the server's clock (start the server under
libfaketime: `SQLSUITE_PG_CLOCK="2026-11-21 12:00:00" .ci/postgres start`):

    python3 tests/conformance/sqleval_clock_probe.py "${SQLSUITE_SHARED:-../shared}" \
        "$SQLSUITE_POSTGRES" | awk '{a+=$3} END {print a "/" NR}'
"""
import csv, io, json, math, re, sqlite3, subprocess, sys

csv.field_size_limit(10**9)
shared = sys.argv[1]
postgres = sys.argv[2] if len(sys.argv) > 2 else None
dialect = "postgres" if postgres else "sqlite"
CLOCK = re.compile(r"'now'|current_date|current_time|localtime\b|\bnow\(\)", re.I)

def norm(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, str) and postgres:
        # psql's text: numbers as numbers, NULL printed as \N.
        if v == "\\N":
            return None
        try:
            v = float(v)
        except ValueError:
            return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return round(float(v), 6)
    return v

def rows_of(rows):
    return sorted((tuple(norm(x) for x in r) for r in rows), key=repr)

def run_postgres(db, sql):
    out = subprocess.run(["psql", "-X", "-q", "--csv", "-P", "null=\\N", "-v", "ON_ERROR_STOP=1", "-c",
                          "SET TIME ZONE 'UTC'", "-c", sql, f"{postgres} dbname={db}"],
                         capture_output=True, text=True)
    if out.returncode:
        return f"error {out.stderr.strip()}"
    return rows_of(list(csv.reader(io.StringIO(out.stdout)))[1:])

conns = {}
def run(db, sql):
    if postgres:
        return run_postgres(db, sql)
    if db not in conns:
        conns[db] = sqlite3.connect(f"file:{shared}/data/sqleval/sqlite/{db}.sqlite?mode=ro", uri=True)
    try:
        return rows_of(conns[db].execute(sql).fetchall())
    except Exception as e:
        return f"error {e}"

pairs = csv.DictReader(open(f"{shared}/data/sqleval/reference/pairs_{dialect}.tsv"), delimiter="\t", quoting=csv.QUOTE_NONE)
for p in pairs:
    if not (CLOCK.search(p["gold"]) or CLOCK.search(p["candidate"])):
        continue
    tables = []
    try:
        tables += [("gold", t) for t in json.loads(p["gold_rows"] or "[]")]
        c = json.loads(p["cand_rows"] or "null")
        if c:
            tables.append(("cand", c if isinstance(c, dict) else c[0]))
    except Exception:
        pass
    for role, t in tables:
        if not CLOCK.search(t.get("sql", "")):
            continue
        got = run(p["db_name"], t["sql"])
        print(p["pair_id"], role, int(got == rows_of(t["rows"])))
