//! The reference's query text preprocessing, reproduced for `compat = "sede"` (`spec/pcm.md`,
//! "Compat preprocessing"), as its training configuration applies it: `[bracket]` names to
//! quoted names, `##parameters##` to quoted strings or `TOP` defaults, comment and `DECLARE`
//! removal with the reference's regex quirks (flags passed as replacement counts), the last
//! `;`-separated statement; then lower-casing, and every `'` turned into `"` before parsing.

use std::sync::LazyLock;

use regex::Regex;

use crate::python::is_python_whitespace;

fn re(pattern: &str) -> Regex {
    match Regex::new(pattern) {
        Ok(r) => r,
        Err(e) => panic!("invalid built-in pattern {pattern:?}: {e}"),
    }
}

static BRACKET: LazyLock<Regex> = LazyLock::new(|| re(r"\[([^\]]+)]"));
static TOP_PARAMETER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(top|percentile_cont)([ ]+)?[\(]?[ ]?(##[a-z0-9_]+(:[a-z]+)?(\?([0-9.]+))?##)[ ]?[\)]?",
    )
});
static PARAMETER: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)([^'%])(##[a-z0-9_?:]+##)([^'%]?)"));
static FORMAT_CALL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i) format\("));
static LEADING_DASHES: LazyLock<Regex> = LazyLock::new(|| re(r"^([- ]+|(result))+"));
static LINE_COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r"--(.+)?\n"));
static LONE_SEMICOLON: LazyLock<Regex> = LazyLock::new(|| re(r"\n;\n"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| re(r" +"));
static NATIONAL: LazyLock<Regex> = LazyLock::new(|| re(r" N'"));
static DECLARE_LINE: LazyLock<Regex> = LazyLock::new(|| re(r"(DECLARE|declare) [^\n]+\n"));
static NEWLINES: LazyLock<Regex> = LazyLock::new(|| re(r"[\n\t\r]+"));
static TRAILING_COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r"--.*$"));
static BLOCK_COMMENT: LazyLock<Regex> = LazyLock::new(|| re(r"/\*[^*/]+\*/"));
static DECLARE_STATEMENT: LazyLock<Regex> = LazyLock::new(|| re(r"(DECLARE|declare) [^;]+;"));
static NON_ASCII: LazyLock<Regex> = LazyLock::new(|| re(r"[^\x00-\x7f]"));

/// Python's `re.IGNORECASE | re.MULTILINE | re.DOTALL`, which the reference passes where
/// `re.sub` takes its replacement count.
const FLAGS_AS_COUNT: usize = 2 | 8 | 16;
/// `re.MULTILINE` passed as a count.
const MULTILINE_AS_COUNT: usize = 8;
/// `re.IGNORECASE` passed as a count.
const IGNORECASE_AS_COUNT: usize = 2;

/// The text the reference hands its parser, or `None` where it gives up before parsing.
pub(super) fn preprocess(text: &str) -> Option<String> {
    preprocess_for_parser(text).map(|s| s.to_lowercase().replace('\'', "\""))
}

/// What the reference's `preprocess_for_jsql` makes of a query, before the lower-casing and
/// the `'` → `"` replacement that precede parsing; `None` where it rejects the query.
pub fn preprocess_for_parser(text: &str) -> Option<String> {
    let mut sql = text.to_owned();

    // `[Name Here]` → `'name_here'` (or `name_here` when apostrophes surround it already).
    while let Some(m) = BRACKET.captures(&sql) {
        let (whole, start, end) = match m.get(0) {
            Some(w) => (w.as_str().to_owned(), w.start(), w.end()),
            None => break,
        };
        let name = m.get(1).map_or("", |g| g.as_str()).to_lowercase();
        let mut alias = if surrounded_by_apostrophes(&sql, start, end) {
            name
        } else {
            format!("'{name}'")
        };
        if alias.contains(' ') {
            alias = alias.replace(' ', "_");
        }
        sql = sql.replace(&whole, &alias);
    }

    // `TOP ##n:int?200##` → `TOP (200)`.
    while let Some(m) = TOP_PARAMETER.captures(&sql) {
        let whole = m.get(0).map_or("", |g| g.as_str()).to_owned();
        let keyword = m.get(1).map_or("", |g| g.as_str());
        let default = m.get(6).map_or("100", |g| g.as_str());
        let replacement = format!("{keyword} ({default})");
        if replacement == whole {
            break;
        }
        sql = sql.replace(&whole, &replacement);
    }

    // `##tagName##` → `'##tagName##'` unless apostrophes surround it.
    let mut rebuilt = String::new();
    while let Some(m) = PARAMETER.captures(&sql) {
        let Some(whole) = m.get(0) else { break };
        let (start, end) = (whole.start(), whole.end());
        rebuilt.push_str(&sql[..start]);
        if surrounded_by_apostrophes(&sql, start, end) {
            rebuilt.push_str(whole.as_str());
        } else {
            let g = |i: usize| m.get(i).map_or("", |g| g.as_str());
            rebuilt.push_str(&format!("{}'{}'{}", g(1), g(2), g(3)));
        }
        sql = sql[end..].to_owned();
    }
    rebuilt.push_str(&sql);
    let mut sql = rebuilt;

    sql = FORMAT_CALL.replace_all(&sql, " convert(").into_owned();
    sql = remove_comments(&sql);
    sql = NATIONAL
        .replacen(&sql, IGNORECASE_AS_COUNT, " '")
        .into_owned();
    sql = DECLARE_LINE
        .replacen(&sql, FLAGS_AS_COUNT, " ")
        .into_owned();
    sql = NEWLINES.replace_all(&sql, " ").into_owned();
    sql = TRAILING_COMMENT
        .replacen(&sql, MULTILINE_AS_COUNT, "")
        .into_owned();
    sql = BLOCK_COMMENT
        .replacen(&sql, MULTILINE_AS_COUNT, "")
        .into_owned();
    sql = SPACES
        .replace_all(&sql, " ")
        .trim_matches(is_python_whitespace)
        .to_owned();
    sql = DECLARE_STATEMENT
        .replacen(&sql, FLAGS_AS_COUNT, " ")
        .into_owned();
    sql = declare_to_select(&sql);

    if sql.contains(&")".repeat(20)) || sql.contains(&"(".repeat(20)) {
        return None;
    }
    if sql.contains("cast(avg(cast(avg(cast(avg(cast(avg(cast(avg(cast(avg(cast(avg(") {
        return None;
    }
    sql = NON_ASCII.replace_all(&sql, " ").into_owned();
    sql = sql.replace("``", "'").replace('"', "'");
    sql = SPACES
        .replace_all(&sql, " ")
        .trim_matches(is_python_whitespace)
        .to_owned();
    if sql.is_empty() {
        return None;
    }
    if sql.ends_with(';') {
        sql.pop();
    }
    if let Some((_, last)) = sql.rsplit_once(';') {
        sql = last.to_owned();
    }
    Some(sql)
}

/// The reference's `remove_comments`.
fn remove_comments(sql: &str) -> String {
    let sql = LEADING_DASHES.replacen(sql, MULTILINE_AS_COUNT, "");
    let sql = LINE_COMMENT.replace_all(&sql, "");
    let sql = LONE_SEMICOLON.replace_all(&sql, " ");
    let sql = SPACES.replace_all(&sql, " ");
    sql.trim_matches(is_python_whitespace).to_owned()
}

/// `re.sub(r"(DECLARE|declare) (?:.(?!(SELECT|select)))", "SELECT", sql)`: `declare ` and the
/// character after it become `SELECT`, unless `select` follows that character.
fn declare_to_select(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    loop {
        let found = ["DECLARE ", "declare "]
            .iter()
            .filter_map(|k| rest.find(k).map(|p| (p, k.len())))
            .min();
        let Some((pos, len)) = found else { break };
        let after = &rest[pos + len..];
        let mut chars = after.char_indices();
        match chars.next() {
            Some((_, c)) if c != '\n' => {
                let next = &after[c.len_utf8()..];
                if next.starts_with("SELECT") || next.starts_with("select") {
                    out.push_str(&rest[..pos + 1]);
                    rest = &rest[pos + 1..];
                } else {
                    out.push_str(&rest[..pos]);
                    out.push_str("SELECT");
                    rest = next;
                }
            }
            _ => {
                out.push_str(&rest[..pos + 1]);
                rest = &rest[pos + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The reference's `_surrounded_by_apostrophes`: an apostrophe within 10 characters before
/// `start` (not past a space) and within 10 characters from `end` (not past a space).
fn surrounded_by_apostrophes(sql: &str, start: usize, end: usize) -> bool {
    let b = sql.as_bytes();
    let scan = |mut i: isize, step: isize| {
        for _ in 0..10 {
            if i < 0 || i as usize >= b.len() {
                return false;
            }
            match b[i as usize] {
                b'\'' => return true,
                b' ' => return false,
                _ => i += step,
            }
        }
        false
    };
    scan(start as isize, -1) && scan(end as isize, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_parameters_and_quotes() {
        let text = "SELECT TOP ##N:int?20## Id AS [User Link] FROM Posts WHERE Tags LIKE '%##Tag##%' AND x = ##Min##";
        assert_eq!(
            preprocess_for_parser(text).as_deref(),
            Some("SELECT TOP (20)Id AS 'user_link' FROM Posts WHERE Tags LIKE '%##Tag##%' AND x = '##Min##'")
        );
        assert_eq!(
            preprocess(text).as_deref(),
            Some("select top (20)id as \"user_link\" from posts where tags like \"%##tag##%\" and x = \"##min##\"")
        );
    }

    #[test]
    fn declares_comments_and_statements() {
        let text = "declare @a int = 5\n-- note\nselect x from t where y = @a; select z from u;";
        assert_eq!(
            preprocess_for_parser(text).as_deref(),
            Some(" select z from u")
        );
        assert_eq!(declare_to_select("declare @x int"), "SELECTx int");
        assert_eq!(declare_to_select("declare xselect"), "declare xselect");
        assert_eq!(preprocess_for_parser(&"(".repeat(20)), None);
    }
}
