//! Parents implied by enforced references (`spec/test_suite.md`, "Random databases"): a
//! witness cell that holds a constant (`FLIGHT.AIRLINE_CODE = "US"`) in a column with an
//! enforced reference (`FLIGHT.AIRLINE_CODE` → `AIRLINE.AIRLINE_CODE`) needs a parent row
//! holding that constant, or the witness row would dangle and be abandoned. When the gold
//! joins no such parent to the cell, the witness gets an alias of the parent table joined to
//! it. These aliases and atoms come after the gold's own ([`Witness::gold_atoms`],
//! [`Witness::implied_from`]): a near miss never violates them.

use std::collections::HashMap;

use super::schema::SuiteSchema;
use super::witness::{Atom, Cell, Witness};

/// At most this many parents are added to one witness.
const MAX_IMPLIED: usize = 16;

/// Adds to `w` an alias of the parent table of every enforced reference from a cell whose
/// class (cells equated by the witness's joins) is compared with a constant and holds no
/// cell of that parent column; repeated for the parents' own references.
pub fn close_references(w: &mut Witness, schema: &SuiteSchema) {
    let mut classes = Classes::default();
    let mut constrained: Vec<Cell> = Vec::new();
    let mut pending: Vec<Cell> = Vec::new();
    for atom in &w.atoms {
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
        let Some(&table) = w.aliases.get(alias) else {
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
                .any(|&(a, k)| w.aliases.get(a) == Some(&f.parent_table) && k == f.parent_column);
            if joined || added >= MAX_IMPLIED {
                continue;
            }
            let parent = (w.aliases.len(), f.parent_column);
            w.aliases.push(f.parent_table);
            w.atoms.push(Atom::Join(cell, parent));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::Source;
    use crate::random_db::{in_memory, Constants};
    use crate::schema::ForeignKey;
    use crate::witness::tests::academic;

    /// `academic` with `PUBLICATION.JID` → `JOURNAL.JID` enforced.
    fn referenced() -> SuiteSchema {
        let mut schema = academic();
        schema.foreign_keys.push(ForeignKey {
            table: 2,
            column: 2,
            parent_table: 1,
            parent_column: 0,
            source: Source::Declared,
            enforced: true,
        });
        schema
    }

    fn holds(schema: &SuiteSchema, gold: &str) -> usize {
        let c = Constants::from_golds([gold], schema).focused_on(gold, schema);
        (0..40)
            .filter(|&seed| {
                let db = in_memory(schema, &c, seed).unwrap();
                let held = db.prepare(gold).unwrap().exists([]).unwrap();
                held
            })
            .count()
    }

    #[test]
    fn a_constant_in_a_reference_gets_its_parent_row() {
        let schema = referenced();
        let gold = r#"SELECT P.TITLE FROM PUBLICATION AS P WHERE P.JID = 4242 AND P.YEAR > 2005"#;
        let w = Witness::parse(gold, &schema).unwrap();
        assert_eq!((w.gold_atoms, w.implied_from), (2, 1));
        assert_eq!(w.aliases, vec![2, 1]);
        assert_eq!(w.atoms[2], Atom::Join((0, 2), (1, 0)));
        let held = holds(&schema, gold);
        assert!(held >= 25, "the gold holds on {held} of 40");
        // A gold that joins the parent itself needs none.
        let joined = r#"SELECT P.TITLE FROM PUBLICATION AS P , JOURNAL AS J WHERE P.JID = J.JID AND J.JID = 4242"#;
        let w = Witness::parse(joined, &schema).unwrap();
        assert_eq!(
            (w.atoms.len(), w.aliases.len()),
            (w.gold_atoms, w.implied_from)
        );
    }

    #[test]
    fn nested_in_and_extreme_subqueries_join_the_witness() {
        let schema = referenced();
        let gold = r#"SELECT DISTINCT P.TITLE FROM PUBLICATION AS P WHERE ( P.JID IN ( SELECT J.JID FROM JOURNAL AS J WHERE J.NAME = "PVLDB" ) AND P.YEAR > 2005 ) AND P.YEAR = ( SELECT MIN( P2.YEAR ) FROM PUBLICATION AS P2 WHERE P2.JID IN ( SELECT J2.JID FROM JOURNAL AS J2 WHERE J2.NAME = "PVLDB" ) AND P2.YEAR > 2005 ) ;"#;
        let w = Witness::parse(gold, &schema).unwrap();
        // P, J, P2, J2; P.JID = J.JID, J.NAME, P.YEAR > 2005, P.YEAR = P2.YEAR, P2.JID = J2.JID,
        // J2.NAME, P2.YEAR > 2005.
        assert_eq!(w.aliases, vec![2, 1, 2, 1]);
        assert_eq!(w.gold_atoms, 7);
        assert!(w.atoms.contains(&Atom::Join((0, 2), (1, 0))));
        assert!(w.atoms.contains(&Atom::Join((0, 3), (2, 3))));
        let held = holds(&schema, gold);
        assert!(held >= 25, "the gold holds on {held} of 40");
        // A disjunction: its first branch's conjuncts.
        let or = r#"SELECT P.TITLE FROM PUBLICATION AS P WHERE ( P.YEAR = 2001 AND P.TITLE = "x" ) OR P.YEAR = 1999"#;
        let w = Witness::parse(or, &schema).unwrap();
        assert_eq!(w.gold_atoms, 2);
        // Negated or correlated-looking forms are left to chance.
        let not_in = r#"SELECT P.TITLE FROM PUBLICATION AS P WHERE P.JID NOT IN ( SELECT J.JID FROM JOURNAL AS J WHERE J.NAME = "PVLDB" ) AND P.YEAR = 3"#;
        let w = Witness::parse(not_in, &schema).unwrap();
        assert_eq!((w.aliases.len(), w.gold_atoms), (1, 1));
    }
}
