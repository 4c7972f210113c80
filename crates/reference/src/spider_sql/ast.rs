//! The parsed-query structure of the reference evaluator, as Rust types.
//!
//! Operator and aggregate codes are the positions in the reference's
//! operator tables ([`AGG_OPS`], [`UNIT_OPS`], [`WHERE_OPS`]). Derived
//! equality mirrors the reference's structural (tuple/dict) equality.

/// Aggregates, by code: 0 is "none".
pub(super) const AGG_OPS: [&str; 6] = ["none", "max", "min", "count", "sum", "avg"];
/// Arithmetic operators between two column units, by code: 0 is "none".
pub(super) const UNIT_OPS: [&str; 5] = ["none", "-", "+", "*", "/"];
/// Comparison operators, by code.
pub(super) const WHERE_OPS: [&str; 12] = [
    "not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists",
];

/// A column reference with an optional aggregate.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ColUnit {
    /// Aggregate code (index into [`AGG_OPS`]).
    pub(super) agg: usize,
    /// Column id such as `__singer.name__` or `__all__`.
    pub(super) col: String,
    /// `DISTINCT` inside the unit; `None` once canonicalised for comparison.
    pub(super) distinct: Option<bool>,
}

/// One or two column units joined by an arithmetic operator.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ValUnit {
    /// Operator code (index into [`UNIT_OPS`]).
    pub(super) op: usize,
    /// Left (or only) column unit.
    pub(super) left: ColUnit,
    /// Right column unit when `op` is not "none"-without-operand.
    pub(super) right: Option<ColUnit>,
}

/// The right-hand side of a condition.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// No value (absent second operand, or erased for comparison).
    Null,
    /// A numeric literal.
    Number(f64),
    /// A quoted literal, kept with its quotes and case.
    Str(String),
    /// A column unit used as a value.
    Col(ColUnit),
    /// A sub-query.
    Sql(Box<Sql>),
}

impl Value {
    /// The sub-query, if this value is one.
    pub(super) fn as_sql(&self) -> Option<&Sql> {
        match self {
            Value::Sql(s) => Some(s),
            _ => None,
        }
    }
}

/// One comparison: `[NOT] val_unit OP val1 [AND val2]`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CondUnit {
    /// Whether `NOT` precedes the operator.
    pub(super) not: bool,
    /// Operator code (index into [`WHERE_OPS`]).
    pub(super) op: usize,
    /// The left-hand side.
    pub(super) val_unit: ValUnit,
    /// The first value.
    pub(super) val1: Value,
    /// The second value (`BETWEEN` only).
    pub(super) val2: Value,
}

/// An element of a condition list: units alternate with conjunctions.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CondItem {
    /// A comparison.
    Unit(CondUnit),
    /// `and`.
    And,
    /// `or`.
    Or,
}

/// A condition as the reference stores it: `[unit, conj, unit, ...]`.
pub(super) type Condition = Vec<CondItem>;

/// Comparison units of a condition (its even positions).
pub(super) fn cond_units(c: &Condition) -> impl Iterator<Item = &CondUnit> {
    c.iter().step_by(2).filter_map(|i| match i {
        CondItem::Unit(u) => Some(u),
        _ => None,
    })
}

/// Entries at the odd positions of a condition: normally the conjunctions,
/// but a missing conjunction (`a = 1 b = 2`) leaves a comparison there, and
/// the reference then treats that comparison as a "conjunction" too.
pub(super) fn cond_conjs(c: &Condition) -> impl Iterator<Item = &CondItem> {
    c.iter().skip(1).step_by(2)
}

/// Whether a conjunction sits at an even position of the condition (a
/// comparison is missing). The reference evaluator crashes on such lists.
pub(super) fn conj_at_even_position(c: &Condition) -> bool {
    c.iter().step_by(2).any(|i| !matches!(i, CondItem::Unit(_)))
}

/// An entry of the FROM clause.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum TableUnit {
    /// A table, by id (`__singer__`).
    Table(String),
    /// A sub-query.
    Sql(Box<Sql>),
}

/// The SELECT clause.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Select {
    /// `SELECT DISTINCT`; `None` once canonicalised for comparison.
    pub(super) distinct: Option<bool>,
    /// `(aggregate code, value unit)` items.
    pub(super) items: Vec<(usize, ValUnit)>,
}

/// The FROM clause.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct FromClause {
    /// Tables and sub-queries, in order.
    pub(super) table_units: Vec<TableUnit>,
    /// All `ON` conditions joined with `and`.
    pub(super) conds: Condition,
}

/// The ORDER BY clause: direction (the last one written wins) and items.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct OrderBy {
    /// `"asc"` or `"desc"`.
    pub(super) direction: &'static str,
    /// Ordered value units.
    pub(super) items: Vec<ValUnit>,
}

/// A query in the nested structure the reference's `get_sql` returns (a dict of clauses,
/// identifiers in place of names): what [`super::parse`] makes of a query and
/// [`super::hardness`] classifies. Its clauses are private to the reproduction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sql {
    /// SELECT clause.
    pub(super) select: Select,
    /// FROM clause.
    pub(super) from: FromClause,
    /// WHERE condition (empty when absent).
    pub(super) where_: Condition,
    /// GROUP BY column units.
    pub(super) group_by: Vec<ColUnit>,
    /// HAVING condition (empty when absent).
    pub(super) having: Condition,
    /// ORDER BY (`None` when absent; present-but-empty is possible).
    pub(super) order_by: Option<OrderBy>,
    /// LIMIT: the reference always records `1` when a LIMIT is present
    /// ([`super::Mode::Official`]); strict parsing keeps the text
    /// of the limit token (normalised for integers).
    pub(super) limit: Option<String>,
    /// INTERSECT right operand.
    pub(super) intersect: Option<Box<Sql>>,
    /// EXCEPT right operand.
    pub(super) except: Option<Box<Sql>>,
    /// UNION right operand.
    pub(super) union: Option<Box<Sql>>,
}
