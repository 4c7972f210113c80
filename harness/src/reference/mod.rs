//! The reference wing: byte-exact reproductions of other evaluators' behaviour, quirks
//! included, so that our verdicts agree with theirs item for item.
//!
//! * [`spider_sql`]: the official Spider evaluator's SQL parser, hardness and component
//!   comparison (exact set match).
//! * [`spider_text`]: the Spider test-suite evaluator's query-text preprocessing before
//!   execution; [`sqlparse`]: the parts of `sqlparse` it relies on and the functions it defines
//!   in terms of them (`DISTINCT` removal, the `--plug_value` value extraction steps).
//! * [`plug_value`]: the candidates of the Spider evaluator's `--plug_value` mode.
//! * [`defog`]: Defog SQL-Eval's gold expansion and result comparison (the reference of the
//!   `sqleval` format and metric).
//! * [`pcm`]: SEDE's Partial Component Match over sqlparser's MsSql dialect.
//! * [`sacrebleu`]: sacreBLEU's BLEU (13a tokenizer, smoothing) for SQL-to-text.
//!
//! The rest of the library reaches this wing only through [`crate::metric`]: each metric
//! builds on its reference and re-exports what other modules need of it. The wing itself may
//! use the file-format readers ([`crate::dataset::tables`]) and Python's semantics
//! ([`crate::python`]), which live below the metrics because readers and denotations need them
//! too.

pub mod defog;
pub mod pcm;
pub mod plug_value;
mod py_regex;
pub mod sacrebleu;
pub mod spider_sql;
pub mod spider_text;
pub mod sqlparse;
