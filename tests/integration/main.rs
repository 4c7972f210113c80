//! The project's integration tests, in one test binary (`cargo test --test integration`):
//! the command line end to end ([`cli`]), runs resumed from their journal ([`resume`]),
//! answers as language models write them ([`extraction`]), trials as libtest sees them
//! ([`trials`]), provenance in snapshots ([`provenance`]), BLEU against sacreBLEU ([`bleu`]), a
//! metric added from outside the core in one file and one registry line ([`registry`]),
//! predictions of several statements in both exec modes ([`statements`]), and the architecture
//! rules crate boundaries do not enforce ([`architecture`]).

mod architecture;
mod bleu;
mod cli;
mod counterexample;
mod extraction;
mod gold_checks;
mod provenance;
mod registry;
mod resume;
mod statements;
mod trials;
