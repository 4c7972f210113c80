//! Tokenizer reproducing the observable behaviour of the official Spider
//! `tokenize` function on SQL text.
//!
//! The reference lower-cases the output of NLTK's `word_tokenize` after
//! hiding quoted literals behind placeholder words. Only the NLTK rules that
//! can fire on text without quote characters are reproduced here (every `'`
//! and `"` has been replaced by a placeholder before word splitting).
//! Sentence splitting (Punkt) is not reproduced: the word splitter is applied
//! to the whole string, which is what NLTK does for SQL unless a token ending
//! in `.` is followed by white space *inside* the query (a sentence break can
//! then detach that period); no query in the Spider dev data does this.

use super::ParseError;
use crate::python::{is_python_decimal, is_python_whitespace};
use std::collections::HashMap;

/// Returns true for characters Python's `\w` class treats as word characters.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Surrounds every character satisfying `pred` with spaces.
fn space_chars(text: &[char], pred: impl Fn(char) -> bool) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len() + 8);
    for &c in text {
        if pred(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// Detaches a sentence-final period from the preceding word: the period
/// must be followed only by characters of `closers`, then white space. With
/// `wide` the closers are brackets, ASCII and curly quotes and spaces;
/// otherwise brackets and ASCII quotes only.
fn split_final_period(text: &[char], wide: bool) -> Vec<char> {
    let is_closer = |c: char| {
        matches!(c, ']' | ')' | '}' | '>' | '"' | '\'')
            || (wide && matches!(c, '»' | '”' | '’' | ' '))
    };
    let mut end = text.len();
    // Unicode `White_Space`, not Python's `\s` (which also matches U+001C..U+001F): they can
    // only differ on text ending in those separators, which a stripped query never does.
    while end > 0 && text[end - 1].is_whitespace() {
        end -= 1;
    }
    let mut close_start = end;
    while close_start > 0 && is_closer(text[close_start - 1]) {
        close_start -= 1;
    }
    if close_start < 2 || text[close_start - 1] != '.' || text[close_start - 2] == '.' {
        return text.to_vec();
    }
    let dot = close_start - 1;
    let mut out: Vec<char> = text[..dot].to_vec();
    out.push(' ');
    out.push('.');
    out.push(' ');
    out.extend_from_slice(&text[close_start..end]);
    out.push(' ');
    out
}

/// Pads runs of backticks, splitting each run into `` pairs and a single
/// trailing backtick when the run is odd.
fn split_backticks(text: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < text.len() {
        if text[i] != '`' {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let mut j = i;
        while j < text.len() && text[j] == '`' {
            j += 1;
        }
        out.push(' ');
        for _ in 0..(j - i) / 2 {
            out.extend_from_slice(&[' ', '`', '`', ' ']);
        }
        if (j - i) % 2 == 1 {
            out.push('`');
        }
        out.push(' ');
        i = j;
    }
    out
}

/// Separates `:` and `,` from a following non-digit character, and a
/// trailing `:` or `,` from what precedes it.
fn split_comma_colon(text: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if (c == ':' || c == ',') && i + 1 < text.len() && !is_python_decimal(text[i + 1]) {
            out.push(' ');
            out.push(c);
            out.push(' ');
            out.push(text[i + 1]);
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    // `([:,])$`: `$` also matches just before one final newline.
    let last = match out.last() {
        Some('\n') if out.len() >= 2 => out.len() - 2,
        Some(_) => out.len() - 1,
        None => return out,
    };
    if matches!(out[last], ':' | ',') {
        let c = out[last];
        let tail: Vec<char> = out[last + 1..].to_vec();
        out.truncate(last);
        out.push(' ');
        out.push(c);
        out.push(' ');
        out.extend(tail);
    }
    out
}

/// Surrounds every run of `min_len` or more copies of `ch` with spaces.
fn space_runs(text: &[char], ch: char, min_len: usize) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < text.len() {
        if text[i] == ch {
            let mut j = i;
            while j < text.len() && text[j] == ch {
                j += 1;
            }
            if j - i >= min_len {
                out.push(' ');
                out.extend_from_slice(&text[i..j]);
                out.push(' ');
            } else {
                out.extend_from_slice(&text[i..j]);
            }
            i = j;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// Splits `--` pairs (non-overlapping, left to right) off as separate words.
fn split_double_dash(text: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < text.len() {
        if text[i] == '-' && i + 1 < text.len() && text[i + 1] == '-' {
            out.extend_from_slice(&[' ', '-', '-', ' ']);
            i += 2;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// Splits the fused words NLTK treats as contractions (`cannot` becomes
/// `can not`, and so on) when they appear as whole words.
fn split_contractions(text: &[char]) -> Vec<char> {
    const PAIRS: [(&str, &str, bool); 6] = [
        ("can", "not", false),
        ("gim", "me", false),
        ("gon", "na", false),
        ("got", "ta", false),
        ("lem", "me", false),
        ("wan", "na", true),
    ];
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut i = 0;
    'outer: while i < text.len() {
        let at_boundary = i == 0 || !is_word(text[i - 1]);
        if at_boundary {
            for (a, b, needs_space) in PAIRS {
                let word: Vec<char> = a.chars().chain(b.chars()).collect();
                let n = word.len();
                if i + n > text.len() {
                    continue;
                }
                let same = text[i..i + n]
                    .iter()
                    .zip(word.iter())
                    .all(|(x, y)| x.to_lowercase().eq(y.to_lowercase()));
                if !same {
                    continue;
                }
                let after_ok = if needs_space {
                    i + n < text.len() && is_python_whitespace(text[i + n])
                } else {
                    i + n == text.len() || !is_word(text[i + n])
                };
                if after_ok {
                    let split = a.chars().count();
                    out.push(' ');
                    out.extend_from_slice(&text[i..i + split]);
                    out.push(' ');
                    out.extend_from_slice(&text[i + split..i + n]);
                    out.push(' ');
                    i += n;
                    continue 'outer;
                }
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

/// NLTK's Treebank-style word splitter (as of NLTK 3.10) restricted to
/// quote-free text. Its regular expressions use Unicode `White_Space` for
/// `\s`; the final split uses Python's `str.split()` white space.
fn word_split(text: &[char]) -> Vec<String> {
    let mut t = space_chars(text, |c| matches!(c, '«' | '“' | '‘' | '„'));
    t = split_backticks(&t);
    t = split_final_period(&t, true);
    t = split_comma_colon(&t);
    t = space_runs(&t, '.', 2);
    t = space_chars(&t, |c| matches!(c, ';' | '@' | '#' | '$' | '%' | '&'));
    t = space_chars(&t, |c| ('\u{2012}'..='\u{2015}').contains(&c));
    t = split_final_period(&t, false);
    t = space_chars(&t, |c| matches!(c, '?' | '!' | '*'));
    t = space_chars(&t, |c| {
        matches!(c, '[' | ']' | '(' | ')' | '{' | '}' | '<' | '>')
    });
    t = split_double_dash(&t);
    t = space_chars(&t, |c| matches!(c, '»' | '”' | '’'));
    t = split_contractions(&t);
    let s: String = t.into_iter().collect();
    s.split(is_python_whitespace)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Tokenizes a SQL string exactly as the reference evaluator does.
///
/// Single quotes are turned into double quotes, quoted literals are kept as
/// single tokens (with their quotes and original case), every other token is
/// lower-cased, and `!`, `>` or `<` directly followed by a `=` token are fused
/// into one operator token.
pub(super) fn tokenize(input: &str) -> Result<Vec<String>, ParseError> {
    let mut chars: Vec<char> = input
        .chars()
        .map(|c| if c == '\'' { '"' } else { c })
        .collect();
    let quotes: Vec<usize> = chars
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == '"')
        .map(|(i, _)| i)
        .collect();
    if quotes.len() % 2 == 1 {
        return Err(ParseError::new(
            None,
            None,
            "unexpected quote (odd number of quotes)",
        ));
    }
    let mut literals: HashMap<String, String> = HashMap::new();
    for pair in quotes.chunks(2).rev() {
        let (q1, q2) = (pair[0], pair[1]);
        let key = format!("__val_{q1}_{q2}__");
        let literal: String = chars[q1..=q2].iter().collect();
        let mut rebuilt: Vec<char> = chars[..q1].to_vec();
        rebuilt.extend(key.chars());
        rebuilt.extend_from_slice(&chars[q2 + 1..]);
        chars = rebuilt;
        literals.insert(key, literal);
    }
    let mut toks: Vec<String> = word_split(&chars)
        .into_iter()
        .map(|w| {
            let lower = w.to_lowercase();
            match literals.get(&lower) {
                Some(lit) => lit.clone(),
                None => lower,
            }
        })
        .collect();

    // Fuse `!`/`>`/`<` with a following `=`, scanning right to left. Python
    // indexing means the token "before" position 0 is the last token.
    let eq_positions: Vec<usize> = toks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.as_str() == "=")
        .map(|(i, _)| i)
        .rev()
        .collect();
    for eq in eq_positions {
        if toks.is_empty() {
            break;
        }
        let len = toks.len();
        let pre_idx = if eq == 0 { len - 1 } else { eq - 1 };
        let Some(pre) = toks.get(pre_idx).cloned() else {
            continue;
        };
        if matches!(pre.as_str(), "!" | ">" | "<") {
            // toks[:eq-1] + [pre + "="] + toks[eq+1:] with Python slicing.
            let head_end = if eq == 0 { len - 1 } else { eq - 1 };
            let mut rebuilt: Vec<String> = toks[..head_end].to_vec();
            rebuilt.push(format!("{pre}="));
            if eq < len {
                rebuilt.extend_from_slice(&toks[eq + 1..]);
            }
            toks = rebuilt;
        }
    }
    Ok(toks)
}

#[cfg(test)]
mod tests {
    use super::tokenize;

    fn toks(s: &str) -> Vec<String> {
        tokenize(s).unwrap_or_default()
    }

    #[test]
    fn splits_like_the_reference() {
        assert_eq!(
            toks("SELECT count(*) FROM a WHERE x>=3 AND y != 'Ab c'"),
            vec![
                "select", "count", "(", "*", ")", "from", "a", "where", "x", ">", "=3", "and", "y",
                "!=", "'Ab c'"
            ]
            .into_iter()
            .map(|s| s.replace('\'', "\""))
            .collect::<Vec<_>>()
        );
        assert_eq!(toks("a > = b"), vec!["a", ">=", "b"]);
        assert_eq!(
            toks("a*b, c,1 t1.* x."),
            vec!["a", "*", "b", ",", "c,1", "t1.", "*", "x", "."]
        );
        assert_eq!(
            toks("a -- b --- c ...d"),
            vec!["a", "--", "b", "--", "-", "c", "...", "d"]
        );
        assert_eq!(
            toks("cannot gonna x;y"),
            vec!["can", "not", "gon", "na", "x", ";", "y"]
        );
    }

    #[test]
    fn odd_quotes_fail() {
        assert!(tokenize("select 'a from t").is_err());
    }
}
