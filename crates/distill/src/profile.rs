//! A published database profile (BIRD's `dev_profile.json`, `[distill] profile`): statistics of
//! databases whose contents are not at hand. Per table its row count and primary key; per
//! column its type, foreign keys, NULL fraction, distinct count, up to ten sample values, and
//! its minimum and maximum. A schema distilled with a profile and without its original
//! database generates within what the profile says (`spec/bird.md`, "Databases from the
//! profile"):
//!
//! * the tables' primary keys, and the foreign keys: a `many-to-one` key references its parent
//!   column, a `one-to-one` key the side that is the parent's key (`one-to-many` is the same
//!   key seen from the parent, `many-to-many` no reference);
//! * each column's value pool: its sample values (the generator's "original" values); and
//!   for a text column whose samples share one shape of digit runs (`1:23.794`, `#:#.#`), the
//!   minimum and maximum of that shape they lack (`10:32.179`): values of other widths; and
//!   values whose digits the samples give, place by place (`1:29.613` from `1:20.329` and
//!   `1:19.613`), so that a database holds times of one width that rarely tie; both drawn
//!   only into the later databases ([`extremes`], [`recombined`]);
//! * per column ([`DatabaseProfile::constraints`]): NOT NULL where the NULL fraction is 0;
//!   unique where the distinct count is the row count; an enumeration where the sample values
//!   are every distinct value; the range from the minimum and maximum (numbers, and dates in
//!   the layout their samples have); whole numbers for `integer` columns.
//!
//! What a profile cannot tell: joint distributions (which values go together in a row), how
//! often each value occurs, text shapes beyond the samples, and references it does not list.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use rusqlite::types::Value;
use serde::Deserialize;
use serde_json::Value as Json;

use super::constraints::{ColumnRules, Constraints, Reference, ReferenceOrigin};
use super::schema::SuiteSchema;
use super::text_shape::{dated, digit_runs};
use super::SuiteError;

/// Every database of a profile file, by name.
#[derive(Debug, Clone)]
pub struct Profile {
    databases: HashMap<String, DatabaseProfile>,
}

/// One database's statistics.
#[derive(Debug, Clone, Deserialize)]
pub struct DatabaseProfile {
    name: String,
    tables: Vec<TableProfile>,
}

#[derive(Debug, Clone, Deserialize)]
struct TableProfile {
    name: String,
    row_count: u64,
    #[serde(default)]
    primary_key: Vec<String>,
    columns: Vec<ColumnProfile>,
}

#[derive(Debug, Clone, Deserialize)]
struct ColumnProfile {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    foreign_keys: Vec<ForeignKeyProfile>,
    #[serde(default)]
    null_fraction: f64,
    #[serde(default)]
    unique_count: u64,
    #[serde(default)]
    sample_values: Vec<Json>,
    #[serde(default)]
    min_value: Json,
    #[serde(default)]
    max_value: Json,
}

#[derive(Debug, Clone, Deserialize)]
struct ForeignKeyProfile {
    reference_table: String,
    reference_column: String,
    relationship: String,
}

impl Profile {
    /// Reads a profile file: a JSON array of `{name, tables}`.
    pub fn read(path: &Path) -> Result<Profile, SuiteError> {
        let text = std::fs::read_to_string(path).map_err(|error| SuiteError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let databases: Vec<DatabaseProfile> =
            serde_json::from_str(&text).map_err(|e| SuiteError::Constraints {
                path: path.to_path_buf(),
                message: format!("not a database profile: {e}"),
            })?;
        Ok(Profile {
            databases: databases.into_iter().map(|d| (d.name.clone(), d)).collect(),
        })
    }

    /// The statistics of database `db_id`, if the profile has it.
    pub fn database(&self, db_id: &str) -> Option<&DatabaseProfile> {
        self.databases.get(db_id)
    }

    /// The primary key of each table of database `db_id` that has one, by table name as the
    /// profile spells it (none for a database the profile lacks).
    pub fn primary_keys(&self, db_id: &str) -> BTreeMap<String, Vec<String>> {
        self.database(db_id)
            .into_iter()
            .flat_map(|d| &d.tables)
            .filter(|t| !t.primary_key.is_empty())
            .map(|t| (t.name.clone(), t.primary_key.clone()))
            .collect()
    }
}

impl DatabaseProfile {
    /// The profile's table `name` and its column `column` (letter case ignored).
    fn column(&self, table: &str, column: &str) -> Option<(&TableProfile, &ColumnProfile)> {
        let t = self
            .tables
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(table))?;
        let c = t
            .columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(column))?;
        Some((t, c))
    }

    /// `schema` with the profile's primary keys and each column's sample values as its pool.
    pub fn apply(&self, mut schema: SuiteSchema) -> SuiteSchema {
        schema.profiled = true;
        for table in &mut schema.tables {
            let Some(profile) = self
                .tables
                .iter()
                .find(|t| t.name.eq_ignore_ascii_case(&table.name))
            else {
                continue;
            };
            if table.primary_key.is_empty() {
                table.primary_key = profile
                    .primary_key
                    .iter()
                    .filter_map(|k| {
                        table
                            .columns
                            .iter()
                            .position(|c| c.name.eq_ignore_ascii_case(k))
                    })
                    .collect();
            }
            for column in &mut table.columns {
                if let Some((_, c)) = self.column(&profile.name, &column.name) {
                    if column.original.is_empty() {
                        column.original = c.sample_values.iter().filter_map(sql_value).collect();
                        column.layout = shaped_samples(c).is_some();
                        column.wider = extremes(c);
                        column.wider.extend(recombined(c, &column.wider));
                    }
                }
            }
        }
        schema
    }

    /// What the statistics say of each column of `schema`, and the references they list, as
    /// constraints to merge over the induced ones.
    pub fn constraints(&self, schema: &SuiteSchema) -> Constraints {
        let mut out = Constraints::default();
        for table in &schema.tables {
            for column in &table.columns {
                let Some((t, c)) = self.column(&table.name, &column.name) else {
                    continue;
                };
                let name = format!("{}.{}", table.name, column.name);
                out.columns.insert(name.clone(), column_rules(t, c));
                for fk in &c.foreign_keys {
                    if let Some(to) = self.parent(t, c, fk) {
                        if !out.references.iter().any(|r| r.from == name && r.to == to) {
                            out.references.push(Reference {
                                from: name.clone(),
                                to,
                                enforce: true,
                                source: ReferenceOrigin::Profile,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// The column `c` (of `t`) references through `fk`, as `Table.column`, where the
    /// relationship makes `c` the child.
    fn parent(
        &self,
        t: &TableProfile,
        c: &ColumnProfile,
        fk: &ForeignKeyProfile,
    ) -> Option<String> {
        let (pt, pc) = self.column(&fk.reference_table, &fk.reference_column)?;
        let to = format!("{}.{}", pt.name, pc.name);
        match fk.relationship.as_str() {
            "many-to-one" => Some(to),
            // The side whose values are the parent's key is the parent.
            "one-to-one" => {
                let parent_is_key = pt
                    .primary_key
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(&pc.name));
                let child_is_key = t
                    .primary_key
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(&c.name));
                (parent_is_key && !child_is_key).then_some(to)
            }
            _ => None,
        }
    }
}

/// The rules a column's statistics give.
fn column_rules(t: &TableProfile, c: &ColumnProfile) -> ColumnRules {
    let samples: Vec<&Json> = c.sample_values.iter().filter(|v| !v.is_null()).collect();
    let mut r = ColumnRules {
        not_null: Some(c.null_fraction == 0.0),
        unique: Some(t.row_count > 1 && c.unique_count == t.row_count),
        ..ColumnRules::default()
    };
    // Every distinct value is a sample: the samples are the column's values.
    let enumerated =
        c.unique_count >= 1 && c.unique_count as usize <= samples.len() && !r.is_unique();
    match c.kind.as_str() {
        "integer" | "real" => {
            r.integer = Some(c.kind == "integer");
            r.min = toml_number(&c.min_value);
            r.max = toml_number(&c.max_value);
            if enumerated {
                r.values = Some(samples.iter().filter_map(|v| toml_number(v)).collect());
            }
        }
        _ => {
            let texts: Vec<&str> = samples.iter().filter_map(|v| v.as_str()).collect();
            if let Some(format) = date_format(&texts) {
                r.format = Some(format.to_owned());
                r.min = c
                    .min_value
                    .as_str()
                    .map(|s| toml::Value::String(s.to_owned()));
                r.max = c
                    .max_value
                    .as_str()
                    .map(|s| toml::Value::String(s.to_owned()));
            } else if enumerated && texts.len() == samples.len() {
                r.values = Some(
                    texts
                        .iter()
                        .map(|s| toml::Value::String((*s).to_owned()))
                        .collect(),
                );
            }
        }
    }
    r
}

/// The column's minimum and maximum where they are text of the shape every sample has and no
/// sample: digit runs, of any width, between the same other characters (`1:23.794` and
/// `10:32.179` are both `#:#.#`), at least one digit run, and no date layout (a date column's
/// extremes are its range already). A random database whose times all have one digit of
/// minutes cuts them alike however a query cuts them; the extremes have other widths.
fn extremes(c: &ColumnProfile) -> Vec<Value> {
    let (samples, shape) = match shaped_samples(c) {
        Some((samples, shape)) => (samples, Some(shape)),
        None => match mixed_samples(c) {
            Some(samples) => (samples, None),
            None => return Vec::new(),
        },
    };
    let mut out: Vec<Value> = Vec::new();
    for v in [&c.min_value, &c.max_value] {
        let Some(s) = v.as_str() else { continue };
        let new = Value::Text(s.to_owned());
        let fits = match &shape {
            Some(shape) => digit_runs(s).as_ref() == Some(shape),
            None => digit_runs(s).is_some(),
        };
        if fits && !samples.contains(&s) && !out.contains(&new) {
            out.push(new);
        }
    }
    out
}

/// The column's samples where they are text of more than one shape of digit runs (results'
/// times: `+5.7`, `+1:29.6`), no date among them: then an extreme with digits, of any shape,
/// is a value the column holds (the winner's `4:04:39.537`, which no sample shows).
fn mixed_samples(c: &ColumnProfile) -> Option<Vec<&str>> {
    let samples: Vec<&str> = c.sample_values.iter().filter_map(|v| v.as_str()).collect();
    let shapes: BTreeSet<String> = samples.iter().filter_map(|s| digit_runs(s)).collect();
    let text = !samples.is_empty() && samples.len() == c.sample_values.len();
    let undated = date_format(&samples).is_none() && !samples.iter().any(|s| dated(s));
    (text && undated && shapes.len() > 1).then_some(samples)
}

/// How many values [`recombined`] makes, at most.
const RECOMBINED: usize = 8;

/// Values of the samples' one shape of digit runs (as [`extremes`] asks) that no sample and
/// none of `besides` is: each takes a sample's layout and, at every digit, the digit at the
/// same place of a sample of the same layout (`1:20.329` and `1:19.613` give `1:29.613`,
/// `1:10.323`, …). A random database drawing from ten samples holds a few times, which tie
/// and rank alike however a query parses them; these hold the samples' digits (no minute
/// past the samples', no second past 59 where no sample has one), in other combinations.
/// Drawn from a generator seeded by the samples: the same profile gives the same values.
fn recombined(c: &ColumnProfile, besides: &[Value]) -> Vec<Value> {
    let Some((samples, _)) = shaped_samples(c) else {
        return Vec::new();
    };
    // A sample's layout: its characters, each digit made `0`.
    let layout = |s: &str| -> String {
        s.chars()
            .map(|ch| if ch.is_ascii_digit() { '0' } else { ch })
            .collect()
    };
    let seed = samples
        .iter()
        .flat_map(|s| s.bytes())
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out: Vec<Value> = Vec::new();
    for _ in 0..RECOMBINED * 8 {
        if out.len() == RECOMBINED {
            break;
        }
        let template = samples[rng.usize(..samples.len())];
        let alike: Vec<Vec<char>> = samples
            .iter()
            .filter(|s| layout(s) == layout(template))
            .map(|s| s.chars().collect())
            .collect();
        let made: String = template
            .chars()
            .enumerate()
            .map(|(i, ch)| {
                if ch.is_ascii_digit() {
                    alike[rng.usize(..alike.len())][i]
                } else {
                    ch
                }
            })
            .collect();
        let new = Value::Text(made.clone());
        if !samples.contains(&made.as_str()) && !besides.contains(&new) && !out.contains(&new) {
            out.push(new);
        }
    }
    out
}

/// The column's samples and their one shape of digit runs (`#:#.#`), where every sample is
/// text of that shape and no date layout.
fn shaped_samples(c: &ColumnProfile) -> Option<(Vec<&str>, String)> {
    let samples: Vec<&str> = c.sample_values.iter().filter_map(|v| v.as_str()).collect();
    if samples.is_empty()
        || samples.len() < c.sample_values.len()
        || date_format(&samples).is_some()
        || samples.iter().any(|s| dated(s))
    {
        return None;
    }
    let shape = digit_runs(samples[0])?;
    samples
        .iter()
        .all(|s| digit_runs(s).as_ref() == Some(&shape))
        .then_some((samples, shape))
}

/// A sample as a SQL value (`null` has none: it is no sample).
fn sql_value(v: &Json) -> Option<Value> {
    match v {
        Json::Bool(b) => Some(Value::Integer(i64::from(*b))),
        Json::Number(n) => n
            .as_i64()
            .map(Value::Integer)
            .or_else(|| n.as_f64().map(Value::Real)),
        Json::String(s) => Some(Value::Text(s.clone())),
        _ => None,
    }
}

/// A number of the profile as a TOML number.
fn toml_number(v: &Json) -> Option<toml::Value> {
    match v {
        Json::Number(n) => n
            .as_i64()
            .map(toml::Value::Integer)
            .or_else(|| n.as_f64().map(toml::Value::Float)),
        _ => None,
    }
}

/// The date or time layout every sample has, if one.
fn date_format(samples: &[&str]) -> Option<&'static str> {
    const LAYOUTS: [(&str, &str); 4] = [
        ("%Y-%m-%d %H:%M:%S", "dddd-dd-dd dd:dd:dd"),
        ("%Y-%m-%d %H:%M", "dddd-dd-dd dd:dd"),
        ("%Y-%m-%d", "dddd-dd-dd"),
        ("%H:%M:%S", "dd:dd:dd"),
    ];
    if samples.is_empty() {
        return None;
    }
    let shape = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_digit() { 'd' } else { c })
            .collect()
    };
    LAYOUTS
        .iter()
        .find(|(_, pattern)| samples.iter().all(|s| shape(s) == *pattern))
        .map(|(format, _)| *format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes_widen_where_their_shape_is_a_samples_or_the_samples_have_several() {
        let column = |samples: &str, min: &str, max: &str| -> ColumnProfile {
            serde_json::from_str(&format!(
                r#"{{"name": "c", "type": "text", "sample_values": {samples},
                    "min_value": {min}, "max_value": {max}}}"#
            ))
            .unwrap()
        };
        let wider = extremes(&column(
            r#"["1:23.7", "1:21.5"]"#,
            r#""+5.7""#,
            r#""12:01.0""#,
        ));
        assert_eq!(wider, [Value::Text("12:01.0".into())], "+5.7 is not #:#.#");
        assert!(extremes(&column(
            r#"["2012-08-23"]"#,
            r#""2010-01-01""#,
            r#""2014-12-31""#
        ))
        .is_empty());
        // Samples of more than one shape: an extreme with digits is a value of its own
        // (results' winning `4:04:39.537` beside the others' `+5.7`); one without digits,
        // or a sample, is not.
        assert_eq!(
            extremes(&column(
                r#"["1:23.7", "+5.7"]"#,
                r#""+ 1:06.7""#,
                r#""4:04:39.537""#
            )),
            [
                Value::Text("+ 1:06.7".into()),
                Value::Text("4:04:39.537".into())
            ]
        );
        assert!(extremes(&column(r#"["1:23.7", "+5.7"]"#, r#""abc""#, r#""+5.7""#)).is_empty());
        assert!(extremes(&column(r#"["abc"]"#, r#""a""#, r#""z""#)).is_empty());
    }

    #[test]
    fn recombined_values_take_each_digit_from_a_sample_at_the_same_place() {
        let column = |samples: &str| -> ColumnProfile {
            serde_json::from_str(&format!(
                r#"{{"name": "c", "type": "text", "sample_values": {samples}}}"#
            ))
            .unwrap()
        };
        let samples = ["1:20.329", "1:19.613", "1:31.070"];
        let made = recombined(&column(&format!("{samples:?}")), &[]);
        assert_eq!(made.len(), RECOMBINED, "{made:?}");
        for v in &made {
            let Value::Text(t) = v else { panic!("{v:?}") };
            assert!(!samples.contains(&t.as_str()), "{t} is a sample");
            for (i, ch) in t.chars().enumerate() {
                assert!(
                    samples.iter().any(|s| s.chars().nth(i) == Some(ch)),
                    "{t}: {ch} at {i} is no sample's"
                );
            }
        }
        // The same samples, the same values; none from one sample, a date column, or samples
        // of two shapes.
        assert_eq!(made, recombined(&column(&format!("{samples:?}")), &[]));
        assert!(recombined(&column(r#"["1:20.329"]"#), &[]).is_empty());
        assert!(recombined(&column(r#"["2012-08-23", "2013-01-02"]"#), &[]).is_empty());
        assert!(recombined(&column(r#"["1:20.329", "+5.7"]"#), &[]).is_empty());
        assert!(recombined(
            &column(r#"["2014-07-02 16:05:34.0", "2012-06-08 23:00:52.0"]"#),
            &[]
        )
        .is_empty());
    }

    const PROFILE: &str = r#"[{"name": "shop", "tables": [
      {"name": "customers", "row_count": 100, "primary_key": ["id"], "columns": [
        {"name": "id", "type": "integer", "foreign_keys": [
           {"reference_table": "orders", "reference_column": "customer", "relationship": "one-to-many"}],
         "null_fraction": 0.0, "unique_count": 100, "sample_values": [1, 2, 3],
         "min_value": 1, "max_value": 140},
        {"name": "segment", "type": "text", "foreign_keys": [], "null_fraction": 0.0,
         "unique_count": 2, "sample_values": ["KAM", "SME"], "min_value": "KAM", "max_value": "SME"},
        {"name": "lap", "type": "text", "foreign_keys": [], "null_fraction": 0.0,
         "unique_count": 60, "sample_values": ["1:23.794", "1:21.571"],
         "min_value": "10:32.179", "max_value": "9:45.712"},
        {"name": "joined", "type": "date", "foreign_keys": [], "null_fraction": 0.25,
         "unique_count": 80, "sample_values": ["2012-08-23", "2013-01-02"],
         "min_value": "2010-01-01", "max_value": "2014-12-31"}]},
      {"name": "orders", "row_count": 500, "primary_key": [], "columns": [
        {"name": "customer", "type": "integer", "foreign_keys": [
           {"reference_table": "customers", "reference_column": "id", "relationship": "many-to-one"}],
         "null_fraction": 0.0, "unique_count": 90, "sample_values": [1, 3],
         "min_value": 1, "max_value": 99},
        {"name": "price", "type": "real", "foreign_keys": [], "null_fraction": 0.0,
         "unique_count": 400, "sample_values": [1.5, 20.25], "min_value": 0.5, "max_value": 99.75}]}]}]"#;

    fn schema() -> SuiteSchema {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.sql");
        std::fs::write(
            &path,
            "CREATE TABLE customers (id integer, segment text, lap text, joined date);
             CREATE TABLE orders (customer integer, price real);",
        )
        .unwrap();
        super::super::schema::from_database("shop", &path).unwrap()
    }

    fn profile() -> DatabaseProfile {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("profile.json");
        std::fs::write(&path, PROFILE).unwrap();
        Profile::read(&path)
            .unwrap()
            .database("shop")
            .unwrap()
            .clone()
    }

    #[test]
    fn primary_keys_name_the_tables_that_have_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("profile.json");
        std::fs::write(&path, PROFILE).unwrap();
        let profile = Profile::read(&path).unwrap();
        let keys = profile.primary_keys("shop");
        assert_eq!(keys.len(), 1, "orders has an empty key: {keys:?}");
        assert_eq!(keys["customers"], ["id"]);
        assert!(profile.primary_keys("elsewhere").is_empty());
    }

    #[test]
    fn statistics_become_keys_pools_and_rules() {
        let p = profile();
        let schema = p.apply(schema());
        assert_eq!(schema.tables[0].primary_key, [0]);
        assert_eq!(schema.tables[0].columns[1].original.len(), 2);
        // The extremes of the samples' shape `#:#.#` the samples lack, then the samples'
        // digits recombined; none for a date column (its range) or one whose extremes are
        // samples.
        let wider = &schema.tables[0].columns[2].wider;
        assert_eq!(
            wider[..2],
            [
                Value::Text("10:32.179".into()),
                Value::Text("9:45.712".into())
            ]
        );
        assert!(wider.len() > 2, "{wider:?}");
        assert!(schema.tables[0].columns[3].wider.is_empty());
        assert!(schema.tables[0].columns[1].wider.is_empty());
        let c = p.constraints(&schema);
        let id = &c.columns["customers.id"];
        assert_eq!(
            (id.not_null, id.unique, id.integer),
            (Some(true), Some(true), Some(true))
        );
        let segment = &c.columns["customers.segment"];
        assert_eq!(
            segment.values,
            Some(vec![toml::Value::from("KAM"), toml::Value::from("SME")])
        );
        let joined = &c.columns["customers.joined"];
        assert_eq!(joined.not_null, Some(false));
        assert_eq!(joined.format.as_deref(), Some("%Y-%m-%d"));
        assert_eq!(joined.min, Some(toml::Value::from("2010-01-01")));
        let price = &c.columns["orders.price"];
        assert_eq!((price.integer, price.unique), (Some(false), Some(false)));
        assert_eq!(price.max, Some(toml::Value::from(99.75)));
        assert_eq!(
            price.values, None,
            "400 distinct values are more than the samples"
        );
        // The key, listed from both sides, is one reference from the child.
        assert_eq!(c.references.len(), 1);
        assert_eq!(
            (c.references[0].from.as_str(), c.references[0].to.as_str()),
            ("orders.customer", "customers.id")
        );
    }
}
