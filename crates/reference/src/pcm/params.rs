//! SEDE query parameters (`##Name##`, `##Name:type##`, `##Name:type?default##`) replaced by typed
//! placeholders so that the query parses (`spec/pcm.md`, "Parameters").
//!
//! A parameter outside string literals and comments becomes:
//! - after `TOP` (optionally after its opening parenthesis): the default if it is a number, else
//!   `100`, as the reference's preprocessing does;
//! - typed `int` or `float`: the default if it is a number, else `0`;
//! - otherwise (`string`, untyped, or a non-numeric default): the string literal `'##name##'`
//!   (lower-cased name, type and default dropped), so two queries using the same parameter agree.
//!
//! A parameter inside a string literal (`'%##Tag##%'`) is part of the literal and stays. T-SQL
//! variables (`@var`) need no substitution: the MsSql dialect parses them as identifiers.

/// One `##…##` parameter as written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parameter {
    /// The name, lower-cased.
    name: String,
    /// The type after `:`, lower-cased (`int`, `float`, `string`, …).
    kind: Option<String>,
    /// The default after `?`.
    default: Option<String>,
}

impl Parameter {
    /// Parses the text between the `##` marks; `None` if it is not a parameter.
    fn parse(inner: &str) -> Option<Parameter> {
        let (head, default) = match inner.split_once('?') {
            Some((h, d)) => (h, Some(d.trim().to_owned())),
            None => (inner, None),
        };
        let (name, kind) = match head.split_once(':') {
            Some((n, k)) => (n, Some(k.trim().to_ascii_lowercase())),
            None => (head, None),
        };
        let name = name.trim();
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ' ');
        valid.then(|| Parameter {
            name: name.to_lowercase(),
            kind,
            default,
        })
    }

    fn numeric_default(&self) -> Option<&str> {
        self.default
            .as_deref()
            .filter(|d| !d.is_empty() && d.parse::<f64>().is_ok())
    }

    /// The placeholder for this parameter; `after_top` when it is `TOP`'s quantity.
    fn placeholder(&self, after_top: bool) -> String {
        if after_top {
            return self.numeric_default().unwrap_or("100").to_owned();
        }
        match self.kind.as_deref() {
            Some("int") | Some("float") => self.numeric_default().unwrap_or("0").to_owned(),
            _ => format!("'##{}##'", self.name),
        }
    }
}

/// `sql` with every parameter outside literals and comments replaced by its placeholder.
pub(super) fn substitute(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' | b'[' => {
                let close = if bytes[i] == b'[' { b']' } else { bytes[i] };
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == close {
                        if close != b']' && bytes.get(i + 1) == Some(&close) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'#' if bytes.get(i + 1) == Some(&b'#') => {
                let Some(len) = sql[i + 2..].find("##") else {
                    i += 2;
                    continue;
                };
                let inner = &sql[i + 2..i + 2 + len];
                match Parameter::parse(inner) {
                    Some(p) => {
                        out.push_str(&sql[copied..i]);
                        out.push_str(&p.placeholder(follows_top(&sql[..i])));
                        i += len + 4;
                        copied = i;
                    }
                    None => i += 2,
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(sql.get(copied..).unwrap_or_default());
    out
}

/// True if `before` ends with the keyword `TOP`, optionally followed by `(`.
fn follows_top(before: &str) -> bool {
    let t = before.trim_end();
    let t = t.strip_suffix('(').unwrap_or(t).trim_end();
    let Some(head) = t.len().checked_sub(3).and_then(|n| t.get(..n)) else {
        return false;
    };
    t[head.len()..].eq_ignore_ascii_case("top")
        && !head
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_typed_placeholders() {
        assert_eq!(
            substitute("SELECT TOP ##N:int?50## a FROM t WHERE b = ##Tag## AND c > ##Min:int##"),
            "SELECT TOP 50 a FROM t WHERE b = '##tag##' AND c > 0"
        );
        assert_eq!(substitute("select top (##n##) x"), "select top (100) x");
        assert_eq!(
            substitute("WHERE d > ##Since:string?2020-01-01## AND f = ##F:float?1.5##"),
            "WHERE d > '##since##' AND f = 1.5"
        );
    }

    #[test]
    fn literals_and_comments_are_left_alone() {
        let sql = "WHERE t LIKE '%##Tag##%' -- ##x##\n AND [a##b##] = 1 /* ##y## */";
        assert_eq!(substitute(sql), sql);
        assert_eq!(
            substitute("x = 'it''s ##a##' + ##b##"),
            "x = 'it''s ##a##' + '##b##'"
        );
    }

    #[test]
    fn not_parameters() {
        assert_eq!(
            substitute("SELECT '#' + ## FROM t"),
            "SELECT '#' + ## FROM t"
        );
        assert_eq!(Parameter::parse("a-b"), None);
        assert_eq!(substitute("stop ##n:int?3##"), "stop 3");
        assert!(!follows_top("stop"));
        assert!(follows_top("SELECT TOP ("));
        assert!(!follows_top("é"));
        assert_eq!(substitute("SELECT 'é' + ##x##"), "SELECT 'é' + '##x##'");
    }
}
