//! Gold expansion: `;`-separated alternatives and `{a, b, …}` column groups.

use crate::python::is_python_whitespace;

/// Every non-empty combination of `options`, by size, then in index order (as
/// `itertools.combinations` for r = 1..=n).
fn combinations<T: Clone>(options: &[T]) -> Vec<Vec<T>> {
    fn rec<T: Clone>(opts: &[T], r: usize, start: usize, cur: &mut Vec<T>, out: &mut Vec<Vec<T>>) {
        if cur.len() == r {
            out.push(cur.clone());
            return;
        }
        for i in start..opts.len() {
            cur.push(opts[i].clone());
            rec(opts, r, i + 1, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    for r in 1..=options.len() {
        rec(options, r, 0, &mut Vec::new(), &mut out);
    }
    out
}

/// Expands one alternative whose first brace group spans `start..=end` (byte offsets of `{`
/// and `}`).
fn expand_group(query: &str, start: usize, end: usize, out: &mut Vec<String>) {
    let options: Vec<&str> = query[start + 1..end].split(',').collect();
    let left = &query[..start];
    let right = &query[end + 1..];
    for combo in combinations(&options) {
        let columns = combo.join(", ");
        let right = right.replace("GROUP BY {}", &format!("GROUP BY {columns}"));
        out.push(format!("{left}{columns}{right}"));
    }
}

/// Expands a gold query as Defog's `get_all_minimal_queries` does (the default, compat
/// behaviour):
///
/// * the text is split on **every** `;` — also one inside a string literal, as the reference does;
/// * each piece is stripped (Python whitespace) and skipped when empty;
/// * only the **first** `{…}` group of a piece is expanded (the first `{` and the next `}` after
///   it — braces inside string literals count too); its options are the text between the braces
///   split on `,` **without** trimming, each non-empty combination is joined with `", "` (so
///   `{a, b}` gives `a`, ` b` and `a,  b`), in `itertools.combinations` order (size 1 first);
/// * every `GROUP BY {}` after the group is replaced by `GROUP BY ` + the chosen columns;
///   later brace groups are left as they are.
pub fn expand_gold(gold: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in gold.split(';') {
        let query = piece.trim_matches(is_python_whitespace);
        if query.is_empty() {
            continue;
        }
        let group = query
            .find('{')
            .and_then(|start| query[start + 1..].find('}').map(|e| (start, start + 1 + e)));
        match group {
            Some((start, end)) => expand_group(query, start, end, &mut out),
            None => out.push(query.to_owned()),
        }
    }
    out
}

/// Byte offsets of the characters of `sql` that lie outside `'…'` / `"…"` literals (SQL
/// doubling `''` as an escaped quote).
fn outside_literals(sql: &str) -> Vec<bool> {
    let mut mask = vec![true; sql.len()];
    let mut quote: Option<u8> = None;
    for (i, &b) in sql.as_bytes().iter().enumerate() {
        match quote {
            Some(q) => {
                mask[i] = false;
                if b == q {
                    quote = None; // a doubled quote re-opens at the next byte
                }
            }
            None if b == b'\'' || b == b'"' => {
                mask[i] = false;
                quote = Some(b);
            }
            None => {}
        }
    }
    mask
}

/// Like [`expand_gold`], but `;`, `{` and `}` inside string literals (`'…'`, `"…"`) are text,
/// not structure, and option names are trimmed (`{a, b}` gives `a`, `b`, `a, b`). Not the
/// default: the reference splits naively, use this only where agreement with it is not needed.
pub fn expand_gold_literal_aware(gold: &str) -> Vec<String> {
    let mask = outside_literals(gold);
    let mut pieces = Vec::new();
    let mut from = 0;
    for (i, b) in gold.bytes().enumerate() {
        if b == b';' && mask[i] {
            pieces.push((from, i));
            from = i + 1;
        }
    }
    pieces.push((from, gold.len()));
    let mut out = Vec::new();
    for (a, b) in pieces {
        let query = gold[a..b].trim_matches(is_python_whitespace);
        if query.is_empty() {
            continue;
        }
        let qmask = outside_literals(query);
        let open = query
            .bytes()
            .enumerate()
            .find(|&(i, c)| c == b'{' && qmask[i])
            .map(|(i, _)| i);
        let close = open.and_then(|s| {
            query
                .bytes()
                .enumerate()
                .skip(s + 1)
                .find(|&(i, c)| c == b'}' && qmask[i])
                .map(|(i, _)| i)
        });
        match (open, close) {
            (Some(s), Some(e)) => {
                let options: Vec<&str> = query[s + 1..e].split(',').map(str::trim).collect();
                for combo in combinations(&options) {
                    let columns = combo.join(", ");
                    let right =
                        query[e + 1..].replace("GROUP BY {}", &format!("GROUP BY {columns}"));
                    out.push(format!("{}{columns}{right}", &query[..s]));
                }
            }
            _ => out.push(query.to_owned()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_alternatives_and_skips_empty() {
        assert_eq!(
            expand_gold(" SELECT a FROM t ;\nSELECT b FROM t;; "),
            vec!["SELECT a FROM t", "SELECT b FROM t"]
        );
    }

    #[test]
    fn expands_group_in_combinations_order_without_trimming() {
        assert_eq!(
            expand_gold("SELECT {x.a, x.b}, COUNT(*) FROM x GROUP BY {}"),
            vec![
                "SELECT x.a, COUNT(*) FROM x GROUP BY x.a",
                "SELECT  x.b, COUNT(*) FROM x GROUP BY  x.b",
                "SELECT x.a,  x.b, COUNT(*) FROM x GROUP BY x.a,  x.b",
            ]
        );
        assert_eq!(
            expand_gold("SELECT {a,b,c} FROM t").len(),
            7,
            "2^3 - 1 combinations"
        );
    }

    #[test]
    fn only_first_group_expanded() {
        assert_eq!(
            expand_gold("SELECT {a,b} FROM t WHERE {c,d}"),
            vec![
                "SELECT a FROM t WHERE {c,d}",
                "SELECT b FROM t WHERE {c,d}",
                "SELECT a, b FROM t WHERE {c,d}"
            ]
        );
        // an unclosed brace is left alone
        assert_eq!(expand_gold("SELECT '{' FROM t"), vec!["SELECT '{' FROM t"]);
    }

    #[test]
    fn compat_splits_inside_literals_literal_aware_does_not() {
        let gold = "SELECT a FROM t WHERE s = 'x;{y}'";
        assert_eq!(
            expand_gold(gold),
            vec!["SELECT a FROM t WHERE s = 'x", "{y}'"]
                .into_iter()
                .map(|s| s.replace("{y}'", "y'"))
                .collect::<Vec<_>>()
        );
        assert_eq!(expand_gold_literal_aware(gold), vec![gold]);
        assert_eq!(
            expand_gold_literal_aware("SELECT {a, b} FROM t GROUP BY {}"),
            vec![
                "SELECT a FROM t GROUP BY a",
                "SELECT b FROM t GROUP BY b",
                "SELECT a, b FROM t GROUP BY a, b"
            ]
        );
    }
}
