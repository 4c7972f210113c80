//! The elements of each query category (`spec/pcm.md`, "Components"): every terminal and every
//! sub-tree whose leaves are terminals, collected the way the reference's reader walks its parse
//! tree, with the default mode's completions where the reference drops parts of a query.

use std::fmt;

use sqlparser::ast::{
    Expr, GroupByExpr, JoinConstraint, JoinOperator, LimitClause, OrderBy, OrderByExpr,
    OrderByKind, OrderBySort, Query, Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr,
    TableFactor, TopQuantity,
};

use super::node::{is_zero, last_name, object_name, Converter, Naming, Node};

/// One element: a terminal, or a sub-tree (the list of its elements).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Element {
    /// A terminal: a name, a value, an operator or a keyword, as the reference prints it.
    Leaf(String),
    /// A sub-tree: the elements of its terminals and smaller sub-trees, in the reference's
    /// order; printed as a bracketed list.
    Group(Vec<Element>),
}

impl Element {
    fn leaf(s: impl Into<String>) -> Element {
        Element::Leaf(s.into())
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Leaf(s) => f.write_str(s),
            Element::Group(items) => {
                f.write_str("[")?;
                for (i, e) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// The query categories PCM scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// The `SELECT` list.
    Select,
    /// `TOP` (and `LIMIT`) quantities.
    Top,
    /// The `FROM` tables, their joins and (in the values variant) their `ON` conditions.
    From,
    /// The `WHERE` condition.
    Where,
    /// The `GROUP BY` expressions.
    GroupBy,
    /// The `HAVING` condition.
    Having,
    /// The `ORDER BY` items with their directions.
    OrderBy,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 7] = [
        Category::Select,
        Category::Top,
        Category::From,
        Category::Where,
        Category::GroupBy,
        Category::Having,
        Category::OrderBy,
    ];
    /// The order the reference concatenates a sub-query's categories in.
    const NESTED_ORDER: [Category; 7] = [
        Category::Select,
        Category::Top,
        Category::From,
        Category::Where,
        Category::OrderBy,
        Category::GroupBy,
        Category::Having,
    ];

    /// The category's name in reports (`select`, `group_by`, …), as the reference's keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Select => "select",
            Category::Top => "top",
            Category::From => "from",
            Category::Where => "where",
            Category::GroupBy => "group_by",
            Category::Having => "having",
            Category::OrderBy => "order_by",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The elements of every category of a query (all its bodies merged).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Components {
    lists: [Vec<Element>; 7],
}

impl Components {
    /// The elements of category `c`, in the order the reference collects them.
    pub fn get(&self, c: Category) -> &[Element] {
        &self.lists[c.index()]
    }

    fn list(&mut self, c: Category) -> &mut Vec<Element> {
        &mut self.lists[c.index()]
    }

    /// Appends another body's elements, category by category (the reference's per-body merge).
    pub(super) fn merge(&mut self, other: Components) {
        for (mine, theirs) in self.lists.iter_mut().zip(other.lists) {
            mine.extend(theirs);
        }
    }
}

/// How to collect elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Extraction {
    /// Values (and names on the right of a comparison) become `terminal`.
    pub(super) anonymize_values: bool,
    /// JOIN … ON conditions count in FROM.
    pub(super) on_clauses: bool,
    /// The reference's omissions: parenthesised expressions, function arguments in conditions,
    /// `IN (sub-query)`, `CASE` in conditions, literals in expressions, window arguments and
    /// `PARTITION BY`, a set operation's `ORDER BY`, `BETWEEN` bounds contribute nothing.
    pub(super) drop_nested: bool,
    /// The reference drops numbers equal to zero (it tests values for truth).
    pub(super) drop_zero: bool,
    /// How names are written in leaves.
    pub(super) naming: Naming,
}

/// One `SELECT` body with the query-level clauses that belong to it.
struct Body<'a> {
    select: &'a Select,
    order_by: Option<&'a OrderBy>,
    limit: Option<&'a Expr>,
}

fn limit_of(q: &Query) -> Option<&Expr> {
    match &q.limit_clause {
        Some(LimitClause::LimitOffset { limit, .. }) => limit.as_ref(),
        Some(LimitClause::OffsetCommaLimit { limit, .. }) => Some(limit),
        None => None,
    }
}

impl Extraction {
    fn converter(&self) -> Converter {
        Converter {
            naming: self.naming,
            reference_tree: self.drop_nested,
        }
    }

    fn node<'a>(&self, e: &'a Expr) -> Node<'a> {
        self.converter().node(e)
    }

    /// The components of a query: its bodies (set operation members, then `WITH` items)
    /// merged.
    pub(super) fn query(&self, q: &Query) -> Components {
        let mut out = Components::default();
        for body in self.bodies(q) {
            out.merge(self.body(&body));
        }
        out
    }

    fn bodies<'a>(&self, q: &'a Query) -> Vec<Body<'a>> {
        let mut out = Vec::new();
        self.set_bodies(&q.body, &mut out);
        let plain = matches!(q.body.as_ref(), SetExpr::Select(_));
        if plain || !self.drop_nested {
            if let Some(last) = out.last_mut() {
                if last.order_by.is_none() {
                    last.order_by = q.order_by.as_ref();
                }
                if last.limit.is_none() {
                    last.limit = limit_of(q);
                }
            }
        }
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                out.extend(self.bodies(&cte.query));
            }
        }
        out
    }

    fn set_bodies<'a>(&self, body: &'a SetExpr, out: &mut Vec<Body<'a>>) {
        match body {
            SetExpr::Select(select) => out.push(Body {
                select,
                order_by: None,
                limit: None,
            }),
            SetExpr::Query(q) => out.extend(self.bodies(q)),
            SetExpr::SetOperation { left, right, .. } => {
                self.set_bodies(left, out);
                self.set_bodies(right, out);
            }
            _ => {}
        }
    }

    /// A sub-query's elements as one list (the reference's `_get_items_from_inner_sql`).
    fn query_items(&self, q: &Query) -> Vec<Element> {
        let mut items = Vec::new();
        for body in self.bodies(q) {
            let c = self.body(&body);
            for cat in Category::NESTED_ORDER {
                items.extend(c.get(cat).iter().cloned());
            }
        }
        items
    }

    fn body(&self, b: &Body) -> Components {
        let mut c = Components::default();
        *c.list(Category::Select) = self.select_items(&b.select.projection);
        *c.list(Category::Top) = self.top_items(b);
        *c.list(Category::From) = self.table_items(b.select);
        if let Some(w) = &b.select.selection {
            *c.list(Category::Where) = self.condition_items(&self.node(w));
        }
        if let Some(o) = b.order_by {
            if let OrderByKind::Expressions(exprs) = &o.kind {
                *c.list(Category::OrderBy) = self.order_items(exprs);
            }
        }
        if let GroupByExpr::Expressions(exprs, _) = &b.select.group_by {
            *c.list(Category::GroupBy) = self.group_by_items(exprs);
        }
        if let Some(h) = &b.select.having {
            *c.list(Category::Having) = self.condition_items(&self.node(h));
        }
        c
    }

    fn with_whole(mut items: Vec<Element>) -> Vec<Element> {
        if items.len() > 1 {
            let whole = Element::Group(items.clone());
            items.push(whole);
        }
        items
    }

    fn select_items(&self, projection: &[SelectItem]) -> Vec<Element> {
        let mut items = Vec::new();
        for item in projection {
            match item {
                SelectItem::Wildcard(_) => items.push(Element::leaf("*")),
                // The reference's reader finds no expression in `t.*` and skips it.
                SelectItem::QualifiedWildcard(kind, _) if !self.drop_nested => {
                    let table = match kind {
                        SelectItemQualifiedWildcardKind::ObjectName(name) => {
                            object_name(name, self.naming)
                        }
                        other => other.to_string().to_lowercase(),
                    };
                    items.push(Element::leaf(format!("{table}.*")))
                }
                SelectItem::QualifiedWildcard(..) => {}
                SelectItem::UnnamedExpr(e)
                | SelectItem::ExprWithAlias { expr: e, .. }
                | SelectItem::ExprWithAliases { expr: e, .. } => {
                    items.extend(self.expr_items(&self.node(e)))
                }
            }
        }
        Self::with_whole(items)
    }

    fn top_items(&self, b: &Body) -> Vec<Element> {
        let mut items = Vec::new();
        if let Some(top) = &b.select.top {
            match &top.quantity {
                Some(TopQuantity::Constant(n)) => items.push(Element::leaf(n.to_string())),
                Some(TopQuantity::Expr(e)) => items.extend(self.top_quantity(&self.node(e))),
                None => {}
            }
        }
        if let Some(limit) = b.limit {
            items.extend(self.top_quantity(&self.node(limit)));
        }
        items
    }

    fn top_quantity(&self, n: &Node) -> Option<Element> {
        match n {
            Node::Number { text, .. } => Some(Element::leaf(text.clone())),
            Node::Function { name, .. } => Some(Element::leaf(name.clone())),
            Node::Variable(name) => Some(Element::leaf(name.clone())),
            Node::Paren(inner) if !self.drop_nested => self.top_quantity(inner),
            Node::Column(name) if !self.drop_nested => Some(Element::leaf(name.clone())),
            _ => None,
        }
    }

    fn table_items(&self, s: &Select) -> Vec<Element> {
        let mut items = Vec::new();
        let Some(first) = s.from.first() else {
            return items;
        };
        match &first.relation {
            TableFactor::Table { name, .. } => {
                items.push(Element::leaf(object_name(name, self.naming)))
            }
            other => items.extend(self.relation_items(other)),
        }
        let joins = first
            .joins
            .iter()
            .map(|j| (&j.relation, Some(&j.join_operator)));
        let rest = s.from[1..].iter().flat_map(|twj| {
            std::iter::once((&twj.relation, None)).chain(
                twj.joins
                    .iter()
                    .map(|j| (&j.relation, Some(&j.join_operator))),
            )
        });
        for (relation, operator) in joins.chain(rest) {
            let mut join = self.joined_items(relation);
            if self.on_clauses {
                if let Some(JoinConstraint::On(on)) = operator.and_then(join_constraint) {
                    join.extend(self.condition_items(&self.node(on)));
                }
            }
            items.extend(Self::with_whole(join));
        }
        Self::with_whole(items)
    }

    /// A relation that is joined (not the first of a `FROM`): a named table by its name without
    /// schema, or what [`Self::relation_items`] finds in anything else.
    fn joined_items(&self, relation: &TableFactor) -> Vec<Element> {
        match relation {
            TableFactor::Table { name, .. } => vec![Element::leaf(last_name(name, self.naming))],
            other => self.relation_items(other),
        }
    }

    /// A relation other than a named table: a derived table's query, or (default mode) the
    /// tables of a parenthesised join.
    fn relation_items(&self, relation: &TableFactor) -> Vec<Element> {
        match relation {
            TableFactor::Derived { subquery, .. } => self.query_items(subquery),
            TableFactor::NestedJoin {
                table_with_joins, ..
            } if !self.drop_nested => {
                let mut items = Vec::new();
                for r in std::iter::once(&table_with_joins.relation)
                    .chain(table_with_joins.joins.iter().map(|j| &j.relation))
                {
                    items.extend(self.joined_items(r));
                }
                items
            }
            _ => Vec::new(),
        }
    }

    fn order_items(&self, exprs: &[OrderByExpr]) -> Vec<Element> {
        let mut items = Vec::new();
        for o in exprs {
            let mut e = self.expr_items(&self.node(&o.expr));
            let desc = matches!(o.options.sort, Some(OrderBySort::Desc));
            e.push(Element::leaf(if desc { "desc" } else { "asc" }));
            items.extend(e.iter().cloned());
            if e.len() > 1 {
                items.push(Element::Group(e));
            }
        }
        Self::with_whole(items)
    }

    fn group_by_items(&self, exprs: &[Expr]) -> Vec<Element> {
        let mut items = Vec::new();
        for e in exprs {
            let n = self.node(e);
            if let Node::Number { text, .. } = &n {
                items.push(if self.anonymize_values {
                    Element::Group(vec![Element::leaf("terminal")])
                } else {
                    Element::leaf(text.clone())
                });
                if self.drop_nested {
                    continue;
                }
            }
            items.extend(self.expr_items(&n));
        }
        Self::with_whole(items)
    }

    /// A WHERE / HAVING / ON condition.
    fn condition_items(&self, n: &Node) -> Vec<Element> {
        if self.drop_nested || has_left(n) || has_right(n) || operator(n).is_some() {
            return self.binary_items(n);
        }
        match n {
            Node::Paren(inner) => self.condition_items(inner),
            _ => self.operand_items(n, true),
        }
    }

    fn value(&self, text: &str) -> Element {
        Element::leaf(if self.anonymize_values {
            "terminal"
        } else {
            text
        })
    }

    /// The reference's `_get_items_from_expression` (SELECT, ORDER BY, GROUP BY, arguments).
    fn expr_items(&self, n: &Node) -> Vec<Element> {
        let mut items = Vec::new();
        // The node's "column name": a column, or a function's arguments' elements.
        let mut column: Option<Element> = None;
        let arguments = match n {
            Node::Function { params, over, .. } if over.is_none() || !self.drop_nested => {
                params.as_ref()
            }
            _ => None,
        };
        if let Some(params) = arguments {
            let list: Vec<Element> = params.iter().flat_map(|p| self.expr_items(p)).collect();
            match list.len() {
                0 => {}
                1 => {
                    items.push(list[0].clone());
                    column = Some(list[0].clone());
                }
                _ => {
                    items.extend(list.iter().cloned());
                    column = Some(Element::Group(list));
                }
            }
        } else if let Some(name) = self.column_name(n) {
            items.push(Element::leaf(name.clone()));
            column = Some(Element::leaf(name));
        }
        if let Node::Query(q) = n {
            items.extend(self.query_items(q));
        }
        items.extend(self.when_items(n));
        if let Some(name) = self.aggregator(n) {
            items.push(Element::leaf(name.clone()));
            if let Some(c) = column {
                items.push(Element::Group(vec![Element::leaf(name), c]));
            } else if all_columns(n) {
                items.push(Element::leaf("*"));
                items.push(Element::Group(vec![
                    Element::leaf(name),
                    Element::leaf("*"),
                ]));
            }
        }
        items.extend(self.binary_items(n));
        if let Node::Function {
            over: Some(window), ..
        } = n
        {
            items.push(Element::leaf("OVER"));
            if !self.drop_nested {
                for p in &window.partition_by {
                    items.extend(self.expr_items(p));
                }
            }
            items.extend(self.order_items(window.order_by));
        }
        if !self.drop_nested {
            match n {
                Node::Number { value, .. } => items.push(self.value(value)),
                Node::Str(s) => items.push(self.value(s)),
                Node::Paren(inner) | Node::Signed(inner) => items.extend(self.expr_items(inner)),
                Node::Not(inner) => {
                    items.extend(self.expr_items(inner));
                    items.push(Element::leaf("not"));
                }
                Node::Other(children) => {
                    for c in children {
                        items.extend(self.expr_items(c));
                    }
                }
                _ => {}
            }
        }
        items
    }

    fn column_name(&self, n: &Node) -> Option<String> {
        match n {
            Node::Column(name) => Some(name.clone()),
            Node::Variable(name) if !self.drop_nested => Some(format!("@{name}")),
            _ => None,
        }
    }

    fn aggregator(&self, n: &Node) -> Option<String> {
        match n {
            Node::Function { name, .. } => Some(name.clone()),
            Node::Variable(name) if self.drop_nested => Some(name.clone()),
            _ => None,
        }
    }

    fn when_items(&self, n: &Node) -> Vec<Element> {
        let mut items = Vec::new();
        let Node::Case {
            operand,
            whens,
            otherwise,
        } = n
        else {
            return items;
        };
        if !self.drop_nested {
            if let Some(o) = operand {
                items.extend(self.expr_items(o));
            }
        }
        for (when, then) in whens {
            items.push(Element::leaf("case"));
            items.extend(self.expr_items(when));
            items.extend(self.expr_items(then));
        }
        if !self.drop_nested {
            if let Some(o) = otherwise {
                items.extend(self.expr_items(o));
            }
        }
        items
    }

    /// The reference's `_get_left_right_expressions`: both operands, the operator, and the
    /// comparison as a whole.
    fn binary_items(&self, n: &Node) -> Vec<Element> {
        let mut items = Vec::new();
        let left = left_of(n).map_or_else(Vec::new, |l| self.operand_items(l, true));
        let right = match n {
            Node::Binary { right, .. } => self.operand_items(right, false),
            Node::Exists { query, .. } => self.operand_items(&Node::Query(query), false),
            _ => Vec::new(),
        };
        items.extend(left.iter().cloned());
        items.extend(right.iter().cloned());
        match n {
            Node::InList { list, .. } => {
                items.push(Element::leaf("IN"));
                for e in list {
                    items.extend(self.operand_items(e, false));
                }
            }
            Node::InQuery { query, .. } => {
                items.push(Element::leaf("IN"));
                if !self.drop_nested {
                    items.extend(self.query_items(query));
                }
            }
            Node::Between { low, high, .. } if !self.drop_nested => {
                items.extend(self.operand_items(low, false));
                items.extend(self.operand_items(high, false));
            }
            _ => {}
        }
        if let Some(op) = operator(n).or_else(|| self.extra_operator(n)) {
            items.push(Element::leaf(op.clone()));
            if !left.is_empty() && !right.is_empty() {
                items.push(Element::Group(vec![
                    Element::Group(left),
                    Element::Group(right),
                    Element::leaf(op),
                ]));
            }
        }
        items
    }

    /// Default mode: the operators the reference's tree does not name.
    fn extra_operator(&self, n: &Node) -> Option<String> {
        if self.drop_nested {
            return None;
        }
        match n {
            Node::IsNull { not, .. } => Some(if *not { "IS NOT NULL" } else { "IS NULL" }.into()),
            Node::Between { not, .. } => Some(if *not { "NOT BETWEEN" } else { "BETWEEN" }.into()),
            Node::InList { not: true, .. } | Node::InQuery { not: true, .. } => {
                Some("NOT IN".into())
            }
            _ => None,
        }
    }

    /// The reference's `_get_column_items_inner`: an operand of a condition or operator.
    fn operand_items(&self, n: &Node, left: bool) -> Vec<Element> {
        let mut items = self.binary_items(n);
        if let Node::Query(q) = n {
            items.extend(self.query_items(q));
        }
        if !has_left(n) && !has_right(n) {
            if let Some(name) = self.column_name(n) {
                items.push(if self.anonymize_values && !left {
                    Element::leaf("terminal")
                } else {
                    Element::leaf(name)
                });
            }
            match n {
                Node::Number { value, .. } if !(self.drop_zero && is_zero(value)) => {
                    items.push(self.value(value))
                }
                Node::Str(s) => items.push(self.value(s)),
                _ => {}
            }
            if all_columns(n) {
                items.push(Element::leaf("*"));
            }
        }
        if self.drop_nested {
            if let Some(name) = self.aggregator(n) {
                items.push(Element::leaf(name));
            }
        } else {
            match n {
                Node::Function { .. } | Node::Case { .. } => items.extend(self.expr_items(n)),
                Node::Paren(inner) | Node::Signed(inner) => {
                    items.extend(self.operand_items(inner, left))
                }
                Node::Not(inner) => {
                    items.extend(self.operand_items(inner, left));
                    items.push(Element::leaf("not"));
                }
                Node::Other(children) => {
                    for c in children {
                        items.extend(self.operand_items(c, left));
                    }
                }
                _ => {}
            }
        }
        if negated(n) {
            items.push(Element::leaf("not"));
        }
        items
    }
}

fn join_constraint(op: &JoinOperator) -> Option<&JoinConstraint> {
    match op {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::FullOuter(c)
        | JoinOperator::CrossJoin(c)
        | JoinOperator::Semi(c)
        | JoinOperator::LeftSemi(c)
        | JoinOperator::RightSemi(c)
        | JoinOperator::Anti(c)
        | JoinOperator::LeftAnti(c)
        | JoinOperator::RightAnti(c) => Some(c),
        _ => None,
    }
}

fn left_of<'n, 'a>(n: &'n Node<'a>) -> Option<&'n Node<'a>> {
    match n {
        Node::Binary { left, .. }
        | Node::Cast(left)
        | Node::InList { left, .. }
        | Node::InQuery { left, .. }
        | Node::IsNull { left, .. }
        | Node::Between { left, .. } => Some(left),
        _ => None,
    }
}

fn has_left(n: &Node) -> bool {
    left_of(n).is_some()
}

fn has_right(n: &Node) -> bool {
    matches!(n, Node::Binary { .. } | Node::Exists { .. })
}

/// The operator the reference's tree names (`stringExpression`).
fn operator(n: &Node) -> Option<String> {
    match n {
        Node::Binary { op, .. } => Some(op.clone()),
        Node::Exists { not, .. } => Some(if *not { "NOT EXISTS" } else { "EXISTS" }.into()),
        _ => None,
    }
}

fn negated(n: &Node) -> bool {
    match n {
        Node::Binary { not, .. }
        | Node::InList { not, .. }
        | Node::InQuery { not, .. }
        | Node::Exists { not, .. }
        | Node::IsNull { not, .. }
        | Node::Between { not, .. } => *not,
        _ => false,
    }
}

fn all_columns(n: &Node) -> bool {
    matches!(
        n,
        Node::Function {
            all_columns: true,
            ..
        }
    )
}
