//! SQL as the HTML reports show it: a line break before each clause (`FROM`, `WHERE`, `JOIN`,
//! `GROUP BY`, …), clauses indented inside a subquery, every token as written (no keyword's
//! case changed, nothing re-quoted). The `sqlformat` crate does it from tokens, so a
//! prediction that does not parse (a `sql_error`) is laid out as readably as one that does;
//! a formatter over a parsed statement (sqlparser's) would print what it parsed, not what the
//! model wrote, and nothing for what it cannot parse.

use sqlformat::{FormatOptions, Indent, QueryParams};

/// A clause's contents stay on its line up to this many characters.
const INLINE: usize = 72;

/// `sql` with line breaks at its clauses; an empty text stays empty.
pub fn readable(sql: &str) -> String {
    if sql.trim().is_empty() {
        return String::new();
    }
    let options = FormatOptions {
        indent: Indent::Spaces(2),
        uppercase: None,
        max_inline_block: INLINE,
        max_inline_arguments: Some(INLINE),
        max_inline_top_level: Some(INLINE),
        joins_as_top_level: true,
        ..FormatOptions::default()
    };
    sqlformat::format(sql, &QueryParams::None, &options)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text without its whitespace: what formatting may not change.
    fn tokens(sql: &str) -> String {
        sql.split_whitespace().collect()
    }

    #[test]
    fn a_line_per_clause_and_nothing_else_changed() {
        for sql in [
            "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014 GROUP BY T2.name ORDER BY count(*) DESC LIMIT 1",
            "select name from singer where age > (select avg(age) from singer) and country = 'It''s'",
            // Not SQL a parser takes (a `sql_error` prediction): laid out all the same.
            "SELECT name FROM WHERE WHERE age >",
        ] {
            let out = readable(sql);
            assert_eq!(tokens(&out), tokens(sql), "{out}");
        }
        let out = readable(
            "SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014 ORDER BY T2.name",
        );
        let lines: Vec<&str> = out.lines().map(str::trim_start).collect();
        for clause in ["FROM", "JOIN", "WHERE", "ORDER BY"] {
            assert!(
                lines.iter().any(|l| l.starts_with(clause)),
                "no line starts with {clause}:\n{out}"
            );
        }
        assert_eq!(readable("  "), "");
    }
}
