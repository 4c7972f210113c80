//! A database described by a text2sql-data schema CSV (the classical datasets' `<db>-schema.csv`):
//! one line per column, blocks of a table's columns separated by a line of `-`. The CSV becomes
//! a SQL script of `CREATE TABLE` statements (no rows), which the SQLite backend loads into a
//! private in-memory database like any `.sql` script.
//!
//! Two layouts occur, told apart by the lines themselves:
//!
//! * **Flags** (`Table Name, Field Name, Is Primary Key, Is Foreign Key, Type[, Other info]`,
//!   columns found by header name): `y`/`Y` marks a primary-key or foreign-key column; `NOT
//!   NULL` in the type or the other info makes the column NOT NULL.
//! * **MySQL `DESCRIBE`** (advising: seven fields per line, whatever the header says): `table,
//!   field, type, null (YES/NO), key (PRI/MUL/-), default, extra`; `PRI` marks the primary key,
//!   `NO` a NOT NULL column, `MUL` an indexed column.
//!
//! A foreign key's target is not in the CSV. A column flagged as a foreign key references the
//! one other table whose single-column primary key has the same name (case-insensitive); with no
//! such table, or several, the flag is kept only as a comment in the script.

use crate::sql_tokens::quote;

/// `name` as a double-quoted SQL identifier.
fn ident(name: &str) -> String {
    quote(name, '"')
}
use std::fmt::Write;

/// Errors reading a schema CSV: the 1-based line and what is wrong.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("line {line}: {message}")]
pub struct SchemaCsvError {
    pub line: usize,
    pub message: String,
}

/// One column as the CSV describes it.
#[derive(Debug, Clone, PartialEq)]
struct CsvColumn {
    name: String,
    sql_type: String,
    primary_key: bool,
    foreign_key: bool,
    not_null: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct CsvTable {
    name: String,
    columns: Vec<CsvColumn>,
}

/// Where each field is in a flags-layout line.
struct Header {
    primary_key: usize,
    foreign_key: usize,
    sql_type: usize,
    other: Option<usize>,
}

impl Header {
    fn read(fields: &[String]) -> Result<Header, SchemaCsvError> {
        let find = |name: &str| {
            fields
                .iter()
                .position(|f| f.trim().eq_ignore_ascii_case(name))
        };
        let need = |name: &str| {
            find(name).ok_or_else(|| SchemaCsvError {
                line: 1,
                message: format!("the header has no {name:?} column"),
            })
        };
        for (i, name) in [(0, "Table Name"), (1, "Field Name")] {
            if find(name) != Some(i) {
                return Err(SchemaCsvError {
                    line: 1,
                    message: format!("column {} of the header must be {name:?}", i + 1),
                });
            }
        }
        Ok(Header {
            primary_key: need("Is Primary Key")?,
            foreign_key: need("Is Foreign Key")?,
            sql_type: need("Type")?,
            other: find("Other info"),
        })
    }
}

/// Fields a MySQL `DESCRIBE` line has (with the table in front).
const DESCRIBE_FIELDS: usize = 7;

fn is_yes(flag: &str) -> bool {
    matches!(flag.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Reads the CSV's tables, in file order.
fn read_tables(text: &str) -> Result<Vec<CsvTable>, SchemaCsvError> {
    let mut header: Option<Header> = None;
    let mut tables: Vec<CsvTable> = Vec::new();
    for (i, text_line) in text.lines().enumerate() {
        let line = i + 1;
        if text_line.trim().is_empty() {
            continue;
        }
        let fields = split_fields(text_line);
        let Some(h) = &header else {
            header = Some(Header::read(&fields)?);
            continue;
        };
        if fields.iter().all(|f| f.is_empty() || f == "-") {
            continue;
        }
        let bad = |message: String| SchemaCsvError { line, message };
        let get = |k: usize| fields.get(k).map(String::as_str).unwrap_or("");
        let (table, name) = (get(0), get(1));
        if table.is_empty() || name.is_empty() {
            return Err(bad(
                "a column line needs a table name and a field name".into()
            ));
        }
        // DESCRIBE's last four fields are null, key, default, extra; an unquoted type such as
        // `float(3,2)` spans the fields before them.
        let null_at = fields.len().saturating_sub(4);
        if table.contains('\0') || name.contains('\0') {
            return Err(bad("a table or field name may not contain NUL".into()));
        }
        let column = if fields.len() >= DESCRIBE_FIELDS
            && matches!(get(null_at).to_ascii_uppercase().as_str(), "YES" | "NO")
        {
            let key = get(null_at + 1).to_ascii_uppercase();
            CsvColumn {
                name: name.to_owned(),
                sql_type: fields[2..null_at].join(","),
                primary_key: key == "PRI",
                foreign_key: key == "MUL",
                not_null: get(null_at).eq_ignore_ascii_case("NO"),
            }
        } else {
            let ty = get(h.sql_type);
            if ty.is_empty() {
                return Err(bad(format!("column {table}.{name} has no type")));
            }
            let other = h.other.map(get).unwrap_or("");
            let upper = format!("{ty} {other}").to_ascii_uppercase();
            let (sql_type, _) = split_type(ty);
            CsvColumn {
                name: name.to_owned(),
                sql_type,
                primary_key: is_yes(get(h.primary_key)),
                foreign_key: is_yes(get(h.foreign_key)),
                not_null: upper.contains("NOT NULL"),
            }
        };
        // The type goes into the script as written: it must be a type name and nothing more.
        if !is_type_name(&column.sql_type) {
            return Err(bad(format!(
                "column {table}.{name} has type {:?}, which is no SQL type name (a name, \
                 optionally with `(n)` or `(n, m)`)",
                column.sql_type
            )));
        }
        match tables.last_mut() {
            Some(t) if t.name == table => {
                if t.columns.iter().any(|c| c.name.eq_ignore_ascii_case(name)) {
                    return Err(bad(format!("column {table}.{name} appears twice")));
                }
                t.columns.push(column)
            }
            _ => {
                if tables.iter().any(|t| t.name.eq_ignore_ascii_case(table)) {
                    return Err(bad(format!(
                        "table {table} continues after other tables' columns"
                    )));
                }
                tables.push(CsvTable {
                    name: table.to_owned(),
                    columns: vec![column],
                });
            }
        }
    }
    if tables.is_empty() {
        return Err(SchemaCsvError {
            line: 1,
            message: "no table".into(),
        });
    }
    Ok(tables)
}

/// A declared type as SQLite's grammar has it, restricted to plain words: `varchar(255)`,
/// `decimal(1,1)`, `double precision` (not `int(11) unsigned`: nothing after the parentheses).
fn is_type_name(ty: &str) -> bool {
    let words = |w: &str| {
        w.split_whitespace().count() > 0
            && w.split_whitespace().all(|word| {
                word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
    };
    let number = |n: &str| {
        let n = n.trim();
        let digits = n.strip_prefix(['+', '-']).unwrap_or(n);
        !digits.is_empty() && digits.len() <= 20 && digits.chars().all(|c| c.is_ascii_digit())
    };
    let Some((name, rest)) = ty.split_once('(') else {
        return words(ty);
    };
    let Some((inner, after)) = rest.split_once(')') else {
        return false;
    };
    let arguments: Vec<&str> = inner.split(',').collect();
    words(name)
        && (1..=2).contains(&arguments.len())
        && arguments.iter().all(|n| number(n))
        && after.trim().is_empty()
}

/// The fields of one line: split at commas outside double quotes, each trimmed and unquoted
/// (the files put a space before a quoted field, `n, "decimal(1,1)"`, which strict CSV
/// readers do not take as quoted).
fn split_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field).trim().to_owned()),
            _ => field.push(c),
        }
    }
    fields.push(field.trim().to_owned());
    fields
}

/// `INT(11) NOT NULL DEFAULT NULL` → (`INT(11)`, the rest): the declared type is the text before
/// the first constraint keyword.
fn split_type(ty: &str) -> (String, String) {
    let upper = ty.to_ascii_uppercase();
    let cut = ["NOT NULL", "DEFAULT", "AUTO_INCREMENT", "NULL"]
        .iter()
        .filter_map(|k| upper.find(k))
        .min()
        .unwrap_or(ty.len());
    (ty[..cut].trim().to_owned(), ty[cut..].trim().to_owned())
}

/// The SQL script creating the CSV's tables: declared types, NOT NULL, the primary key, and the
/// foreign keys whose target is unambiguous (see the module documentation).
pub fn to_script(text: &str) -> Result<String, SchemaCsvError> {
    let tables = read_tables(text)?;
    // Tables with a single-column primary key, by that column's name.
    let key_of = |column: &str, except: &str| -> Vec<(&str, &str)> {
        tables
            .iter()
            .filter(|t| !t.name.eq_ignore_ascii_case(except))
            .filter_map(|t| {
                let keys: Vec<&CsvColumn> = t.columns.iter().filter(|c| c.primary_key).collect();
                match keys[..] {
                    [k] if k.name.eq_ignore_ascii_case(column) => {
                        Some((t.name.as_str(), k.name.as_str()))
                    }
                    _ => None,
                }
            })
            .collect()
    };
    let mut script = String::new();
    for t in &tables {
        let mut parts: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                let mut s = format!("{} {}", ident(&c.name), c.sql_type);
                if c.not_null {
                    s.push_str(" NOT NULL");
                }
                s
            })
            .collect();
        let keys: Vec<String> = t
            .columns
            .iter()
            .filter(|c| c.primary_key)
            .map(|c| ident(&c.name))
            .collect();
        if !keys.is_empty() {
            parts.push(format!("PRIMARY KEY ({})", keys.join(", ")));
        }
        let mut unresolved = Vec::new();
        for c in t.columns.iter().filter(|c| c.foreign_key) {
            match key_of(&c.name, &t.name)[..] {
                [(parent, key)] => parts.push(format!(
                    "FOREIGN KEY ({}) REFERENCES {} ({})",
                    ident(&c.name),
                    ident(parent),
                    ident(key)
                )),
                _ => unresolved.push(c.name.as_str()),
            }
        }
        if !unresolved.is_empty() {
            let _ = writeln!(
                script,
                "-- {}: flagged as foreign keys, target unknown: {}",
                t.name,
                unresolved.join(", ")
            );
        }
        let _ = writeln!(
            script,
            "CREATE TABLE {} (\n  {}\n);",
            ident(&t.name),
            parts.join(",\n  ")
        );
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables_of(script: &str) -> Vec<(String, String)> {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(script).unwrap();
        let mut stmt = conn
            .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        rows
    }

    #[test]
    fn flags_layout_gives_types_keys_and_unambiguous_foreign_keys() {
        let csv = "Table Name, Field Name, Is Primary Key, Is Foreign Key, Type\n\
                   CITY, CITY_CODE, y, n, varchar(4)\n\
                   CITY, NAME, n, n, \"decimal(1,1)\"\n\
                   -, -, -, -, -\n\
                   AIRPORT, AIRPORT_CODE, y, n, varchar(3)\n\
                   AIRPORT, CITY_CODE, n, y, varchar(4)\n\
                   AIRPORT, STATE, n, y, text\n";
        let script = to_script(csv).unwrap();
        let tables = tables_of(&script);
        assert_eq!(tables.len(), 2);
        assert!(tables[0].1.contains("\"NAME\" decimal(1,1)"), "{script}");
        assert!(tables[0].1.contains("PRIMARY KEY (\"CITY_CODE\")"));
        assert!(
            tables[1]
                .1
                .contains("FOREIGN KEY (\"CITY_CODE\") REFERENCES \"CITY\" (\"CITY_CODE\")"),
            "{script}"
        );
        assert!(script.contains("-- AIRPORT: flagged as foreign keys, target unknown: STATE"));
    }

    #[test]
    fn not_null_from_the_type_or_other_info() {
        let csv = "Table Name, Field Name, Is Primary Key, Is Foreign Key, Type, Other info\n\
                   a, x, Y, -, INT(11) NOT NULL\n\
                   a, y, N, -, VARCHAR(50) DEFAULT NULL\n\
                   a, z, n, n, int(11), NOT NULL AUTO_INCREMENT,\n";
        let script = to_script(csv).unwrap();
        assert!(script.contains("\"x\" INT(11) NOT NULL"), "{script}");
        assert!(script.contains("\"y\" VARCHAR(50),"), "{script}");
        assert!(script.contains("\"z\" int(11) NOT NULL"), "{script}");
    }

    #[test]
    fn describe_layout_reads_null_and_key_columns() {
        let csv = "Table Name, Field Name, Type, Is Foreign Key, Is Primary Key\n\
                   COURSE, COURSE_ID, int(11), NO, PRI, 0, -\n\
                   COURSE, NAME, varchar(255), YES, -, NULL, -\n\
                   COURSE, GPA, float(3,2), YES, -, NULL, -\n\
                   -, -, -, -, -, -, -\n\
                   OFFERING, OFFERING_ID, int(11), NO, PRI, 0, -\n\
                   OFFERING, COURSE_ID, int(11), YES, MUL, NULL, -\n";
        let script = to_script(csv).unwrap();
        let tables = tables_of(&script);
        assert!(
            tables[0].1.contains("\"COURSE_ID\" int(11) NOT NULL"),
            "{script}"
        );
        assert!(tables[0].1.contains("\"NAME\" varchar(255),"), "{script}");
        assert!(tables[0].1.contains("\"GPA\" float(3,2),"), "{script}");
        assert!(
            tables[0].1.contains("PRIMARY KEY (\"COURSE_ID\")"),
            "{script}"
        );
        assert!(
            tables[1]
                .1
                .contains("FOREIGN KEY (\"COURSE_ID\") REFERENCES \"COURSE\" (\"COURSE_ID\")"),
            "{script}"
        );
    }

    /// Found by the reader fuzzing: a type cut short (`varchar(`, `decimal(1,`) went into the
    /// script as written, and the script failed in SQLite with an error naming no file; a type
    /// could also add SQL of its own. A repeated column did the same.
    #[test]
    fn a_type_is_a_type_name_and_nothing_more() {
        let header = "Table Name, Field Name, Is Primary Key, Is Foreign Key, Type\n";
        for ty in [
            "varchar(",
            "\"decimal(1,\"",
            "int); DROP TABLE t; --",
            "\"int, b int\"",
            "x(1,2,3)",
            "int(11) unsigned",
        ] {
            let e = to_script(&format!("{header}a, x, y, n, {ty}\n")).unwrap_err();
            assert_eq!(e.line, 2, "{ty}: {e}");
            assert!(e.message.contains("no SQL type name"), "{ty}: {e}");
        }
        for ty in [
            "varchar(255)",
            "\"decimal(1,1)\"",
            "double precision",
            "text",
        ] {
            let script = to_script(&format!("{header}a, x, y, n, {ty}\n")).unwrap();
            assert_eq!(tables_of(&script).len(), 1, "{ty}: {script}");
        }
        let e = to_script(&format!("{header}a, x, y, n, int\na, X, n, n, int\n")).unwrap_err();
        assert_eq!(e.to_string(), "line 3: column a.X appears twice");
    }

    #[test]
    fn errors_name_the_line() {
        let e = to_script("Table, Field\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = to_script(
            "Table Name, Field Name, Is Primary Key, Is Foreign Key, Type\na, x, y, n,\n",
        )
        .unwrap_err();
        assert_eq!(
            e,
            SchemaCsvError {
                line: 2,
                message: "column a.x has no type".into()
            }
        );
        let e = to_script(
            "Table Name, Field Name, Is Primary Key, Is Foreign Key, Type\n\
             a, x, y, n, int\nb, y, y, n, int\na, z, n, n, int\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
    }
}
