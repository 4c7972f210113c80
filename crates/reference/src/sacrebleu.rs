//! sacreBLEU's BLEU (version 2.x, checked against 2.6.0): its default `13a` tokenizer, the
//! sufficient statistics of one segment against its references, and the score computed from
//! them with its default `exp` smoothing (`spec/bleu.md`).
//!
//! Corpus BLEU is computed from the statistics summed over all segments, sentence BLEU from one
//! segment's; both are on sacreBLEU's 0–100 scale.

use std::collections::HashMap;

use crate::python::is_python_whitespace;

/// The n-gram orders BLEU-4 counts.
const MAX_ORDER: usize = 4;

/// The log of a zero precision: sacreBLEU's stand-in for minus infinity.
const LOG_ZERO: f64 = -9_999_999_999.0;

/// The characters the first language-dependent rule of the `13a` tokenizer pads with spaces
/// (sacreBLEU's class `[\{-\~\[-\` -\&\(-\+\:-\@\/]`): `{|}~ [\]^_` space !"#$%& ()*+
/// :;<=>?@ /`.
fn is_symbol(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// One rule `(a)(b)` → `a b` with spaces where `space` says (before `a`, between, after `b`),
/// applied as Python's `re.sub` applies it: left to right, a match consuming both characters.
fn pair_rule(
    chars: &[char],
    matches: impl Fn(char, char) -> bool,
    [before, between, after]: [bool; 3],
) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        match chars.get(i + 1) {
            Some(&b) if matches(chars[i], b) => {
                if before {
                    out.push(' ');
                }
                out.push(chars[i]);
                if between {
                    out.push(' ');
                }
                out.push(b);
                if after {
                    out.push(' ');
                }
                i += 2;
            }
            _ => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}

/// sacreBLEU's `13a` tokenization of one segment: tokens joined by single spaces.
fn tokenize_13a(line: &str) -> String {
    let mut line = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if line.contains('&') {
        line = line
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    // The language-dependent rules (sacreBLEU's `TokenizerRegexp`), in order, each over the
    // whole line.
    let mut chars: Vec<char> = Vec::with_capacity(line.len() + 16);
    chars.push(' ');
    for c in line.chars() {
        if is_symbol(c) {
            chars.extend([' ', c, ' ']);
        } else {
            chars.push(c);
        }
    }
    chars.push(' ');
    let digit = |c: char| c.is_ascii_digit();
    let period = |c: char| c == '.' || c == ',';
    // A period or comma after a non-digit; before a non-digit; a dash after a digit.
    let chars = pair_rule(&chars, |a, b| !digit(a) && period(b), [false, true, true]);
    let chars = pair_rule(&chars, |a, b| period(a) && !digit(b), [true, true, false]);
    let chars = pair_rule(&chars, |a, b| digit(a) && b == '-', [false, true, true]);
    // Python's `' '.join(line.split())`.
    let mut out = String::with_capacity(chars.len());
    let mut gap = false;
    for c in chars {
        if is_python_whitespace(c) {
            gap = true;
        } else {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        }
    }
    out
}

/// What sacreBLEU does to a segment before counting: optionally lowercase it, strip trailing
/// white space, tokenize.
pub fn preprocess(segment: &str, lowercase: bool) -> String {
    let segment = if lowercase {
        segment.to_lowercase()
    } else {
        segment.to_owned()
    };
    tokenize_13a(segment.trim_end_matches(is_python_whitespace))
}

/// A segment's (or a corpus's) sufficient statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tokens of the hypothesis.
    pub hyp_len: u64,
    /// Tokens of the reference closest in length (the shorter one on a tie).
    pub ref_len: u64,
    /// Per order, hypothesis n-grams found in a reference (clipped to the most any one
    /// reference has).
    pub correct: [u64; MAX_ORDER],
    /// Per order, hypothesis n-grams.
    pub total: [u64; MAX_ORDER],
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.hyp_len += other.hyp_len;
        self.ref_len += other.ref_len;
        for n in 0..MAX_ORDER {
            self.correct[n] += other.correct[n];
            self.total[n] += other.total[n];
        }
    }
}

/// The statistics of one hypothesis against its references, all already [`preprocess`]ed.
/// References that are absent for this segment are simply not passed.
pub fn segment_stats(hypothesis: &str, references: &[String]) -> Stats {
    // Words become ids, n-grams sorted lists of packed ids: no hashing of n-grams.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let hyp = word_ids(&mut ids, hypothesis);
    let refs: Vec<Vec<u32>> = references.iter().map(|r| word_ids(&mut ids, r)).collect();
    let mut stats = Stats {
        hyp_len: hyp.len() as u64,
        ref_len: closest_ref_len(hyp.len(), refs.iter().map(Vec::len)),
        ..Stats::default()
    };
    for n in 1..=MAX_ORDER {
        // The most times any one reference has each n-gram.
        let mut max_ref: Vec<(u128, u64)> = refs.iter().flat_map(|r| counted(r, n)).collect();
        max_ref.sort_unstable();
        let mut best: Vec<(u128, u64)> = Vec::with_capacity(max_ref.len());
        for (g, c) in max_ref {
            match best.last_mut() {
                Some((last, m)) if *last == g => *m = (*m).max(c),
                _ => best.push((g, c)),
            }
        }
        let hyp_grams = counted(&hyp, n);
        stats.total[n - 1] = hyp_grams.iter().map(|(_, c)| c).sum();
        let mut r = best.iter().peekable();
        for (g, c) in hyp_grams {
            while r.next_if(|(rg, _)| *rg < g).is_some() {}
            if let Some((_, m)) = r.next_if(|(rg, _)| *rg == g) {
                stats.correct[n - 1] += c.min(*m);
            }
        }
    }
    stats
}

/// The words of a tokenized segment as ids, new words getting the next id.
fn word_ids<'a>(ids: &mut HashMap<&'a str, u32>, segment: &'a str) -> Vec<u32> {
    segment
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let next = ids.len() as u32;
            *ids.entry(w).or_insert(next)
        })
        .collect()
}

/// The n-grams of order `n` of a word-id sequence with their counts, sorted. An n-gram is its
/// ids packed into 32 bits each.
fn counted(words: &[u32], n: usize) -> Vec<(u128, u64)> {
    let mut grams: Vec<u128> = words
        .windows(n)
        .map(|w| {
            w.iter()
                .fold(0u128, |acc, &id| (acc << 32) | u128::from(id))
        })
        .collect();
    grams.sort_unstable();
    let mut out: Vec<(u128, u64)> = Vec::with_capacity(grams.len());
    for g in grams {
        match out.last_mut() {
            Some((last, c)) if *last == g => *c += 1,
            _ => out.push((g, 1)),
        }
    }
    out
}

/// The reference length closest to the hypothesis's, the shorter on a tie; -1 in sacreBLEU
/// (here 0) without references.
fn closest_ref_len(hyp_len: usize, ref_lens: impl Iterator<Item = usize>) -> u64 {
    let mut best: Option<(usize, usize)> = None;
    for len in ref_lens {
        let diff = hyp_len.abs_diff(len);
        best = match best {
            Some((d, l)) if diff > d || (diff == d && len >= l) => Some((d, l)),
            _ => Some((diff, len)),
        };
    }
    best.map_or(0, |(_, l)| l as u64)
}

/// A BLEU score and its parts, on the 0–100 scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Bleu {
    /// BLEU: the brevity penalty times the geometric mean of the precisions (0–100).
    pub score: f64,
    /// n-gram precisions (0–100), after smoothing.
    pub precisions: [f64; MAX_ORDER],
    /// `exp(1 − ref_len / hyp_len)` for a hypothesis shorter than its references, else 1 (0
    /// for an empty hypothesis).
    pub brevity_penalty: f64,
    /// The statistics the score was computed from.
    pub stats: Stats,
}

/// BLEU from summed statistics: sacreBLEU's `compute_bleu` with its default `exp` smoothing
/// (the NIST method: the k-th order without a match counts as `1 / (2^k × total)`).
/// `effective_order` leaves out the orders the hypothesis has no n-grams of (sacreBLEU's
/// sentence BLEU does so by default).
fn compute(stats: Stats, effective_order: bool) -> Bleu {
    let (sys_len, ref_len) = (stats.hyp_len as f64, stats.ref_len as f64);
    let brevity_penalty = if stats.hyp_len < stats.ref_len {
        if stats.hyp_len > 0 {
            (1.0 - ref_len / sys_len).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    let mut precisions = [0.0; MAX_ORDER];
    let done = |score, precisions| Bleu {
        score,
        precisions,
        brevity_penalty,
        stats,
    };
    if stats.correct.iter().all(|&c| c == 0) {
        return done(0.0, precisions);
    }
    let mut smooth_mteval = 1.0;
    let mut eff_order = MAX_ORDER;
    for (n, precision) in precisions.iter_mut().enumerate() {
        let (correct, total) = (stats.correct[n] as f64, stats.total[n] as f64);
        if total == 0.0 {
            break;
        }
        if effective_order {
            eff_order = n + 1;
        }
        *precision = if correct == 0.0 {
            smooth_mteval *= 2.0;
            100.0 / (smooth_mteval * total)
        } else {
            100.0 * correct / total
        };
    }
    let log_sum: f64 = precisions[..eff_order]
        .iter()
        .map(|&p| if p == 0.0 { LOG_ZERO } else { p.ln() })
        .sum();
    done(
        brevity_penalty * (log_sum / eff_order as f64).exp(),
        precisions,
    )
}

/// sacreBLEU's `sentence_bleu` with its defaults (exp smoothing, effective order) on
/// preprocessed segments.
pub fn sentence(hypothesis: &str, references: &[String]) -> Bleu {
    compute(segment_stats(hypothesis, references), true)
}

/// sacreBLEU's `corpus_bleu` with its defaults (exp smoothing, all four orders) from summed
/// statistics.
pub fn corpus(stats: Stats) -> Bleu {
    compute(stats, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirteen_a_splits_punctuation_but_not_inside_numbers() {
        assert_eq!(
            tokenize_13a("Hello, world! It costs $3,000.50 (approx.)"),
            "Hello , world ! It costs $ 3,000.50 ( approx . )"
        );
        assert_eq!(tokenize_13a("1990-2000 e-mail"), "1990 - 2000 e-mail");
        assert_eq!(tokenize_13a("don't &amp; &lt;b&gt;"), "don't & < b >");
        assert_eq!(tokenize_13a("  a\u{1c}b  "), "a b");
    }

    #[test]
    fn identical_segments_score_100_and_disjoint_ones_0() {
        let r = vec![tokenize_13a("the cat sat on the mat")];
        assert!((sentence(&r[0], &r).score - 100.0).abs() < 1e-12);
        assert_eq!(sentence("dogs bark loudly", &r).score, 0.0);
    }

    #[test]
    fn clipping_uses_the_most_any_one_reference_has() {
        let refs = vec!["the cat".to_owned(), "the the dog".to_owned()];
        let s = segment_stats("the the the", &refs);
        assert_eq!(s.correct[0], 2);
        assert_eq!(s.total[0], 3);
        // The closest reference length: 3 is exactly the hypothesis's; on a tie the shorter.
        assert_eq!(s.ref_len, 3);
        assert_eq!(closest_ref_len(4, [3, 5].into_iter()), 3);
        assert_eq!(closest_ref_len(4, [5, 3].into_iter()), 3);
    }
}
