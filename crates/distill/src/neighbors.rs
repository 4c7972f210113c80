//! Neighbor queries: the gold with ONE token-level change — a constant, an operator, an
//! aggregation, a sort direction, a connective, a negation, a column, or a dropped span. A
//! test suite is good when it tells the gold from each of them (`spec/test_suite.md`).
//!
//! Length: about 1,460 lines of code and 580 of tests. The neighbor kinds share one token walk
//! (`TokenEdits`, a method per kind of token, over the clause tracking of `Query`) and are
//! small each; spread over files, every kind would re-export that walk's internals.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use sqlsuite::sql_tokens::{quote, splice, tokenize, Token, TokenKind};

mod case_else;
mod cast_guard;
mod count_case;
mod count_column;
mod edit_alike;
mod enumerated_bound;
mod equivalents;
mod exists_list;
mod extremum;
mod from_clause;
mod group_key;
mod inner_order;
mod layout;
mod naming;
mod pinned_order;
mod real_cast;
mod repeated_disjunct;
mod restated;
mod unread;
mod year_text;

/// Which change made a neighbor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NeighborKind {
    IntValue,
    FloatValue,
    StringValue,
    LikePattern,
    Comparison,
    Aggregation,
    SortDirection,
    AndOr,
    LikeNegation,
    InNegation,
    SetOperator,
    Column,
    DropPredicate,
    DropClause,
    DropDistinct,
    DropSelectColumn,
    DropSpan,
    DropCast,
}

impl NeighborKind {
    /// A constant edit: `plug_value` puts the gold's values back into such a neighbor.
    pub fn is_value(self) -> bool {
        matches!(
            self,
            NeighborKind::IntValue
                | NeighborKind::FloatValue
                | NeighborKind::StringValue
                | NeighborKind::LikePattern
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            NeighborKind::IntValue => "int_value",
            NeighborKind::FloatValue => "float_value",
            NeighborKind::StringValue => "string_value",
            NeighborKind::LikePattern => "like_pattern",
            NeighborKind::Comparison => "comparison",
            NeighborKind::Aggregation => "aggregation",
            NeighborKind::SortDirection => "sort_direction",
            NeighborKind::AndOr => "and_or",
            NeighborKind::LikeNegation => "like_negation",
            NeighborKind::InNegation => "in_negation",
            NeighborKind::SetOperator => "set_operator",
            NeighborKind::Column => "column",
            NeighborKind::DropPredicate => "drop_predicate",
            NeighborKind::DropClause => "drop_clause",
            NeighborKind::DropDistinct => "drop_distinct",
            NeighborKind::DropSelectColumn => "drop_select_column",
            NeighborKind::DropSpan => "drop_span",
            NeighborKind::DropCast => "drop_cast",
        }
    }
}

/// Why a neighbor is known to be hard to tell apart (the paper's two hard cases).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hardness {
    /// The edit is inside a WHERE with at least [`MANY_CONJUNCTS`] predicates: a random
    /// database rarely has a row satisfying all the others.
    ManyConjuncts,
    /// The edit is a `COUNT(…) op N` threshold: a database needs a group of exactly the right
    /// size.
    CountThreshold,
}

/// A WHERE with this many predicates or more is "many conjuncts".
pub const MANY_CONJUNCTS: usize = 3;

/// One neighbor query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Neighbor {
    pub kind: NeighborKind,
    pub sql: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hard: Option<Hardness>,
}

/// The schema facts neighbor generation needs: tables and their columns (original spelling).
pub type TableColumns = [(String, Vec<String>)];

/// What the schema's constraints say of each column (per table, per column; missing = no):
/// inside `count(…)` one NOT NULL column is as good as another (and as `*`), and grouping one
/// table's rows by a unique NOT NULL column is grouping them by any other, so such
/// replacements are not neighbors.
#[derive(Debug, Clone, Default)]
pub struct ColumnFacts {
    pub not_null: Vec<Vec<bool>>,
    pub unique: Vec<Vec<bool>>,
    /// Holds numbers that are not keys (amounts a question may total).
    pub numeric: Vec<Vec<bool>>,
    /// Declared a number (`INTEGER`, `REAL`), keys included: the generator stores numbers
    /// there, none of whose texts is empty.
    pub numbers: Vec<Vec<bool>>,
    /// The references generated data respects: (table, column) → (parent table, parent
    /// column), by position.
    pub references: Vec<((usize, usize), (usize, usize))>,
    /// The date layout every value of the column has (the constraints' `format`), if any.
    pub formats: Vec<Vec<Option<String>>>,
    /// The least and greatest text a database may hold in the column, where its values are an
    /// enumeration of texts ([`crate::random_db::Constants::text_bounds`]).
    pub text_bounds: Vec<Vec<Option<(String, String)>>>,
    /// Where a profile's samples of a text column all have one layout of digit runs
    /// (`1:23.794`, `#:#.#`) and no date: those samples and the profile's extremes of the same
    /// layout ([`layout`]).
    pub layouts: Vec<Vec<Option<Vec<String>>>>,
    /// The texts the golds' constants bring into each column beside its rules
    /// ([`crate::random_db::Constants::admitted_texts`]): a layout's values include them.
    pub gold_texts: Vec<Vec<Vec<String>>>,
}

impl ColumnFacts {
    fn get(facts: &[Vec<bool>], table: usize, column: &str, tables: &TableColumns) -> bool {
        tables[table]
            .1
            .iter()
            .position(|c| c.eq_ignore_ascii_case(column))
            .and_then(|ci| facts.get(table)?.get(ci).copied())
            .unwrap_or(false)
    }

    /// True if every non-NULL `child` value is a `parent` value (an enforced reference).
    fn references(
        &self,
        (table, column): (usize, &str),
        (parent, parent_column): (usize, &str),
        tables: &TableColumns,
    ) -> bool {
        let position = |t: usize, c: &str| {
            tables
                .get(t)?
                .1
                .iter()
                .position(|name| name.eq_ignore_ascii_case(c))
        };
        let (Some(c), Some(pc)) = (position(table, column), position(parent, parent_column)) else {
            return false;
        };
        self.references.contains(&((table, c), (parent, pc)))
    }

    fn is_not_null(&self, table: usize, column: &str, tables: &TableColumns) -> bool {
        Self::get(&self.not_null, table, column, tables)
    }

    fn is_numeric(&self, table: usize, column: &str, tables: &TableColumns) -> bool {
        Self::get(&self.numeric, table, column, tables)
    }

    fn holds_numbers(&self, table: usize, column: &str, tables: &TableColumns) -> bool {
        Self::get(&self.numbers, table, column, tables)
    }

    /// Unique (NULLs aside).
    fn is_unique(&self, table: usize, column: &str, tables: &TableColumns) -> bool {
        Self::get(&self.unique, table, column, tables)
    }

    /// Unique and never NULL: it tells the table's rows apart.
    fn identifies_rows(&self, table: usize, column: &str, tables: &TableColumns) -> bool {
        self.is_not_null(table, column, tables) && Self::get(&self.unique, table, column, tables)
    }
}

/// At most this many replacement columns per column mention.
const COLUMNS_PER_MENTION: usize = 20;

/// The words that start a clause (or a set operation) of a query, then those that start a
/// join: a join's `ON` condition ends at either.
const ON_ENDS: &[&str] = &[
    "select",
    "from",
    "where",
    "group",
    "having",
    "order",
    "limit",
    "union",
    "intersect",
    "except",
    "join",
    "inner",
    "left",
    "right",
    "cross",
    "natural",
];

/// The words that start a clause (or a set operation) of a query.
const CLAUSE_WORDS: &[&str] = ON_ENDS.split_at(10).0;

/// The other keywords: never a column name. [`Query::is_keyword`] checks both lists.
const OTHER_KEYWORDS: &[&str] = &[
    "by", "join", "inner", "left", "right", "outer", "cross", "natural", "on", "as", "and", "or",
    "not", "in", "like", "between", "is", "null", "asc", "desc", "distinct", "all", "exists",
    "case", "when", "then", "else", "end", "using", "offset",
];

/// `w` (lower case) is a keyword of either list: never a column name.
pub(super) fn is_reserved(w: &str) -> bool {
    CLAUSE_WORDS.contains(&w) || OTHER_KEYWORDS.contains(&w)
}

pub(super) const AGGREGATES: &[&str] = &["count", "sum", "avg", "min", "max"];
const COMPARISONS: &[&str] = &["=", "!=", "<", "<=", ">", ">="];

/// The structure neighbor generation reads off the tokens.
pub(super) struct Query<'a> {
    sql: &'a str,
    pub(super) toks: Vec<Token>,
    depth: Vec<usize>,
    /// For each `(`: the index of its `)`, and the reverse.
    partner: HashMap<usize, usize>,
}

impl<'a> Query<'a> {
    pub(super) fn new(sql: &'a str) -> Query<'a> {
        let toks = tokenize(sql);
        let mut depth = Vec::with_capacity(toks.len());
        let mut partner = HashMap::new();
        let mut stack = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            if t.is_symbol(")") {
                if let Some(open) = stack.pop() {
                    partner.insert(open, i);
                    partner.insert(i, open);
                }
            }
            depth.push(stack.len());
            if t.is_symbol("(") {
                stack.push(i);
            }
        }
        Query {
            sql,
            toks,
            depth,
            partner,
        }
    }

    /// The index of the parenthesis matching the one at `i`.
    pub(super) fn partner(&self, i: usize) -> Option<usize> {
        self.partner.get(&i).copied()
    }

    /// Every parenthesis has its partner.
    pub(super) fn balanced(&self) -> bool {
        let parens = self
            .toks
            .iter()
            .filter(|t| t.is_symbol("(") || t.is_symbol(")"))
            .count();
        parens == self.partner.len()
    }

    fn is_keyword(&self, i: usize) -> bool {
        self.toks[i].kind == TokenKind::Word && is_reserved(&self.toks[i].lower())
    }

    /// Index of the token that ends the clause starting at `start` (exclusive): the next clause
    /// word at the same depth, the `)` closing the parentheses around it (a `)` has the depth
    /// of its `(`: one less), an unmatched `)`, or the end. A parenthesized group inside the
    /// clause (`WHERE ( a OR b ) AND c`) is part of it.
    fn clause_end(&self, start: usize, stop_at: &[&str]) -> usize {
        let d = self.depth[start];
        for j in start + 1..self.toks.len() {
            let unmatched = || self.toks[j].is_symbol(")") && self.partner(j).is_none();
            if self.depth[j] < d || (self.depth[j] == d && unmatched()) {
                return j;
            }
            if self.depth[j] == d
                && self.toks[j].kind == TokenKind::Word
                && stop_at.contains(&self.toks[j].lower().as_str())
            {
                return j;
            }
        }
        self.toks.len()
    }

    fn byte_start(&self, i: usize) -> usize {
        self.toks.get(i).map_or(self.sql.len(), |t| t.start)
    }

    fn byte_end(&self, i: usize) -> usize {
        self.toks[i].end
    }

    /// The predicates of a WHERE/HAVING/ON clause body `from..to` at depth `d`: token ranges,
    /// and the connective token before each (none for the first).
    fn predicates(&self, from: usize, to: usize) -> Vec<(usize, usize, Option<usize>)> {
        let d = self.depth.get(from).copied().unwrap_or(0);
        let mut out = Vec::new();
        let mut start = from;
        let mut conn = None;
        let mut between = false;
        for j in from..to {
            if self.depth[j] != d {
                continue;
            }
            let t = &self.toks[j];
            if t.is_word("between") {
                between = true;
            } else if t.is_word("and") && between {
                between = false;
            } else if t.is_word("and") || t.is_word("or") {
                out.push((start, j, conn));
                conn = Some(j);
                start = j + 1;
            }
        }
        if start < to {
            out.push((start, to, conn));
        }
        out
    }

    /// True if token `i` (an operator) directly follows `count(…)`.
    pub(super) fn after_count(&self, i: usize) -> bool {
        if i == 0 || !self.toks[i - 1].is_symbol(")") {
            return false;
        }
        let Some(&open) = self.partner.get(&(i - 1)) else {
            return false;
        };
        open > 0 && self.toks[open - 1].is_word("count")
    }

    /// True if token `i` is the whole argument of `count( … )`: an integer there is a constant
    /// that is never NULL, so `count( 1 )` counts the rows whatever the integer.
    fn is_count_argument(&self, i: usize) -> bool {
        i >= 2
            && self.toks[i - 1].is_symbol("(")
            && self.toks[i - 2].is_word("count")
            && self.toks.get(i + 1).is_some_and(|t| t.is_symbol(")"))
    }

    /// The tokens of the SELECT block token `i` is in, at its depth: from after the `(` (or
    /// set operator) before it to the `)` (or set operator) after it.
    fn block(&self, i: usize) -> (usize, usize) {
        let d = self.depth[i];
        let set_operator = |j: usize| {
            self.depth[j] == d
                && ["union", "intersect", "except"]
                    .iter()
                    .any(|w| self.toks[j].is_word(w))
        };
        let from = (0..i)
            .rev()
            .find(|&j| self.depth[j] < d || set_operator(j))
            .map_or(0, |j| j + 1);
        let to = (i..self.toks.len())
            .find(|&j| self.depth[j] < d || set_operator(j))
            .unwrap_or(self.toks.len());
        (from, to)
    }

    /// The items of a comma list in `from..to`, at `from`'s depth: token ranges.
    fn comma_items(&self, from: usize, to: usize) -> Vec<(usize, usize)> {
        let d = self.depth.get(from).copied().unwrap_or(0);
        let mut items = Vec::new();
        let mut start = from;
        for j in from..to {
            if self.depth[j] == d && self.toks[j].is_symbol(",") {
                items.push((start, j));
                start = j + 1;
            }
        }
        items.push((start, to));
        items
    }

    /// The tokens `from..to`, lower case, as one text (items compared by it).
    fn text_of(&self, (from, to): (usize, usize)) -> String {
        let words: Vec<String> = self.toks[from..to].iter().map(Token::lower).collect();
        words.join(" ")
    }

    /// The GROUP BY keys of the block of token `i` (normalized texts), if it groups.
    fn group_keys(&self, i: usize) -> Option<Vec<String>> {
        let (from, to) = self.block(i);
        let d = self.depth[i];
        let group = (from..to).find(|&j| {
            self.depth[j] == d
                && self.toks[j].is_word("group")
                && self.toks.get(j + 1).is_some_and(|t| t.is_word("by"))
        })?;
        let end = self.before_semicolons(group, self.clause_end(group, CLAUSE_WORDS).min(to));
        let items = self.comma_items(group + 2, end);
        Some(items.into_iter().map(|r| self.text_of(r)).collect())
    }

    /// `to`, moved back before any `;` that ends `from..to` (a statement's terminator is no
    /// part of its last clause's items).
    fn before_semicolons(&self, from: usize, to: usize) -> usize {
        let mut to = to;
        while to > from && self.toks[to - 1].is_symbol(";") {
            to -= 1;
        }
        to
    }

    /// The items of the select list of the block of `select` (that `SELECT` token's index),
    /// after any `DISTINCT`, as normalized texts.
    fn select_items(&self, select: usize) -> Vec<String> {
        let mut start = select + 1;
        if self.toks.get(start).is_some_and(|t| t.is_word("distinct")) {
            start += 1;
        }
        let end = self.clause_end(select, CLAUSE_WORDS);
        self.comma_items(start, end)
            .into_iter()
            .map(|r| self.text_of(r))
            .collect()
    }

    /// True if the block of token `i` calls an aggregate at its own level (in its select
    /// list, HAVING or ORDER BY; a subquery's do not count).
    fn aggregates(&self, i: usize) -> bool {
        let (from, to) = self.block(i);
        let d = self.depth[i];
        (from..to).any(|j| {
            self.depth[j] == d
                && AGGREGATES.contains(&self.toks[j].lower().as_str())
                && self.toks.get(j + 1).is_some_and(|t| t.is_symbol("("))
        })
    }

    /// The clause word of the block of token `i` at its level, if the block has that clause.
    fn clause_of_block(&self, i: usize, word: &str) -> Option<usize> {
        let (from, to) = self.block(i);
        let d = self.depth[i];
        (from..to).find(|&j| self.depth[j] == d && self.toks[j].is_word(word))
    }

    /// True if dropping the GROUP BY clause at `group` cannot change the result: its block
    /// selects DISTINCT, calls no aggregate and has no HAVING, and every item of its select
    /// list (and of its ORDER BY) is a grouping key — one row per distinct select list with
    /// or without the grouping.
    fn idle_group_by(&self, group: usize) -> bool {
        let Some(select) = self.clause_of_block(group, "select") else {
            return false;
        };
        if !self
            .toks
            .get(select + 1)
            .is_some_and(|t| t.is_word("distinct"))
            || self.aggregates(group)
            || self.clause_of_block(group, "having").is_some()
        {
            return false;
        }
        let Some(keys) = self.group_keys(group) else {
            return false;
        };
        let items = self.select_items(select);
        let ordered_by_items = self.clause_of_block(group, "order").is_none_or(|order| {
            let end = self.before_semicolons(order, self.clause_end(order, CLAUSE_WORDS));
            self.comma_items(order + 2, end).into_iter().all(|(a, b)| {
                let b = if b > a
                    && (self.toks[b - 1].is_word("asc") || self.toks[b - 1].is_word("desc"))
                {
                    b - 1
                } else {
                    b
                };
                items.contains(&self.text_of((a, b)))
            })
        });
        ordered_by_items && items.iter().all(|item| keys.contains(item))
    }

    /// The clause word (`where`, `order` …) of the clause token `i` is in, at its depth: None
    /// if `i` is inside parentheses within its clause.
    fn clause_of(&self, i: usize) -> Option<usize> {
        let d = self.depth[i];
        let j = (0..i).rev().find(|&j| {
            self.depth[j] < d
                || (self.depth[j] == d
                    && self.toks[j].kind == TokenKind::Word
                    && CLAUSE_WORDS.contains(&self.toks[j].lower().as_str()))
        })?;
        (self.depth[j] == d).then_some(j)
    }

    /// True if token `i` is the aggregate of `ORDER BY agg( N )` and item N of the select list
    /// is that very `agg( N )`: without its name, `ORDER BY ( N )` is read by SQLite as the
    /// position of a result column, the same one.
    fn orders_by_own_position(&self, i: usize) -> bool {
        let t = |k: usize| self.toks.get(k);
        let call = AGGREGATES.contains(&self.toks[i].lower().as_str())
            && t(i + 1).is_some_and(|o| o.is_symbol("("))
            && t(i + 2).is_some_and(|n| n.kind == TokenKind::Int)
            && t(i + 3).is_some_and(|c| c.is_symbol(")"));
        if !call
            || !self
                .clause_of(i)
                .is_some_and(|c| self.toks[c].is_word("order"))
        {
            return false;
        }
        let Ok(position) = self.toks[i + 2].text.parse::<usize>() else {
            return false;
        };
        let Some(select) = self.clause_of_block(i, "select") else {
            return false;
        };
        position >= 1
            && self.select_items(select).get(position - 1) == Some(&self.text_of((i, i + 4)))
    }

    /// The token range of the GROUP BY clause at `group`, without a `;` after it.
    fn group_by_clause(&self, group: usize) -> (usize, usize) {
        (
            group,
            self.before_semicolons(group, self.clause_end(group, CLAUSE_WORDS)),
        )
    }

    /// True if the `DISTINCT` at `i` (after a block's `SELECT`) cannot remove a row: the block
    /// groups, and every grouping key is an item of its select list, so no two rows are equal;
    /// or it does not group and aggregates, so it answers one row.
    fn idle_distinct(&self, i: usize) -> bool {
        if i == 0 || !self.toks[i - 1].is_word("select") {
            return false;
        }
        let Some(keys) = self.group_keys(i) else {
            return self.aggregates(i);
        };
        let items = self.select_items(i - 1);
        keys.iter().all(|k| items.contains(k))
    }

    /// The items (token ranges) of the GROUP BY list token `i` is in, if it is in one.
    fn group_by_items(&self, i: usize) -> Option<Vec<(usize, usize)>> {
        let start = self.clause_of(i).filter(|&s| {
            self.toks[s].is_word("group") && self.toks.get(s + 1).is_some_and(|t| t.is_word("by"))
        })?;
        let (from, to) = self.group_by_clause(start);
        Some(self.comma_items(from + 2, to))
    }

    /// True if token `i` is inside a scalar subquery (`op (SELECT …)`): SQLite uses its first
    /// row, so its LIMIT (when at least 1) cannot change the result.
    fn in_scalar_subquery(&self, i: usize) -> bool {
        let d = self.depth[i];
        if d == 0 {
            return false;
        }
        let open = (0..i)
            .rev()
            .find(|&j| self.toks[j].is_symbol("(") && self.depth[j] == d - 1);
        open.is_some_and(|o| o > 0 && self.is_comparison(o - 1))
    }

    /// The least value `count(…)` can take where comparison `i` compares it (`count(…) op
    /// N`): 1 inside a HAVING clause (groups are never empty), 0 elsewhere (a count is never
    /// negative); `None` if `i` compares no count.
    fn count_floor(&self, i: usize) -> Option<i64> {
        let having = |c: usize| self.toks[c].is_word("having");
        self.after_count(i)
            .then(|| i64::from(self.clause_of(i).is_some_and(having)))
    }

    fn is_comparison(&self, i: usize) -> bool {
        let t = &self.toks[i];
        t.kind == TokenKind::Symbol
            && matches!(
                t.text.as_str(),
                "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
            )
    }
}

/// Generates the neighbors of `gold`: every one-change edit described in the module doc,
/// deduplicated, without the gold itself. `tables` gives column families; `rng` draws the
/// random constants (seed it for determinism).
pub fn neighbors(
    gold: &str,
    tables: &TableColumns,
    facts: &ColumnFacts,
    rng: &mut fastrand::Rng,
) -> Vec<Neighbor> {
    let q = Query::new(gold);
    let mut edits = TokenEdits {
        gold,
        q: &q,
        tables,
        facts,
        aliases: alias_map(&q, tables),
        many_conjunct_spans: many_conjunct_spans(&q),
        between_pending: HashMap::new(),
        out: Vec::new(),
    };
    for i in 0..q.toks.len() {
        edits.at(i, rng);
    }
    let TokenEdits {
        aliases,
        many_conjunct_spans,
        mut out,
        ..
    } = edits;
    span_and_column_edits(&q, tables, facts, &aliases, &many_conjunct_spans, &mut out);
    // The gold and its known rewrites (`equivalents`) are no neighbors; nor, where every row
    // of the answer is the same, is an edit of the ORDER BY alone; nor is an edit that cannot
    // change the answer where it stands (`edit_alike`).
    let mut seen = q.equivalents(tables, facts, &aliases);
    seen.insert(normalize(gold));
    let unordered = q.rows_alike().then(|| q.without_order_by());
    let schema = edit_alike::Schema {
        tables,
        facts,
        aliases: &aliases,
    };
    out.retain(|n| {
        seen.insert(normalize(&n.sql))
            && unordered
                .as_ref()
                .is_none_or(|gold| Query::new(&n.sql).without_order_by() != *gold)
            && !q.edit_answers_alike(&n.sql, &schema)
    });
    out
}

/// The edits of one token at a time ([`TokenEdits::at`]), in one walk of the gold's tokens:
/// constants changed, comparisons, aggregates, sort directions, connectives, negations, set
/// operators, DISTINCT and columns swapped.
struct TokenEdits<'q> {
    gold: &'q str,
    q: &'q Query<'q>,
    tables: &'q TableColumns,
    facts: &'q ColumnFacts,
    aliases: HashMap<String, usize>,
    /// Spans of many conjuncts: an edit inside one is hard ([`Hardness::ManyConjuncts`]).
    many_conjunct_spans: Vec<(usize, usize)>,
    /// Per nesting depth: a `BETWEEN` whose `AND` is still to come (no connective).
    between_pending: HashMap<usize, bool>,
    out: Vec<Neighbor>,
}

impl TokenEdits<'_> {
    fn push(&mut self, kind: NeighborKind, sql: String, hard: Option<Hardness>) {
        self.out.push(Neighbor { kind, sql, hard });
    }

    /// The gold with token `i` replaced by `with`.
    fn replace(&self, i: usize, with: &str) -> String {
        splice(self.gold, self.q.toks[i].start, self.q.toks[i].end, with)
    }

    /// The token before `i` is the word `w`.
    fn prev_word(&self, i: usize, w: &str) -> bool {
        i > 0 && self.q.toks[i - 1].is_word(w)
    }

    /// Why an edit of token `i` is hard to tell apart, if it is: it changes a count threshold,
    /// or it lies in a span of many conjuncts.
    fn hardness_at(&self, i: usize) -> Option<Hardness> {
        let q = self.q;
        let is_threshold = (q.is_comparison(i) && q.after_count(i))
            || (i > 0
                && matches!(q.toks[i].kind, TokenKind::Int | TokenKind::Float)
                && q.is_comparison(i - 1)
                && q.after_count(i - 1));
        if is_threshold {
            Some(Hardness::CountThreshold)
        } else if self
            .many_conjunct_spans
            .iter()
            .any(|&(a, b)| a <= i && i < b)
        {
            Some(Hardness::ManyConjuncts)
        } else {
            None
        }
    }

    /// The edits of token `i`, by its kind.
    fn at(&mut self, i: usize, rng: &mut fastrand::Rng) {
        let hard = self.hardness_at(i);
        match self.q.toks[i].kind {
            TokenKind::Int => self.integer_edits(i, hard, rng),
            TokenKind::Float => self.float_edits(i, hard, rng),
            TokenKind::Str => self.string_edits(i, hard, rng),
            TokenKind::Symbol if self.q.is_comparison(i) => self.comparison_edits(i, hard),
            TokenKind::Symbol => {}
            TokenKind::Word => self.word_edits(i, hard, rng),
        }
    }

    /// An integer constant: its neighbours, random ones near and far; only those that change
    /// the answer (a scalar subquery's LIMIT, a count's threshold, `count( 7 )`).
    fn integer_edits(&mut self, i: usize, hard: Option<Hardness>, rng: &mut fastrand::Rng) {
        let q = self.q;
        let Ok(c) = q.toks[i].text.parse::<i64>() else {
            return;
        };
        let span = c.unsigned_abs().saturating_mul(2).clamp(10, 1 << 40) as i64;
        let mut alts = BTreeSet::new();
        alts.insert(c.saturating_sub(1));
        alts.insert(c.saturating_add(1));
        alts.insert(rng.i64(0..=span));
        alts.insert(rng.i64(0..=span));
        alts.insert(rng.i64(0..=10));
        alts.insert(rng.i64(c.saturating_sub(10)..=c.saturating_add(10)));
        alts.remove(&c);
        if self.prev_word(i, "limit") && c >= 1 && q.in_scalar_subquery(i) {
            // Any positive limit, and a negative one (no limit in SQLite), give the scalar
            // subquery the same first row; only 0 changes it.
            alts.retain(|&a| a == 0);
        }
        if let Some(floor) = (i > 0 && q.is_comparison(i - 1))
            .then(|| q.count_floor(i - 1))
            .flatten()
        {
            let op = q.toks[i - 1].text.as_str();
            alts.retain(|&a| !same_for_counts(floor, (op, c), (op, a)));
        }
        if q.is_count_argument(i) {
            // `count( 0 )`, `count( 7 )`: every integer is a non-NULL constant.
            alts.clear();
        }
        for a in alts {
            let sql = self.replace(i, &a.to_string());
            self.push(NeighborKind::IntValue, sql, hard);
        }
    }

    /// A real constant: a small step either way, ten of them, and two random values.
    fn float_edits(&mut self, i: usize, hard: Option<Hardness>, rng: &mut fastrand::Rng) {
        let q = self.q;
        let t = &q.toks[i];
        let Ok(c) = t.text.parse::<f64>() else {
            return;
        };
        let step = 0.001 * c.abs().max(1.0);
        let hi = 2.0 * c.abs() + 1.0;
        for a in [
            c + step,
            c - step,
            c + 10.0 * step,
            c - 10.0 * step,
            rng.f64() * hi,
            rng.f64() * hi,
        ] {
            let text = float_text(a);
            if text != t.text {
                let sql = self.replace(i, &text);
                self.push(NeighborKind::FloatValue, sql, hard);
            }
        }
    }

    /// A string constant: random words, its substrings and extensions, a LIKE pattern's `%`
    /// moved; and an equality made a substring or prefix match.
    fn string_edits(&mut self, i: usize, hard: Option<Hardness>, rng: &mut fastrand::Rng) {
        let (gold, q) = (self.gold, self.q);
        let t = &q.toks[i];
        let Some(s) = t.string_content() else {
            return;
        };
        let qc = t.text.chars().next().unwrap_or('\'');
        for (kind, a) in string_alternatives(&s, self.prev_word(i, "like"), rng) {
            if a != s {
                let sql = self.replace(i, &quote(&a, qc));
                self.push(kind, sql, hard);
            }
        }
        // `= 'c'` → `LIKE '%c%'`, `LIKE 'c%'`: a substring or prefix match where the gold
        // wants the value.
        if i >= 1 && q.toks[i - 1].is_symbol("=") && !s.is_empty() && !s.contains('%') {
            for pattern in [format!("%{s}%"), format!("{s}%")] {
                let like = format!("LIKE {}", quote(&pattern, qc));
                self.push(
                    NeighborKind::LikePattern,
                    splice(gold, q.toks[i - 1].start, t.end, &like),
                    hard,
                );
            }
        }
    }

    /// A comparison: every other operator, but those that answer the same against a count's
    /// floor or the column's own extremum.
    fn comparison_edits(&mut self, i: usize, hard: Option<Hardness>) {
        let q = self.q;
        let norm = match q.toks[i].text.as_str() {
            "==" => "=",
            "<>" => "!=",
            other => other,
        };
        let threshold = q.count_floor(i).and_then(|floor| {
            let n = q.toks.get(i + 1)?.text.parse::<i64>().ok()?;
            Some((floor, n))
        });
        let extremum = q.compared_with_own_extremum(i);
        for op in COMPARISONS {
            if *op == norm {
                continue;
            }
            if threshold.is_some_and(|(floor, n)| same_for_counts(floor, (norm, n), (op, n))) {
                continue;
            }
            if extremum.is_some_and(|e| same_against_extremum(e, norm, op)) {
                continue;
            }
            let sql = self.replace(i, op);
            self.push(NeighborKind::Comparison, sql, hard);
        }
    }

    /// A word: an aggregate swapped, a sort direction reversed, `AND`/`OR` swapped (not a
    /// `BETWEEN`'s), `LIKE` and `IN` negated or not, a set operator swapped, a DISTINCT that
    /// matters dropped, or a column swapped for another ([`column_alternatives`]).
    fn word_edits(&mut self, i: usize, hard: Option<Hardness>, rng: &mut fastrand::Rng) {
        let (gold, q) = (self.gold, self.q);
        let t = &q.toks[i];
        let w = t.lower();
        let d = q.depth[i];
        let next_open = q.toks.get(i + 1).is_some_and(|n| n.is_symbol("("));
        if AGGREGATES.contains(&w.as_str()) && next_open {
            // `sum( 1 )` counts the rows of a group as `count( 1 )` does (a group is never
            // empty; without GROUP BY, no rows give NULL instead of 0).
            let sum_counts = w == "count"
                && q.toks.get(i + 2).is_some_and(|t| t.text == "1")
                && q.is_count_argument(i + 2)
                && q.group_keys(i).is_some();
            for a in AGGREGATES {
                if *a != w && !(sum_counts && *a == "sum") {
                    let sql = self.replace(i, a);
                    self.push(NeighborKind::Aggregation, sql, hard);
                }
            }
            return;
        }
        let not_before = self.prev_word(i, "not");
        let edit = |with: &str| self.replace(i, with);
        let (kind, sql) = match w.as_str() {
            "asc" => (NeighborKind::SortDirection, edit("DESC")),
            "cast" if next_open => match q.real_cast_dropped(i) {
                Some(sql) => (NeighborKind::DropCast, sql),
                None => return,
            },
            "desc" => (NeighborKind::SortDirection, edit("ASC")),
            "between" => {
                self.between_pending.insert(d, true);
                return;
            }
            "and" if self.between_pending.get(&d) == Some(&true) => {
                self.between_pending.insert(d, false);
                return;
            }
            "and" => (NeighborKind::AndOr, edit("OR")),
            "or" => (NeighborKind::AndOr, edit("AND")),
            "like" if not_before => (
                NeighborKind::LikeNegation,
                splice(gold, q.toks[i - 1].start, t.end, "LIKE"),
            ),
            "like" => (NeighborKind::LikeNegation, edit("NOT LIKE")),
            "in" if next_open && not_before => (
                NeighborKind::InNegation,
                splice(gold, q.toks[i - 1].start, t.end, "IN"),
            ),
            "in" if next_open => (NeighborKind::InNegation, edit("NOT IN")),
            "union" | "intersect" | "except" => {
                if q.toks.get(i + 1).is_some_and(|n| n.is_word("all")) {
                    return;
                }
                for s in ["UNION", "INTERSECT", "EXCEPT"] {
                    if !s.eq_ignore_ascii_case(&w) {
                        let sql = self.replace(i, s);
                        self.push(NeighborKind::SetOperator, sql, hard);
                    }
                }
                return;
            }
            "distinct"
                if q.idle_distinct(i)
                    || distinct_of_identifying_column(
                        q,
                        i,
                        self.tables,
                        self.facts,
                        &self.aliases,
                    ) =>
            {
                return;
            }
            "distinct" => {
                self.push(
                    NeighborKind::DropDistinct,
                    splice(gold, t.start, t.end, ""),
                    None,
                );
                return;
            }
            _ => {
                for alt in column_alternatives(q, i, self.tables, self.facts, &self.aliases, rng) {
                    let sql = self.replace(i, &alt);
                    self.push(NeighborKind::Column, sql, hard);
                }
                return;
            }
        };
        self.push(kind, sql, hard);
    }
}

/// The alternatives of string constant `s` (in a LIKE pattern if `like`): a random word, `s`
/// without its first or last character, a random three-letter word, `s` extended by two
/// random letters or by a leading `a`, `s` without both ends; for a pattern, its `%` dropped
/// or added.
fn string_alternatives(
    s: &str,
    like: bool,
    rng: &mut fastrand::Rng,
) -> Vec<(NeighborKind, String)> {
    let chars: Vec<char> = s.chars().collect();
    let mut alts: Vec<(NeighborKind, String)> = Vec::new();
    alts.push((NeighborKind::StringValue, {
        let len = 1 + rng.usize(..8);
        random_word(rng, len)
    }));
    if chars.len() >= 2 {
        alts.push((
            NeighborKind::StringValue,
            chars[1..].iter().collect::<String>(),
        ));
        alts.push((
            NeighborKind::StringValue,
            chars[..chars.len() - 1].iter().collect::<String>(),
        ));
    }
    alts.push((NeighborKind::StringValue, random_word(rng, 3)));
    alts.push((
        NeighborKind::StringValue,
        format!("{s}{}", random_word(rng, 2)),
    ));
    alts.push((NeighborKind::StringValue, format!("a{s}")));
    if chars.len() >= 3 {
        alts.push((
            NeighborKind::StringValue,
            chars[1..chars.len() - 1].iter().collect::<String>(),
        ));
    }
    if like {
        if s.contains('%') {
            alts.push((NeighborKind::LikePattern, s.replace('%', "")));
            if let Some(rest) = s.strip_prefix('%') {
                alts.push((NeighborKind::LikePattern, rest.to_owned()));
            }
            if let Some(rest) = s.strip_suffix('%') {
                alts.push((NeighborKind::LikePattern, rest.to_owned()));
            }
        } else {
            alts.push((NeighborKind::LikePattern, format!("%{s}%")));
        }
    }
    alts
}

/// The edits beyond one token, after the token walk: spans of conjuncts dropped, sort
/// directions added, `count(*)` and group keys made columns, and (last, so that a span drop
/// equal to a named edit above keeps the named kind) token spans dropped.
fn span_and_column_edits(
    q: &Query,
    tables: &TableColumns,
    facts: &ColumnFacts,
    aliases: &HashMap<String, usize>,
    many_conjunct_spans: &[(usize, usize)],
    out: &mut Vec<Neighbor>,
) {
    drop_spans(q, many_conjunct_spans, &mut |kind, sql, hard| {
        out.push(Neighbor { kind, sql, hard })
    });
    add_sort_directions(q, &mut |sql| {
        out.push(Neighbor {
            kind: NeighborKind::SortDirection,
            sql,
            hard: None,
        })
    });
    count_star_columns(q, tables, facts, aliases, &mut |kind, sql| {
        out.push(Neighbor {
            kind,
            sql,
            hard: None,
        })
    });
    group_key_columns(q, tables, facts, aliases, &mut |sql| {
        out.push(Neighbor {
            kind: NeighborKind::Column,
            sql,
            hard: None,
        })
    });
    drop_token_spans(
        q,
        tables,
        facts,
        aliases,
        many_conjunct_spans,
        &mut |sql, hard| {
            out.push(Neighbor {
                kind: NeighborKind::DropSpan,
                sql,
                hard,
            })
        },
    );
}

/// The column pairs a query equates (`a.x = b.y`, both qualified, in ON or WHERE): joins the
/// random databases should be able to satisfy. Each pair is ((table, column), (table, column)),
/// names as the query spells them, tables resolved through aliases.
pub fn join_pairs(sql: &str, tables: &TableColumns) -> Vec<((String, String), (String, String))> {
    let q = Query::new(sql);
    let aliases = alias_map(&q, tables);
    let resolve = |i: usize| -> Option<(String, String)> {
        let (t, dot, c) = (q.toks.get(i)?, q.toks.get(i + 1)?, q.toks.get(i + 2)?);
        if t.kind != TokenKind::Word || !dot.is_symbol(".") || c.kind != TokenKind::Word {
            return None;
        }
        let k = *aliases.get(&unquote_ident(&t.text).to_lowercase())?;
        let col = tables[k]
            .1
            .iter()
            .find(|x| x.eq_ignore_ascii_case(unquote_ident(&c.text)))?;
        Some((tables[k].0.clone(), col.clone()))
    };
    let mut out = Vec::new();
    for i in 3..q.toks.len().saturating_sub(3) {
        if q.toks[i].is_symbol("=") {
            if let (Some(a), Some(b)) = (resolve(i - 3), resolve(i + 1)) {
                if a.0 != b.0 {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

/// Columns (`alias.col` or `col`, lower case) that a comparison operand makes non-NULL in every
/// row the query counts: any comparison with NULL fails. Only for queries without OR (where a
/// comparison might not have to hold).
fn null_rejected(q: &Query) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if q.toks.iter().any(|t| t.is_word("or")) {
        return out;
    }
    let operand = |from: usize, to_left: bool| -> Option<String> {
        let t = q.toks.get(from)?;
        if t.kind != TokenKind::Word {
            return None;
        }
        let (qual, col) = if to_left {
            match from.checked_sub(2) {
                Some(j) if q.toks[from - 1].is_symbol(".") => (Some(&q.toks[j]), t),
                _ => (None, t),
            }
        } else if q.toks.get(from + 1).is_some_and(|d| d.is_symbol(".")) {
            (Some(t), q.toks.get(from + 2)?)
        } else {
            (None, t)
        };
        let col = unquote_ident(&col.text).to_lowercase();
        Some(match qual {
            Some(a) => format!("{}.{col}", unquote_ident(&a.text).to_lowercase()),
            None => col,
        })
    };
    for i in 1..q.toks.len() {
        if q.is_comparison(i) {
            out.extend(operand(i - 1, true));
            out.extend(operand(i + 1, false));
        }
    }
    out
}

fn holds(op: &str, a: i64, b: i64) -> bool {
    match op {
        "=" | "==" => a == b,
        "!=" | "<>" => a != b,
        "<" => a < b,
        "<=" => a <= b,
        ">" => a > b,
        ">=" => a >= b,
        _ => false,
    }
}

/// `count op1 n1` and `count op2 n2` agree for every count from `floor` on (1 on groups,
/// which are never empty; 0 elsewhere).
fn same_for_counts(floor: i64, (op1, n1): (&str, i64), (op2, n2): (&str, i64)) -> bool {
    let top = n1.max(n2).saturating_add(2).max(floor + 2);
    (floor..=top).all(|c| holds(op1, c, n1) == holds(op2, c, n2))
}

/// `x op1 min(x)` and `x op2 min(x)` agree for every x of the column (no x is below its min;
/// likewise above its max).
fn same_against_extremum(extremum: &str, op1: &str, op2: &str) -> bool {
    // x relative to the extremum: -1 below, 0 equal, 1 above; only one side can occur.
    let possible: [i64; 2] = if extremum == "min" { [0, 1] } else { [-1, 0] };
    possible
        .iter()
        .all(|&x| holds(op1, x, 0) == holds(op2, x, 0))
}

/// Token form used to deduplicate neighbors (whitespace and keyword case do not count).
fn normalize(sql: &str) -> String {
    let mut toks: Vec<String> = tokenize(sql)
        .into_iter()
        .map(|t| match t.kind {
            TokenKind::Word => t.lower(),
            _ => t.text,
        })
        .collect();
    // A statement's closing `;` changes nothing: an edit that drops it with the last
    // conjunct is the same query as one that keeps it.
    while toks.last().is_some_and(|t| t == ";") {
        toks.pop();
    }
    toks.join(" ")
}

/// At most this many `count(column)` neighbors per `count(*)`, …
const COUNT_COLUMNS: usize = 4;
/// … and this many `sum(column)` ones.
const SUM_COLUMNS: usize = 2;

/// At most this many columns of each other table replace a grouping key.
const GROUP_COLUMNS: usize = 4;

/// A qualified grouping key `GROUP BY T1.x` becomes a column of another table of the join
/// (`T2.last_name`): grouping by a name where the question groups by an identifier. (Column
/// edits elsewhere keep to the key's own table.) A column that identifies its table's rows is
/// left out: grouping by it is grouping by that table's key, usually the one joined on.
fn group_key_columns(
    q: &Query,
    tables: &TableColumns,
    facts: &ColumnFacts,
    aliases: &HashMap<String, usize>,
    push: &mut dyn FnMut(String),
) {
    let sorted: BTreeSet<(&String, &usize)> = aliases.iter().collect();
    // Columns the query equates (`T1.a = T2.b`), in lower case: grouping by one or the other
    // is the same.
    let mut equated: BTreeSet<(String, String)> = BTreeSet::new();
    for w in q.toks.windows(7) {
        if w[1].is_symbol(".") && w[3].is_symbol("=") && w[5].is_symbol(".") {
            let (a, b) = (
                format!("{}.{}", w[0].lower(), w[2].lower()),
                format!("{}.{}", w[4].lower(), w[6].lower()),
            );
            equated.insert((a.clone(), b.clone()));
            equated.insert((b, a));
        }
    }
    for i in 0..q.toks.len().saturating_sub(4) {
        let [g, by, alias, dot, col] = &q.toks[i..i + 5] else {
            continue;
        };
        if !(g.is_word("group") && by.is_word("by") && dot.is_symbol("."))
            || alias.kind != TokenKind::Word
            || col.kind != TokenKind::Word
        {
            continue;
        }
        let Some(&own) = aliases.get(&alias.lower()) else {
            continue;
        };
        // Each other table by its first alias (in name order), else by its name.
        let mut qualifier: BTreeMap<usize, &String> = BTreeMap::new();
        for &(a, &k) in &sorted {
            let name = tables[k].0.to_lowercase();
            let keep = qualifier
                .get(&k)
                .is_some_and(|q| q.as_str() != name || a.as_str() == name);
            if k != own && !keep {
                qualifier.insert(k, a);
            }
        }
        let plain = |c: &&String| c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        for (k, other) in qualifier {
            let candidates = tables[k]
                .1
                .iter()
                .skip(1)
                .filter(plain)
                .filter(|c| !facts.identifies_rows(k, c, tables))
                .filter(|c| {
                    let key = format!("{}.{}", alias.lower(), col.lower());
                    !equated.contains(&(key, format!("{other}.{}", c.to_lowercase())))
                });
            for c in candidates.take(GROUP_COLUMNS) {
                push(splice(q.sql, alias.start, col.end, &format!("{other}.{c}")));
            }
        }
    }
}

/// `count(*)` becomes `count(column)` for a few columns of the query's tables: they differ
/// where the column holds NULLs; `ORDER BY count(*)` becomes `ORDER BY` the grouping key.
fn count_star_columns(
    q: &Query,
    tables: &TableColumns,
    facts: &ColumnFacts,
    aliases: &HashMap<String, usize>,
    push: &mut dyn FnMut(NeighborKind, String),
) {
    let rejected = null_rejected(q);
    let in_query: BTreeSet<usize> = aliases.values().copied().collect();
    // The first alias (in name order) of each table: a table joined twice has two, and the
    // choice must not depend on hash order.
    let mut qualifier: HashMap<usize, String> = HashMap::new();
    let sorted: BTreeSet<(&String, &usize)> = aliases.iter().collect();
    for (a, &k) in sorted {
        if a.as_str() != tables[k].0.to_lowercase() {
            qualifier.entry(k).or_insert_with(|| a.clone());
        }
    }
    // The first grouping key, as written (`Hometown`, `T1.id`).
    let group_key = (0..q.toks.len().saturating_sub(2))
        .find(|&i| q.toks[i].is_word("group") && q.toks[i + 1].is_word("by"))
        .and_then(|i| {
            let first = q.toks.get(i + 2).filter(|t| t.kind == TokenKind::Word)?;
            let last = match (q.toks.get(i + 3), q.toks.get(i + 4)) {
                (Some(dot), Some(col)) if dot.is_symbol(".") && col.kind == TokenKind::Word => col,
                _ => first,
            };
            Some(&q.sql[first.start..last.end])
        });
    for i in 0..q.toks.len().saturating_sub(3) {
        if !(q.toks[i].is_word("count")
            && q.toks[i + 1].is_symbol("(")
            && q.toks[i + 2].is_symbol("*")
            && q.toks[i + 3].is_symbol(")"))
        {
            continue;
        }
        // `ORDER BY count(*)` → `ORDER BY key`: ranking groups by their name instead of their
        // size (what `max(key)` answers).
        if let Some(key) = group_key
            .filter(|_| i >= 2 && q.toks[i - 1].is_word("by") && q.toks[i - 2].is_word("order"))
        {
            push(
                NeighborKind::Column,
                splice(q.sql, q.toks[i].start, q.toks[i + 3].end, key),
            );
        }
        let mut made = 0;
        let mut summed = 0;
        for &k in &in_query {
            for c in tables[k].1.iter().skip(1) {
                let plain = c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
                let col = match qualifier.get(&k) {
                    Some(a) if in_query.len() > 1 => format!("{a}.{c}"),
                    _ => c.clone(),
                };
                // `count(*)` → `sum(x)` for a numeric column: counting rows where the question
                // totals an amount (or the reverse).
                if plain && summed < SUM_COLUMNS && facts.is_numeric(k, c, tables) {
                    let (from, to) = (q.toks[i].start, q.toks[i + 3].end);
                    push(
                        NeighborKind::Aggregation,
                        splice(q.sql, from, to, &format!("sum({col})")),
                    );
                    summed += 1;
                }
                if made >= COUNT_COLUMNS {
                    continue;
                }
                if !plain
                    || facts.is_not_null(k, c, tables)
                    || rejected.contains(&match qualifier.get(&k) {
                        Some(a) => format!("{a}.{}", c.to_lowercase()),
                        None => c.to_lowercase(),
                    })
                    || rejected.contains(&c.to_lowercase())
                {
                    continue;
                }
                let t = &q.toks[i + 2];
                push(NeighborKind::Column, splice(q.sql, t.start, t.end, &col));
                made += 1;
            }
        }
    }
}

fn float_text(x: f64) -> String {
    let s = format!("{x}");
    if s.contains(['.', 'e', 'E']) || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

/// A random lower-case word.
pub fn random_word(rng: &mut fastrand::Rng, len: usize) -> String {
    (0..len.max(1)).map(|_| rng.lowercase()).collect()
}

/// Token ranges of WHERE bodies with many predicates.
fn many_conjunct_spans(q: &Query) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for i in 0..q.toks.len() {
        if q.toks[i].is_word("where") {
            let end = q.clause_end(i, CLAUSE_WORDS);
            if q.predicates(i + 1, end).len() >= MANY_CONJUNCTS {
                spans.push((i, end));
            }
        }
    }
    spans
}

/// Table names and aliases (lower case) → index in `tables`.
fn alias_map(q: &Query, tables: &TableColumns) -> HashMap<String, usize> {
    let by_name: HashMap<String, usize> = tables
        .iter()
        .enumerate()
        .map(|(k, (t, _))| (t.to_lowercase(), k))
        .collect();
    let mut map = HashMap::new();
    for i in 0..q.toks.len() {
        let t = &q.toks[i];
        if t.kind != TokenKind::Word || q.is_keyword(i) {
            continue;
        }
        let name = unquote_ident(&t.text).to_lowercase();
        let Some(&k) = by_name.get(&name) else {
            continue;
        };
        let after_from = i > 0
            && (q.toks[i - 1].is_word("from")
                || q.toks[i - 1].is_word("join")
                || q.toks[i - 1].is_symbol(","));
        if !after_from {
            continue;
        }
        map.insert(name, k);
        let mut j = i + 1;
        if q.toks.get(j).is_some_and(|n| n.is_word("as")) {
            j += 1;
        }
        if let Some(a) = q.toks.get(j) {
            if a.kind == TokenKind::Word && !q.is_keyword(j) {
                map.insert(unquote_ident(&a.text).to_lowercase(), k);
            }
        }
    }
    map
}

fn unquote_ident(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() >= 2
        && ((b[0] == b'`' && b[b.len() - 1] == b'`') || (b[0] == b'[' && b[b.len() - 1] == b']'))
    {
        &s[1..s.len() - 1]
    } else {
        s
    }
}

/// Other columns that could stand where token `i` names a column: of its qualifier's table, or
/// of every table in the query that has a column of that name.
fn column_alternatives(
    q: &Query,
    i: usize,
    tables: &TableColumns,
    facts: &ColumnFacts,
    aliases: &HashMap<String, usize>,
    rng: &mut fastrand::Rng,
) -> Vec<String> {
    let t = &q.toks[i];
    let arg_start = if i >= 2 && q.toks[i - 1].is_symbol(".") {
        i - 2
    } else {
        i
    };
    let in_count = arg_start >= 2
        && q.toks[arg_start - 1].is_symbol("(")
        && q.toks[arg_start - 2].is_word("count");
    if q.is_keyword(i)
        || q.toks
            .get(i + 1)
            .is_some_and(|n| n.is_symbol(".") || n.is_symbol("("))
    {
        return Vec::new();
    }
    if i > 0 && q.toks[i - 1].is_word("as") {
        return Vec::new();
    }
    let name = unquote_ident(&t.text).to_lowercase();
    let qualified = i >= 2 && q.toks[i - 1].is_symbol(".");
    let owners: Vec<usize> = if qualified {
        let qual = unquote_ident(&q.toks[i - 2].text).to_lowercase();
        aliases.get(&qual).copied().into_iter().collect()
    } else {
        if aliases.contains_key(&name) {
            return Vec::new();
        }
        let in_query: BTreeSet<usize> = aliases.values().copied().collect();
        in_query.into_iter().collect()
    };
    let owners: Vec<usize> = owners
        .into_iter()
        .filter(|&k| tables[k].1.iter().any(|c| c.to_lowercase() == name))
        .collect();
    let rejected = null_rejected(q);
    let qual = qualified.then(|| unquote_ident(&q.toks[i - 2].text).to_lowercase());
    let key = |c: &str| match &qual {
        Some(a) => format!("{a}.{}", c.to_lowercase()),
        None => c.to_lowercase(),
    };
    // In `GROUP BY T.id , T.x`, where T.id identifies T's rows, each group is one row of T:
    // any column of T in place of T.x groups the same rows.
    if let (Some(a), Some(items)) = (&qual, q.group_by_items(i)) {
        let determined = !owners.is_empty()
            && items.iter().any(|&(from, to)| {
                to == from + 3
                    && from != arg_start
                    && q.toks[from + 1].is_symbol(".")
                    && unquote_ident(&q.toks[from].text).to_lowercase() == *a
                    && owners.iter().all(|&k| {
                        facts.identifies_rows(k, unquote_ident(&q.toks[from + 2].text), tables)
                    })
            });
        if determined {
            return Vec::new();
        }
    }
    let never_null =
        |k: usize, c: &str| facts.is_not_null(k, c, tables) || rejected.contains(&key(c));
    let counts_rows =
        in_count && !owners.is_empty() && owners.iter().all(|&k| never_null(k, &name));
    let in_group_by = arg_start >= 2
        && q.toks[arg_start - 2].is_word("group")
        && q.toks[arg_start - 1].is_word("by");
    let groups_rows = in_group_by
        && !owners.is_empty()
        && owners
            .iter()
            .all(|&k| facts.identifies_rows(k, &name, tables));
    let mut family: Vec<String> = Vec::new();
    for k in owners {
        for c in &tables[k].1 {
            if (counts_rows && never_null(k, c))
                || (groups_rows && facts.identifies_rows(k, c, tables))
            {
                continue;
            }
            if c.to_lowercase() != name && !family.iter().any(|f| f.eq_ignore_ascii_case(c)) {
                family.push(c.clone());
            }
        }
    }
    if family.len() > COLUMNS_PER_MENTION {
        rng.shuffle(&mut family);
        family.truncate(COLUMNS_PER_MENTION);
        family.sort();
    }
    family
        .into_iter()
        .map(|c| {
            if c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
                c
            } else {
                quote(&c, '`')
            }
        })
        .collect()
}

/// Dropped spans: each WHERE/HAVING predicate, each clause, each SELECT item.
fn drop_spans(
    q: &Query,
    many: &[(usize, usize)],
    push: &mut dyn FnMut(NeighborKind, String, Option<Hardness>),
) {
    let sql = q.sql;
    let cut = |a: usize, b: usize| -> String {
        // Token range a..b removed.
        splice(sql, q.byte_start(a), q.byte_end(b - 1), "")
    };
    for i in 0..q.toks.len() {
        let w = q.toks[i].lower();
        if q.toks[i].kind != TokenKind::Word {
            continue;
        }
        match w.as_str() {
            "where" | "having" => {
                let end = q.clause_end(i, CLAUSE_WORDS);
                let preds = q.predicates(i + 1, end);
                let hard = many
                    .iter()
                    .any(|&(a, _)| a == i)
                    .then_some(Hardness::ManyConjuncts);
                if preds.len() >= 2 {
                    for (k, &(a, b, conn)) in preds.iter().enumerate() {
                        let (from, to) = match conn {
                            Some(c) => (c, b),
                            None => (a, preds[k + 1].2.map_or(b, |c| c + 1)),
                        };
                        push(NeighborKind::DropPredicate, cut(from, to), hard);
                    }
                }
                if end > i + 1 {
                    push(NeighborKind::DropClause, cut(i, end), None);
                }
            }
            "group" | "order" | "limit" => {
                let end = q.clause_end(i, CLAUSE_WORDS);
                let scalar_limit = w == "limit" && q.in_scalar_subquery(i);
                let idle_group = w == "group" && q.idle_group_by(i);
                if end > i + 1 && !scalar_limit && !idle_group {
                    push(NeighborKind::DropClause, cut(i, end), None);
                }
                if w == "group" && !idle_group {
                    let end = q.clause_end(
                        i,
                        &CLAUSE_WORDS[..2]
                            .iter()
                            .chain(&CLAUSE_WORDS[5..])
                            .copied()
                            .collect::<Vec<_>>(),
                    );
                    if end > i + 1 {
                        push(NeighborKind::DropClause, cut(i, end), None);
                    }
                }
            }
            "select" => {
                let mut start = i + 1;
                if q.toks.get(start).is_some_and(|t| t.is_word("distinct")) {
                    start += 1;
                }
                let items = q.comma_items(start, q.clause_end(i, CLAUSE_WORDS));
                if items.len() >= 2 {
                    for (k, &(a, b)) in items.iter().enumerate() {
                        if a >= b {
                            continue;
                        }
                        let (from, to) = if k + 1 < items.len() {
                            (a, b + 1)
                        } else {
                            (a - 1, b)
                        };
                        push(NeighborKind::DropSelectColumn, cut(from, to), None);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Longest run of tokens [`drop_token_spans`] removes.
pub const MAX_DROP_SPAN: usize = 8;

/// Words whose removal never changes a result: `ASC` is the default direction, `INNER` and
/// `OUTER` are optional in joins, `AS` is optional before an alias, `;` ends the statement.
const NOISE: &[&str] = &["asc", "inner", "outer", "as", ";"];

/// Every run of 1..=[`MAX_DROP_SPAN`] tokens removed (the paper's "drop a span"), except runs
/// whose removal provably keeps the result on every database: only optional words
/// ([`NOISE`]); an alias with or without its `AS` (the query fails if the alias is used, and
/// means the same if not); a qualifier `T1.`; `DISTINCT` inside `min`/`max`; the LIMIT of a
/// scalar subquery (with optional words before it, `ASC LIMIT 1`). Nor does it empty a
/// `count(…)`: `count()` is SQLite's `count(*)`, and that edit is a column neighbor. A run must keep parentheses balanced and may not be the whole query.
/// Neighbors that do not parse are discarded later, by execution on the original database.
/// True if the `DISTINCT` at `i` finds no two rows equal: its block reads one table, and
/// `SELECT DISTINCT` (in a block that does not group) lists, or `count( DISTINCT … )` counts, a
/// column that identifies that table's rows (unique and NOT NULL by the constraints).
fn distinct_of_identifying_column(
    q: &Query,
    i: usize,
    tables: &TableColumns,
    facts: &ColumnFacts,
    aliases: &HashMap<String, usize>,
) -> bool {
    let counted = i >= 2 && q.toks[i - 1].is_symbol("(") && q.toks[i - 2].is_word("count");
    let anchor = match () {
        _ if i >= 1 && q.toks[i - 1].is_word("select") => i,
        _ if counted => i - 2,
        _ => return false,
    };
    let Some(list) = q.block_from(anchor) else {
        return false;
    };
    // The column's FROM item (the only one, for an unqualified column), whose rows the
    // others must not repeat.
    let identifies = |(a, b): (usize, usize)| {
        let (name, column) = match &q.toks[a..b] {
            [c] => match list.only() {
                Some(only) => (only.to_owned(), c),
                None => return false,
            },
            [qualifier, dot, c] if dot.is_symbol(".") => (qualifier.lower(), c),
            _ => return false,
        };
        let Some(&t) = list.table_of(&name).and_then(|table| aliases.get(table)) else {
            return false;
        };
        column.kind == TokenKind::Word
            && facts.identifies_rows(t, unquote_ident(&column.text), tables)
            && q.repeats_no_row_of(anchor, &list, &name, tables, facts, aliases)
    };
    if counted {
        return q
            .partner(i - 1)
            .is_some_and(|close| identifies((i + 1, close)));
    }
    let list_end = q.clause_end(i - 1, CLAUSE_WORDS);
    q.group_keys(anchor).is_none() && q.comma_items(i + 1, list_end).into_iter().any(identifies)
}

fn drop_token_spans(
    q: &Query,
    tables: &TableColumns,
    facts: &ColumnFacts,
    aliases: &HashMap<String, usize>,
    many: &[(usize, usize)],
    push: &mut dyn FnMut(String, Option<Hardness>),
) {
    let n = q.toks.len();
    // An alias: a name `alias_map` knows that is no table's, or any word after `AS` (a column
    // alias too). Where it is used rather than defined, dropping it does not parse anyway.
    let is_alias = |i: usize| {
        let t = &q.toks[i];
        if t.kind != TokenKind::Word || q.is_keyword(i) {
            return false;
        }
        let name = unquote_ident(&t.text);
        let table = tables.iter().any(|(tn, _)| tn.eq_ignore_ascii_case(name));
        (i > 0 && q.toks[i - 1].is_word("as"))
            || (!table && aliases.contains_key(&name.to_lowercase()))
    };
    let is_noise = |t: &Token| NOISE.contains(&t.lower().as_str());
    for i in 0..n {
        let mut depth = 0i32;
        for j in i + 1..=n.min(i + MAX_DROP_SPAN) {
            let t = &q.toks[j - 1];
            if t.is_symbol("(") {
                depth += 1;
            } else if t.is_symbol(")") {
                depth -= 1;
            }
            if depth < 0 {
                break;
            }
            if depth != 0 || (i == 0 && j == n) {
                continue;
            }
            let span = &q.toks[i..j];
            let noise = span.iter().all(is_noise);
            // `count()` is SQLite's `count(*)`; emptying a count is the `count(*)`/`count(col)`
            // edit, generated (with its NOT NULL exceptions) as a column neighbor.
            let empties_count = i >= 2
                && q.toks[i - 1].is_symbol("(")
                && q.toks[i - 2].is_word("count")
                && q.toks.get(j).is_some_and(|t| t.is_symbol(")"));
            let core_start = span.iter().position(|t| !is_noise(t)).map_or(i, |k| i + k);
            let alias = (span.len() == 1 && is_alias(i))
                || (span.len() == 2 && span[0].is_word("as") && is_alias(i + 1));
            let qualifier =
                span.len() == 2 && span[0].kind == TokenKind::Word && span[1].is_symbol(".");
            let distinct_in_extremum = span.len() == 1
                && span[0].is_word("distinct")
                && i >= 2
                && q.toks[i - 1].is_symbol("(")
                && (q.toks[i - 2].is_word("min") || q.toks[i - 2].is_word("max"));
            let scalar_limit = q.toks[core_start].is_word("limit") && q.in_scalar_subquery(i);
            // A `DISTINCT` that removes no row, alone or with the qualifier after it.
            let idle_distinct = span[0].is_word("distinct")
                && (span.len() == 1
                    || (span.len() == 3
                        && span[1].kind == TokenKind::Word
                        && span[2].is_symbol(".")))
                && (q.idle_distinct(i)
                    || distinct_of_identifying_column(q, i, tables, facts, aliases));
            let own_position = span.len() == 1 && q.orders_by_own_position(i);

            let idle_group = span[0].is_word("group")
                && q.group_by_clause(i).1 <= j
                && j <= q.clause_end(i, CLAUSE_WORDS)
                && q.idle_group_by(i);
            if noise
                || idle_group
                || own_position
                || alias
                || qualifier
                || distinct_in_extremum
                || scalar_limit
                || empties_count
                || idle_distinct
            {
                continue;
            }
            let hard = many
                .iter()
                .any(|&(a, b)| a < i && j <= b)
                .then_some(Hardness::ManyConjuncts);
            push(splice(q.sql, q.byte_start(i), q.byte_end(j - 1), ""), hard);
        }
    }
}

/// `ORDER BY x` items without a direction get `DESC` (dropping `ASC` changes nothing, so it is
/// never generated).
fn add_sort_directions(q: &Query, push: &mut dyn FnMut(String)) {
    for i in 0..q.toks.len() {
        if !(q.toks[i].is_word("order") && q.toks.get(i + 1).is_some_and(|t| t.is_word("by"))) {
            continue;
        }
        let end = q.clause_end(i, CLAUSE_WORDS);
        let d = q.depth[i];
        let mut item_ends = Vec::new();
        for j in i + 2..end {
            if q.depth[j] == d && q.toks[j].is_symbol(",") {
                item_ends.push(j);
            }
        }
        item_ends.push(end);
        for e in item_ends {
            if e == 0 || e <= i + 2 {
                continue;
            }
            let last = &q.toks[e - 1];
            if last.is_word("asc") || last.is_word("desc") {
                continue;
            }
            let at = last.end;
            push(format!("{} DESC{}", &q.sql[..at], &q.sql[at..]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn tables() -> Vec<(String, Vec<String>)> {
        vec![
            (
                "singer".into(),
                vec![
                    "Singer_ID".into(),
                    "Name".into(),
                    "Age".into(),
                    "Country".into(),
                ],
            ),
            (
                "concert".into(),
                vec!["concert_ID".into(), "Singer_ID".into(), "Year".into()],
            ),
        ]
    }

    /// singer: Singer_ID and Name identify rows (unique, NOT NULL); Age does not.
    fn singer_facts() -> ColumnFacts {
        ColumnFacts {
            not_null: vec![vec![true, true, true, false], vec![true, true, true]],
            unique: vec![vec![true, true, false, false], vec![true, false, false]],
            numeric: vec![vec![false, false, true, false], vec![false, false, true]],
            numbers: Vec::new(),
            references: Vec::new(),
            formats: Vec::new(),
            text_bounds: Vec::new(),
            layouts: Vec::new(),
            gold_texts: Vec::new(),
        }
    }

    /// Tables by name and column names.
    pub(super) fn tables_of(spec: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        spec.iter()
            .map(|(name, cols)| {
                let cols = cols.iter().map(|c| c.to_string()).collect();
                (name.to_string(), cols)
            })
            .collect()
    }

    /// Each table's first column unique and never NULL; nothing else.
    pub(super) fn keyed_by_first_columns(tables: &TableColumns) -> ColumnFacts {
        let keys: Vec<Vec<bool>> = tables
            .iter()
            .map(|(_, cols)| (0..cols.len()).map(|c| c == 0).collect())
            .collect();
        ColumnFacts {
            not_null: keys.clone(),
            unique: keys.clone(),
            numeric: keys.iter().map(|k| vec![false; k.len()]).collect(),
            numbers: Vec::new(),
            references: Vec::new(),
            formats: keys.iter().map(|k| vec![None; k.len()]).collect(),
            text_bounds: Vec::new(),
            layouts: Vec::new(),
            gold_texts: Vec::new(),
        }
    }

    /// `neighbor` answers as `gold` by the rules that judge one edit, over [`tables`] and no
    /// constraints.
    pub(super) fn alike(gold: &str, neighbor: &str) -> bool {
        alike_on(&tables(), &ColumnFacts::default(), gold, neighbor)
    }

    /// `neighbor` answers as `gold` by the rules that judge one edit ([`edit_alike`]), over
    /// `tables` and `facts`.
    pub(super) fn alike_on(
        tables: &TableColumns,
        facts: &ColumnFacts,
        gold: &str,
        neighbor: &str,
    ) -> bool {
        let q = Query::new(gold);
        let aliases = alias_map(&q, tables);
        let schema = edit_alike::Schema {
            tables,
            facts,
            aliases: &aliases,
        };
        q.edit_answers_alike(neighbor, &schema)
    }

    pub(super) fn gen(sql: &str) -> Vec<Neighbor> {
        neighbors(
            sql,
            &tables(),
            &ColumnFacts::default(),
            &mut fastrand::Rng::with_seed(7),
        )
    }

    #[test]
    fn a_grouping_key_becomes_a_column_of_the_other_table() {
        let gold = "SELECT T1.Name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID GROUP BY T1.Singer_ID";
        let ns = gen(gold);
        let to = |c: &str| gold.replace("GROUP BY T1.Singer_ID", &format!("GROUP BY t2.{c}"));
        assert!(has(&ns, NeighborKind::Column, &to("Year")));
        // The join equates T2.Singer_ID with the key: grouping by it is no wrong query.
        assert!(!ns.iter().any(|n| n.sql == to("Singer_ID")));
        // A bare table name qualifies when there is no alias.
        let bare = "SELECT singer.Name FROM singer JOIN concert ON singer.Singer_ID = concert.Singer_ID GROUP BY concert.Singer_ID";
        let ns = gen(bare);
        let want = bare.replace("GROUP BY concert.Singer_ID", "GROUP BY singer.Name");
        assert!(has(&ns, NeighborKind::Column, &want), "{want}");
    }

    #[test]
    fn ranking_groups_by_their_key_instead_of_their_size() {
        let gold = "SELECT Country FROM singer GROUP BY Country ORDER BY count(*) DESC LIMIT 1";
        let ns = gen(gold);
        assert!(has(
            &ns,
            NeighborKind::Column,
            "SELECT Country FROM singer GROUP BY Country ORDER BY Country DESC LIMIT 1"
        ));
        let qualified = "SELECT T1.Name FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID GROUP BY T1.Singer_ID ORDER BY count(*)";
        assert!(has(
            &gen(qualified),
            NeighborKind::Column,
            &qualified.replace("ORDER BY count(*)", "ORDER BY T1.Singer_ID")
        ));
    }

    /// A database of the test schema with up to five singers and five concerts, their values
    /// drawn from a few (NULLs, near misses of `'France'`, of 2014, repeated ages included).
    pub(super) fn random_singers(rng: &mut fastrand::Rng) -> rusqlite::Connection {
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE TABLE singer (Singer_ID, Name, Age, Country); \
             CREATE TABLE concert (concert_ID, Singer_ID, Year);",
        )
        .unwrap();
        let pick = |rng: &mut fastrand::Rng, xs: &[&str]| xs[rng.usize(..xs.len())].to_string();
        for id in 0..rng.usize(0..6) {
            let name = pick(rng, &["'a'", "'b'", "NULL"]);
            let age = pick(rng, &["20", "30", "40", "NULL"]);
            let country = pick(
                rng,
                &["'France'", "'Francea'", "'france'", "'Spain'", "NULL"],
            );
            db.execute_batch(&format!(
                "INSERT INTO singer VALUES ({id}, {name}, {age}, {country})"
            ))
            .unwrap();
        }
        for c in 0..rng.usize(0..6) {
            let singer = rng.usize(0..6);
            let year = pick(rng, &["2013", "2014", "2015", "NULL"]);
            db.execute_batch(&format!(
                "INSERT INTO concert VALUES ({c}, {singer}, {year})"
            ))
            .unwrap();
        }
        db
    }

    /// The first column of `sql`'s answer on `db`, sorted.
    pub(super) fn answer(db: &rusqlite::Connection, sql: &str) -> Vec<String> {
        let mut stmt = db.prepare(sql).unwrap();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| Ok(format!("{:?}", r.get_ref(0)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        rows.sort();
        rows
    }

    /// On `rounds` databases [`random_singers`] draws from `seed`, every text of `alike`
    /// answers as `gold`, and each of `unlike` answers otherwise on some.
    pub(super) fn answers_alike(
        gold: &str,
        alike: &BTreeSet<String>,
        unlike: &[String],
        seed: u64,
        rounds: usize,
    ) {
        let mut told = vec![false; unlike.len()];
        let mut rng = fastrand::Rng::with_seed(seed);
        for _ in 0..rounds {
            let db = random_singers(&mut rng);
            let want = answer(&db, gold);
            for sql in alike {
                assert_eq!(answer(&db, sql), want, "{sql}");
            }
            for (k, sql) in unlike.iter().enumerate() {
                told[k] |= answer(&db, sql) != want;
            }
        }
        assert_eq!(told, vec![true; unlike.len()], "{unlike:?}");
    }

    /// True if some neighbor, of any kind, is `sql` (normalized).
    pub(super) fn generated(ns: &[Neighbor], sql: &str) -> bool {
        ns.iter().any(|n| normalize(&n.sql) == normalize(sql))
    }

    pub(super) fn has(ns: &[Neighbor], kind: NeighborKind, sql: &str) -> bool {
        ns.iter()
            .any(|n| n.kind == kind && normalize(&n.sql) == normalize(sql))
    }

    #[test]
    fn equality_becomes_a_substring_or_prefix_match() {
        let ns = gen("SELECT name FROM singer WHERE country = 'France'");
        assert!(has(
            &ns,
            NeighborKind::LikePattern,
            "SELECT name FROM singer WHERE country LIKE '%France%'"
        ));
        assert!(has(
            &ns,
            NeighborKind::LikePattern,
            "SELECT name FROM singer WHERE country LIKE 'France%'"
        ));
    }

    #[test]
    fn grouping_by_another_identifying_column_is_no_neighbor() {
        let facts = singer_facts();
        let g = "SELECT T1.Name, count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID GROUP BY T1.Singer_ID";
        let ns = neighbors(g, &tables(), &facts, &mut fastrand::Rng::with_seed(7));
        let grouped_by = |c: &str| {
            ns.iter().any(|n| {
                n.kind == NeighborKind::Column && n.sql.ends_with(&format!("GROUP BY T1. {c}"))
            })
        };
        assert!(!grouped_by("Name"), "the same groups");
        assert!(grouped_by("Age"), "other groups");
        // count(*) → sum(amount): counting where the question totals, or the reverse.
        assert!(
            ns.iter().any(|n| n.kind == NeighborKind::Aggregation
                && n.sql.to_lowercase().contains("select t1.name, sum(t1.age)")),
            "{ns:#?}"
        );
        // Without the facts, Name is a neighbor like any column.
        let ns = gen(g);
        assert!(ns
            .iter()
            .any(|n| n.kind == NeighborKind::Column && n.sql.ends_with("GROUP BY T1. Name")));

        // Beside a key that identifies the rows, another column of its table groups the same
        // rows whatever it is; the key itself still has its neighbors.
        let g = "SELECT T1.Name , T1.Age FROM singer AS T1 GROUP BY T1.Singer_ID , T1.Age";
        let ns = neighbors(g, &tables(), &facts, &mut fastrand::Rng::with_seed(7));
        let grouped_by = |sql: &str| {
            ns.iter()
                .any(|n| n.kind == NeighborKind::Column && normalize(&n.sql) == normalize(sql))
        };
        assert!(!grouped_by(
            "SELECT T1.Name , T1.Age FROM singer AS T1 GROUP BY T1.Singer_ID , T1.Country"
        ));
        assert!(grouped_by(
            "SELECT T1.Name , T1.Age FROM singer AS T1 GROUP BY T1.Country , T1.Age"
        ));
        // Without the facts, the key is not known to identify rows.
        let ns = gen(g);
        assert!(ns.iter().any(|n| n.kind == NeighborKind::Column
            && normalize(&n.sql)
                == normalize(
                    "SELECT T1.Name , T1.Age FROM singer AS T1 GROUP BY T1.Singer_ID , T1.Country"
                )));
    }

    #[test]
    fn one_change_at_a_time() {
        let g = "SELECT name FROM singer WHERE age > 30 AND country = 'France' ORDER BY age DESC LIMIT 3";
        let ns = gen(g);
        assert!(has(&ns, NeighborKind::IntValue, "SELECT name FROM singer WHERE age > 29 AND country = 'France' ORDER BY age DESC LIMIT 3"));
        assert!(has(&ns, NeighborKind::Comparison, "SELECT name FROM singer WHERE age >= 30 AND country = 'France' ORDER BY age DESC LIMIT 3"));
        assert!(has(&ns, NeighborKind::AndOr, "SELECT name FROM singer WHERE age > 30 OR country = 'France' ORDER BY age DESC LIMIT 3"));
        assert!(has(&ns, NeighborKind::SortDirection, "SELECT name FROM singer WHERE age > 30 AND country = 'France' ORDER BY age ASC LIMIT 3"));
        assert!(has(&ns, NeighborKind::StringValue, "SELECT name FROM singer WHERE age > 30 AND country = 'rance' ORDER BY age DESC LIMIT 3"));
        assert!(has(&ns, NeighborKind::Column, "SELECT Country FROM singer WHERE age > 30 AND country = 'France' ORDER BY age DESC LIMIT 3"));
        assert!(has(
            &ns,
            NeighborKind::DropPredicate,
            "SELECT name FROM singer WHERE country = 'France' ORDER BY age DESC LIMIT 3"
        ));
        assert!(has(
            &ns,
            NeighborKind::DropPredicate,
            "SELECT name FROM singer WHERE age > 30 ORDER BY age DESC LIMIT 3"
        ));
        assert!(has(
            &ns,
            NeighborKind::DropClause,
            "SELECT name FROM singer WHERE age > 30 AND country = 'France' ORDER BY age DESC"
        ));
        assert!(!ns.iter().any(|n| normalize(&n.sql) == normalize(g)));
        let texts: BTreeSet<_> = ns.iter().map(|n| normalize(&n.sql)).collect();
        assert_eq!(texts.len(), ns.len(), "deduplicated");
        // Same seed, same neighbors.
        assert_eq!(ns, gen(g));
    }

    #[test]
    fn span_drops_skip_edits_that_cannot_change_a_result() {
        let g = "SELECT T1.name , count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name ASC";
        let ns = gen(g);
        let spans: Vec<&str> = ns
            .iter()
            .filter(|n| n.kind == NeighborKind::DropSpan)
            .map(|n| n.sql.as_str())
            .collect();
        let dropped = |sql: &str| spans.iter().any(|s| normalize(s) == normalize(sql));
        // A join condition and a select item are real edits.
        assert!(dropped("SELECT T1.name , count(*) FROM singer AS T1 JOIN concert AS T2 WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name ASC"));
        assert!(dropped("SELECT T1.name , count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT (age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name ASC"));
        // Never: ASC, an alias, a qualifier, count's `*`, a scalar subquery's (ASC) LIMIT.
        for same in [
            "SELECT T1.name , count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name",
            "SELECT T1.name , count(*) FROM singer T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name ASC",
            "SELECT T1.name , count(*) FROM singer JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name ASC",
            "SELECT name , count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name ASC",
            "SELECT T1.name , count() FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC LIMIT 1) GROUP BY T1.name ORDER BY T1.name ASC",
            "SELECT T1.name , count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ) GROUP BY T1.name ORDER BY T1.name ASC",
            "SELECT T1.name , count(*) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T1.age > (SELECT avg(age) FROM singer ORDER BY age ASC ) GROUP BY T1.name ORDER BY T1.name ASC",
        ] {
            assert!(!dropped(same), "{same}");
        }
        // Nor `DISTINCT` inside max, `INNER`, or the closing `;` (asked of the span generator
        // itself: dedup against other kinds would hide it).
        let g2 = "SELECT max(DISTINCT T1.age) FROM singer AS T1 INNER JOIN concert AS T2 ON T1.singer_id = T2.singer_id;";
        let q2 = Query::new(g2);
        let mut spans2 = Vec::new();
        let aliases2 = alias_map(&q2, &tables());
        drop_token_spans(
            &q2,
            &tables(),
            &ColumnFacts::default(),
            &aliases2,
            &[],
            &mut |sql, _| spans2.push(normalize(&sql)),
        );
        assert!(spans2.contains(&normalize(
            "SELECT max(DISTINCT T1.age) FROM singer AS T1 INNER JOIN concert AS T2;"
        )));
        for same in [
            "SELECT max(T1.age) FROM singer AS T1 INNER JOIN concert AS T2 ON T1.singer_id = T2.singer_id;",
            "SELECT max(DISTINCT T1.age) FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id;",
            "SELECT max(DISTINCT T1.age) FROM singer AS T1 INNER JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
        ] {
            assert!(!spans2.contains(&normalize(same)), "{same}");
        }
        // Balanced parentheses only, and at most MAX_DROP_SPAN tokens.
        let original = tokenize(g).len();
        for s in &spans {
            let toks = tokenize(s);
            let opens = toks.iter().filter(|t| t.is_symbol("(")).count();
            let closes = toks.iter().filter(|t| t.is_symbol(")")).count();
            assert_eq!(opens, closes, "{s}");
            assert!(original - toks.len() <= MAX_DROP_SPAN, "{s}");
        }
    }

    #[test]
    fn a_clause_goes_on_past_a_parenthesized_group_inside_it() {
        let g = "SELECT name FROM singer WHERE ( age > 30 OR age < 20 ) AND country = 'France' \
                 ORDER BY age";
        let q = Query::new(g);
        let text = |from: usize, to: usize| g[q.byte_start(from)..q.byte_start(to)].trim();
        let at = |w: &str| q.toks.iter().position(|t| t.is_word(w)).unwrap();
        let (w, end) = (at("where"), q.clause_end(at("where"), CLAUSE_WORDS));
        assert_eq!(
            text(w, end),
            "WHERE ( age > 30 OR age < 20 ) AND country = 'France'"
        );
        let ns = gen(g);
        // Either conjunct, the group as a whole included, can be dropped; so can the clause.
        assert!(has(
            &ns,
            NeighborKind::DropPredicate,
            "SELECT name FROM singer WHERE ( age > 30 OR age < 20 ) ORDER BY age"
        ));
        assert!(has(
            &ns,
            NeighborKind::DropPredicate,
            "SELECT name FROM singer WHERE country = 'France' ORDER BY age"
        ));
        assert!(has(
            &ns,
            NeighborKind::DropClause,
            "SELECT name FROM singer ORDER BY age"
        ));
        // A clause inside a subquery still ends at the subquery's `)`.
        let g =
            "SELECT name FROM singer WHERE age IN ( SELECT age FROM singer WHERE ( age > 1 ) ) \
                 AND name = 'x'";
        let q = Query::new(g);
        let text = |from: usize, to: usize| g[q.byte_start(from)..q.byte_start(to)].trim();
        let inner = q.toks.iter().rposition(|t| t.is_word("where")).unwrap();
        assert_eq!(
            text(inner, q.clause_end(inner, CLAUSE_WORDS)),
            "WHERE ( age > 1 )"
        );
    }

    #[test]
    fn edits_that_cannot_change_a_count_or_a_grouped_distinct_are_no_neighbors() {
        let g = "SELECT DISTINCT COUNT( 1 ) , T1.country FROM singer AS T1 GROUP BY T1.country \
                 ORDER BY COUNT( 1 ) DESC";
        let ns = gen(g);
        let of = |kind: NeighborKind| -> Vec<String> {
            ns.iter()
                .filter(|n| n.kind == kind)
                .map(|n| normalize(&n.sql))
                .collect()
        };
        // `count( 1 )` counts rows whatever the integer: no constant edit inside it.
        assert_eq!(of(NeighborKind::IntValue), Vec::<String>::new());
        // In a group, `sum( 1 )` is the count; `avg( 1 )` is not.
        let sum = normalize(&g.replacen("COUNT", "sum", 1));
        let avg = normalize(&g.replacen("COUNT", "avg", 1));
        assert!(!of(NeighborKind::Aggregation).contains(&sum), "{sum}");
        assert!(of(NeighborKind::Aggregation).contains(&avg), "{avg}");
        // Its rows are one per grouping key, which it selects: DISTINCT removes none.
        assert_eq!(of(NeighborKind::DropDistinct), Vec::<String>::new());

        // Without GROUP BY, no rows give `sum( 1 )` NULL where the count is 0.
        let g = "SELECT COUNT( 1 ) FROM singer WHERE age > 30";
        assert!(has(
            &gen(g),
            NeighborKind::Aggregation,
            "SELECT sum( 1 ) FROM singer WHERE age > 30"
        ));
        // A grouping key it does not select leaves rows DISTINCT can merge.
        let g = "SELECT DISTINCT T1.country FROM singer AS T1 GROUP BY T1.country , T1.age";
        assert!(has(
            &gen(g),
            NeighborKind::DropDistinct,
            "SELECT T1.country FROM singer AS T1 GROUP BY T1.country , T1.age"
        ));
        // Nor as a dropped span, alone or with the qualifier after it.
        let g = "SELECT DISTINCT T1.country FROM singer AS T1 GROUP BY T1.country";
        let spans: Vec<String> = gen(g)
            .iter()
            .filter(|n| n.kind == NeighborKind::DropSpan)
            .map(|n| normalize(&n.sql))
            .collect();
        for same in [
            "SELECT T1.country FROM singer AS T1 GROUP BY T1.country",
            "SELECT country FROM singer AS T1 GROUP BY T1.country",
        ] {
            assert!(!spans.contains(&normalize(same)), "{same}");
        }
        // A count of a column is no constant: its edits stay.
        let g = "SELECT name FROM singer GROUP BY name HAVING count( age ) > 2";
        assert!(has(
            &gen(g),
            NeighborKind::Aggregation,
            "SELECT name FROM singer GROUP BY name HAVING sum( age ) > 2"
        ));
    }

    #[test]
    fn a_count_compared_outside_a_having_is_never_negative() {
        // Advising's boolean golds: `COUNT( * ) > 0` is `!= 0` for every count ≥ 0.
        let g = "SELECT COUNT( * ) > 0 FROM singer WHERE Age > 30";
        let ns = gen(g);
        let edit = |op: &str| g.replace("> 0", op);
        assert!(!has(&ns, NeighborKind::Comparison, &edit("!= 0")));
        for op in ["= 0", "< 0", "<= 0", ">= 0"] {
            assert!(has(&ns, NeighborKind::Comparison, &edit(op)), "{op}");
        }
        // `= 0` is `<= 0`; `> -1` and `>= 0` hold for every count, unlike `> 0`.
        let g = "SELECT COUNT( * ) = 0 FROM singer WHERE Age > 30";
        let ns = gen(g);
        assert!(!has(
            &ns,
            NeighborKind::Comparison,
            &g.replace("= 0", "<= 0")
        ));
        assert!(has(
            &ns,
            NeighborKind::Comparison,
            &g.replace("= 0", "!= 0")
        ));
        // In a HAVING clause, groups are never empty: `> 1` is `!= 1` there.
        let g = "SELECT country FROM singer GROUP BY country HAVING count(*) > 1";
        let ns = gen(g);
        assert!(!has(
            &ns,
            NeighborKind::Comparison,
            &g.replace("> 1", "!= 1")
        ));
        // `> 0` and `> 2` differ from `> 1` on a group of one row, or of two.
        assert!(has(&ns, NeighborKind::IntValue, &g.replace("> 1", "> 0")));
        assert!(has(&ns, NeighborKind::IntValue, &g.replace("> 1", "> 2")));
    }

    #[test]
    fn a_distinct_over_one_row_and_a_grouping_under_distinct_keys_are_no_neighbors() {
        let dropped = |g: &str, kind: NeighborKind, sql: &str| has(&gen(g), kind, sql);
        // Without GROUP BY, an aggregate makes one row: DISTINCT removes none (scholar's
        // `SELECT DISTINCT COUNT( … )`). With a key it does not select, it may.
        let g = "SELECT DISTINCT COUNT( T1.age ) , T1.name FROM singer AS T1 WHERE T1.age > 30 ;";
        let without = "SELECT COUNT( T1.age ) , T1.name FROM singer AS T1 WHERE T1.age > 30 ;";
        assert!(!dropped(g, NeighborKind::DropDistinct, without));
        let g = "SELECT DISTINCT T1.name FROM singer AS T1 WHERE T1.age > 30 ;";
        let without = "SELECT T1.name FROM singer AS T1 WHERE T1.age > 30 ;";
        assert!(dropped(g, NeighborKind::DropDistinct, without));
        // A `;` after the grouping keys is no part of the last key.
        let g = "SELECT DISTINCT COUNT( 1 ) , T1.country FROM singer AS T1 GROUP BY T1.country ;";
        let without = "SELECT COUNT( 1 ) , T1.country FROM singer AS T1 GROUP BY T1.country ;";
        assert!(!dropped(g, NeighborKind::DropDistinct, without));
        // DISTINCT over grouping keys only, no aggregate, no HAVING: the grouping merges
        // nothing DISTINCT would not; dropped as a clause or as a span, it is no neighbor.
        let g = "SELECT DISTINCT T1.country FROM singer AS T1 WHERE T1.age > 30 GROUP BY T1.country ORDER BY T1.country ASC ;";
        let ungrouped = "SELECT DISTINCT T1.country FROM singer AS T1 WHERE T1.age > 30  ORDER BY T1.country ASC ;";
        let ns = gen(g);
        assert!(
            !ns.iter().any(|n| normalize(&n.sql) == normalize(ungrouped)),
            "{ungrouped}"
        );
        // Each of these changes what the grouping decides: a selected column that is no key
        // (which row's name?), an aggregate, HAVING, ordering by what is not selected.
        for g in [
            "SELECT DISTINCT T1.name FROM singer AS T1 GROUP BY T1.country ;",
            "SELECT DISTINCT T1.country , COUNT( * ) FROM singer AS T1 GROUP BY T1.country ;",
            "SELECT DISTINCT T1.country FROM singer AS T1 GROUP BY T1.country HAVING COUNT( * ) > 1 ;",
            "SELECT DISTINCT T1.country FROM singer AS T1 GROUP BY T1.country ORDER BY T1.age ;",
        ] {
            let q = Query::new(g);
            let group = q.toks.iter().position(|t| t.is_word("group")).expect("GROUP");
            assert!(!q.idle_group_by(group), "{g}");
        }
        let q = Query::new(g);
        let group = q
            .toks
            .iter()
            .position(|t| t.is_word("group"))
            .expect("GROUP");
        assert!(q.idle_group_by(group), "{g}");
        // `ORDER BY COUNT( 1 )` without its name is `ORDER BY ( 1 )`, result column 1: the
        // same count when that column is it, another order when it is not.
        let count_at = |g: &str, last: bool| {
            let q = Query::new(g);
            let mut at = q
                .toks
                .iter()
                .enumerate()
                .filter(|(_, t)| t.is_word("count"));
            let i = if last { at.next_back() } else { at.next() }
                .expect("COUNT")
                .0;
            q.orders_by_own_position(i)
        };
        let g = "SELECT COUNT( 1 ) , T1.country FROM singer AS T1 GROUP BY T1.country ORDER BY COUNT( 1 ) DESC";
        assert!(count_at(g, true));
        assert!(!count_at(g, false), "not in ORDER BY");
        let g = "SELECT T1.country , COUNT( 1 ) FROM singer AS T1 GROUP BY T1.country ORDER BY COUNT( 1 ) DESC";
        assert!(!count_at(g, true));
    }

    #[test]
    fn a_distinct_over_a_column_that_identifies_the_rows_of_the_only_table_is_no_neighbor() {
        let facts = singer_facts();
        let kept = |g: &str, sql: &str| {
            neighbors(g, &tables(), &facts, &mut fastrand::Rng::with_seed(7))
                .iter()
                .any(|n| normalize(&n.sql) == normalize(sql))
        };
        // Rows of one table, told apart by a selected (or counted) key: DISTINCT merges none,
        // as a `drop_distinct` edit or as the span `DISTINCT T1 .`.
        for (g, without) in [
            (
                "SELECT DISTINCT T1.Singer_ID , T1.Age FROM singer AS T1 WHERE T1.Age > 30 ;",
                "SELECT T1.Singer_ID , T1.Age FROM singer AS T1 WHERE T1.Age > 30 ;",
            ),
            (
                "SELECT COUNT( DISTINCT T1.Name ) FROM singer AS T1 ;",
                "SELECT COUNT( T1.Name ) FROM singer AS T1 ;",
            ),
            (
                "SELECT COUNT( DISTINCT T1.Name ) FROM singer AS T1 ;",
                "SELECT COUNT( Name ) FROM singer AS T1 ;",
            ),
        ] {
            assert!(!kept(g, without), "{without}");
        }
        // A column that identifies nothing, or a join that can repeat the table's rows, keeps
        // the edit.
        for (g, without) in [
            (
                "SELECT DISTINCT T1.Age FROM singer AS T1 ;",
                "SELECT T1.Age FROM singer AS T1 ;",
            ),
            (
                "SELECT COUNT( DISTINCT T1.Name ) FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID ;",
                "SELECT COUNT( T1.Name ) FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID ;",
            ),
        ] {
            assert!(kept(g, without), "{without}");
        }
        // Scholar's golds 3298 and 3337: the papers of a venue, each paper joined to the one
        // venue its key names. A table joined by a column that identifies its rows adds at
        // most one row to each, so the selected (or counted) key still repeats nothing.
        for (g, without) in [
            (
                "SELECT DISTINCT T2.concert_ID FROM concert AS T2 , singer AS T1 WHERE T2.Year = 2016 AND T1.Singer_ID = T2.Singer_ID AND T1.Age > 30 ;",
                "SELECT T2.concert_ID FROM concert AS T2 , singer AS T1 WHERE T2.Year = 2016 AND T1.Singer_ID = T2.Singer_ID AND T1.Age > 30 ;",
            ),
            (
                "SELECT COUNT( DISTINCT T2.concert_ID ) FROM concert AS T2 JOIN singer AS T1 ON T2.Singer_ID = T1.Singer_ID WHERE T1.Age > 30 ;",
                "SELECT COUNT( T2.concert_ID ) FROM concert AS T2 JOIN singer AS T1 ON T2.Singer_ID = T1.Singer_ID WHERE T1.Age > 30 ;",
            ),
        ] {
            assert!(!kept(g, without), "{without}");
        }
        // Joined by a column that identifies nothing, under an OR, or the table named twice
        // (once unjoined): rows can repeat, and the edit stays.
        for (g, without) in [
            (
                "SELECT DISTINCT T2.concert_ID FROM concert AS T2 , singer AS T1 WHERE T1.Age = T2.Year ;",
                "SELECT T2.concert_ID FROM concert AS T2 , singer AS T1 WHERE T1.Age = T2.Year ;",
            ),
            (
                "SELECT DISTINCT T2.concert_ID FROM concert AS T2 , singer AS T1 WHERE T1.Singer_ID = T2.Singer_ID OR T1.Age > 30 ;",
                "SELECT T2.concert_ID FROM concert AS T2 , singer AS T1 WHERE T1.Singer_ID = T2.Singer_ID OR T1.Age > 30 ;",
            ),
            (
                "SELECT DISTINCT T2.concert_ID FROM concert AS T2 , singer AS T1 , singer AS T3 WHERE T1.Singer_ID = T2.Singer_ID ;",
                "SELECT T2.concert_ID FROM concert AS T2 , singer AS T1 , singer AS T3 WHERE T1.Singer_ID = T2.Singer_ID ;",
            ),
        ] {
            assert!(kept(g, without), "{without}");
        }
        // The span of a GROUP BY that changes nothing, with the closing `;` too.
        let g = "SELECT DISTINCT T1.Age FROM singer AS T1 GROUP BY T1.Age ;";
        assert!(!kept(g, "SELECT DISTINCT T1.Age FROM singer AS T1"));
        assert!(!kept(g, "SELECT DISTINCT T1.Age FROM singer AS T1 ;"));
    }

    #[test]
    fn an_edit_of_a_conjunct_written_twice_is_no_neighbor() {
        // Scholar's gold 3168 writes a join condition twice: dropping one copy, or loosening
        // it to `<=`, leaves the other holding the two equal.
        let g = "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T1.singer_id = T2.singer_id AND T2.year = 2014 AND T2.singer_id = T1.singer_id ;";
        let ns = gen(g);
        for same in [
            "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T1.singer_id <= T2.singer_id AND T2.year = 2014 AND T2.singer_id = T1.singer_id ;",
            "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T2.year = 2014 AND T2.singer_id = T1.singer_id ;",
            "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T1.singer_id = T2.singer_id AND T2.year = 2014 ;",
        ] {
            assert!(!ns.iter().any(|n| normalize(&n.sql) == normalize(same)), "{same}");
        }
        // `!=` contradicts the other copy: the answer empties, a real neighbor. A condition
        // written once keeps all its edits.
        // Adjacent copies: a span across both (`= T2.singer_id AND T1.singer_id`) leaves one.
        let g2 = "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T2.year = 2014 AND T1.singer_id = T2.singer_id AND T1.singer_id = T2.singer_id ;";
        let once = "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T2.year = 2014 AND T1.singer_id = T2.singer_id ;";
        assert!(
            !gen(g2).iter().any(|n| normalize(&n.sql) == normalize(once)),
            "{once}"
        );
        let contradiction = "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T1.singer_id != T2.singer_id AND T2.year = 2014 AND T2.singer_id = T1.singer_id ;";
        assert!(has(&ns, NeighborKind::Comparison, contradiction));
        let once = "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T1.singer_id = T2.singer_id AND T2.year = 2014 ;";
        assert!(has(
            &gen(once),
            NeighborKind::Comparison,
            "SELECT T1.name FROM singer AS T1 , concert AS T2 WHERE T1.singer_id <= T2.singer_id AND T2.year = 2014 ;"
        ));
    }

    #[test]
    fn qualified_columns_use_their_table() {
        let g = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year = 2014";
        let ns = gen(g);
        assert!(has(&ns, NeighborKind::Column, "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.concert_ID = 2014"));
        assert!(!ns
            .iter()
            .any(|n| n.kind == NeighborKind::Column && n.sql.contains("T2.Age")));
    }

    #[test]
    fn between_and_is_not_a_connective_and_hard_cases_are_marked() {
        let ns = gen("SELECT name FROM singer WHERE age BETWEEN 20 AND 30");
        assert!(!ns.iter().any(|n| n.kind == NeighborKind::AndOr));
        let ns = gen("SELECT country FROM singer GROUP BY country HAVING count(*) > 2");
        assert!(ns
            .iter()
            .any(|n| n.kind == NeighborKind::IntValue && n.hard == Some(Hardness::CountThreshold)));
        let ns = gen("SELECT name FROM singer WHERE age > 1 AND age < 9 AND country = 'x'");
        assert!(ns
            .iter()
            .any(|n| n.kind == NeighborKind::DropPredicate
                && n.hard == Some(Hardness::ManyConjuncts)));
        let ns = gen(
            "SELECT name FROM singer WHERE name LIKE '%a%' AND age NOT IN (SELECT age FROM singer)",
        );
        // Removing the `%`s (a LIKE-pattern edit) gives the same text as the middle substring;
        // either kind may keep it.
        assert!(ns.iter().any(|n| matches!(
            n.kind,
            NeighborKind::LikePattern | NeighborKind::StringValue
        ) && normalize(&n.sql)
            == normalize("SELECT name FROM singer WHERE name LIKE 'a' AND age NOT IN (SELECT age FROM singer)")));
        assert!(has(&ns, NeighborKind::LikeNegation, "SELECT name FROM singer WHERE name NOT LIKE '%a%' AND age NOT IN (SELECT age FROM singer)"));
        assert!(has(
            &ns,
            NeighborKind::InNegation,
            "SELECT name FROM singer WHERE name LIKE '%a%' AND age IN (SELECT age FROM singer)"
        ));
        let ns = gen("SELECT name FROM singer WHERE name LIKE 'ab'");
        assert!(has(
            &ns,
            NeighborKind::LikePattern,
            "SELECT name FROM singer WHERE name LIKE '%ab%'"
        ));
    }
}
