//! Hardness classification, canonicalisation ("rebuild") and the partial /
//! exact set match comparison of the reference evaluator.

use super::ast::{
    cond_conjs, cond_units, conj_at_even_position, ColUnit, CondItem, CondUnit, Condition, Sql,
    TableUnit, ValUnit, Value,
};
use super::schema::Schema;
use super::{Hardness, Mode, PartialScore};
use std::collections::{BTreeSet, HashMap, HashSet};

/// `WHERE_OPS` code of `like`.
const OP_LIKE: usize = 9;
/// `WHERE_OPS` code of `in`.
const OP_IN: usize = 8;
/// `WHERE_OPS` code of `=`.
const OP_EQ: usize = 2;

/// Names of the official partial-match components, in report order.
pub const COMPONENTS: [&str; 10] = [
    "select",
    "select(no AGG)",
    "where",
    "where(no OP)",
    "group(no Having)",
    "group",
    "order",
    "and/or",
    "IUEN",
    "keywords",
];

/// Extra components compared only in [`Mode::Strict`].
pub(super) const STRICT_COMPONENTS: [&str; 2] = ["join(on)", "limit"];

/// Name used in `differing_components` when the FROM tables differ.
pub(super) const FROM_COMPONENT: &str = "from";

// ---------------------------------------------------------------- hardness

fn nested_count(sql: &Sql) -> usize {
    let mut n = 0;
    for c in [&sql.from.conds, &sql.where_, &sql.having] {
        for u in cond_units(c) {
            n += usize::from(matches!(u.val1, Value::Sql(_)));
            n += usize::from(matches!(u.val2, Value::Sql(_)));
        }
    }
    n + [&sql.intersect, &sql.except, &sql.union]
        .iter()
        .filter(|s| s.is_some())
        .count()
}

fn component1(sql: &Sql) -> usize {
    let mut n = usize::from(!sql.where_.is_empty())
        + usize::from(!sql.group_by.is_empty())
        + usize::from(sql.order_by.is_some())
        + usize::from(sql.limit.is_some());
    n += sql.from.table_units.len().saturating_sub(1);
    for c in [&sql.from.conds, &sql.where_, &sql.having] {
        n += cond_conjs(c).filter(|k| **k == CondItem::Or).count();
        n += cond_units(c).filter(|u| u.op == OP_LIKE).count();
    }
    n
}

fn others(sql: &Sql) -> usize {
    // The reference's "aggregate" test reads the first field of each entry:
    // the NOT flag for WHERE units, and for HAVING every entry of the raw
    // list (NOT flag of units; conjunctions always count).
    let mut agg = sql.select.items.iter().filter(|(a, _)| *a != 0).count();
    agg += cond_units(&sql.where_).filter(|u| u.not).count();
    agg += sql.group_by.iter().filter(|c| c.agg != 0).count();
    if let Some(o) = &sql.order_by {
        agg += o.items.iter().filter(|v| v.left.agg != 0).count();
        agg += o
            .items
            .iter()
            .filter_map(|v| v.right.as_ref())
            .filter(|c| c.agg != 0)
            .count();
    }
    agg += sql
        .having
        .iter()
        .filter(|i| match i {
            CondItem::Unit(u) => u.not,
            _ => true,
        })
        .count();
    usize::from(agg > 1)
        + usize::from(sql.select.items.len() > 1)
        + usize::from(sql.where_.len() > 1)
        + usize::from(sql.group_by.len() > 1)
}

/// Classifies a parsed (gold) query as the reference's `eval_hardness` does.
pub(super) fn hardness(sql: &Sql) -> Hardness {
    let c1 = component1(sql);
    let c2 = nested_count(sql);
    let o = others(sql);
    if c1 <= 1 && o == 0 && c2 == 0 {
        Hardness::Easy
    } else if (o <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && o < 2 && c2 == 0) {
        Hardness::Medium
    } else if (o > 2 && c1 <= 2 && c2 == 0)
        || (2 < c1 && c1 <= 3 && o <= 2 && c2 == 0)
        || (c1 <= 1 && o == 0 && c2 <= 1)
    {
        Hardness::Hard
    } else {
        Hardness::Extra
    }
}

// ---------------------------------------------------------------- rebuild

/// Erases literal values (keeping sub-queries, themselves erased) in the
/// ON, WHERE and HAVING conditions and in the set-operation operands. FROM
/// sub-queries are left untouched, as in the reference. In strict mode
/// column values of ON conditions are kept so ON predicates can be compared.
fn erase_values(sql: &mut Sql, mode: Mode) {
    fn erase(c: &mut Condition, keep_cols: bool, mode: Mode) {
        for item in c.iter_mut().step_by(2) {
            if let CondItem::Unit(u) = item {
                for v in [&mut u.val1, &mut u.val2] {
                    match v {
                        Value::Sql(s) => erase_values(s, mode),
                        Value::Col(_) if keep_cols => {}
                        _ => *v = Value::Null,
                    }
                }
            }
        }
    }
    erase(&mut sql.from.conds, mode == Mode::Strict, mode);
    erase(&mut sql.having, false, mode);
    erase(&mut sql.where_, false, mode);
    for s in [&mut sql.intersect, &mut sql.except, &mut sql.union]
        .into_iter()
        .flatten()
    {
        erase_values(s, mode);
    }
}

/// Column ids belonging to the plain tables of a FROM clause.
fn valid_col_units(table_units: &[TableUnit], schema: &Schema) -> HashSet<String> {
    let prefixes: Vec<String> = table_units
        .iter()
        .filter_map(|t| match t {
            TableUnit::Table(id) => {
                let chars: Vec<char> = id.chars().collect();
                Some(chars[..chars.len().saturating_sub(2)].iter().collect())
            }
            TableUnit::Sql(_) => None,
        })
        .collect();
    schema
        .id_values()
        .iter()
        .filter(|v| match v.find('.') {
            Some(p) => prefixes.iter().any(|x| *x == v[..p]),
            None => false,
        })
        .cloned()
        .collect()
}

struct Canon<'a> {
    valid: HashSet<String>,
    kmap: &'a HashMap<String, String>,
}

impl Canon<'_> {
    fn col(&self, c: &mut ColUnit) {
        if self.valid.contains(&c.col) {
            if let Some(k) = self.kmap.get(&c.col) {
                c.col = k.clone();
            }
        }
        c.distinct = None;
    }

    fn val(&self, v: &mut ValUnit) {
        self.col(&mut v.left);
        if let Some(r) = &mut v.right {
            self.col(r);
        }
    }

    fn cond(&self, c: &mut Condition, with_values: bool) {
        for item in c.iter_mut().step_by(2) {
            if let CondItem::Unit(u) = item {
                self.val(&mut u.val_unit);
                if with_values {
                    for v in [&mut u.val1, &mut u.val2] {
                        if let Value::Col(cu) = v {
                            self.col(cu);
                        }
                    }
                }
            }
        }
    }

    /// Canonicalises columns (foreign keys, DISTINCT) of the top level and of
    /// set-operation operands; nested and FROM sub-queries are untouched.
    fn sql(&self, sql: &mut Sql, mode: Mode) {
        for (_, v) in &mut sql.select.items {
            self.val(v);
        }
        sql.select.distinct = None;
        self.cond(&mut sql.from.conds, mode == Mode::Strict);
        self.cond(&mut sql.where_, false);
        for c in &mut sql.group_by {
            self.col(c);
        }
        if let Some(o) = &mut sql.order_by {
            for v in &mut o.items {
                self.val(v);
            }
        }
        self.cond(&mut sql.having, false);
        for s in [&mut sql.intersect, &mut sql.except, &mut sql.union]
            .into_iter()
            .flatten()
        {
            self.sql(s, mode);
        }
    }
}

/// Applies the reference's value erasure and column canonicalisation.
pub(super) fn canonicalize(sql: &mut Sql, schema: &Schema, mode: Mode) {
    let valid = valid_col_units(&sql.from.table_units, schema);
    erase_values(sql, mode);
    Canon {
        valid,
        kmap: &schema.foreign_keys,
    }
    .sql(sql, mode);
}

// ---------------------------------------------------------------- scoring

fn score(count: usize, pred_total: usize, label_total: usize) -> PartialScore {
    let ok = pred_total == label_total && count == pred_total;
    let v = if ok { 1.0 } else { 0.0 };
    PartialScore {
        acc: v,
        rec: v,
        f1: v,
        label_total,
        pred_total,
        count,
    }
}

/// Counts items of `pred` matched one-to-one by equal items of `label`.
fn multiset_hits<T: PartialEq>(pred: &[T], label: &[T]) -> usize {
    let mut left: Vec<&T> = label.iter().collect();
    let mut hits = 0;
    for p in pred {
        if let Some(pos) = left.iter().position(|l| *l == p) {
            left.remove(pos);
            hits += 1;
        }
    }
    hits
}

fn keywords(sql: &Sql) -> BTreeSet<&'static str> {
    let mut k = BTreeSet::new();
    if !sql.where_.is_empty() {
        k.insert("where");
    }
    if !sql.group_by.is_empty() {
        k.insert("group");
    }
    if !sql.having.is_empty() {
        k.insert("having");
    }
    if let Some(o) = &sql.order_by {
        k.insert(o.direction);
        k.insert("order");
    }
    if sql.limit.is_some() {
        k.insert("limit");
    }
    if sql.except.is_some() {
        k.insert("except");
    }
    if sql.union.is_some() {
        k.insert("union");
    }
    if sql.intersect.is_some() {
        k.insert("intersect");
    }
    let conds = [&sql.from.conds, &sql.where_, &sql.having];
    if conds
        .iter()
        .any(|c| cond_conjs(c).any(|x| *x == CondItem::Or))
    {
        k.insert("or");
    }
    let units: Vec<&CondUnit> = conds.iter().flat_map(|c| cond_units(c)).collect();
    if units.iter().any(|u| u.not) {
        k.insert("not");
    }
    if units.iter().any(|u| u.op == OP_IN) {
        k.insert("in");
    }
    if units.iter().any(|u| u.op == OP_LIKE) {
        k.insert("like");
    }
    k
}

/// The distinct items of a sequence (set semantics by equality).
fn distinct_items<'a>(items: impl Iterator<Item = &'a CondItem>) -> Vec<&'a CondItem> {
    let mut out: Vec<&CondItem> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// Whether the reference evaluator would crash on this query: it unpacks
/// every even-position entry of the conditions it canonicalises (top level,
/// sub-query values, set-operation operands) as a comparison.
pub(super) fn reference_crashes(sql: &Sql) -> bool {
    [&sql.from.conds, &sql.where_, &sql.having].iter().any(|c| {
        conj_at_even_position(c)
            || cond_units(c).any(|u| {
                [&u.val1, &u.val2]
                    .iter()
                    .any(|v| v.as_sql().is_some_and(reference_crashes))
            })
    }) || [&sql.intersect, &sql.except, &sql.union]
        .iter()
        .any(|s| s.as_deref().is_some_and(reference_crashes))
}

/// ON predicate normalised so that `a = b` and `b = a` compare equal.
fn on_key(u: &CondUnit) -> CondUnit {
    let mut u = u.clone();
    let simple = u.op == OP_EQ && !u.not && u.val_unit.op == 0 && u.val_unit.right.is_none();
    if simple {
        if let Value::Col(rhs) = &mut u.val1 {
            if rhs.col < u.val_unit.left.col {
                std::mem::swap(rhs, &mut u.val_unit.left);
            }
        }
    }
    u
}

/// The partial scores of `pred` against `label`, in [`COMPONENTS`] order
/// (followed by [`STRICT_COMPONENTS`] in strict mode).
pub(super) fn partial_scores(
    pred: &Sql,
    label: &Sql,
    mode: Mode,
) -> Vec<(&'static str, PartialScore)> {
    let mut out = Vec::with_capacity(12);

    // select / select(no AGG)
    let (ps, ls) = (&pred.select.items, &label.select.items);
    let cnt = multiset_hits(ps, ls);
    let pv: Vec<&ValUnit> = ps.iter().map(|(_, v)| v).collect();
    let lv: Vec<&ValUnit> = ls.iter().map(|(_, v)| v).collect();
    let cnt_wo = multiset_hits(&pv, &lv);
    out.push((COMPONENTS[0], score(cnt, ps.len(), ls.len())));
    out.push((COMPONENTS[1], score(cnt_wo, ps.len(), ls.len())));

    // where / where(no OP)
    let pw: Vec<&CondUnit> = cond_units(&pred.where_).collect();
    let lw: Vec<&CondUnit> = cond_units(&label.where_).collect();
    let cnt = multiset_hits(&pw, &lw);
    let pwv: Vec<&ValUnit> = pw.iter().map(|u| &u.val_unit).collect();
    let lwv: Vec<&ValUnit> = lw.iter().map(|u| &u.val_unit).collect();
    let cnt_wo = multiset_hits(&pwv, &lwv);
    out.push((COMPONENTS[2], score(cnt, pw.len(), lw.len())));
    out.push((COMPONENTS[3], score(cnt_wo, pw.len(), lw.len())));

    // group(no Having): column names only (text after the first '.').
    let short = |c: &ColUnit| -> String {
        match c.col.split('.').nth(1) {
            Some(s) if c.col.contains('.') => s.to_string(),
            _ => c.col.clone(),
        }
    };
    let pg: Vec<String> = pred.group_by.iter().map(short).collect();
    let lg: Vec<String> = label.group_by.iter().map(short).collect();
    out.push((
        COMPONENTS[4],
        score(multiset_hits(&pg, &lg), pg.len(), lg.len()),
    ));

    // group: same GROUP BY column ids (in order) and same HAVING.
    let pt = usize::from(!pred.group_by.is_empty());
    let lt = usize::from(!label.group_by.is_empty());
    let pcols: Vec<&str> = pred.group_by.iter().map(|c| c.col.as_str()).collect();
    let lcols: Vec<&str> = label.group_by.iter().map(|c| c.col.as_str()).collect();
    let cnt = usize::from(pt == 1 && lt == 1 && pcols == lcols && pred.having == label.having);
    out.push((COMPONENTS[5], score(cnt, pt, lt)));

    // order: same ORDER BY and same presence of LIMIT.
    let pt = usize::from(pred.order_by.is_some());
    let lt = usize::from(label.order_by.is_some());
    let cnt = usize::from(
        label.order_by.is_some()
            && pred.order_by == label.order_by
            && pred.limit.is_some() == label.limit.is_some(),
    );
    out.push((COMPONENTS[6], score(cnt, pt, lt)));

    // and/or: the reference reports the two set sizes swapped.
    let pa = distinct_items(cond_conjs(&pred.where_));
    let la = distinct_items(cond_conjs(&label.where_));
    let same_sets = pa.len() == la.len() && pa.iter().all(|p| la.contains(p));
    if same_sets {
        out.push((
            COMPONENTS[7],
            PartialScore {
                acc: 1.0,
                rec: 1.0,
                f1: 1.0,
                label_total: 1,
                pred_total: 1,
                count: 1,
            },
        ));
    } else {
        out.push((COMPONENTS[7], score(0, la.len(), pa.len())));
    }

    // IUEN: set-operation operands must match exactly.
    let (mut lt, mut pt, mut cnt) = (0, 0, 0);
    for (p, l) in [
        (&pred.intersect, &label.intersect),
        (&pred.except, &label.except),
        (&pred.union, &label.union),
    ] {
        pt += usize::from(p.is_some());
        lt += usize::from(l.is_some());
        if let (Some(p), Some(l)) = (p, l) {
            cnt += usize::from(exact(p, l, mode).0);
        }
    }
    out.push((COMPONENTS[8], score(cnt, pt, lt)));

    // keywords
    let pk = keywords(pred);
    let lk = keywords(label);
    let cnt = pk.intersection(&lk).count();
    out.push((COMPONENTS[9], score(cnt, pk.len(), lk.len())));

    if mode == Mode::Strict {
        let pon: Vec<CondUnit> = cond_units(&pred.from.conds).map(on_key).collect();
        let lon: Vec<CondUnit> = cond_units(&label.from.conds).map(on_key).collect();
        out.push((
            STRICT_COMPONENTS[0],
            score(multiset_hits(&pon, &lon), pon.len(), lon.len()),
        ));
        let pt = usize::from(pred.limit.is_some());
        let lt = usize::from(label.limit.is_some());
        let cnt = usize::from(pred.limit.is_some() && pred.limit == label.limit);
        out.push((STRICT_COMPONENTS[1], score(cnt, pt, lt)));
    }
    out
}

/// Whether the FROM table units agree as multisets.
fn same_tables(pred: &Sql, label: &Sql) -> bool {
    let (p, l) = (&pred.from.table_units, &label.from.table_units);
    p.len() == l.len() && multiset_hits(p, l) == l.len()
}

/// The reference's `eval_exact_match` on canonicalised queries: every
/// partial F1 is 1 and (if the gold has any) the FROM units agree. Also
/// returns the partial scores and the names of the components that differ.
pub(super) fn exact(
    pred: &Sql,
    label: &Sql,
    mode: Mode,
) -> (bool, Vec<(&'static str, PartialScore)>, Vec<&'static str>) {
    let partial = partial_scores(pred, label, mode);
    let mut differing: Vec<&'static str> = partial
        .iter()
        .filter(|(_, s)| s.f1 != 1.0)
        .map(|(n, _)| *n)
        .collect();
    let compared = match mode {
        Mode::LegacySparc => label.from.table_units.len() > 1,
        Mode::Official | Mode::Strict => !label.from.table_units.is_empty(),
    };
    let tables_ok = !compared || same_tables(pred, label);
    if !tables_ok {
        differing.push(FROM_COMPONENT);
    }
    (differing.is_empty(), partial, differing)
}
