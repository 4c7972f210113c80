//! Parents implied by enforced references (`spec/test_suite.md`, "Random databases"): a
//! witness cell that holds a constant (`FLIGHT.AIRLINE_CODE = "US"`) in a column with an
//! enforced reference (`FLIGHT.AIRLINE_CODE` → `AIRLINE.AIRLINE_CODE`) needs a parent row
//! holding that constant, or the witness row would dangle and be abandoned. When the gold
//! joins no such parent to the cell, the witness gets an alias of the parent table joined to
//! it. These aliases and atoms come after the gold's own ([`Witness::gold_atoms`],
//! [`Witness::implied_from`])
//!
//! It sits below the witness that calls it ([`super::witness`]): it reads and extends the
//! aliases and atoms of one, in the vocabulary of [`super::atoms`], and is tested through
//! [`Witness::parse`] there.
//!
//! [`Witness::gold_atoms`]: super::witness::Witness::gold_atoms
//! [`Witness::implied_from`]: super::witness::Witness::implied_from
//! [`Witness::parse`]: super::witness::Witness::parse: a near miss never violates them.

use std::collections::HashMap;

use super::atoms::{Atom, Cell};
use super::schema::SuiteSchema;

/// At most this many parents are added to one witness.
const MAX_IMPLIED: usize = 16;

/// Adds to a witness's `aliases` (table positions) an alias of the parent table of every
/// enforced reference from a cell whose class (cells equated by the joins among `atoms`) is
/// compared with a constant and holds no cell of that parent column, and to its `atoms` the
/// join of the two; repeated for the parents' own references.
pub fn close_references(aliases: &mut Vec<usize>, atoms: &mut Vec<Atom>, schema: &SuiteSchema) {
    let mut classes = Classes::default();
    let mut constrained: Vec<Cell> = Vec::new();
    let mut pending: Vec<Cell> = Vec::new();
    for atom in atoms.iter() {
        match atom {
            Atom::Join(a, b) => {
                classes.union(*a, *b);
                pending.extend([*a, *b]);
            }
            Atom::Compare(a, _) => {
                constrained.push(*a);
                pending.push(*a);
            }
            Atom::Not(_) => {}
        }
    }
    let mut added = 0;
    while let Some(cell) = pending.pop() {
        let (alias, column) = cell;
        let Some(&table) = aliases.get(alias) else {
            continue;
        };
        let root = classes.find(cell);
        if !constrained.iter().any(|&c| classes.find(c) == root) {
            continue;
        }
        for f in schema.foreign_keys.iter().filter(|f| {
            f.enforced && f.table == table && f.column == column && f.parent_table != f.table
        }) {
            let root = classes.find(cell);
            let members = classes.members(root);
            let joined = members
                .iter()
                .any(|&(a, k)| aliases.get(a) == Some(&f.parent_table) && k == f.parent_column);
            if joined || added >= MAX_IMPLIED {
                continue;
            }
            let parent = (aliases.len(), f.parent_column);
            aliases.push(f.parent_table);
            atoms.push(Atom::Join(cell, parent));
            classes.union(cell, parent);
            pending.push(parent);
            added += 1;
        }
    }
}

/// Union-find over cells.
#[derive(Default)]
struct Classes {
    parent: HashMap<Cell, Cell>,
}

impl Classes {
    fn find(&mut self, c: Cell) -> Cell {
        let mut r = c;
        while let Some(&p) = self.parent.get(&r) {
            if p == r {
                break;
            }
            r = p;
        }
        self.parent.insert(c, r);
        r
    }

    fn union(&mut self, a: Cell, b: Cell) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra, rb);
        }
    }

    fn members(&mut self, root: Cell) -> Vec<Cell> {
        let cells: Vec<Cell> = self.parent.keys().copied().collect();
        cells
            .into_iter()
            .filter(|&c| self.find(c) == root)
            .collect()
    }
}
