//! Keyword tagging: each question word gets the kinds of the clauses whose candidate words it
//! matches (names and values the clause mentions, general words of the clause's kind), then
//! the adjustment rules run. Words are compared after [`Normalizer`].

use std::collections::BTreeSet;

use rust_stemmers::{Algorithm, Stemmer};

use super::clauses::{Clause, ClauseKind};
use super::NaturalNames;

/// The clause kinds a word is tagged with, one bit per [`ClauseKind`].
pub type TagSet = u8;

/// Which adjustment rules run (all by default; the report measures each one switched off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Paper: a `when/where/which/who/why` after `and`, in a query without INTERSECT: it and
    /// the `and` are SELECT only.
    pub and_wh_select: bool,
    /// Paper: a `when/where/which/who/why` after a noun loses its SELECT tag.
    pub noun_wh_not_select: bool,
    /// Ours: a first word that is a SELECT word (`what`, `which`, `show`, …) is SELECT only.
    pub first_word_select: bool,
    /// Ours: a word between two words that carry the same single tag, itself untagged or
    /// tagged only with SELECT-general words, takes that tag ("… born in the year 1990").
    pub fill_between: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            and_wh_select: true,
            noun_wh_not_select: true,
            first_word_select: true,
            fill_between: false,
        }
    }
}

/// General words of each clause kind, before normalization.
fn general_words(kind: ClauseKind) -> &'static [&'static str] {
    match kind {
        ClauseKind::Select => &[
            "what", "which", "who", "whom", "list", "show", "return", "find", "give", "name",
            "how", "many", "tell", "display", "get", "report", "count", "number", "names",
        ],
        ClauseKind::Where => &[
            "that",
            "whose",
            "with",
            "where",
            "who",
            "which",
            "than",
            "more",
            "less",
            "greater",
            "larger",
            "bigger",
            "higher",
            "lower",
            "smaller",
            "fewer",
            "above",
            "below",
            "over",
            "under",
            "after",
            "before",
            "equal",
            "not",
            "no",
            "from",
            "in",
            "when",
            "between",
            "contain",
            "containing",
            "include",
            "including",
            "like",
            "only",
        ],
        ClauseKind::GroupBy => &[
            "each",
            "per",
            "every",
            "for",
            "different",
            "group",
            "grouped",
            "respective",
            "respectively",
            "distinct",
            "by",
            "at",
            "least",
            "more",
            "than",
            "most",
        ],
        ClauseKind::OrderBy => &[
            "order",
            "ordered",
            "sort",
            "sorted",
            "ascending",
            "descending",
            "increasing",
            "decreasing",
            "alphabetical",
            "alphabetically",
            "most",
            "least",
            "highest",
            "lowest",
            "largest",
            "smallest",
            "biggest",
            "top",
            "first",
            "last",
            "maximum",
            "minimum",
            "greatest",
            "fewest",
            "oldest",
            "youngest",
            "latest",
            "earliest",
            "longest",
            "shortest",
            "best",
            "worst",
            "rank",
            "ranked",
            "by",
            "descend",
        ],
        ClauseKind::Intersect => &["both", "and", "also", "as", "well"],
        ClauseKind::Union => &["or", "either"],
        ClauseKind::Except => &[
            "not", "without", "never", "except", "but", "no", "other", "don't", "doesn't",
            "didn't", "haven't", "hasn't",
        ],
    }
}

/// Words an aggregate function is said with.
fn function_words(function: &str) -> &'static [&'static str] {
    match function {
        "count" => &["how", "many", "number", "count", "total"],
        "avg" => &["average", "mean"],
        "sum" => &["total", "sum", "combined"],
        "max" => &[
            "maximum", "max", "most", "highest", "largest", "biggest", "greatest", "oldest",
            "latest", "longest",
        ],
        "min" => &[
            "minimum", "min", "least", "lowest", "smallest", "youngest", "earliest", "shortest",
            "fewest",
        ],
        _ => &[],
    }
}

/// Words a comparison or ordering keyword is said with.
fn operator_words(op: &str) -> &'static [&'static str] {
    match op {
        ">" | ">=" => &[
            "more", "greater", "larger", "higher", "above", "over", "after", "exceed", "bigger",
            "older", "longer", "later", "least", "than",
        ],
        "<" | "<=" => &[
            "less", "fewer", "smaller", "lower", "below", "under", "before", "younger", "shorter",
            "earlier", "most", "than",
        ],
        "like" => &[
            "contain",
            "containing",
            "include",
            "substring",
            "start",
            "begin",
            "end",
            "letter",
            "word",
            "phrase",
        ],
        "not" | "!=" | "<>" => &["not", "no", "without", "never", "except", "other"],
        "between" => &["between", "range", "and"],
        "desc" => &[
            "descending",
            "decreasing",
            "most",
            "highest",
            "largest",
            "biggest",
            "greatest",
            "oldest",
            "latest",
            "longest",
            "top",
        ],
        "asc" => &[
            "ascending",
            "increasing",
            "alphabetical",
            "alphabetically",
            "lowest",
        ],
        "null" => &["null", "empty", "missing"],
        _ => &[],
    }
}

/// Words that say nothing about a clause when they come from a name or a value.
const STOP_WORDS: &[&str] = &[
    "the", "a", "an", "of", "in", "on", "at", "to", "for", "by", "and", "or", "is", "s", "with",
];

/// Irregular forms the stemmer does not reduce.
const IRREGULAR: &[(&str, &str)] = &[
    ("had", "have"),
    ("has", "have"),
    ("did", "do"),
    ("does", "do"),
    ("done", "do"),
    ("was", "be"),
    ("were", "be"),
    ("is", "be"),
    ("are", "be"),
    ("been", "be"),
    ("children", "child"),
    ("people", "person"),
    ("men", "man"),
    ("women", "woman"),
    ("feet", "foot"),
    ("teeth", "tooth"),
    ("mice", "mouse"),
    ("went", "go"),
    ("gone", "go"),
    ("made", "make"),
    ("took", "take"),
    ("taken", "take"),
    ("won", "win"),
    ("lost", "lose"),
    ("held", "hold"),
    ("born", "birth"),
    ("bought", "buy"),
    ("sold", "sell"),
    ("paid", "pay"),
    ("written", "write"),
    ("wrote", "write"),
    ("led", "lead"),
    ("better", "good"),
    ("best", "good"),
    ("worse", "bad"),
    ("worst", "bad"),
];

/// Normalizes words: lower case, outer punctuation off, irregular forms to their base, then
/// the Snowball English (Porter 2) stem.
pub struct Normalizer {
    stemmer: Stemmer,
}

impl Default for Normalizer {
    fn default() -> Self {
        Normalizer {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Normalizer {
    /// The normal form of `word` (empty for punctuation).
    pub fn normalize(&self, word: &str) -> String {
        let lower = word.to_lowercase();
        let trimmed = lower.trim_matches(|c: char| !c.is_alphanumeric());
        if trimmed.is_empty() {
            return String::new();
        }
        if let Some((_, base)) = IRREGULAR.iter().find(|(form, _)| *form == trimmed) {
            return (*base).to_owned();
        }
        self.stemmer.stem(trimmed).into_owned()
    }

    /// Normal forms of `word` without a comparative or superlative ending (`larger`,
    /// `largest` → `large`; `biggest` → `big`; `heaviest` → `heavy`): tried when the word
    /// itself matches nothing.
    pub fn degree_bases(&self, word: &str) -> Vec<String> {
        let lower = word.to_lowercase();
        let mut bases = Vec::new();
        for suffix in ["est", "er"] {
            let Some(stem) = lower.strip_suffix(suffix) else {
                continue;
            };
            if stem.len() < 3 {
                continue;
            }
            bases.push(stem.to_owned());
            bases.push(format!("{stem}e"));
            if let Some(s) = stem.strip_suffix('i') {
                bases.push(format!("{s}y"));
            }
            let b = stem.as_bytes();
            if b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2] {
                bases.push(stem[..stem.len() - 1].to_owned());
            }
        }
        bases.iter().map(|b| self.normalize(b)).collect()
    }
}

/// Splits a name into words: at `_`, spaces, punctuation and lower-to-upper case changes.
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.push(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The normalized candidate words of one clause.
pub fn candidates(
    clause: &Clause,
    schema: Option<&NaturalNames>,
    norm: &Normalizer,
) -> BTreeSet<String> {
    let mut raw: Vec<String> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    for ident in &clause.mentions.identifiers {
        let is_alias = ident.len() >= 2
            && ident[..1].eq_ignore_ascii_case("t")
            && ident[1..].chars().all(|c| c.is_ascii_digit());
        if is_alias {
            continue;
        }
        named.extend(name_words(ident));
        if let Some(schema) = schema {
            for natural in schema.natural_names(ident) {
                named.extend(name_words(natural));
            }
        }
    }
    for value in &clause.mentions.values {
        named.extend(name_words(value));
        named.push(value.to_lowercase());
    }
    named.retain(|w| !STOP_WORDS.contains(&w.to_lowercase().as_str()));
    raw.extend(named);
    raw.extend(general_words(clause.kind).iter().map(|w| (*w).to_owned()));
    for f in &clause.mentions.functions {
        raw.extend(function_words(f).iter().map(|w| (*w).to_owned()));
    }
    for op in &clause.mentions.operators {
        raw.extend(operator_words(op).iter().map(|w| (*w).to_owned()));
    }
    raw.iter()
        .map(|w| norm.normalize(w))
        .filter(|w| !w.is_empty())
        .collect()
}

const WH_WORDS: &[&str] = &["when", "where", "which", "who", "why"];

/// Words that are not nouns, for the noun test of the adjustment rules.
const NOT_NOUNS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "and", "or", "but", "of", "in", "on", "at",
    "to", "for", "by", "with", "from", "as", "into", "about", "than", "is", "are", "was", "were",
    "be", "been", "do", "does", "did", "have", "has", "had", "can", "could", "will", "would", "me",
    "us", "we", "you", "they", "it", "he", "she", "them", "i", "show", "list", "find", "give",
    "return", "tell", "what", "which", "who", "whose", "where", "when", "why", "how", "all",
    "each", "every", "any", "some", "not", "no", "also", "both", "either", "only", "there",
    "their", "its", "his", "her", "our", "your",
];

/// The noun heuristic: a word of letters that is not a function word, a pronoun, a common
/// imperative, an adverb in `-ly`, or a number.
pub fn looks_like_noun(word: &str) -> bool {
    let lower = word.to_lowercase();
    !lower.is_empty()
        && lower.chars().all(|c| c.is_alphabetic())
        && !NOT_NOUNS.contains(&lower.as_str())
        && !lower.ends_with("ly")
}

/// Tags each of `words` with the kinds of `clauses` whose candidates it matches, then applies
/// `rules`.
pub fn tag(
    words: &[String],
    clauses: &[Clause],
    schema: Option<&NaturalNames>,
    norm: &Normalizer,
    rules: Rules,
) -> Vec<TagSet> {
    let sets: Vec<(ClauseKind, BTreeSet<String>)> = clauses
        .iter()
        .map(|c| (c.kind, candidates(c, schema, norm)))
        .collect();
    let mut tags: Vec<TagSet> = words
        .iter()
        .map(|w| {
            let n = norm.normalize(w);
            if n.is_empty() {
                return 0;
            }
            let mut t = 0;
            for (kind, set) in &sets {
                if set.contains(&n) {
                    t |= kind.bit();
                }
            }
            if t == 0 {
                let bases = norm.degree_bases(w);
                for (kind, set) in &sets {
                    if bases.iter().any(|b| set.contains(b)) {
                        t |= kind.bit();
                    }
                }
            }
            t
        })
        .collect();
    adjust(words, clauses, &mut tags, rules);
    tags
}

fn adjust(words: &[String], clauses: &[Clause], tags: &mut [TagSet], rules: Rules) {
    let select = ClauseKind::Select.bit();
    let has_intersect = clauses.iter().any(|c| c.kind == ClauseKind::Intersect);
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    if rules.first_word_select {
        if let Some(first) = lower.first() {
            if general_words(ClauseKind::Select).contains(&first.as_str()) {
                tags[0] = select;
            }
        }
    }
    for i in 1..words.len() {
        if !WH_WORDS.contains(&lower[i].as_str()) {
            continue;
        }
        let prev = &lower[i - 1];
        if rules.and_wh_select && prev == "and" && !has_intersect {
            tags[i - 1] = select;
            tags[i] = select;
        } else if rules.noun_wh_not_select && looks_like_noun(prev) {
            tags[i] &= !select;
        }
    }
    if rules.fill_between {
        for i in 1..tags.len().saturating_sub(1) {
            let (a, b) = (tags[i - 1], tags[i + 1]);
            if a == b && a.count_ones() == 1 && a != select && tags[i] & a == 0 {
                let only_select = tags[i] == 0 || tags[i] == select;
                if only_select {
                    tags[i] = a;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clauses::split_clauses;

    #[test]
    fn normalization() {
        let n = Normalizer::default();
        assert_eq!(n.normalize("Dogs"), n.normalize("dog"));
        assert_eq!(n.normalize("had"), "have");
        assert_eq!(n.normalize("?"), "");
        assert!(n.degree_bases("largest").contains(&n.normalize("large")));
        assert!(n.degree_bases("biggest").contains(&n.normalize("big")));
        assert!(n.degree_bases("heavier").contains(&n.normalize("heavy")));
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(name_words("birth_date"), vec!["birth", "date"]);
        assert_eq!(name_words("HomeTown"), vec!["Home", "Town"]);
    }

    #[test]
    fn issue_example_is_tagged() {
        let clauses = split_clauses(
            "SELECT first_name, last_name FROM players WHERE hand = 'L' ORDER BY birth_date",
        )
        .unwrap();
        let words: Vec<String> =
            "Find the first name and last name of players whose hand is L , sorted by birth date"
                .split(' ')
                .map(str::to_owned)
                .collect();
        let tags = tag(
            &words,
            &clauses,
            None,
            &Normalizer::default(),
            Rules::default(),
        );
        let s = ClauseKind::Select.bit();
        let w = ClauseKind::Where.bit();
        let o = ClauseKind::OrderBy.bit();
        assert_eq!(tags[0], s); // Find
        assert_eq!(tags[2] & s, s); // first
        assert_eq!(tags[8] & s, s); // players
        assert_eq!(tags[9] & w, w); // whose
        assert_eq!(tags[10] & w, w); // hand
        assert_eq!(tags[12] & w, w); // L
        assert_eq!(tags[14] & o, o); // sorted
        assert_eq!(tags[17] & o, o); // date
    }

    #[test]
    fn wh_after_and_is_select_and_after_noun_is_not() {
        let clauses = split_clauses("SELECT name FROM t WHERE age > 3").unwrap();
        let words: Vec<String> = "names of people who are older than 3 and which"
            .split(' ')
            .map(str::to_owned)
            .collect();
        let tags = tag(
            &words,
            &clauses,
            None,
            &Normalizer::default(),
            Rules::default(),
        );
        assert_eq!(tags[3] & ClauseKind::Select.bit(), 0);
        assert_eq!(tags[8], ClauseKind::Select.bit());
        assert_eq!(tags[9], ClauseKind::Select.bit());
    }
}
