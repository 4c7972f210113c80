//! A view of sqlparser's expressions shaped like the parse tree the reference reads (JSqlParser's
//! expression classes): the PCM rules in [`super::components`] are written against this view, so
//! that which sqlparser construct plays which role is decided in one place.

use sqlparser::ast::{
    DataType, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName,
    ObjectNamePart, OrderByExpr, Query, UnaryOperator, Value, WindowType,
};

/// One expression, by the role it plays in the PCM rules.
#[derive(Debug, Clone)]
pub(super) enum Node<'a> {
    /// A column reference: its name without table qualifier.
    Column(String),
    /// A number: the value as the reference prints it, and the text as written.
    Number {
        value: String,
        text: String,
    },
    /// A string literal, quoted (only in default mode: compat turns strings into names).
    Str(String),
    /// A T-SQL variable (`@name`), which the reference's parser reads as a named node.
    Variable(String),
    /// A binary operator (comparison, arithmetic, `AND`/`OR`, `LIKE`).
    Binary {
        left: Box<Node<'a>>,
        right: Box<Node<'a>>,
        op: String,
        not: bool,
    },
    /// A function call, or a window function when `over` is set.
    Function {
        name: String,
        params: Option<Vec<Node<'a>>>,
        all_columns: bool,
        over: Option<Window<'a>>,
    },
    /// `CAST(x AS t)`: only its operand counts.
    Cast(Box<Node<'a>>),
    /// A parenthesised expression.
    Paren(Box<Node<'a>>),
    Case {
        operand: Option<Box<Node<'a>>>,
        whens: Vec<(Node<'a>, Node<'a>)>,
        otherwise: Option<Box<Node<'a>>>,
    },
    InList {
        left: Box<Node<'a>>,
        list: Vec<Node<'a>>,
        not: bool,
    },
    InQuery {
        left: Box<Node<'a>>,
        query: &'a Query,
        not: bool,
    },
    Exists {
        query: &'a Query,
        not: bool,
    },
    /// A scalar sub-query.
    Query(&'a Query),
    /// `IS [NOT] NULL` and the other `IS` tests.
    IsNull {
        left: Box<Node<'a>>,
        not: bool,
    },
    Between {
        left: Box<Node<'a>>,
        low: Box<Node<'a>>,
        high: Box<Node<'a>>,
        not: bool,
    },
    Not(Box<Node<'a>>),
    /// A sign before an expression (`-x`).
    Signed(Box<Node<'a>>),
    /// `*` or `t.*`.
    AllColumns,
    /// `NULL`, booleans and what the rules ignore; its children are walked in default mode.
    Other(Vec<Node<'a>>),
}

/// A window specification: the rules read its `ORDER BY` (and, in default mode, its arguments
/// and `PARTITION BY`).
#[derive(Debug, Clone)]
pub(super) struct Window<'a> {
    /// The `PARTITION BY` expressions.
    pub(super) partition_by: Vec<Node<'a>>,
    /// The `ORDER BY` items, read as a query's.
    pub(super) order_by: &'a [OrderByExpr],
}

/// How names are written in leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Naming {
    /// Quoted names keep their quotes (the reference's parser does; compat quotes string values).
    KeepQuotes,
    /// Names lower-cased without their delimiters (`[User Link]` is `user link`).
    Bare,
}

/// A name part, lower-cased, with its quotes where `naming` keeps them.
fn ident(i: &Ident, naming: Naming) -> String {
    match (naming, i.quote_style) {
        (Naming::KeepQuotes, Some(q)) => {
            let close = if q == '[' { ']' } else { q };
            format!("{q}{}{close}", i.value.to_lowercase())
        }
        _ => i.value.to_lowercase(),
    }
}

/// A dotted name, each part as [`ident`] writes it.
pub(super) fn object_name(name: &ObjectName, naming: Naming) -> String {
    name.0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => ident(i, naming),
            other => other.to_string().to_lowercase(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The last part of a name (a table's name without schema).
pub(super) fn last_name(name: &ObjectName, naming: Naming) -> String {
    match name.0.last() {
        Some(ObjectNamePart::Identifier(i)) => ident(i, naming),
        Some(other) => other.to_string().to_lowercase(),
        None => String::new(),
    }
}

/// A number as the reference prints it: integers without leading zeros, decimals the way
/// Python prints a float (`1.` is `1.0`).
fn number_value(text: &str) -> String {
    let is_integer = text.bytes().all(|b| b.is_ascii_digit());
    if is_integer {
        let trimmed = text.trim_start_matches('0');
        return if trimmed.is_empty() {
            "0".into()
        } else {
            trimmed.into()
        };
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 => format!("{v:.1}"),
        Ok(v) => format!("{v}"),
        Err(_) => text.to_owned(),
    }
}

/// True for a number the reference drops (it tests values for truth, and zero is false).
pub(super) fn is_zero(value: &str) -> bool {
    value.parse::<f64>().is_ok_and(|v| v == 0.0)
}

/// Converts expressions to nodes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Converter {
    /// How names are written in leaves.
    pub(super) naming: Naming,
    /// Shape the tree as the reference's parser does: `-1` is a sign over `1`, and a leading
    /// `NOT` before `EXISTS` is a `NOT` over the `EXISTS` (JSqlParser reads a `NOT` before a
    /// condition as its own node). Otherwise `-1` is the number `-1` and `NOT EXISTS` one test.
    pub(super) reference_tree: bool,
}

impl Converter {
    fn boxed<'a>(&self, e: &'a Expr) -> Box<Node<'a>> {
        Box::new(self.node(e))
    }

    fn nodes<'a>(&self, es: impl IntoIterator<Item = &'a Expr>) -> Vec<Node<'a>> {
        es.into_iter().map(|e| self.node(e)).collect()
    }

    fn column(&self, i: &Ident) -> Node<'static> {
        if let Some(name) = i.value.strip_prefix('@') {
            if i.quote_style.is_none() {
                return Node::Variable(name.to_lowercase());
            }
        }
        Node::Column(ident(i, self.naming))
    }

    fn function<'a>(&self, name: &str, params: Vec<Node<'a>>) -> Node<'a> {
        Node::Function {
            name: name.to_owned(),
            params: (!params.is_empty()).then_some(params),
            all_columns: false,
            over: None,
        }
    }

    /// A data type as the reference's parser reads it inside `CONVERT(type, x)`: a name, or a
    /// call when it has a size (`varchar(10)`).
    fn data_type(&self, t: &DataType) -> Node<'static> {
        let text = t.to_string().to_lowercase();
        match text.split_once('(') {
            Some((name, args)) => {
                let params = args
                    .trim_end_matches(')')
                    .split(',')
                    .map(|a| a.trim())
                    .filter(|a| !a.is_empty())
                    .map(|a| Node::Number {
                        value: number_value(a),
                        text: a.to_owned(),
                    })
                    .collect();
                self.function(name.trim(), params)
            }
            None => Node::Column(text),
        }
    }

    /// The node of an expression. Each kind of expression is read by one of the functions
    /// below, which share no variant; what none of them reads is an `Other` without children.
    pub(super) fn node<'a>(&self, e: &'a Expr) -> Node<'a> {
        self.terminal(e)
            .or_else(|| self.operation(e))
            .or_else(|| self.call(e))
            .or_else(|| self.test(e))
            .unwrap_or_else(|| self.other(e))
    }

    /// The leaves: names, literals, `*` and scalar sub-queries.
    fn terminal<'a>(&self, e: &'a Expr) -> Option<Node<'a>> {
        Some(match e {
            Expr::Identifier(i) => self.column(i),
            Expr::CompoundIdentifier(parts) => match parts.last() {
                Some(i) => self.column(i),
                None => Node::Other(Vec::new()),
            },
            Expr::Value(v) => literal(&v.value),
            Expr::TypedString(t) => Node::Str(format!("'{}'", t.value.to_string().to_lowercase())),
            Expr::Subquery(q) => Node::Query(q),
            Expr::Wildcard(_) | Expr::QualifiedWildcard(..) => Node::AllColumns,
            _ => return None,
        })
    }

    /// Operators and what wraps one expression: binary operators, `LIKE`, unary operators,
    /// parentheses, `CAST`, `COLLATE` (transparent) and `CASE`.
    fn operation<'a>(&self, e: &'a Expr) -> Option<Node<'a>> {
        Some(match e {
            Expr::BinaryOp { left, op, right } => Node::Binary {
                left: self.boxed(left),
                right: self.boxed(right),
                op: op.to_string(),
                not: false,
            },
            Expr::Like {
                negated,
                expr,
                pattern,
                ..
            }
            | Expr::ILike {
                negated,
                expr,
                pattern,
                ..
            } => Node::Binary {
                left: self.boxed(expr),
                right: self.boxed(pattern),
                op: if *negated { "NOT LIKE" } else { "LIKE" }.into(),
                not: *negated,
            },
            Expr::UnaryOp { op, expr } => self.unary(op, expr),
            Expr::Nested(inner) => Node::Paren(self.boxed(inner)),
            Expr::Cast { expr, .. } => Node::Cast(self.boxed(expr)),
            Expr::Collate { expr, .. } => self.node(expr),
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => Node::Case {
                operand: operand.as_ref().map(|o| self.boxed(o)),
                whens: conditions
                    .iter()
                    .map(|w| (self.node(&w.condition), self.node(&w.result)))
                    .collect(),
                otherwise: else_result.as_ref().map(|o| self.boxed(o)),
            },
            _ => return None,
        })
    }

    /// `NOT`, and a sign: in default mode a minus before a number makes a negative number.
    fn unary<'a>(&self, op: &UnaryOperator, expr: &'a Expr) -> Node<'a> {
        match op {
            UnaryOperator::Not => Node::Not(self.boxed(expr)),
            UnaryOperator::Minus if !self.reference_tree => match self.node(expr) {
                Node::Number { value, text } => Node::Number {
                    value: format!("-{value}"),
                    text: format!("-{text}"),
                },
                other => Node::Signed(Box::new(other)),
            },
            _ => Node::Signed(self.boxed(expr)),
        }
    }

    /// Function calls, and the expressions the reference's parser reads as calls: `CONVERT`,
    /// `SUBSTRING`, `TRIM`, `CEILING`, `FLOOR` and `EXTRACT`.
    fn call<'a>(&self, e: &'a Expr) -> Option<Node<'a>> {
        Some(match e {
            Expr::Function(f) => self.function_call(f),
            Expr::Convert {
                expr,
                data_type,
                styles,
                ..
            } => {
                let mut params = Vec::new();
                if let Some(t) = data_type {
                    params.push(self.data_type(t));
                }
                params.push(self.node(expr));
                params.extend(self.nodes(styles));
                self.function("convert", params)
            }
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut params = vec![self.node(expr)];
                params.extend(substring_from.iter().map(|e| self.node(e)));
                params.extend(substring_for.iter().map(|e| self.node(e)));
                self.function("substring", params)
            }
            Expr::Trim { expr, .. } => self.function("trim", vec![self.node(expr)]),
            Expr::Ceil { expr, .. } => self.function("ceiling", vec![self.node(expr)]),
            Expr::Floor { expr, .. } => self.function("floor", vec![self.node(expr)]),
            Expr::Extract { expr, .. } => self.function("extract", vec![self.node(expr)]),
            _ => return None,
        })
    }

    /// A function call: its name, its arguments (a wildcard argument sets `all_columns`) and its
    /// window.
    fn function_call<'a>(&self, f: &'a Function) -> Node<'a> {
        let mut params = Vec::new();
        let mut all_columns = false;
        if let FunctionArguments::List(list) = &f.args {
            for arg in &list.args {
                let arg = match arg {
                    FunctionArg::Unnamed(a) => a,
                    FunctionArg::Named { arg, .. } | FunctionArg::ExprNamed { arg, .. } => arg,
                };
                match arg {
                    FunctionArgExpr::Expr(e) => params.push(self.node(e)),
                    _ => all_columns = true,
                }
            }
        }
        Node::Function {
            name: object_name(&f.name, Naming::Bare),
            params: (!params.is_empty()).then_some(params),
            all_columns,
            over: self.window(f.over.as_ref()),
        }
    }

    /// The window of a window function; a named window has neither `PARTITION BY` nor
    /// `ORDER BY` here.
    fn window<'a>(&self, over: Option<&'a WindowType>) -> Option<Window<'a>> {
        Some(match over? {
            WindowType::WindowSpec(spec) => Window {
                partition_by: self.nodes(&spec.partition_by),
                order_by: &spec.order_by,
            },
            WindowType::NamedWindow(_) => Window {
                partition_by: Vec::new(),
                order_by: &[],
            },
        })
    }

    /// The tests: `IN` (a list or a sub-query), `EXISTS`, the `IS` tests and `BETWEEN`.
    fn test<'a>(&self, e: &'a Expr) -> Option<Node<'a>> {
        Some(match e {
            Expr::InList {
                expr,
                list,
                negated,
            } => Node::InList {
                left: self.boxed(expr),
                list: self.nodes(list),
                not: *negated,
            },
            Expr::InSubquery {
                expr,
                subquery,
                negated,
            } => Node::InQuery {
                left: self.boxed(expr),
                query: subquery,
                not: *negated,
            },
            Expr::Exists { subquery, negated } if *negated && self.reference_tree => {
                Node::Not(Box::new(Node::Exists {
                    query: subquery,
                    not: false,
                }))
            }
            Expr::Exists { subquery, negated } => Node::Exists {
                query: subquery,
                not: *negated,
            },
            Expr::IsNull(x) | Expr::IsTrue(x) | Expr::IsFalse(x) | Expr::IsUnknown(x) => {
                Node::IsNull {
                    left: self.boxed(x),
                    not: false,
                }
            }
            Expr::IsNotNull(x)
            | Expr::IsNotTrue(x)
            | Expr::IsNotFalse(x)
            | Expr::IsNotUnknown(x) => Node::IsNull {
                left: self.boxed(x),
                not: true,
            },
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => Node::Between {
                left: self.boxed(expr),
                low: self.boxed(low),
                high: self.boxed(high),
                not: *negated,
            },
            _ => return None,
        })
    }

    /// What the rules ignore: tuples, `IS [NOT] DISTINCT FROM` and `AT TIME ZONE` keep their
    /// operands as children (default mode walks them); anything else has none.
    fn other<'a>(&self, e: &'a Expr) -> Node<'a> {
        Node::Other(match e {
            Expr::Tuple(es) => self.nodes(es),
            Expr::IsDistinctFrom(a, b) | Expr::IsNotDistinctFrom(a, b) => {
                vec![self.node(a), self.node(b)]
            }
            Expr::AtTimeZone {
                timestamp,
                time_zone,
            } => vec![self.node(timestamp), self.node(time_zone)],
            _ => Vec::new(),
        })
    }
}

/// A literal: a number, a string, a T-SQL variable (`@name`, which the parser reads as a
/// placeholder), or a leaf the rules ignore (`NULL`, booleans, other placeholders).
fn literal(v: &Value) -> Node<'static> {
    match v {
        Value::Number(text, _) => Node::Number {
            value: number_value(text),
            text: text.clone(),
        },
        Value::SingleQuotedString(s) | Value::NationalStringLiteral(s) => {
            Node::Str(format!("'{}'", s.to_lowercase()))
        }
        Value::Placeholder(p) => match p.strip_prefix('@') {
            Some(name) => Node::Variable(name.to_lowercase()),
            None => Node::Other(Vec::new()),
        },
        _ => Node::Other(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_the_reference() {
        assert_eq!(number_value("007"), "7");
        assert_eq!(number_value("1."), "1.0");
        assert_eq!(number_value("2.50"), "2.5");
        assert_eq!(number_value("0"), "0");
        assert!(is_zero("0.0"));
        assert!(!is_zero("1"));
    }
}
