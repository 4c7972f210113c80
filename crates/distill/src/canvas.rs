//! A drawn database's connection kept from one draw to the next: its tables are created once
//! and its rows replaced for each random database, so that the statements prepared on it stay
//! (the backend caches them per connection) and a neighbor is planned once per worker, not
//! once per database. The answers are those of the same database drawn afresh: the same rows,
//! inserted in the same order, under plans that do not depend on the rows.

use rusqlite::Connection;

use super::random_db::{self, Constants};
use super::schema::SuiteSchema;
use super::SuiteError;
use sqlsuite::backend::sqlite::{quote_identifier, restrict_gated, WriteGate};

/// How many prepared statements a canvas keeps (least recently used out first): every
/// neighbor still open of a schema, once the first few databases have told most apart (ATIS
/// keeps about 5,000 open; one of its 15-alias joins holds about 14 KiB prepared).
const STATEMENTS_KEPT: usize = 12_000;

/// One worker's drawn database.
pub struct Canvas {
    conn: Connection,
    gate: WriteGate,
    /// Its tables (and `sqlite_sequence` if an `AUTOINCREMENT` made one): emptied before a
    /// fill, in this order.
    tables: Vec<String>,
    /// The seed of the database it holds.
    holds: Option<u64>,
}

impl Canvas {
    /// A canvas for `schema`, its tables created and empty.
    pub fn new(schema: &SuiteSchema) -> Result<Canvas, SuiteError> {
        let err = SuiteError::generating(&schema.db_id);
        let conn = Connection::open_in_memory().map_err(err)?;
        random_db::create(&conn, schema)?;
        let tables = {
            let mut stmt = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
                .map_err(err)?;
            let names = stmt
                .query_map([], |row| row.get::<_, String>(0))
                .map_err(err)?;
            names.collect::<Result<Vec<_>, _>>().map_err(err)?
        };
        conn.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
        let gate = restrict_gated(&conn);
        Ok(Canvas {
            conn,
            gate,
            tables,
            holds: None,
        })
    }

    /// The connection, holding the random database `seed` ([`random_db::populate`]).
    pub fn hold(
        &mut self,
        schema: &SuiteSchema,
        constants: &Constants,
        seed: u64,
    ) -> Result<&Connection, SuiteError> {
        if self.holds != Some(seed) {
            self.holds = None;
            let err = SuiteError::generating(&schema.db_id);
            let _open = self.gate.open();
            for table in &self.tables {
                self.conn
                    .execute_batch(&format!("DELETE FROM {}", quote_identifier(table)))
                    .map_err(err)?;
            }
            random_db::fill(&self.conn, schema, constants, seed, false)?;
            self.holds = Some(seed);
        }
        Ok(&self.conn)
    }
}

/// The connection of the canvas in `slot` (made on first need), holding the random database
/// `seed`.
pub fn held<'a>(
    slot: &'a mut Option<Canvas>,
    schema: &SuiteSchema,
    constants: &Constants,
    seed: u64,
) -> Result<&'a Connection, SuiteError> {
    let canvas = match slot {
        Some(c) => c,
        None => slot.insert(Canvas::new(schema)?),
    };
    canvas.hold(schema, constants, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlsuite::backend::sqlite::run_query;
    use sqlsuite::backend::Limits;

    fn answers(conn: &Connection, queries: &[&str]) -> Vec<String> {
        queries
            .iter()
            .map(|q| format!("{:?}", run_query(conn, q, &Limits::default())))
            .collect()
    }

    #[test]
    fn a_refilled_canvas_answers_as_the_database_drawn_afresh() {
        let schema = crate::schema::tests::academic();
        let golds = [
            crate::witness::tests::JAGADISH,
            "SELECT count(*) FROM PUBLICATION WHERE YEAR > 2000",
        ];
        let constants =
            Constants::from_golds(golds.iter().copied(), &schema).focused_on(golds[0], &schema);
        let queries = [
            golds[0],
            golds[1],
            "SELECT * FROM author",
            "SELECT * FROM publication ORDER BY year LIMIT 3",
            "SELECT rowid, * FROM writes",
        ];
        let mut canvas = Canvas::new(&schema).unwrap();
        let mut differed = false;
        let mut previous: Option<Vec<String>> = None;
        for seed in [3, 11, 3, 40] {
            let fresh = random_db::in_memory(&schema, &constants, seed).unwrap();
            let want = answers(&fresh, &queries);
            let got = answers(canvas.hold(&schema, &constants, seed).unwrap(), &queries);
            assert_eq!(got, want, "seed {seed}");
            differed |= previous.is_some_and(|p| p != want);
            previous = Some(want);
        }
        assert!(differed, "the draws hold different rows");
    }

    #[test]
    fn a_canvas_refuses_writes_from_the_queries_it_runs() {
        let schema = crate::schema::tests::academic();
        let constants = Constants::from_golds(std::iter::empty(), &schema);
        let mut canvas = Canvas::new(&schema).unwrap();
        let conn = canvas.hold(&schema, &constants, 1).unwrap();
        let before = answers(conn, &["SELECT count(*) FROM author"]);
        assert!(conn.execute_batch("DELETE FROM author").is_err());
        assert!(conn.execute_batch("CREATE TABLE x (a)").is_err());
        assert_eq!(answers(conn, &["SELECT count(*) FROM author"]), before);
    }
}
