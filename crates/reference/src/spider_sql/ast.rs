//! The parsed-query structure of the reference evaluator, as Rust types.
//!
//! Operator and aggregate codes are the positions in the reference's
//! operator tables ([`AGG_OPS`], [`UNIT_OPS`], [`WHERE_OPS`]). Derived
//! equality mirrors the reference's structural (tuple/dict) equality.

/// Aggregates, by code: 0 is "none".
pub const AGG_OPS: [&str; 6] = ["none", "max", "min", "count", "sum", "avg"];
/// Arithmetic operators between two column units, by code: 0 is "none".
pub const UNIT_OPS: [&str; 5] = ["none", "-", "+", "*", "/"];
/// Comparison operators, by code.
pub const WHERE_OPS: [&str; 12] = [
    "not", "between", "=", ">", "<", ">=", "<=", "!=", "in", "like", "is", "exists",
];

/// A column reference with an optional aggregate.
#[derive(Debug, Clone, PartialEq)]
pub struct ColUnit {
    /// Aggregate code (index into [`AGG_OPS`]).
    pub agg: usize,
    /// Column id such as `__singer.name__` or `__all__`.
    pub col: String,
    /// `DISTINCT` inside the unit; `None` once canonicalised for comparison.
    pub distinct: Option<bool>,
}

/// One or two column units joined by an arithmetic operator.
#[derive(Debug, Clone, PartialEq)]
pub struct ValUnit {
    /// Operator code (index into [`UNIT_OPS`]).
    pub op: usize,
    /// Left (or only) column unit.
    pub left: ColUnit,
    /// Right column unit when `op` is not "none"-without-operand.
    pub right: Option<ColUnit>,
}

/// The right-hand side of a condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
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
    pub fn as_sql(&self) -> Option<&Sql> {
        match self {
            Value::Sql(s) => Some(s),
            _ => None,
        }
    }
}

/// One comparison: `[NOT] val_unit OP val1 [AND val2]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CondUnit {
    /// Whether `NOT` precedes the operator.
    pub not: bool,
    /// Operator code (index into [`WHERE_OPS`]).
    pub op: usize,
    /// The left-hand side.
    pub val_unit: ValUnit,
    /// The first value.
    pub val1: Value,
    /// The second value (`BETWEEN` only).
    pub val2: Value,
}

/// An element of a condition list: units alternate with conjunctions.
#[derive(Debug, Clone, PartialEq)]
pub enum CondItem {
    /// A comparison.
    Unit(CondUnit),
    /// `and`.
    And,
    /// `or`.
    Or,
}

/// A condition as the reference stores it: `[unit, conj, unit, ...]`.
pub type Condition = Vec<CondItem>;

/// Comparison units of a condition (its even positions).
pub fn cond_units(c: &Condition) -> impl Iterator<Item = &CondUnit> {
    c.iter().step_by(2).filter_map(|i| match i {
        CondItem::Unit(u) => Some(u),
        _ => None,
    })
}

/// Entries at the odd positions of a condition: normally the conjunctions,
/// but a missing conjunction (`a = 1 b = 2`) leaves a comparison there, and
/// the reference then treats that comparison as a "conjunction" too.
pub fn cond_conjs(c: &Condition) -> impl Iterator<Item = &CondItem> {
    c.iter().skip(1).step_by(2)
}

/// Whether a conjunction sits at an even position of the condition (a
/// comparison is missing). The reference evaluator crashes on such lists.
pub fn conj_at_even_position(c: &Condition) -> bool {
    c.iter().step_by(2).any(|i| !matches!(i, CondItem::Unit(_)))
}

/// An entry of the FROM clause.
#[derive(Debug, Clone, PartialEq)]
pub enum TableUnit {
    /// A table, by id (`__singer__`).
    Table(String),
    /// A sub-query.
    Sql(Box<Sql>),
}

/// The SELECT clause.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Select {
    /// `SELECT DISTINCT`; `None` once canonicalised for comparison.
    pub distinct: Option<bool>,
    /// `(aggregate code, value unit)` items.
    pub items: Vec<(usize, ValUnit)>,
}

/// The FROM clause.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FromClause {
    /// Tables and sub-queries, in order.
    pub table_units: Vec<TableUnit>,
    /// All `ON` conditions joined with `and`.
    pub conds: Condition,
}

/// The ORDER BY clause: direction (the last one written wins) and items.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderBy {
    /// `"asc"` or `"desc"`.
    pub direction: &'static str,
    /// Ordered value units.
    pub items: Vec<ValUnit>,
}

/// A parsed query in the reference's structure.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sql {
    /// SELECT clause.
    pub select: Select,
    /// FROM clause.
    pub from: FromClause,
    /// WHERE condition (empty when absent).
    pub where_: Condition,
    /// GROUP BY column units.
    pub group_by: Vec<ColUnit>,
    /// HAVING condition (empty when absent).
    pub having: Condition,
    /// ORDER BY (`None` when absent; present-but-empty is possible).
    pub order_by: Option<OrderBy>,
    /// LIMIT: the reference always records `1` when a LIMIT is present
    /// ([`super::Mode::Official`]); strict parsing keeps the text
    /// of the limit token (normalised for integers).
    pub limit: Option<String>,
    /// INTERSECT right operand.
    pub intersect: Option<Box<Sql>>,
    /// EXCEPT right operand.
    pub except: Option<Box<Sql>>,
    /// UNION right operand.
    pub union: Option<Box<Sql>>,
}
