//! Witness rows for a gold (`spec/test_suite.md`, "Random databases"): rows that satisfy the
//! simple atoms of the gold's top-level conjunctive WHERE (and its `JOIN … ON` conditions)
//! together, one row per FROM alias. Equalities between columns (`a.x = b.y`) unify cells
//! into classes; a comparison with a constant (`=`, `!=`, `<`, `<=`, `>`, `>=`, `BETWEEN`,
//! `LIKE`, `IN (…)`) constrains its class's value. A subquery a conjunct links to a cell
//! (`x IN (SELECT y …)`, `x = (SELECT min(y) …)`) adds its own aliases and atoms and the join
//! `x = y`; of `a OR b`, the conjuncts of `a` count. `NOT ( b OR … )` over simple atoms is an
//! atom of its own, left to chance in the witness and violated (`b` held) in its near miss.
//! A comparison of a prefix or a suffix of a cell's text (`SUBSTR(c, 1, 4) = '2012'`,
//! `STRFTIME('%Y', c) BETWEEN …` on dates, `SUBSTR(c, -2) = '19'`) is an atom of the cell
//! ([`super::affix_atoms`]). Anything else
//! (`NOT IN`, other functions) is left to chance. A *near miss* is the same rows with
//! one atom violated, so that a neighbor dropping or changing that atom answers differently.
//!
//! This module parses and solves; [`super::random_db`] fills the remaining columns (keys,
//! references, the column's rules) and inserts the rows.
//!
//! Its vocabulary (cells, comparisons, atoms) is [`super::atoms`], below it; the parents implied
//! by enforced references are added by [`super::witness_refs`], below it too.
//!
//! Length: about 1,260 lines of code and 590 of unit tests: parsing a conjunction (with the
//! subqueries it links to), solving its classes and violating one atom share the `Witness`
//! and `Instance` types; the tests pin each on one small schema (the implied parents too,
//! through the parse that adds them).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::Range;

use rusqlite::types::Value;
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    JoinConstraint, JoinOperator, OrderBy, OrderByKind, Query, Select, SelectItem, SetExpr,
    Statement, TableFactor, UnaryOperator,
};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::parser::Parser;

use super::affix_atoms::{affix, between, compared, Cells, Side};
use super::atoms::{cmp, compare, constant, like_over, Atom, Cell, Cmp};
use super::constraints::to_sql_value;
use super::neighbors::AGGREGATES;
use super::schema::{ColumnKind, SuiteSchema};
use super::witness_refs::close_references;

/// What a gold's conjunction asks of a database: its FROM aliases (as table positions) and
/// the simple atoms of its top-level conjunction.
#[derive(Debug, Clone, PartialEq)]
pub struct Witness {
    pub aliases: Vec<usize>,
    pub atoms: Vec<Atom>,
    /// How many copies of the rows one group needs (`HAVING count(…) > N`: N + 1) …
    pub copies: usize,
    /// … which agree on the grouping cells …
    pub group: Vec<Cell>,
    /// … and differ in the counted one (`count(DISTINCT x)`).
    pub counted: Option<Cell>,
    /// The atoms before this index are the gold's (a near miss violates one of them); the
    /// later ones are implied by enforced references ([`super::witness_refs`]).
    pub gold_atoms: usize,
    /// The aliases from this index on are parents implied by enforced references: rows that
    /// only make a constant a child cell holds exist in the parent table.
    pub implied_from: usize,
    /// The gold answers one row of aggregates (`COUNT( * ) > 0`, `MIN(…)`, no GROUP BY): its
    /// answer is much the same on every database its conjunction holds in.
    pub aggregate: bool,
    /// Cells an `IN` list constrains, with the list: its atom asks for the first value, and
    /// copy `j` of a group takes the `j`-th ([`Witness::copy`]).
    pub one_of: Vec<(Cell, Vec<Value>)>,
    /// The `min`/`max` subqueries a cell is compared with (`x = (SELECT min(y) …)`).
    pub extremes: Vec<Extreme>,
    /// The aliases whose columns the gold's top-level SELECT answers (directly or as an
    /// aggregate's argument).
    pub selected: Vec<usize>,
    /// The copies are asked by a count inside a derived table (`JOIN (SELECT … GROUP BY x
    /// HAVING COUNT(*) > 10) AS T`): the witness stands for that group even where the gold
    /// compares no cell with a constant.
    pub counted_within: bool,
    /// This witness holds a condition the SELECT list computes (`SUM(CASE WHEN c …)`) in
    /// its conjunction ([`Witness::alternatives`]).
    pub condition: bool,
    /// The cells the gold's answer is made of, where a row of it can repeat (no GROUP BY, no
    /// aggregate, no LIMIT; a `DISTINCT` removes the repeat): copies alike in them give the
    /// answer a duplicate, which a `DISTINCT` more or less tells apart.
    pub answered: Vec<Cell>,
    /// The cell the gold's answer is sorted by (the first one its first `ORDER BY` key reads),
    /// where it does not group or aggregate: copies of the rows that differ there give the
    /// order something to decide ([`super::random_db`]).
    pub ranked: Option<Cell>,
}

/// The column a linked subquery answers (its cell), and for `min`/`max`, whether `max` and the
/// range of the subquery's own atoms.
struct Answered {
    cell: Cell,
    extreme: Option<(bool, Range<usize>)>,
}

/// A `min(y)` or `max(y)` subquery of a witness, `x = (SELECT min(y) …)`: the cells of `y`
/// and `x`, the atom joining them, and the atoms of the subquery's own conjunction.
#[derive(Debug, Clone, PartialEq)]
pub struct Extreme {
    pub cell: Cell,
    pub outer: Cell,
    pub link: usize,
    pub max: bool,
    pub atoms: Range<usize>,
}

/// One database's rows for a [`Witness`]: per alias, per column, the class its value is
/// taken from (columns with none are free), and what each class must satisfy. Values are
/// decided as the generator reaches each table ([`Instance::value`]).
#[derive(Debug, Clone)]
pub struct Instance {
    pub aliases: Vec<usize>,
    /// Per alias: the class of each constrained column.
    pub cells: Vec<HashMap<usize, usize>>,
    /// Per class: the comparisons its value must satisfy …
    pub checks: Vec<Vec<Cmp>>,
    /// … the classes it must differ from (a violated join) …
    pub apart: Vec<Vec<usize>>,
    /// … the values it must not take (the counted cell of other copies) …
    pub avoid: Vec<Vec<Value>>,
    /// … and its value once decided.
    pub values: Vec<Option<Value>>,
    /// The classes of the grouping cells and of the counted cell ([`Witness::copies`]).
    pub group: Vec<usize>,
    pub counted: Option<usize>,
    /// The aliases from this index on are implied parents ([`Witness::implied_from`]).
    pub implied_from: usize,
    /// A near miss's place against the witness's extremes ([`Witness::extremes`]): cells of
    /// `x = (SELECT min(y) …)`, and how their values must compare with the witness's. One
    /// violating an atom of the subquery has `y` go past the witness's extreme (`min`: below)
    /// and `x` tie with it, so that a neighbor loosening that atom finds another extreme, one
    /// no outer row holds; any other near miss has `y` tie with it, so that the gold's
    /// extreme stays the witness's (below it, the extreme would be a row the outer
    /// conditions reject: no answer) and a neighbor loosening the violated outer atom answers
    /// the near miss's row too.
    pub beyond: Vec<(Cell, Ordering)>,
}

impl Witness {
    /// The witness of `gold` over `schema`, if the gold parses and has an alias of a known
    /// table with at least one atom. Derived tables (`FROM (SELECT …)`) add their own aliases
    /// and atoms.
    pub fn parse(gold: &str, schema: &SuiteSchema) -> Option<Witness> {
        Witness::of_branches(&gold_query(gold)?, schema, &mut Branches::default())
    }

    /// The witnesses of `gold` over `schema` through the branches of its `OR`s: the first
    /// takes the first branch of each (as [`Witness::parse`]); each further one takes another
    /// branch of one of the `OR`s the first met, the first branch of the others, so that every
    /// branch has its rows in some witness (a neighbor changing an atom of the second branch
    /// of `(A) OR (B)` answers differently only where a row satisfies `B`). Before those, one
    /// per condition the top-level SELECT computes (`SUM(CASE WHEN c THEN … END)`,
    /// `IIF(c, …)`), with `c` in the conjunction. At most [`MAX_ALTERNATIVES`], the earlier
    /// first.
    pub fn alternatives(gold: &str, schema: &SuiteSchema) -> Vec<Witness> {
        let Some(query) = gold_query(gold) else {
            return Vec::new();
        };
        let mut first = Branches::default();
        let mut out: Vec<Witness> = Witness::of_branches(&query, schema, &mut first)
            .into_iter()
            .collect();
        // A condition the SELECT aggregates over (`SUM(CASE WHEN t1.name = 'A' THEN … END)`)
        // holds on rows of their own: a neighbor changing it answers differently only there.
        for k in 0..first.conditions {
            if out.len() >= MAX_ALTERNATIVES {
                return out;
            }
            let mut branches = Branches {
                condition: Some(k),
                ..Branches::default()
            };
            if let Some(mut w) = Witness::of_branches(&query, schema, &mut branches) {
                if !out.contains(&w) {
                    w.condition = true;
                    out.push(w);
                }
            }
        }
        if out.is_empty() {
            return out;
        }
        for (i, &arity) in first.met.iter().enumerate() {
            for b in 1..arity {
                if out.len() >= MAX_ALTERNATIVES {
                    return out;
                }
                let mut picks = vec![0; i + 1];
                picks[i] = b;
                let mut branches = Branches {
                    picks,
                    ..Branches::default()
                };
                if let Some(w) = Witness::of_branches(&query, schema, &mut branches) {
                    if !out.contains(&w) {
                        out.push(w);
                    }
                }
            }
        }
        out
    }

    /// The witness of `query` taking, at each `OR`, the branch `branches` picks.
    fn of_branches(
        query: &Query,
        schema: &SuiteSchema,
        branches: &mut Branches,
    ) -> Option<Witness> {
        let mut w = Witness {
            aliases: Vec::new(),
            atoms: Vec::new(),
            copies: 1,
            group: Vec::new(),
            counted: None,
            gold_atoms: 0,
            implied_from: 0,
            aggregate: first_select(query).is_some_and(answers_one_row),
            one_of: Vec::new(),
            extremes: Vec::new(),
            selected: Vec::new(),
            counted_within: false,
            condition: false,
            answered: Vec::new(),
            ranked: None,
        };
        w.collect(
            first_select(query)?,
            query.order_by.as_ref(),
            schema,
            branches,
            0,
            true,
        );
        if w.aggregate || query.limit_clause.is_some() || query.fetch.is_some() {
            w.answered.clear();
        }
        if w.aggregate {
            w.ranked = None;
        }
        w.gold_atoms = w.atoms.len();
        w.implied_from = w.aliases.len();
        close_references(&mut w.aliases, &mut w.atoms, schema);
        // Without atoms, a witness is the group a derived table counts, or nothing (a
        // top-level `GROUP BY … HAVING COUNT(*) > N` with no condition is left to chance, as
        // before: Spider's suites stay as they were).
        (!w.atoms.is_empty() || w.counted_within).then_some(w)
    }

    /// Adds the aliases and atoms of a subquery whose one result column the enclosing query
    /// compares with a cell (`x IN (SELECT y …)`, `x = (SELECT min(y) …)`), and returns the
    /// cell of that column (the `y` of `min(y)`). Its own rows then satisfy its conjunction
    /// with `y` equal to `x`: for `min`/`max` over conditions random rows seldom meet, the
    /// witness's value is the extreme. Of `min`/`max`, also which, and the range of the
    /// subquery's own atoms.
    fn collect_subquery(
        &mut self,
        query: &Query,
        schema: &SuiteSchema,
        branches: &mut Branches,
        depth: usize,
    ) -> Option<Answered> {
        let select = first_select(query)?;
        let [item] = select.projection.as_slice() else {
            return None;
        };
        let expr = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => return None,
        };
        let extreme = extreme_argument(expr);
        let max = extreme.is_some_and(|(_, max)| max);
        let expr = extreme.map_or(expr, |(argument, _)| argument);
        let atoms_from = self.atoms.len();
        let (names, scope) = self.collect(
            select,
            query.order_by.as_ref(),
            schema,
            branches,
            depth,
            false,
        );
        let resolver = Resolver {
            schema,
            aliases: &self.aliases,
            names: &names,
            scope,
        };
        let cell = resolver.cell(expr)?;
        Some(Answered {
            cell,
            extreme: extreme.map(|_| (max, atoms_from..self.atoms.len())),
        })
    }

    /// Adds the aliases and atoms of one SELECT (and of its derived tables, and of the
    /// subqueries its conjunction compares a cell with); returns its alias names and the range
    /// of its own aliases (unqualified columns resolve there). `counts`: its `HAVING count(…)`
    /// and `ORDER BY count(…)` shape the witness (not in a subquery).
    fn collect(
        &mut self,
        select: &Select,
        order_by: Option<&OrderBy>,
        schema: &SuiteSchema,
        branches: &mut Branches,
        depth: usize,
        counts: bool,
    ) -> (Names, Range<usize>) {
        let start = self.aliases.len();
        let (names, mut conditions) = self.collect_from(select, schema, branches, depth, counts);
        let scope = start..self.aliases.len();
        conditions.extend(&select.selection);
        let mut conjuncts = Vec::new();
        for c in conditions {
            split_and(c, Some(&mut *branches), &mut conjuncts);
        }
        if depth == 0 && counts {
            let found = select_conditions(select);
            branches.conditions = found.len();
            if let Some(c) = branches.condition.and_then(|k| found.get(k)) {
                split_and(c, None, &mut conjuncts);
            }
        }
        // Conjuncts linking a cell to a subquery: the subquery's rows join the witness.
        let mut links = Vec::new();
        let mut plain = Vec::new();
        for c in conjuncts {
            match subquery_link(c) {
                Some(link) if depth < MAX_SUBQUERY_DEPTH => links.push(link),
                _ => plain.push(c),
            }
        }
        self.collect_links(links, &names, &scope, schema, branches, depth);
        let resolver = Resolver {
            schema,
            aliases: &self.aliases,
            names: &names,
            scope: scope.clone(),
        };
        if depth == 0 {
            for alias in selected_aliases(select, &resolver) {
                if !self.selected.contains(&alias) {
                    self.selected.push(alias);
                }
            }
            self.answered = answered_cells(select, &resolver);
            self.ranked = ranked_cell(select, order_by, &resolver);
        }
        // `NOT ( b OR … )`: each branch is held in the near misses of some witness.
        let mut atoms: Vec<Atom> = plain
            .iter()
            .flat_map(|c| match c {
                Expr::UnaryOp {
                    op: UnaryOperator::Not,
                    expr,
                } => resolver.negated(expr, Some(&mut *branches)),
                _ => resolver.atoms(c),
            })
            .collect();
        // `x = y || '_1'` where the conjunction pins `y` to a constant: `x` holds the two
        // joined (BIRD's item 418, `T2.atom_id = T1.molecule_id || '_1'`).
        let joined: Vec<Atom> = plain
            .iter()
            .flat_map(|c| resolver.concatenated(c, &atoms))
            .collect();
        atoms.extend(joined);
        self.one_of.extend(in_lists(&plain, &resolver));
        if self.copies == 1 && counts {
            if let Some((copies, counted, group)) = count_shape(select, order_by, &resolver) {
                self.copies = copies;
                self.counted = counted;
                self.counted_within = depth > 0;
                if let Some(group) = group {
                    self.group = group;
                }
            }
        }
        self.atoms.extend(atoms);
        (names, scope)
    }

    /// Adds an alias per table of `select`'s FROM (by its name, or the table's) and collects
    /// its derived tables' own (`FROM (SELECT …)`); returns the alias names (with the
    /// columns of the derived tables) and the inner joins' `ON` conditions.
    fn collect_from<'s>(
        &mut self,
        select: &'s Select,
        schema: &SuiteSchema,
        branches: &mut Branches,
        depth: usize,
        counts: bool,
    ) -> (Names, Vec<&'s Expr>) {
        let mut names = Names::default();
        let mut conditions: Vec<&Expr> = Vec::new();
        let mut factors: Vec<&TableFactor> = Vec::new();
        for twj in &select.from {
            factors.push(&twj.relation);
            for j in &twj.joins {
                if let Some(JoinConstraint::On(e)) = inner_constraint(&j.join_operator) {
                    conditions.push(e);
                }
                factors.push(&j.relation);
            }
        }
        for f in factors {
            match f {
                TableFactor::Table { name, alias, .. } => {
                    let Some(table_name) = name.0.last().and_then(|p| p.as_ident()) else {
                        continue;
                    };
                    let table_name = table_name.value.to_lowercase();
                    let Some(t) = schema
                        .tables
                        .iter()
                        .position(|t| t.name.to_lowercase() == table_name)
                    else {
                        continue;
                    };
                    let alias_name = alias
                        .as_ref()
                        .map_or(table_name, |a| a.name.value.to_lowercase());
                    names.tables.push((alias_name, self.aliases.len()));
                    self.aliases.push(t);
                }
                TableFactor::Derived {
                    subquery, alias, ..
                } if depth < 4 => {
                    if let Some(inner) = first_select(subquery) {
                        let (inner_names, inner_scope) = self.collect(
                            inner,
                            subquery.order_by.as_ref(),
                            schema,
                            branches,
                            depth + 1,
                            counts,
                        );
                        // Only in a schema a profile stands for: the classical datasets'
                        // suites (57 golds read a derived table's column) stay as measured.
                        if let Some(alias) = alias.as_ref().filter(|_| schema.profiled) {
                            let resolver = Resolver {
                                schema,
                                aliases: &self.aliases,
                                names: &inner_names,
                                scope: inner_scope,
                            };
                            let name = alias.name.value.to_lowercase();
                            for (column, cell) in derived_columns(inner, &resolver, self.copies) {
                                names.derived.push((name.clone(), column, cell));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        (names, conditions)
    }

    /// Collects the subquery of each link (`x IN (SELECT y …)`, `x = (SELECT min(y) …)`, up to
    /// [`MAX_ALIASES`] aliases) and joins its answered cell to the linked one, noting a
    /// `min`/`max` subquery's extreme.
    fn collect_links(
        &mut self,
        links: Vec<(&Expr, &Query)>,
        names: &Names,
        scope: &Range<usize>,
        schema: &SuiteSchema,
        branches: &mut Branches,
        depth: usize,
    ) {
        for (outer, subquery) in links {
            let outer = Resolver {
                schema,
                aliases: &self.aliases,
                names,
                scope: scope.clone(),
            }
            .cell(outer);
            if self.aliases.len() >= MAX_ALIASES {
                break;
            }
            if let (
                Some(outer),
                Some(Answered {
                    cell: inner,
                    extreme,
                }),
            ) = (
                outer,
                self.collect_subquery(subquery, schema, branches, depth + 1),
            ) {
                self.atoms.push(Atom::Join(outer, inner));
                if let Some((max, atoms)) = extreme {
                    self.extremes.push(Extreme {
                        cell: inner,
                        outer,
                        link: self.atoms.len() - 1,
                        max,
                        atoms,
                    });
                }
            }
        }
    }

    /// The classes and checks of this witness, with atom `violated` (if any) made false: a
    /// comparison negated, a join's two sides kept apart.
    pub fn instance(&self, violated: Option<usize>) -> Instance {
        let mut cells: Vec<Cell> = Vec::new();
        let index = |c: Cell, cells: &mut Vec<Cell>| match cells.iter().position(|&x| x == c) {
            Some(i) => i,
            None => {
                cells.push(c);
                cells.len() - 1
            }
        };
        // Union-find over cells.
        let mut parent: Vec<usize> = Vec::new();
        fn find(parent: &mut [usize], i: usize) -> usize {
            let mut r = i;
            while parent[r] != r {
                r = parent[r];
            }
            parent[i] = r;
            r
        }
        let ensure = |parent: &mut Vec<usize>, n: usize| {
            while parent.len() < n {
                parent.push(parent.len());
            }
        };
        // The atoms the rows are built to: each with whether it is the violated one. A `NOT`
        // group counts only where violated, as its branch's atoms held.
        // A near miss violating an atom of a `min`/`max` subquery leaves `x` apart from `y`
        // too ([`Instance::beyond`]).
        let unlinked: Vec<usize> = self
            .extremes
            .iter()
            .filter(|x| violated.is_some_and(|v| x.atoms.contains(&v)))
            .map(|x| x.link)
            .collect();
        let mut effective: Vec<(&Atom, bool)> = Vec::new();
        for (i, atom) in self.atoms.iter().enumerate() {
            match atom {
                _ if unlinked.contains(&i) => {}
                Atom::Not(held) if Some(i) == violated => {
                    effective.extend(held.iter().map(|a| (a, false)));
                }
                Atom::Not(_) => {}
                _ => effective.push((atom, Some(i) == violated)),
            }
        }
        for &(atom, violated) in &effective {
            match atom {
                Atom::Join(a, b) => {
                    let (a, b) = (index(*a, &mut cells), index(*b, &mut cells));
                    ensure(&mut parent, cells.len());
                    if !violated {
                        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                        parent[ra] = rb;
                    }
                }
                Atom::Compare(a, _) => {
                    index(*a, &mut cells);
                    ensure(&mut parent, cells.len());
                }
                Atom::Not(_) => {}
            }
        }
        // The cells of an unlinked `x = (SELECT min(y) …)`, each in a class of its own.
        for atom in unlinked.iter().map(|&l| &self.atoms[l]) {
            if let Atom::Join(a, b) = atom {
                index(*a, &mut cells);
                index(*b, &mut cells);
                ensure(&mut parent, cells.len());
            }
        }
        for &c in self.group.iter().chain(&self.counted) {
            index(c, &mut cells);
            ensure(&mut parent, cells.len());
        }
        // Classes numbered by their root.
        let mut class_of_root: HashMap<usize, usize> = HashMap::new();
        let mut class = |parent: &mut Vec<usize>, i: usize| {
            let r = find(parent, i);
            let n = class_of_root.len();
            *class_of_root.entry(r).or_insert(n)
        };
        let mut instance = Instance {
            aliases: self.aliases.clone(),
            cells: vec![HashMap::new(); self.aliases.len()],
            checks: Vec::new(),
            apart: Vec::new(),
            avoid: Vec::new(),
            values: Vec::new(),
            group: Vec::new(),
            counted: None,
            implied_from: self.implied_from,
            beyond: Vec::new(),
        };
        if let Some(v) = violated {
            instance.beyond = self
                .extremes
                .iter()
                .flat_map(|x| match (x.atoms.contains(&v), x.max) {
                    (false, _) => vec![(x.cell, Ordering::Equal)],
                    (true, false) => vec![(x.cell, Ordering::Less), (x.outer, Ordering::Equal)],
                    (true, true) => vec![(x.cell, Ordering::Greater), (x.outer, Ordering::Equal)],
                })
                .collect();
        }
        for (i, &(alias, column)) in cells.iter().enumerate() {
            let c = class(&mut parent, i);
            instance.cells[alias].insert(column, c);
        }
        let n = class_of_root.len();
        instance.checks = vec![Vec::new(); n];
        instance.apart = vec![Vec::new(); n];
        instance.values = vec![None; n];
        instance.avoid = vec![Vec::new(); n];
        instance.group = self
            .group
            .iter()
            .map(|&(a, k)| instance.cells[a][&k])
            .collect();
        instance.counted = self.counted.map(|(a, k)| instance.cells[a][&k]);
        for &(atom, violated) in &effective {
            match atom {
                Atom::Compare((alias, column), cmp) => {
                    let c = instance.cells[*alias][column];
                    instance.checks[c].push(if violated { cmp.negated() } else { cmp.clone() });
                }
                Atom::Join((a, x), (b, y)) if violated => {
                    let (ca, cb) = (instance.cells[*a][x], instance.cells[*b][y]);
                    if ca != cb {
                        instance.apart[ca].push(cb);
                        instance.apart[cb].push(ca);
                    }
                }
                Atom::Join(..) | Atom::Not(_) => {}
            }
        }
        instance
    }

    /// Copy `j` of the witness's group (`HAVING count(…) > N`), from its instance `base`: a
    /// cell an `IN` list constrains takes the list's `j`-th value (in turn), so that the
    /// copies' counted values can differ (`KEYPHRASENAME IN ( "Decision Feedback" ,
    /// "Multiuser Receiver" ) … HAVING COUNT( DISTINCT KEYPHRASENAME ) > 1`: one paper with
    /// both key phrases).
    pub fn copy(&self, base: &Instance, j: usize) -> Instance {
        let mut inst = base.clone();
        for ((alias, column), list) in &self.one_of {
            // A grouping cell keeps the first copy's value.
            let Some(&c) = inst.cells.get(*alias).and_then(|m| m.get(column)) else {
                continue;
            };
            if inst.group.contains(&c) {
                continue;
            }
            let first = Cmp::Eq(list[0].clone());
            if let Some(k) = inst.checks[c].iter_mut().find(|k| **k == first) {
                *k = Cmp::Eq(list[j % list.len()].clone());
            }
        }
        inst
    }
}

impl Witness {
    /// For the near miss violating atom `violated`, the aliases that need rows of their own
    /// (`spec/test_suite.md`, "The near-miss sweep"): those on a shortest path of unviolated
    /// joins from an alias the atom reads to the alias that answers for the atom's block (the
    /// gold's selected aliases; a `min`/`max` subquery's argument for the subquery's atoms),
    /// and the implied parents joined to them. The other aliases may take the witness's rows:
    /// the near miss then differs from the witness only where a neighbor loosening the atom
    /// answers it too. `None` where no such path exists (every alias then has a row of its
    /// own).
    pub fn fresh_aliases(&self, violated: usize, schema: &SuiteSchema) -> Option<Vec<bool>> {
        let n = self.aliases.len();
        let within = self.extremes.iter().find(|x| x.atoms.contains(&violated));
        let anchors: Vec<usize> = match within {
            Some(x) => vec![x.cell.0],
            None => self.selected.clone(),
        };
        let sources: Vec<usize> = match self.atoms.get(violated)? {
            Atom::Compare((a, _), _) => vec![*a],
            Atom::Join((a, _), (b, _)) => vec![*a, *b],
            Atom::Not(held) => held
                .iter()
                .flat_map(|h| match h {
                    Atom::Compare((a, _), _) => vec![*a],
                    Atom::Join((a, _), (b, _)) => vec![*a, *b],
                    Atom::Not(_) => Vec::new(),
                })
                .collect(),
        };
        let unlinked = within.map(|x| x.link);
        let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, atom) in self.atoms.iter().enumerate() {
            if let Atom::Join((a, _), (b, _)) = atom {
                if i != violated && Some(i) != unlinked && a != b {
                    adjacent[*a].push(*b);
                    adjacent[*b].push(*a);
                }
            }
        }
        // Breadth first from the anchors; the nearest source walks back to them.
        let mut before: Vec<Option<usize>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::new();
        for &a in anchors.iter().filter(|&&a| a < n) {
            seen[a] = true;
            queue.push_back(a);
        }
        while let Some(a) = queue.pop_front() {
            if sources.contains(&a) {
                let mut on_path = vec![false; n];
                let mut at = Some(a);
                while let Some(x) = at {
                    on_path[x] = true;
                    at = before[x];
                }
                // A join class the path runs through is the near miss's own: every alias
                // with a cell in it has a row of its own, or the near miss's rows would join
                // the witness's there (`FLIGHT.TO_AIRPORT` joins two `AIRPORT_SERVICE`s).
                let classes = self.join_classes(violated, unlinked);
                let mut fresh = on_path.clone();
                for class in &classes {
                    let mut on: Vec<usize> =
                        class.iter().map(|c| c.0).filter(|&x| on_path[x]).collect();
                    on.sort_unstable();
                    on.dedup();
                    if on.len() >= 2 {
                        for c in class {
                            fresh[c.0] = true;
                        }
                    }
                }
                // A class holding a unique column of a row of the near miss's own is its own
                // too: the witness's value there would be taken.
                let unique = |(a, k): Cell| {
                    schema.tables.get(self.aliases[a]).is_some_and(|t| {
                        t.primary_key == [k]
                            || t.columns.get(k).is_some_and(|c| c.rules.is_unique())
                    })
                };
                loop {
                    let mut grew = false;
                    for class in &classes {
                        if class.iter().any(|&c| fresh[c.0] && unique(c)) {
                            for c in class {
                                grew |= !fresh[c.0];
                                fresh[c.0] = true;
                            }
                        }
                    }
                    if !grew {
                        break;
                    }
                }
                for p in self.implied_from..n {
                    if adjacent[p].iter().any(|&c| fresh[c]) {
                        fresh[p] = true;
                    }
                }
                return Some(fresh);
            }
            for &b in &adjacent[a] {
                if !seen[b] {
                    seen[b] = true;
                    before[b] = Some(a);
                    queue.push_back(b);
                }
            }
        }
        None
    }
}

impl Witness {
    /// The classes of cells the joins make equal, all but atom `violated` and the link
    /// `unlinked`.
    fn join_classes(&self, violated: usize, unlinked: Option<usize>) -> Vec<Vec<Cell>> {
        let mut classes: Vec<Vec<Cell>> = Vec::new();
        for (i, atom) in self.atoms.iter().enumerate() {
            let Atom::Join(a, b) = atom else { continue };
            if i == violated || Some(i) == unlinked {
                continue;
            }
            let ia = classes.iter().position(|c| c.contains(a));
            let ib = classes.iter().position(|c| c.contains(b));
            match (ia, ib) {
                (Some(x), Some(y)) if x != y => {
                    let moved = classes.remove(x.max(y));
                    classes[x.min(y)].extend(moved);
                }
                (Some(_), Some(_)) => {}
                (Some(x), None) => classes[x].push(*b),
                (None, Some(y)) => classes[y].push(*a),
                (None, None) => classes.push(vec![*a, *b]),
            }
        }
        classes
    }
}

impl Instance {
    /// Does `v` fit class `c`: every check holds and it differs from the classes it must?
    pub fn fits(&self, c: usize, v: &Value) -> bool {
        self.checks[c].iter().all(|k| k.holds(v))
            && !self.avoid[c]
                .iter()
                .any(|a| compare(v, a) == Some(Ordering::Equal))
            && self.apart[c].iter().all(|&o| {
                self.values[o]
                    .as_ref()
                    .is_none_or(|w| compare(v, w) != Some(Ordering::Equal))
            })
    }

    /// The constant class `c` must equal, if any.
    pub fn fixed(&self, c: usize) -> Option<&Value> {
        self.checks[c].iter().find_map(|k| match k {
            Cmp::Eq(v) => Some(v),
            _ => None,
        })
    }

    /// For a class whose equality with a constant is the violated atom (a near miss), a value
    /// just beside that constant: text with a letter added after or before it or in another
    /// case, a number one off. Such a row tells the gold from neighbors that loosen the
    /// equality (`LIKE 'x%'`, `>=`), which a random other value seldom does.
    pub fn beside(&self, c: usize, rng: &mut fastrand::Rng) -> Option<Value> {
        let x = self.unequal_to(c)?;
        let (kind, up) = match x {
            Value::Text(_) => {
                const DRAWN: [Beside; 4] = [
                    Beside::LetterAfter,
                    Beside::WordBefore,
                    Beside::OtherCase,
                    Beside::WordAfter,
                ];
                (DRAWN[rng.u32(..4) as usize], true)
            }
            Value::Integer(_) | Value::Real(_) => (Beside::LetterAfter, rng.bool()),
            _ => return None,
        };
        let v = value_beside(x, kind, up, rng)?;
        self.fits(c, &v).then_some(v)
    }

    /// [`Instance::beside`] for a database of the sweep, whose rounds take each kind of value
    /// in turn: text with a letter added after it (above it, and matching `LIKE 'c%'`), with
    /// its last letter dropped (below it), in another case (equal to `LIKE`), with a word
    /// before it (matching `LIKE '%c%'` only) and after it; a number one above, one below.
    pub fn beside_in_turn(&self, c: usize, round: usize, rng: &mut fastrand::Rng) -> Option<Value> {
        const IN_TURN: [Beside; 5] = [
            Beside::LetterAfter,
            Beside::LastDropped,
            Beside::OtherCase,
            Beside::WordBefore,
            Beside::WordAfter,
        ];
        let x = self.unequal_to(c)?;
        let v = value_beside(x, IN_TURN[round % 5], round.is_multiple_of(2), rng)?;
        self.fits(c, &v).then_some(v)
    }

    /// Is the violated atom of class `c` a near miss of an affix pattern, one
    /// [`Instance::outside_affix`] builds a value for?
    pub fn misses_affix(&self, c: usize) -> bool {
        self.missed_affix(c).is_some()
    }

    /// For a class whose violated atom is a prefix or a suffix pattern of digits and marks
    /// (`NOT LIKE '1970-10%'`, `NOT LIKE '%19'`: the near miss of a date's or an identifier's
    /// affix, [`super::affix_atoms`]), a text just outside the pattern made of `template`, a
    /// natural value of the column: its start replaced by the prefix with the last digit one
    /// off (`1970-11-02 00:00:00`), or the suffix put in it before its last character
    /// (`TR000_191`). Such a row tells the gold from neighbors and predictions that compare a
    /// shorter prefix (`'1970'` for `'1970-10'`) or look for the text anywhere (`LIKE
    /// '%19%'`), which a random other value seldom does.
    pub fn outside_affix(&self, c: usize, template: &Value) -> Option<Value> {
        let (side, v) = self.missed_affix(c)?;
        let t = match template {
            Value::Text(t) => t.as_str(),
            _ => "",
        };
        let text = match side {
            Side::Start => {
                let mut chars: Vec<char> = v.chars().collect();
                let last = chars.last_mut()?;
                *last = match last.to_digit(10)? {
                    9 => '8',
                    d => char::from_digit(d + 1, 10)?,
                };
                chars.extend(t.chars().skip(chars.len()));
                chars.into_iter().collect()
            }
            Side::End => match t.char_indices().last() {
                Some((at, last)) => format!("{}{v}{last}", &t[..at]),
                None => format!("{v}0"),
            },
        };
        let text = Value::Text(text);
        self.fits(c, &text).then_some(text)
    }

    /// The side and the text of the affix pattern class `c` must not match, if its violated
    /// atom is one: `v%` or `%v` with `v` of digits and marks, no wildcard.
    fn missed_affix(&self, c: usize) -> Option<(Side, &str)> {
        self.checks[c].iter().find_map(|k| {
            let Cmp::NotLike(p) = k else {
                return None;
            };
            let (side, v) = match (p.strip_prefix('%'), p.strip_suffix('%')) {
                (None, Some(v)) => (Side::Start, v),
                (Some(v), None) => (Side::End, v),
                _ => return None,
            };
            let plain =
                !v.is_empty() && !v.contains(['%', '_']) && v.to_lowercase() == v.to_uppercase();
            plain.then_some((side, v))
        })
    }

    /// The constant class `c` must differ from (a violated equality), if any.
    fn unequal_to(&self, c: usize) -> Option<&Value> {
        self.checks[c].iter().find_map(|k| match k {
            Cmp::Ne(x) => Some(x),
            _ => None,
        })
    }

    /// For a class with an inclusive bound (`<=`, `>=`, an end of a `BETWEEN`, or a strict
    /// bound's negation in a near miss), a value exactly on one of its bounds. Such a row tells
    /// the gold from neighbors that make the bound strict (`<` for `<=`), which a value drawn
    /// or built inside the range (`construct`'s, up to two steps in) is less often.
    pub fn on_bound(&self, c: usize, rng: &mut fastrand::Rng) -> Option<Value> {
        let bounds = self.checks[c].iter().filter_map(|k| match k {
            Cmp::Le(x) | Cmp::Ge(x) => Some(x.clone()),
            _ => None,
        });
        self.one_fitting(c, bounds.collect(), rng)
    }

    /// For a class with a strict bound (`<`, `>`, or an inclusive bound's negation in a near
    /// miss), the value just inside it, one step from the bound. Such a row tells the gold
    /// from neighbors that move the bound by one (`<= 1700` from `<= 1701` for a near miss at
    /// 1701), which a value drawn further in seldom does.
    pub fn past_bound(&self, c: usize, rng: &mut fastrand::Rng) -> Option<Value> {
        let inside = self.checks[c].iter().filter_map(|k| match k {
            Cmp::Gt(x) => Some(step(x, 1)),
            Cmp::Lt(x) => Some(step(x, -1)),
            _ => None,
        });
        self.one_fitting(c, inside.collect(), rng)
    }

    /// One of `candidates` drawn at random (none drawn when there are none), if it fits
    /// class `c`.
    fn one_fitting(
        &self,
        c: usize,
        mut candidates: Vec<Value>,
        rng: &mut fastrand::Rng,
    ) -> Option<Value> {
        if candidates.is_empty() {
            return None;
        }
        let v = candidates.swap_remove(rng.usize(..candidates.len()));
        self.fits(c, &v).then_some(v)
    }

    /// A value built from the checks of class `c` when no natural one fits: just past each
    /// bound, a LIKE pattern with its wildcards filled, `like` a number (or text) `template`.
    pub fn construct(&self, c: usize, template: &Value, rng: &mut fastrand::Rng) -> Value {
        if let Some(v) = self.fixed(c) {
            return v.clone();
        }
        let mut v = template.clone();
        for _ in 0..4 {
            for k in &self.checks[c] {
                if k.holds(&v) {
                    continue;
                }
                v = match k {
                    Cmp::Eq(x) => x.clone(),
                    Cmp::Ne(x) => step(x, 1 + rng.i64(0..3)),
                    Cmp::Gt(x) => step(x, 1 + rng.i64(0..3)),
                    Cmp::Ge(x) => step(x, rng.i64(0..3)),
                    Cmp::Lt(x) => step(x, -1 - rng.i64(0..3)),
                    Cmp::Le(x) => step(x, -rng.i64(0..3)),
                    // A prefix pattern over the template (a natural value: a date keeps its
                    // layout), else the pattern's wildcards filled.
                    Cmp::Like(p) => Value::Text(
                        match template {
                            Value::Text(t) => like_over(p, t),
                            _ => None,
                        }
                        .unwrap_or_else(|| {
                            p.chars()
                                .filter(|&ch| ch != '%')
                                .map(|ch| if ch == '_' { 'a' } else { ch })
                                .collect()
                        }),
                    ),
                    Cmp::NotLike(p) => Value::Text(format!("{}q", p.replace(['%', '_'], ""))),
                };
            }
            if self.fits(c, &v) {
                break;
            }
        }
        v
    }
}

/// Which value beside a text constant [`value_beside`] takes.
#[derive(Clone, Copy)]
enum Beside {
    /// A letter added after it: above it, matching `LIKE 'c%'`.
    LetterAfter,
    /// Its last letter dropped (below it); in another case where it has one letter.
    LastDropped,
    /// In another case: equal to it under `LIKE`.
    OtherCase,
    /// A word before it: matching `LIKE '%c%'` only.
    WordBefore,
    /// A word after it.
    WordAfter,
}

/// The least and the greatest text [`value_beside`] can make of text `s`, of each kind: the
/// letter after `a` and `z`, the last letter dropped (from two letters or more), another case,
/// a word before and after `A` and `Z`. What a column may hold beside a gold's constant
/// ([`crate::random_db::Constants::text_bounds`]).
pub(crate) fn texts_beside(s: &str) -> Vec<String> {
    let mut out = vec![
        format!("{s}a"),
        format!("{s}z"),
        s.to_lowercase(),
        s.to_uppercase(),
        format!("A {s}"),
        format!("Z {s}"),
        format!("{s} A"),
        format!("{s} Z"),
    ];
    if s.chars().count() > 1 {
        let mut chars: Vec<char> = s.chars().collect();
        chars.pop();
        out.push(chars.into_iter().collect());
    }
    out
}

/// A value beside the constant `x`: for text, of kind `kind` (a random letter where it adds
/// one); for a number, one above (`up`) or one below. None for other values.
fn value_beside(x: &Value, kind: Beside, up: bool, rng: &mut fastrand::Rng) -> Option<Value> {
    let letter = |rng: &mut fastrand::Rng, first: u8| char::from(first + rng.u8(..26));
    Some(match x {
        Value::Text(s) => match kind {
            Beside::LetterAfter => Value::Text(format!("{s}{}", letter(rng, b'a'))),
            Beside::LastDropped if s.chars().count() > 1 => step(x, -1),
            Beside::LastDropped | Beside::OtherCase if s.to_lowercase() != *s => {
                Value::Text(s.to_lowercase())
            }
            Beside::LastDropped | Beside::OtherCase => Value::Text(s.to_uppercase()),
            Beside::WordBefore => Value::Text(format!("{} {s}", letter(rng, b'A'))),
            Beside::WordAfter => Value::Text(format!("{s} {}", letter(rng, b'A'))),
        },
        Value::Integer(_) | Value::Real(_) => step(x, if up { 1 } else { -1 }),
        _ => return None,
    })
}

/// `x` moved by `by` steps: integers by 1, reals by 0.5, text by appending or dropping a
/// character (just after or before it in SQLite's text order).
fn step(x: &Value, by: i64) -> Value {
    match x {
        Value::Integer(n) => Value::Integer(n.saturating_add(by)),
        Value::Real(r) => Value::Real(r + by as f64 * 0.5),
        Value::Text(s) if by > 0 => Value::Text(format!("{s}{}", "a".repeat(by as usize))),
        Value::Text(s) if by < 0 => {
            let mut s = s.clone();
            if s.pop().is_none() {
                return Value::Integer(0);
            }
            Value::Text(s)
        }
        other => other.clone(),
    }
}

/// A schema refined by what the golds' conjunctions compare: it reads each gold's
/// [`Witness`], so it builds on this module rather than on the schema's own.
impl SuiteSchema {
    /// A column declared numeric that holds no data and that golds compare with text
    /// (`WRITER.NAME = "Kevin Spacey"` where the schema says `name int`) becomes a text
    /// column: random databases then hold text near the gold's constant there, as a database
    /// of that schema in use would.
    pub fn with_text_comparisons<'a>(
        mut self,
        golds: impl IntoIterator<Item = &'a str>,
    ) -> SuiteSchema {
        for gold in golds {
            let Some(w) = Witness::parse(gold, &self) else {
                continue;
            };
            for atom in &w.atoms {
                let Atom::Compare((alias, column), cmp) = atom else {
                    continue;
                };
                let text = match cmp {
                    Cmp::Eq(v) | Cmp::Ne(v) | Cmp::Lt(v) | Cmp::Le(v) | Cmp::Gt(v) | Cmp::Ge(v) => {
                        matches!(v, rusqlite::types::Value::Text(s) if s.trim().parse::<f64>().is_err())
                    }
                    Cmp::Like(p) | Cmp::NotLike(p) => {
                        p.replace(['%', '_'], "").trim().parse::<f64>().is_err()
                    }
                };
                let col = &mut self.tables[w.aliases[*alias]].columns[*column];
                if text
                    && col.original.is_empty()
                    && matches!(
                        col.kind,
                        ColumnKind::Int | ColumnKind::Real | ColumnKind::Bool
                    )
                {
                    col.kind = ColumnKind::Text;
                }
            }
        }
        self
    }
}

/// Groups above this many rows are not aimed at: one more than the largest count threshold
/// a database is sized for ([`super::random_db::MAX_THRESHOLD`]). A database holds more than
/// [`SMALL_GROUP`] copies only where its tables are sized for them.
const MAX_COPIES: usize = 201;

/// Copies every database may hold (tables of at most 20 random rows).
pub const SMALL_GROUP: usize = 25;

/// `gold` parsed, if it is one query SQLite's dialect reads.
fn gold_query(gold: &str) -> Option<Query> {
    match Parser::parse_sql(&SQLiteDialect {}, gold)
        .ok()?
        .into_iter()
        .next()
    {
        Some(Statement::Query(q)) => Some(*q),
        _ => None,
    }
}

/// The first SELECT of a query (of a set operation, its left-most one).
fn first_select(query: &Query) -> Option<&Select> {
    let mut body = query.body.as_ref();
    loop {
        match body {
            SetExpr::Select(s) => return Some(s),
            SetExpr::SetOperation { left, .. } => body = left,
            SetExpr::Query(q) => body = q.body.as_ref(),
            _ => return None,
        }
    }
}

fn inner_constraint(op: &JoinOperator) -> Option<&JoinConstraint> {
    match op {
        JoinOperator::Join(c) | JoinOperator::Inner(c) | JoinOperator::CrossJoin(c) => Some(c),
        // An outer join's ON does not filter the preserved side; satisfying it does no harm.
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => Some(c),
        _ => None,
    }
}

/// The conjuncts of `e`; with `branches`, of `A OR B OR …` the conjuncts of the branch it
/// picks (rows satisfying them satisfy the disjunction), otherwise the disjunction whole.
fn split_and<'a>(e: &'a Expr, mut branches: Option<&mut Branches>, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(left, branches.as_deref_mut(), out);
            split_and(right, branches, out);
        }
        Expr::BinaryOp {
            op: BinaryOperator::Or,
            ..
        } => match branches {
            Some(b) => {
                let mut disjuncts = Vec::new();
                split_or(e, &mut disjuncts);
                let chosen = disjuncts[b.pick(disjuncts.len())];
                split_and(chosen, Some(b), out);
            }
            None => out.push(e),
        },
        Expr::Nested(inner) => split_and(inner, branches, out),
        other => out.push(other),
    }
}

/// The branches of `A OR B OR …`, parentheses removed.
fn split_or<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            split_or(left, out);
            split_or(right, out);
        }
        Expr::Nested(inner) => split_or(inner, out),
        other => out.push(other),
    }
}

/// Which branch a witness takes at each `OR` of its conjunction, in the order the parse meets
/// them: the `i`-th takes branch `picks[i]` (the first when `picks` says nothing); `met`
/// records how many branches each had.
#[derive(Debug, Default)]
struct Branches {
    picks: Vec<usize>,
    met: Vec<usize>,
    /// Which condition of the top-level SELECT (a `CASE WHEN c`, an `IIF(c, …)`) joins the
    /// conjunction, if one ([`select_conditions`]) …
    condition: Option<usize>,
    /// … and how many there are.
    conditions: usize,
}

impl Branches {
    /// The branch the next `OR`, of `arity` branches, takes.
    fn pick(&mut self, arity: usize) -> usize {
        let i = self.met.len();
        self.met.push(arity);
        self.picks.get(i).copied().unwrap_or(0) % arity.max(1)
    }
}

/// The conditions of the `CASE WHEN c THEN …` and `IIF(c, …, …)` the SELECT list computes
/// (inside aggregates and arithmetic too), each once, in order.
fn select_conditions(select: &Select) -> Vec<&Expr> {
    fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
        let mut found = |c: &'a Expr| {
            if !out.contains(&c) {
                out.push(c);
            }
        };
        match e {
            Expr::Case {
                operand: None,
                conditions,
                else_result,
                ..
            } => {
                for w in conditions {
                    found(&w.condition);
                }
                for w in conditions {
                    walk(&w.result, out);
                }
                if let Some(x) = else_result {
                    walk(x, out);
                }
            }
            Expr::Function(f) => {
                let FunctionArguments::List(list) = &f.args else {
                    return;
                };
                let args: Vec<&Expr> = list
                    .args
                    .iter()
                    .filter_map(|a| match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
                        _ => None,
                    })
                    .collect();
                if f.name.to_string().eq_ignore_ascii_case("iif") && args.len() == 3 {
                    found(args[0]);
                }
                for x in args {
                    walk(x, out);
                }
            }
            Expr::BinaryOp { left, right, .. } => {
                walk(left, out);
                walk(right, out);
            }
            Expr::Nested(x) | Expr::UnaryOp { expr: x, .. } | Expr::Cast { expr: x, .. } => {
                walk(x, out)
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            walk(e, &mut out);
        }
    }
    out
}

/// `x IN (SELECT y …)`, or `x = (SELECT y …)` with `y` a column or its `min`/`max`: the
/// compared expression and the subquery.
fn subquery_link(e: &Expr) -> Option<(&Expr, &Query)> {
    fn scalar(e: &Expr) -> Option<&Query> {
        let mut e = e;
        while let Expr::Nested(inner) = e {
            e = inner;
        }
        let Expr::Subquery(q) = e else {
            return None;
        };
        let select = first_select(q)?;
        match select.projection.as_slice() {
            [SelectItem::UnnamedExpr(x) | SelectItem::ExprWithAlias { expr: x, .. }]
                if extreme_argument(x).is_some()
                    || matches!(x, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) =>
            {
                Some(q)
            }
            _ => None,
        }
    }
    match e {
        Expr::InSubquery {
            expr,
            subquery,
            negated: false,
        } => Some((expr, subquery)),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => match (scalar(left), scalar(right)) {
            (None, Some(q)) => Some((left, q)),
            (Some(q), None) => Some((right, q)),
            _ => None,
        },
        Expr::Nested(inner) => subquery_link(inner),
        _ => None,
    }
}

/// The argument of `min(x)` or `max(x)`, and whether it is a `max`.
fn extreme_argument(e: &Expr) -> Option<(&Expr, bool)> {
    let Expr::Function(f) = e else {
        return None;
    };
    let name = f.name.to_string();
    let max = name.eq_ignore_ascii_case("max");
    if !(max || name.eq_ignore_ascii_case("min")) {
        return None;
    }
    match &f.args {
        FunctionArguments::List(list) => match list.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] => Some((x, max)),
            _ => None,
        },
        _ => None,
    }
}

/// True if `select` answers one row of aggregates: no GROUP BY, and every column an
/// aggregate or an expression over one (`COUNT( * ) > 0`).
fn answers_one_row(select: &Select) -> bool {
    fn over_aggregate(e: &Expr) -> bool {
        match e {
            Expr::Function(f) => AGGREGATES
                .iter()
                .any(|a| f.name.to_string().eq_ignore_ascii_case(a)),
            Expr::BinaryOp { left, right, .. } => over_aggregate(left) || over_aggregate(right),
            Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => over_aggregate(inner),
            _ => false,
        }
    }
    let grouped = groups(select);
    !grouped
        && !select.projection.is_empty()
        && select.projection.iter().all(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                over_aggregate(e)
            }
            _ => false,
        })
}

/// `select` has a GROUP BY.
fn groups(select: &Select) -> bool {
    match &select.group_by {
        GroupByExpr::Expressions(keys, _) => !keys.is_empty(),
        GroupByExpr::All(_) => true,
    }
}

/// The cells `select`'s answer reads, if every item is an expression over cells and it does
/// not group; none otherwise (a `*`, a GROUP BY).
fn answered_cells(select: &Select, resolver: &Resolver) -> Vec<Cell> {
    let grouped = groups(select);
    let mut out = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } if !grouped => {
                for c in resolver.cells_read(e) {
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
            _ => return Vec::new(),
        }
    }
    out
}

/// The first cell the first `ORDER BY` key of `select` reads (through a name its SELECT list
/// gives), where it does not group; none otherwise.
fn ranked_cell(select: &Select, order_by: Option<&OrderBy>, resolver: &Resolver) -> Option<Cell> {
    if groups(select) {
        return None;
    }
    let OrderByKind::Expressions(keys) = &order_by?.kind else {
        return None;
    };
    let key = keys.first()?;
    resolver
        .cells_read(unaliased(&key.expr, select))
        .into_iter()
        .next()
}

/// The aliases whose columns `select`'s items read (directly or as an aggregate's argument),
/// in order.
fn selected_aliases(select: &Select, resolver: &Resolver) -> Vec<usize> {
    let mut out = Vec::new();
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            for (alias, _) in resolver.cells_read(e) {
                out.push(alias);
            }
        }
    }
    out
}

/// The cells an `IN` list of constants constrains among the `plain` conjuncts, with the list
/// ([`Witness::one_of`]).
fn in_lists(plain: &[&Expr], resolver: &Resolver) -> Vec<(Cell, Vec<Value>)> {
    let mut out = Vec::new();
    for c in plain {
        if let Expr::InList {
            expr,
            list,
            negated: false,
        } = c
        {
            let values: Vec<Value> = list.iter().filter_map(|v| resolver.constant(v)).collect();
            let all_constants = !values.is_empty() && values.len() == list.len();
            if let (Some(cell), true) = (resolver.cell(expr), all_constants) {
                out.push((cell, values));
            }
        }
    }
    out
}

/// How `select`'s counts shape the witness: `HAVING count(…) > N` asks for N + 1 copies of
/// its rows in one group; `ORDER BY count(…)`, for 3 (a group of 3 leads the others, which
/// seldom have as many). The copies, the counted cell, and the grouping cells (where the
/// GROUP BY lists expressions). A name the SELECT list gives a count (`COUNT(*) AS n …
/// HAVING n > 10`) stands for it.
fn count_shape(
    select: &Select,
    order_by: Option<&OrderBy>,
    resolver: &Resolver,
) -> Option<(usize, Option<Cell>, Option<Vec<Cell>>)> {
    let mut having = Vec::new();
    if let Some(h) = &select.having {
        split_and(h, None, &mut having);
    }
    let ranked = order_by.and_then(|o| match &o.kind {
        OrderByKind::Expressions(keys) => keys
            .iter()
            .find_map(|k| resolver.counted(unaliased(&k.expr, select))),
        _ => None,
    });
    let (copies, counted) = having
        .iter()
        .find_map(|h| resolver.count_at_least(&unaliased_operands(h, select)))
        .or(ranked.map(|counted| (3, counted)))?;
    let group = match &select.group_by {
        GroupByExpr::Expressions(keys, _) => {
            Some(keys.iter().filter_map(|k| resolver.cell(k)).collect())
        }
        _ => None,
    };
    Some((copies, counted, group))
}

/// `e`, or the expression the SELECT list names so where `e` is that name alone.
fn unaliased<'a>(e: &'a Expr, select: &'a Select) -> &'a Expr {
    let Expr::Identifier(name) = e else {
        return e;
    };
    select
        .projection
        .iter()
        .find_map(|item| match item {
            SelectItem::ExprWithAlias { expr, alias }
                if alias.value.eq_ignore_ascii_case(&name.value) =>
            {
                Some(expr)
            }
            _ => None,
        })
        .unwrap_or(e)
}

/// A comparison with each operand [`unaliased`].
fn unaliased_operands(e: &Expr, select: &Select) -> Expr {
    match e {
        Expr::BinaryOp { left, op, right } => Expr::BinaryOp {
            left: Box::new(unaliased(left, select).clone()),
            op: op.clone(),
            right: Box::new(unaliased(right, select).clone()),
        },
        other => other.clone(),
    }
}

/// Subqueries nested deeper than this are left to chance (ATIS nests six).
const MAX_SUBQUERY_DEPTH: usize = 8;

/// A witness grows no further than this many aliases.
const MAX_ALIASES: usize = 48;

/// At most this many witnesses of one gold through the branches of its `OR`s
/// ([`Witness::alternatives`]).
const MAX_ALTERNATIVES: usize = 8;

/// The names one SELECT's FROM gives: alias name (lower case) → alias position, and, per
/// derived table (`JOIN (SELECT account_id, SUM(amount) AS total FROM … GROUP BY …) AS T2`),
/// its alias, a column it answers, and the cell that column stands for ([`derived_columns`]).
#[derive(Default)]
struct Names {
    tables: Vec<(String, usize)>,
    derived: Vec<(String, String, Cell)>,
}

impl Names {
    fn derived(&self, alias: &str, column: &str) -> Option<Cell> {
        self.derived
            .iter()
            .find(|(a, c, _)| a == alias && c.eq_ignore_ascii_case(column))
            .map(|&(_, _, cell)| cell)
    }
}

/// The columns a derived table answers that stand for one cell of its rows: a column
/// (`account_id`, `x AS y`), and, where it groups and its witness is one row per group
/// (`copies` 1), an aggregate of one column that a group of one row answers as that column
/// (`SUM(amount) AS total_amount`: BIRD's item 495 compares the total with 3539, which one
/// order of that amount meets).
fn derived_columns(select: &Select, resolver: &Resolver, copies: usize) -> Vec<(String, Cell)> {
    let grouped = matches!(&select.group_by, GroupByExpr::Expressions(keys, _) if !keys.is_empty());
    let one_row_value = |e: &Expr| -> Option<Cell> {
        let Expr::Function(f) = e else {
            return resolver.cell(e);
        };
        let name = f.name.to_string().to_lowercase();
        if !(grouped
            && copies == 1
            && ["sum", "min", "max", "avg", "total"].contains(&name.as_str()))
        {
            return None;
        }
        let FunctionArguments::List(list) = &f.args else {
            return None;
        };
        match list.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))]
                if list.duplicate_treatment.is_none() =>
            {
                resolver.cell(x)
            }
            _ => None,
        }
    };
    select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { expr, alias } => {
                Some((alias.value.clone(), one_row_value(expr)?))
            }
            SelectItem::UnnamedExpr(e) => {
                let column = match e {
                    Expr::Identifier(id) => id.value.clone(),
                    Expr::CompoundIdentifier(parts) => parts.last()?.value.clone(),
                    _ => return None,
                };
                Some((column, resolver.cell(e)?))
            }
            _ => None,
        })
        .collect()
}

struct Resolver<'a> {
    schema: &'a SuiteSchema,
    aliases: &'a [usize],
    names: &'a Names,
    /// The aliases an unqualified column may belong to (the SELECT's own).
    scope: Range<usize>,
}

impl Cells for Resolver<'_> {
    fn cell(&self, e: &Expr) -> Option<Cell> {
        Resolver::cell(self, e)
    }

    fn constant(&self, e: &Expr) -> Option<Value> {
        Resolver::constant(self, e)
    }

    fn is_text(&self, (alias, k): Cell) -> bool {
        let column = &self.schema.tables[self.aliases[alias]].columns[k];
        matches!(column.kind, ColumnKind::Text | ColumnKind::Time)
    }

    fn date_layout(&self, (alias, k): Cell) -> Option<&str> {
        let column = &self.schema.tables[self.aliases[alias]].columns[k];
        column.rules.format.as_deref()
    }
}

/// An operand: a cell, or a constant.
enum Operand {
    Cell(Cell),
    Constant(Value),
}

impl Resolver<'_> {
    fn column(&self, alias: usize, name: &str) -> Option<Cell> {
        let table = &self.schema.tables[self.aliases[alias]];
        let k = table
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))?;
        Some((alias, k))
    }

    fn operand(&self, e: &Expr) -> Option<Operand> {
        match e {
            Expr::Nested(inner) => self.operand(inner),
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let alias = parts[parts.len() - 2].value.to_lowercase();
                let column = &parts[parts.len() - 1].value;
                match self.names.tables.iter().find(|(n, _)| *n == alias) {
                    Some(&(_, a)) => self.column(a, column).map(Operand::Cell),
                    None => self.names.derived(&alias, column).map(Operand::Cell),
                }
            }
            Expr::Identifier(id) => {
                let cell = self.scope.clone().find_map(|a| self.column(a, &id.value));
                match (cell, id.quote_style) {
                    (Some(c), _) => Some(Operand::Cell(c)),
                    // SQLite reads a double-quoted name that is no column as a string.
                    (None, Some('"')) => Some(Operand::Constant(Value::Text(id.value.clone()))),
                    _ => None,
                }
            }
            Expr::Value(v) => constant(&v.value).map(Operand::Constant),
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => match self.operand(expr)? {
                Operand::Constant(Value::Integer(n)) => Some(Operand::Constant(Value::Integer(-n))),
                Operand::Constant(Value::Real(x)) => Some(Operand::Constant(Value::Real(-x))),
                _ => None,
            },
            // Constant arithmetic (`NUMBER < 400 + 100`), folded as SQLite computes it.
            Expr::BinaryOp { left, op, right } => {
                let (Operand::Constant(l), Operand::Constant(r)) =
                    (self.operand(left)?, self.operand(right)?)
                else {
                    return None;
                };
                fold(&l, op, &r).map(Operand::Constant)
            }
            _ => None,
        }
    }

    fn cell(&self, e: &Expr) -> Option<Cell> {
        match self.operand(e)? {
            Operand::Cell(c) => Some(c),
            Operand::Constant(_) => None,
        }
    }

    /// The cells `e` reads: itself, or the arguments of the function it calls.
    fn cells_read(&self, e: &Expr) -> Vec<Cell> {
        match e {
            Expr::Nested(inner) => self.cells_read(inner),
            Expr::Function(f) => match &f.args {
                FunctionArguments::List(list) => list
                    .args
                    .iter()
                    .filter_map(|a| match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
                        _ => None,
                    })
                    .flat_map(|x| self.cells_read(x))
                    .collect(),
                _ => Vec::new(),
            },
            _ => self.cell(e).into_iter().collect(),
        }
    }

    fn constant(&self, e: &Expr) -> Option<Value> {
        match self.operand(e)? {
            Operand::Constant(v) => Some(v),
            Operand::Cell(_) => None,
        }
    }

    /// `count(…) > N` (or `>= N`, `N < count(…)`) with a small N: how many rows a group
    /// needs, and the counted cell when there is one.
    fn count_at_least(&self, e: &Expr) -> Option<(usize, Option<Cell>)> {
        let Expr::BinaryOp { left, op, right } = e else {
            return None;
        };
        let (f, n, op) = match (left.as_ref(), right.as_ref()) {
            (Expr::Function(f), other) => (f, other, op.clone()),
            (other, Expr::Function(f)) => (
                f,
                other,
                match op {
                    BinaryOperator::Lt => BinaryOperator::Gt,
                    BinaryOperator::LtEq => BinaryOperator::GtEq,
                    other => other.clone(),
                },
            ),
            _ => return None,
        };
        let counted = self.counted(&Expr::Function(f.clone()))?;
        let Some(Value::Integer(n)) = self.constant(n) else {
            return None;
        };
        let copies = match op {
            BinaryOperator::Gt => n + 1,
            BinaryOperator::GtEq | BinaryOperator::Eq => n,
            _ => return None,
        };
        if !(2..=MAX_COPIES as i64).contains(&copies) {
            return None;
        }
        Some((copies as usize, counted))
    }

    /// `count(…)`: `Some` with the counted cell, if it names one.
    fn counted(&self, e: &Expr) -> Option<Option<Cell>> {
        let Expr::Function(f) = e else {
            return None;
        };
        if !f.name.to_string().eq_ignore_ascii_case("count") {
            return None;
        }
        Some(match &f.args {
            FunctionArguments::List(list) => list.args.first().and_then(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => self.cell(e),
                _ => None,
            }),
            _ => None,
        })
    }

    /// The atoms one conjunct gives (none when it is not simple).
    fn atoms(&self, e: &Expr) -> Vec<Atom> {
        let compare = |c: Cell, k: Cmp| vec![Atom::Compare(c, k)];
        match e {
            Expr::BinaryOp { left, op, right } => {
                let (l, r) = match (self.operand(left), self.operand(right)) {
                    (Some(l), Some(r)) => (l, r),
                    (None, Some(Operand::Constant(v))) => {
                        if let Some(atoms) = self.difference(left, op, &v) {
                            return atoms;
                        }
                        return affix(left, self)
                            .zip(cmp(op, v, false))
                            .map_or(Vec::new(), |(p, k)| compared(p, &k));
                    }
                    (Some(Operand::Constant(v)), None) => {
                        return affix(right, self)
                            .zip(cmp(op, v, true))
                            .map_or(Vec::new(), |(p, k)| compared(p, &k));
                    }
                    _ => return Vec::new(),
                };
                match (l, r) {
                    (Operand::Cell(a), Operand::Cell(b)) if *op == BinaryOperator::Eq => {
                        vec![Atom::Join(a, b)]
                    }
                    (Operand::Cell(a), Operand::Constant(v)) => {
                        cmp(op, v, false).map_or(Vec::new(), |k| compare(a, k))
                    }
                    (Operand::Constant(v), Operand::Cell(a)) => {
                        cmp(op, v, true).map_or(Vec::new(), |k| compare(a, k))
                    }
                    _ => Vec::new(),
                }
            }
            Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } => match (self.cell(expr), self.constant(low), self.constant(high)) {
                (Some(c), Some(lo), Some(hi)) => {
                    vec![Atom::Compare(c, Cmp::Ge(lo)), Atom::Compare(c, Cmp::Le(hi))]
                }
                (None, Some(lo), Some(hi)) => {
                    affix(expr, self).map_or(Vec::new(), |p| between(p, &lo, &hi))
                }
                _ => Vec::new(),
            },
            Expr::Like {
                negated,
                expr,
                pattern,
                escape_char: None,
                any: false,
            } => match (self.cell(expr), self.constant(pattern)) {
                (Some(c), Some(Value::Text(p))) if *negated => compare(c, Cmp::NotLike(p)),
                (Some(c), Some(Value::Text(p))) => compare(c, Cmp::Like(p)),
                _ => Vec::new(),
            },
            Expr::InList {
                expr,
                list,
                negated: false,
            } => match (self.cell(expr), list.first().and_then(|v| self.constant(v))) {
                (Some(c), Some(v)) => compare(c, Cmp::Eq(v)),
                _ => Vec::new(),
            },
            Expr::Nested(inner) => self.atoms(inner),
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => self.negated(expr, None),
            _ => Vec::new(),
        }
    }

    /// The atoms of `x - y op c` for numeric cells `x`, `y` and a number `c` (BIRD's item 129,
    /// `away_team_goal - home_team_goal > 0`): `y` pinned to an end of its column's range (the
    /// low end for `>`, `>=`, `=`; the high end for `<`, `<=`; 0 without one) and `x` compared
    /// with that plus `c`. The witness then holds the difference, and the near miss of the
    /// bound on `x` is a row at the bound itself: `>` told apart from `>=` by a draw. `None`
    /// for anything else.
    fn difference(&self, e: &Expr, op: &BinaryOperator, c: &Value) -> Option<Vec<Atom>> {
        let Expr::BinaryOp {
            left,
            op: BinaryOperator::Minus,
            right,
        } = e
        else {
            return None;
        };
        let (x, y) = (self.cell(left)?, self.cell(right)?);
        let numeric = |(alias, k): Cell| {
            let column = &self.schema.tables[self.aliases[alias]].columns[k];
            matches!(column.kind, ColumnKind::Int | ColumnKind::Real)
        };
        if !numeric(x) || !numeric(y) {
            return None;
        }
        let rules = &self.schema.tables[self.aliases[y.0]].columns[y.1].rules;
        let low = matches!(
            op,
            BinaryOperator::Gt | BinaryOperator::GtEq | BinaryOperator::Eq
        );
        let end = if low { &rules.min } else { &rules.max };
        let pinned = match end.as_ref().and_then(to_sql_value) {
            Some(v @ (Value::Integer(_) | Value::Real(_))) => v,
            _ => Value::Integer(0),
        };
        let bound = fold(&pinned, &BinaryOperator::Plus, c)?;
        let k = cmp(op, bound, false)?;
        Some(vec![Atom::Compare(y, Cmp::Eq(pinned)), Atom::Compare(x, k)])
    }

    /// The atom of `x = y || 'c'` (or `'c' || y`, either side of `=`) where `atoms` pin the
    /// cell `y` to a text `v`: `x = v || c`, as SQLite joins them. Nothing for anything else.
    fn concatenated(&self, e: &Expr, atoms: &[Atom]) -> Vec<Atom> {
        let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = e
        else {
            return Vec::new();
        };
        let pinned = |c: Cell| {
            atoms.iter().find_map(|a| match a {
                Atom::Compare(d, Cmp::Eq(Value::Text(v))) if *d == c => Some(v.clone()),
                _ => None,
            })
        };
        let joined = |e: &Expr| -> Option<String> {
            let Expr::BinaryOp {
                left,
                op: BinaryOperator::StringConcat,
                right,
            } = e
            else {
                return None;
            };
            let text = |o: Operand| match o {
                Operand::Cell(c) => pinned(c),
                Operand::Constant(Value::Text(t)) => Some(t),
                Operand::Constant(_) => None,
            };
            Some(text(self.operand(left)?)? + &text(self.operand(right)?)?)
        };
        let held = match (self.cell(left), self.cell(right)) {
            (Some(x), None) => joined(right).map(|v| (x, v)),
            (None, Some(x)) => joined(left).map(|v| (x, v)),
            _ => None,
        };
        held.map_or(Vec::new(), |(x, v)| {
            vec![Atom::Compare(x, Cmp::Eq(Value::Text(v)))]
        })
    }

    /// The atom of `NOT e`: of `e = b OR …`, the branch `branches` picks (the first without),
    /// whose conjuncts must all be simple, or holding it is not sure.
    fn negated(&self, e: &Expr, branches: Option<&mut Branches>) -> Vec<Atom> {
        let mut disjuncts = Vec::new();
        split_or(e, &mut disjuncts);
        let chosen = match branches {
            Some(b) if disjuncts.len() > 1 => disjuncts[b.pick(disjuncts.len())],
            _ => disjuncts[0],
        };
        let mut conjuncts = Vec::new();
        split_and(chosen, None, &mut conjuncts);
        let mut held = Vec::new();
        for c in conjuncts {
            let atoms = self.atoms(c);
            if atoms.is_empty() || atoms.iter().any(|a| matches!(a, Atom::Not(_))) {
                return Vec::new();
            }
            held.extend(atoms);
        }
        vec![Atom::Not(held)]
    }
}

/// `l op r` for numeric constants and `+`, `-`, `*`, as SQLite computes it (integers stay
/// integers unless they overflow).
pub fn fold(l: &Value, op: &BinaryOperator, r: &Value) -> Option<Value> {
    match (l, r) {
        (Value::Integer(a), Value::Integer(b)) => match op {
            BinaryOperator::Plus => a.checked_add(*b),
            BinaryOperator::Minus => a.checked_sub(*b),
            BinaryOperator::Multiply => a.checked_mul(*b),
            _ => None,
        }
        .map(Value::Integer),
        (Value::Integer(_) | Value::Real(_), Value::Integer(_) | Value::Real(_)) => {
            let real = |v: &Value| match v {
                Value::Integer(n) => *n as f64,
                Value::Real(x) => *x,
                _ => f64::NAN,
            };
            let (a, b) = (real(l), real(r));
            match op {
                BinaryOperator::Plus => Some(a + b),
                BinaryOperator::Minus => Some(a - b),
                BinaryOperator::Multiply => Some(a * b),
                _ => None,
            }
            .map(Value::Real)
        }
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::atoms::like;
    use crate::schema::tests::academic;

    pub(crate) const JAGADISH: &str = r#"SELECT PUBLICATIONalias0.TITLE FROM AUTHOR AS AUTHORalias0 , AUTHOR AS AUTHORalias1 , JOURNAL AS JOURNALalias0 , PUBLICATION AS PUBLICATIONalias0 , WRITES AS WRITESalias0 , WRITES AS WRITESalias1 WHERE AUTHORalias0.NAME = "H. V. Jagadish" AND AUTHORalias1.NAME = "Yunyao Li" AND JOURNALalias0.NAME = "PVLDB" AND PUBLICATIONalias0.JID = JOURNALalias0.JID AND PUBLICATIONalias0.YEAR > 2005 AND WRITESalias0.AID = AUTHORalias0.AID AND WRITESalias0.PID = PUBLICATIONalias0.PID AND WRITESalias1.AID = AUTHORalias1.AID AND WRITESalias1.PID = PUBLICATIONalias0.PID ;"#;

    #[test]
    fn an_empty_numeric_column_golds_compare_with_text_becomes_text() {
        let mut schema = academic();
        // The shipped IMDB schema declares `name int`: as if AUTHOR.NAME were so.
        schema.tables[0].columns[1].kind = ColumnKind::Int;
        let s = schema.clone().with_text_comparisons([JAGADISH]);
        assert_eq!(s.tables[0].columns[1].kind, ColumnKind::Text);
        // YEAR is compared with a number: it stays numeric.
        assert_eq!(s.tables[2].columns[3].kind, ColumnKind::Int);
        // A column whose original data is numeric keeps its kind.
        schema.tables[0].columns[1].original = vec![rusqlite::types::Value::Integer(1)];
        let s = schema.with_text_comparisons([JAGADISH]);
        assert_eq!(s.tables[0].columns[1].kind, ColumnKind::Int);
    }

    #[test]
    fn a_near_miss_of_the_sweep_has_rows_of_its_own_from_its_atom_to_the_answer() {
        // Aliases: AUTHOR ×2, JOURNAL, PUBLICATION (selected), WRITES ×2.
        let schema = academic();
        let w = Witness::parse(JAGADISH, &schema).unwrap();
        assert_eq!(w.selected, vec![3]);
        // Jagadish's name: author → writes → publication; the other writes row joins the
        // publication's key. Li and the journal are the witness's rows.
        assert_eq!(
            w.fresh_aliases(0, &schema),
            Some(vec![true, false, false, true, true, true])
        );
        // The year: the publication, and the writes rows its unique key joins.
        assert_eq!(
            w.fresh_aliases(4, &schema),
            Some(vec![false, false, false, true, true, true])
        );
        // The journal's name: journal → publication, and the writes rows again.
        assert_eq!(
            w.fresh_aliases(2, &schema),
            Some(vec![false, false, true, true, true, true])
        );
        // A violated join: the side nearer the answer (the publication) has rows of its own.
        assert_eq!(
            w.fresh_aliases(3, &schema),
            Some(vec![false, false, false, true, true, true])
        );
        // Nothing selected to reach (`count(*)`): every alias has rows of its own.
        let count = "SELECT count(*) FROM PUBLICATION AS P WHERE P.YEAR > 2000";
        let c = Witness::parse(count, &schema).unwrap();
        assert_eq!(c.fresh_aliases(0, &schema), None);
    }

    #[test]
    fn a_count_the_select_list_names_shapes_the_group_as_the_count_itself() {
        // BIRD item 323: `COUNT(*) AS post_count … HAVING post_count > 10`, in a derived
        // table: eleven rows of one group, as for `HAVING COUNT(*) > 10`.
        let schema = academic();
        let named = "SELECT AVG(A.AID) FROM AUTHOR AS A INNER JOIN (SELECT W.AID, COUNT(*) AS n \
                     FROM WRITES AS W GROUP BY W.AID HAVING n > 10) AS T ON A.AID = T.AID WHERE A.NAME = 'Li'";
        let written = "SELECT AVG(A.AID) FROM AUTHOR AS A INNER JOIN (SELECT W.AID, COUNT(*) AS n \
                       FROM WRITES AS W GROUP BY W.AID HAVING COUNT(*) > 10) AS T ON A.AID = T.AID WHERE A.NAME = 'Li'";
        let w = Witness::parse(named, &schema).unwrap();
        assert_eq!(w.copies, 11);
        // No constant compared: the derived table's group is the witness still.
        let bare = named.replace(" WHERE A.NAME = 'Li'", "");
        let b = Witness::parse(&bare, &schema).unwrap();
        assert!(b.atoms.is_empty() && b.counted_within);
        assert_eq!(b.copies, 11);
        assert_eq!(w, Witness::parse(written, &schema).unwrap());
        // Ranked by the name: three rows lead the others, as for `ORDER BY COUNT(*)`.
        let ranked = "SELECT W.AID, COUNT(*) AS n FROM WRITES AS W JOIN AUTHOR AS A \
                      ON W.AID = A.AID GROUP BY W.AID ORDER BY n DESC LIMIT 1";
        assert_eq!(Witness::parse(ranked, &schema).unwrap().copies, 3);
        // A name that is no count's shapes nothing.
        let other = "SELECT W.AID, MAX(W.PID) AS n FROM WRITES AS W JOIN AUTHOR AS A \
                     ON W.AID = A.AID GROUP BY W.AID HAVING n > 10";
        assert_eq!(Witness::parse(other, &schema).unwrap().copies, 1);
    }

    #[test]
    fn a_conjunction_of_joins_and_constants() {
        let w = Witness::parse(JAGADISH, &academic()).unwrap();
        assert_eq!(w.aliases, vec![0, 0, 1, 2, 3, 3]);
        assert_eq!(w.copies, 1);
        assert_eq!(w.atoms.len(), 9);
        assert_eq!(
            w.atoms[0],
            Atom::Compare((0, 1), Cmp::Eq(Value::Text("H. V. Jagadish".into())))
        );
        assert_eq!(w.atoms[3], Atom::Join((3, 2), (2, 0)));
        assert_eq!(
            w.atoms[4],
            Atom::Compare((3, 3), Cmp::Gt(Value::Integer(2005)))
        );
        let i = w.instance(None);
        // Both WRITES rows point at the one publication; each at its own author.
        assert_eq!(i.cells[4][&1], i.cells[5][&1]);
        assert_eq!(i.cells[4][&1], i.cells[3][&0]);
        assert_eq!(i.cells[4][&0], i.cells[0][&0]);
        assert_ne!(i.cells[4][&0], i.cells[5][&0]);
        assert_eq!(
            i.fixed(i.cells[1][&1]),
            Some(&Value::Text("Yunyao Li".into()))
        );
        // The near miss of the join WRITESalias1.PID = PUBLICATIONalias0.PID.
        let miss = w.instance(Some(8));
        assert_ne!(miss.cells[5][&1], miss.cells[3][&0]);
        assert_eq!(miss.apart[miss.cells[5][&1]], vec![miss.cells[3][&0]]);
        // The near miss of YEAR > 2005.
        let miss = w.instance(Some(4));
        assert_eq!(
            miss.checks[miss.cells[3][&3]],
            vec![Cmp::Le(Value::Integer(2005))]
        );
    }

    #[test]
    fn join_on_unqualified_between_like_in_and_flipped() {
        let w = Witness::parse(
            "SELECT T1.TITLE FROM PUBLICATION AS T1 JOIN JOURNAL AS T2 ON T1.JID = T2.JID \
             WHERE YEAR BETWEEN 2000 AND 2010 AND T2.NAME LIKE '%VLDB%' AND 5 < T1.PID \
             AND T1.TITLE IN ('a', 'b') AND (T1.YEAR > 1 OR T1.YEAR < 0) AND NOT T1.PID = 3",
            &academic(),
        )
        .unwrap();
        assert_eq!(
            w.atoms,
            vec![
                Atom::Join((0, 2), (1, 0)),
                Atom::Compare((0, 3), Cmp::Ge(Value::Integer(2000))),
                Atom::Compare((0, 3), Cmp::Le(Value::Integer(2010))),
                Atom::Compare((1, 1), Cmp::Like("%VLDB%".into())),
                Atom::Compare((0, 0), Cmp::Gt(Value::Integer(5))),
                Atom::Compare((0, 1), Cmp::Eq(Value::Text("a".into()))),
                // Of `a OR b`, the conjuncts of `a`.
                Atom::Compare((0, 3), Cmp::Gt(Value::Integer(1))),
                // `NOT b`: left to chance, held in its near miss.
                Atom::Not(vec![Atom::Compare((0, 0), Cmp::Eq(Value::Integer(3)))]),
            ]
        );
        assert!(Witness::parse("SELECT 1", &academic()).is_none());
        assert!(Witness::parse("SELECT * FROM AUTHOR", &academic()).is_none());
        assert!(Witness::parse("not sql at all", &academic()).is_none());
    }

    #[test]
    fn constructed_values_satisfy_the_checks() {
        let w = Witness::parse(
            "SELECT * FROM PUBLICATION WHERE YEAR > 2005 AND YEAR <= 2007 AND TITLE LIKE '%data_base%'",
            &academic(),
        )
        .unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        for violated in [None, Some(0), Some(1), Some(2)] {
            let i = w.instance(violated);
            for c in 0..i.checks.len() {
                for template in [Value::Integer(0), Value::Text("x".into())] {
                    let v = i.construct(c, &template, &mut rng);
                    assert!(i.fits(c, &v), "{violated:?} {:?} {v:?}", i.checks[c]);
                }
            }
        }
    }

    /// A gold of two readings under one `OR`, the second over tables the first does not join.
    pub(crate) const TWO_READINGS: &str =
        "SELECT P.TITLE FROM AUTHOR AS A , JOURNAL AS J , PUBLICATION AS P , WRITES AS W \
        WHERE ( J.NAME = 'PVLDB' AND P.JID = J.JID ) \
        OR ( A.NAME = 'Yunyao Li' AND W.AID = A.AID AND W.PID = P.PID AND P.YEAR > 2005 )";

    #[test]
    fn a_derived_tables_columns_stand_for_its_cells_in_a_profiled_schema() {
        // BIRD item 495's shape: the total a derived table groups, compared with a constant.
        let gold = "SELECT A.NAME FROM AUTHOR AS A INNER JOIN (SELECT AID, JID, SUM(YEAR) AS total \
                    FROM PUBLICATION GROUP BY AID, JID) AS T ON A.AID = T.AID WHERE A.AID = 3 AND T.total = 2009";
        let gold = gold.replace("SELECT AID, JID", "SELECT PID AS AID, JID");
        let mut schema = academic();
        let unprofiled = Witness::parse(&gold, &schema).unwrap();
        schema.profiled = true;
        let w = Witness::parse(&gold, &schema).unwrap();
        // Aliases: AUTHOR, then PUBLICATION (the derived table's).
        assert_eq!(w.aliases[..2], [0, 2]);
        assert!(
            w.atoms.contains(&Atom::Join((0, 0), (1, 0))),
            "{:?}",
            w.atoms
        );
        assert!(w
            .atoms
            .contains(&Atom::Compare((1, 3), Cmp::Eq(Value::Integer(2009)))));
        assert_eq!(unprofiled.atoms.len() + 2, w.atoms.len());
        // A group of several rows sums several: no cell stands for the total.
        let counted = gold.replace(
            "GROUP BY AID, JID)",
            "GROUP BY AID, JID HAVING COUNT(*) > 2)",
        );
        let c = Witness::parse(&counted, &schema).unwrap();
        assert!(!c
            .atoms
            .iter()
            .any(|a| matches!(a, Atom::Compare(_, Cmp::Eq(Value::Integer(2009))))));
    }

    #[test]
    fn a_difference_compared_with_a_constant_pins_one_side() {
        // BIRD item 129's shape: `away_team_goal - home_team_goal > 0`.
        let schema = academic();
        let gold = "SELECT P.PID FROM PUBLICATION AS P WHERE P.YEAR - P.JID > 0";
        let w = Witness::parse(gold, &schema).unwrap();
        assert_eq!(
            w.atoms,
            vec![
                Atom::Compare((0, 2), Cmp::Eq(Value::Integer(0))),
                Atom::Compare((0, 3), Cmp::Gt(Value::Integer(0))),
            ]
        );
        // The near miss of the bound: a row exactly on it, where `>= 0` holds and `> 0` not.
        let near = w.instance(Some(1));
        let year = near.cells[0][&3];
        assert!(near.fits(year, &Value::Integer(0)));
        assert!(!near.fits(year, &Value::Integer(1)));
        // Text on either side: no atom.
        let text = "SELECT P.PID FROM PUBLICATION AS P WHERE P.TITLE - P.JID > 0";
        assert!(Witness::parse(text, &schema).is_none());
    }

    #[test]
    fn a_cell_equal_to_a_pinned_cell_joined_with_a_constant_holds_the_joined_text() {
        // BIRD's item 418: `T2.atom_id = T1.molecule_id || '_1'` beside `T1.molecule_id =
        // 'TR009'`. Here: a title made of the journal's pinned name and a suffix.
        let text = |w: &Witness| -> Vec<String> {
            w.atoms
                .iter()
                .filter_map(|a| match a {
                    Atom::Compare(_, Cmp::Eq(Value::Text(t))) => Some(t.clone()),
                    _ => None,
                })
                .collect()
        };
        let gold = "SELECT P.PID FROM JOURNAL AS J JOIN PUBLICATION AS P ON P.JID = J.JID \
            WHERE J.NAME = 'PVLDB' AND P.TITLE = J.NAME || '_1'";
        let w = Witness::parse(gold, &academic()).unwrap();
        assert_eq!(text(&w), ["PVLDB", "PVLDB_1"]);
        let flipped = gold.replace("P.TITLE = J.NAME || '_1'", "'v' || J.NAME = P.TITLE");
        assert_eq!(
            text(&Witness::parse(&flipped, &academic()).unwrap()),
            ["PVLDB", "vPVLDB"]
        );
        // Unpinned (the name only compared, or not at all), or another operator: no atom.
        for other in [
            gold.replace("J.NAME = 'PVLDB'", "J.NAME > 'PVLDB'"),
            gold.replace("P.TITLE = J.NAME || '_1'", "P.TITLE > J.NAME || '_1'"),
        ] {
            let w = Witness::parse(&other, &academic()).unwrap();
            assert!(!text(&w).iter().any(|t| t.ends_with("_1")), "{other}");
        }
    }

    #[test]
    fn each_branch_of_an_or_has_a_witness() {
        let all = Witness::alternatives(TWO_READINGS, &academic());
        assert_eq!(all.len(), 2);
        assert_eq!(
            all[0],
            Witness::parse(TWO_READINGS, &academic()).unwrap(),
            "the first takes the first branch"
        );
        let names = |w: &Witness| -> Vec<Cmp> {
            w.atoms
                .iter()
                .filter_map(|a| match a {
                    Atom::Compare(_, c @ Cmp::Eq(Value::Text(_))) => Some(c.clone()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(names(&all[0]), vec![Cmp::Eq(Value::Text("PVLDB".into()))]);
        assert_eq!(
            names(&all[1]),
            vec![Cmp::Eq(Value::Text("Yunyao Li".into()))]
        );
        // Three `OR`s of two branches: the first witness, and one per other branch.
        let three = "SELECT P.PID FROM PUBLICATION AS P WHERE ( P.YEAR = 1 OR P.YEAR = 2 ) \
            AND ( P.JID = 3 OR P.JID = 4 ) AND ( P.TITLE = 'a' OR P.TITLE = 'b' )";
        assert_eq!(Witness::alternatives(three, &academic()).len(), 4);
    }

    /// A ratio of conditional sums (BIRD's golds ask so) holds nothing to tell its neighbors
    /// apart where no row meets a condition: each condition has a witness of its own, after
    /// the plain one, each once; a gold with no other atom has those only.
    #[test]
    fn each_condition_the_select_computes_has_a_witness() {
        let names = |w: &Witness| -> Vec<Cmp> {
            w.atoms
                .iter()
                .filter_map(|a| match a {
                    Atom::Compare(_, c) => Some(c.clone()),
                    _ => None,
                })
                .collect()
        };
        let text = |s: &str| Cmp::Eq(Value::Text(s.into()));
        let ratio = "SELECT CAST(SUM(CASE WHEN J.NAME = 'PVLDB' THEN 1 ELSE 0 END) AS REAL) /             SUM(IIF(J.NAME = 'VLDB', 1, 0)) + COUNT(CASE WHEN J.NAME = 'PVLDB' THEN 1 END)             FROM JOURNAL AS J JOIN PUBLICATION AS P ON P.JID = J.JID WHERE P.YEAR > 2005";
        let all = Witness::alternatives(ratio, &academic());
        assert_eq!(all.len(), 3);
        assert_eq!(all[0], Witness::parse(ratio, &academic()).unwrap());
        assert_eq!(names(&all[0]), vec![Cmp::Gt(Value::Integer(2005))]);
        assert_eq!(
            names(&all[1]),
            vec![Cmp::Gt(Value::Integer(2005)), text("PVLDB")]
        );
        assert_eq!(
            names(&all[2]),
            vec![Cmp::Gt(Value::Integer(2005)), text("VLDB")]
        );
        let alone = "SELECT SUM(CASE WHEN NAME = 'PVLDB' THEN 1 ELSE 0 END) FROM JOURNAL";
        let only = Witness::alternatives(alone, &academic());
        assert_eq!(
            only.iter().map(names).collect::<Vec<_>>(),
            vec![vec![text("PVLDB")]]
        );
        assert_eq!(Witness::parse(alone, &academic()), None);
    }

    #[test]
    fn the_sweeps_rounds_take_each_kind_of_edge_value_in_turn() {
        let schema = academic();
        let gold = r#"SELECT AUTHORalias0.AID FROM AUTHOR AS AUTHORalias0 WHERE AUTHORalias0.NAME = "Jagadish" AND AUTHORalias0.AID <= 1700 ;"#;
        let w = Witness::parse(gold, &schema).unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        // Beside the name, rounds 0–4: above it and a prefix match, below it, another case, a
        // word before it, a word after it.
        let near = w.instance(Some(0));
        let name = near.cells[0][&1];
        let turn: Vec<String> = (0..5)
            .map(|r| match near.beside_in_turn(name, r, &mut rng) {
                Some(Value::Text(t)) => t,
                other => panic!("{other:?}"),
            })
            .collect();
        let c = "Jagadish";
        assert!(
            turn[0].as_str() > c && like("Jagadish%", &turn[0]),
            "{turn:?}"
        );
        assert!(
            turn[1].as_str() < c && !like("%Jagadish%", &turn[1]),
            "{turn:?}"
        );
        assert!(turn[2] != c && like("Jagadish", &turn[2]), "{turn:?}");
        assert!(
            !like("Jagadish%", &turn[3]) && like("%Jagadish%", &turn[3]),
            "{turn:?}"
        );
        assert!(
            like("Jagadish%", &turn[4]) && turn[4].len() == c.len() + 2,
            "{turn:?}"
        );
        // Past the violated bound: one step inside `> 1700`.
        let past = w.instance(Some(1));
        let aid = past.cells[0][&0];
        assert_eq!(past.past_bound(aid, &mut rng), Some(Value::Integer(1701)));
        assert_eq!(near.past_bound(aid, &mut rng), None, "no strict bound");
    }
}
