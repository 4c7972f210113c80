//! Architecture checks of the workspace: what crate boundaries do not enforce. It reads the
//! source trees of every crate (the core `crates/core`, the reference wing `crates/reference`,
//! the distiller `crates/distill`, SpiderCompose `crates/compose` and the command line `src/`)
//! and checks:
//!
//! 1. the crates depend on each other as `ARCHITECTURE.md` draws them (`LAYERS`): the
//!    reference wing on no other crate, the core on the wing alone, the distiller and
//!    SpiderCompose on the core (not on each other, not on the wing), the command line on all;
//! 2. in each crate, the top-level modules (a file `src/X.rs` or a folder `src/X/`, never the
//!    crate root) import each other without a cycle, where X depends on Y when a file of X
//!    names a path `crate::Y…`;
//! 3. in the core, only `metric` and `exec_plan` reach the reference wing
//!    (`sqlsuite_reference::…`), besides Python's semantics (`python`, which readers and
//!    denotations need too) and the reader of Spider's `tables.json` (from `dataset`);
//! 4. every `.rs` file longer than 1,000 lines says why in a `//! Length: …` line within its
//!    first 40 lines;
//! 5. no function outside test code is longer than 150 lines unless its doc comment says why
//!    in a line starting `Length:`.
//!
//! It prints each crate's module graph, one line per module (`X -> Y, Z`), so it doubles as
//! documentation: `cargo test --test integration architecture -- --nocapture`.
//!
//! Choices, in the order one would wonder about them:
//!
//! - The module list is derived from the tree, never written here: every `.rs` file under
//!   `src/` other than `lib.rs` belongs to the top-level module named by its first path
//!   component (`X.rs` and `X/…` are the same module X).
//! - Test code is included: `#[cfg(test)] mod tests { … }` blocks count like any other code
//!   (simpler and stricter; a test that reaches into another module is still a dependency of
//!   the build that runs it).
//! - Comments (`//`, `//!`, `///`, nested `/* */`) and string, byte-string, raw-string and
//!   char literals are blanked out before the paths are read, keeping line numbers. So an
//!   intra-doc link such as ``[`crate::metric`]`` is not a dependency.
//! - Besides `crate::Y` (and `$crate::Y` in macros), a `super::…` chain that climbs out of the
//!   top-level module (e.g. `super::super::Y` in `src/X/z.rs`, counting inline `mod m { … }`
//!   blocks) is the same dependency on Y. A path `crate::Name` where `lib.rs` re-exports
//!   `Name` with `pub use Y::…` counts as a dependency on Y. Anything else reached at the crate
//!   root (a glob `crate::*`, an item defined in `lib.rs`) is listed as a note, not an error.
//! - A module naming itself through `crate::` is no edge. `#[path]` attributes are not
//!   followed (the library has none).
//! - Rule 2 applies once a `reference` module exists (the folder `src/reference/`, or a file
//!   `src/reference.rs`, whose own files are then allowed too); it reads every file, `lib.rs`
//!   included, with the same path rules as rule 1 (so `crate::Name` re-exported from
//!   `reference` counts as naming `crate::reference`).
//! - Rule 3 counts lines as `str::lines` does, and accepts the `//! Length:` line with leading
//!   whitespace as long as some reason follows the colon.
//! - Every elementary cycle of each strongly connected component is printed (up to
//!   `MAX_CYCLES_PRINTED`), each edge with the first `file:line` (by path, then line) that
//!   causes it.
//!
//! The `self_test` module at the bottom runs the path reading and the cycle finding on tiny
//! in-memory trees.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Files longer than this must give a reason.
const MAX_LINES: usize = 1000;
/// The reason must appear within this many lines from the top.
const REASON_WINDOW: usize = 40;
/// The line that gives the reason starts with this.
const REASON_PREFIX: &str = "//! Length:";
/// The core's modules allowed to reach the reference wing.
const REFERENCE_GATES: [&str; 2] = ["metric", "exec_plan"];
/// The reference wing's modules (and items) any module of the core may use, with the core's
/// modules that may (empty: any): Python's semantics, and Spider's `tables.json` with its error.
const REFERENCE_SHARED: [(&str, &[&str]); 3] = [
    ("python", &[]),
    ("tables", &["dataset"]),
    ("ReadError", &["dataset"]),
];
/// Functions longer than this must give a reason.
const MAX_FUNCTION_LINES: usize = 150;
/// The workspace's crates: package, source folder, and the sqlsuite crates it may depend on.
const LAYERS: [(&str, &str, &[&str]); 5] = [
    ("sqlsuite-reference", "crates/reference/src", &[]),
    ("sqlsuite", "crates/core/src", &["sqlsuite-reference"]),
    ("sqlsuite-distill", "crates/distill/src", &["sqlsuite"]),
    ("sqlsuite-compose", "crates/compose/src", &["sqlsuite"]),
    (
        "sqlsuite-cli",
        "src",
        &["sqlsuite", "sqlsuite-distill", "sqlsuite-compose"],
    ),
];
/// At most this many cycles are printed; the rest are counted.
const MAX_CYCLES_PRINTED: usize = 200;

// ---------------------------------------------------------------------------------------------
// The tree
// ---------------------------------------------------------------------------------------------

/// One source file of a crate.
struct SourceFile {
    /// Path relative to the crate's `src/`, with `/` separators (`metric/mod.rs`).
    rel: String,
    text: String,
}

/// The workspace root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// How a file of the crate whose sources are in `src` (relative to the workspace root) is
/// named in messages: `crates/core/src/x.rs`.
fn display(src: &str, rel: &str) -> String {
    format!("{src}/{rel}")
}

/// Whether `rel` is a crate root (`lib.rs`, or `main.rs` for the command line).
fn is_root(rel: &str) -> bool {
    rel == "lib.rs" || rel == "main.rs"
}

fn read_tree(src: &str) -> Vec<SourceFile> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<SourceFile>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if path.is_dir() {
                walk(&path, &rel, out);
            } else if name.ends_with(".rs") {
                let text = fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                out.push(SourceFile { rel, text });
            }
        }
    }
    let mut out = Vec::new();
    let dir = root().join(src);
    walk(&dir, "", &mut out);
    assert!(
        out.iter().any(|f| is_root(&f.rel)),
        "no lib.rs or main.rs under {}",
        dir.display()
    );
    out
}

/// The top-level module a file belongs to (`None` for the crate root).
fn module_of(rel: &str) -> Option<String> {
    if is_root(rel) {
        return None;
    }
    let first = rel.split('/').next().unwrap();
    Some(first.strip_suffix(".rs").unwrap_or(first).to_string())
}

/// How deep a file's module sits below the crate root (`x.rs` and `x/mod.rs`: 1, `x/y.rs`: 2).
fn file_depth(rel: &str) -> usize {
    if is_root(rel) {
        return 0;
    }
    let parts: Vec<&str> = rel.split('/').collect();
    parts.len() - usize::from(parts.last() == Some(&"mod.rs"))
}

// ---------------------------------------------------------------------------------------------
// Reading paths out of Rust source
// ---------------------------------------------------------------------------------------------

/// The source with comments and the insides of string and char literals replaced by spaces;
/// newlines are kept, so line numbers stay right.
fn blank_comments_and_literals(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let n = c.len();
    let at = |i: usize| c.get(i).copied();
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < n {
        let ch = c[i];
        let prev_is_ident = i > 0 && is_ident(c[i - 1]);
        if ch == '/' && at(i + 1) == Some('/') {
            while i < n && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0usize;
            while i < n {
                if c[i] == '/' && at(i + 1) == Some('*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == Some('/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if let Some((prefix, hashes)) =
            (!prev_is_ident).then(|| raw_string_start(&c, i)).flatten()
        {
            // r"…", r#"…"#, br"…", cr"…": no escapes, ends at a quote and as many hashes.
            for _ in 0..prefix + hashes + 1 {
                out.push(' ');
            }
            i += prefix + hashes + 1;
            while i < n {
                if c[i] == '"' && (1..=hashes).all(|h| at(i + h) == Some('#')) {
                    for _ in 0..hashes + 1 {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                out.push(blank(c[i]));
                i += 1;
            }
        } else if ch == '"' {
            // "…" (also b"…" and c"…": the prefix letter stays, harmlessly).
            out.push(' ');
            i += 1;
            while i < n {
                match c[i] {
                    '\\' => {
                        out.push(' ');
                        i += 1;
                        if i < n {
                            out.push(blank(c[i]));
                            i += 1;
                        }
                    }
                    '"' => {
                        out.push(' ');
                        i += 1;
                        break;
                    }
                    other => {
                        out.push(blank(other));
                        i += 1;
                    }
                }
            }
        } else if ch == '\'' && at(i + 1) == Some('\\') {
            // An escaped char literal: '\n', '\'', '\u{1F600}'.
            out.push_str("  ");
            i += 2;
            if i < n {
                out.push(blank(c[i]));
                i += 1;
            }
            while i < n && c[i] != '\'' && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
            if at(i) == Some('\'') {
                out.push(' ');
                i += 1;
            }
        } else if ch == '\'' && at(i + 2) == Some('\'') {
            // A plain char literal: 'a', '"', '{'.
            out.push_str("   ");
            i += 3;
        } else {
            // Anything else, a lifetime's or label's quote included.
            out.push(ch);
            i += 1;
        }
    }
    out
}

/// At `i`, a raw string's opening (`r`, `br` or `cr`, hashes, a quote): the prefix's length and
/// the number of hashes.
fn raw_string_start(c: &[char], i: usize) -> Option<(usize, usize)> {
    let prefix = match (c.get(i), c.get(i + 1)) {
        (Some('r'), _) => 1,
        (Some('b' | 'c'), Some('r')) => 2,
        _ => return None,
    };
    let mut j = i + prefix;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    (c.get(j) == Some(&'"')).then_some((prefix, j - i - prefix))
}

/// A token of blanked source: an identifier (or number), `::`, or one punctuation character.
#[derive(Debug)]
struct Tok {
    text: String,
    line: usize,
}

fn tokenize(clean: &str) -> Vec<Tok> {
    let c: Vec<char> = clean.chars().collect();
    let mut toks = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            toks.push(Tok {
                text: c[start..i].iter().collect(),
                line,
            });
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            toks.push(Tok {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            toks.push(Tok {
                text: ch.to_string(),
                line,
            });
            i += 1;
        }
    }
    toks
}

fn is_ident(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|ch| ch.is_alphabetic() || ch == '_')
}

/// A path that starts at the crate root: its first segment after the root (`"*"` for a glob)
/// and the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mention {
    target: String,
    line: usize,
}

/// Every path in `src` that starts at the crate root: `crate::…`, `$crate::…`, and `super::…`
/// chains that climb to the root from a file `depth` modules below it (inline `mod m { … }`
/// blocks add to the depth). Grouped imports give one mention per group member:
/// `use crate::{a::{b, c}, d};` mentions `a` and `d`.
fn root_mentions(src: &str, depth: usize) -> Vec<Mention> {
    let toks = tokenize(&blank_comments_and_literals(src));
    let text = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let mut out = Vec::new();
    let mut braces = 0usize;
    // The brace depth at which each enclosing inline module was opened.
    let mut inline_mods: Vec<usize> = Vec::new();
    for i in 0..toks.len() {
        match text(i) {
            "{" => braces += 1,
            "}" => {
                braces = braces.saturating_sub(1);
                if inline_mods.last() == Some(&braces) {
                    inline_mods.pop();
                }
            }
            "mod" if is_ident(text(i + 1)) && text(i + 2) == "{" => inline_mods.push(braces),
            _ => {}
        }
        if i > 0 && text(i - 1) == "::" {
            continue; // Not a path's first segment.
        }
        let here = depth + inline_mods.len();
        // `crate::…`, or `self::…` where self is the root (in `lib.rs`).
        let from_root = text(i) == "crate" || (text(i) == "self" && here == 0);
        if from_root && text(i + 1) == "::" {
            mentions_after(&toks, i + 2, &mut out);
        } else if text(i) == "super" {
            let mut supers = 0;
            let mut j = i;
            while text(j) == "super" && text(j + 1) == "::" {
                supers += 1;
                j += 2;
            }
            if supers > 0 && supers >= here {
                mentions_after(&toks, j, &mut out);
            }
        }
    }
    out
}

/// The first segments of the path (or group of paths) at `toks[i]`, just after a root's `::`.
fn mentions_after(toks: &[Tok], i: usize, out: &mut Vec<Mention>) {
    let Some(tok) = toks.get(i) else { return };
    match tok.text.as_str() {
        "{" => {
            mentions_in_group(toks, i, out);
        }
        "*" => out.push(Mention {
            target: "*".into(),
            line: tok.line,
        }),
        // `crate::{self}` names the root itself.
        "self" => {}
        t if is_ident(t) => out.push(Mention {
            target: t.into(),
            line: tok.line,
        }),
        _ => {}
    }
}

/// The first segment of each member of the group opening at `toks[open]` (a `{`); returns the
/// index just past its closing `}`.
fn mentions_in_group(toks: &[Tok], open: usize, out: &mut Vec<Mention>) -> usize {
    let mut i = open + 1;
    loop {
        // At a member's start.
        let Some(tok) = toks.get(i) else { return i };
        match tok.text.as_str() {
            "}" => return i + 1,
            "," => {
                i += 1;
                continue;
            }
            "{" => {
                i = mentions_in_group(toks, i, out);
            }
            _ => {
                mentions_after(toks, i, out);
                i += 1;
            }
        }
        // Skip the rest of the member, up to its `,` or the group's `}`.
        let mut nested = 0usize;
        while let Some(tok) = toks.get(i) {
            match tok.text.as_str() {
                "{" => nested += 1,
                "}" if nested == 0 => break,
                "}" => nested -= 1,
                "," if nested == 0 => break,
                _ => {}
            }
            i += 1;
        }
    }
}

/// The names `lib.rs` re-exports from a top-level module (`pub use manifest::Manifest;` gives
/// `Manifest -> manifest`), so `crate::Manifest` counts as naming `manifest`.
fn reexports(lib_src: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let toks = tokenize(&blank_comments_and_literals(lib_src));
    let mut map = BTreeMap::new();
    let mut braces = 0usize;
    for i in 0..toks.len() {
        match toks[i].text.as_str() {
            "{" => braces += 1,
            "}" => braces = braces.saturating_sub(1),
            "use" if braces == 0 => {
                let mut k = i + 1;
                let mut leaves = Vec::new();
                use_leaves(&toks, &mut k, Vec::new(), &mut leaves);
                for (path, name) in leaves {
                    let path: Vec<&str> = path
                        .iter()
                        .map(String::as_str)
                        .skip_while(|s| *s == "crate" || *s == "self")
                        .collect();
                    if let Some(first) = path.first() {
                        if modules.contains(*first) && path.len() > 1 {
                            map.insert(name, first.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    map
}

/// The leaves of the use tree at `toks[*k]`: each full path and the name it binds (its alias or
/// last segment). Globs bind nothing.
fn use_leaves(
    toks: &[Tok],
    k: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    let text = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let mut path = prefix;
    if text(*k) == "::" {
        *k += 1;
    }
    loop {
        match text(*k) {
            "{" => {
                *k += 1;
                loop {
                    match text(*k) {
                        "}" => {
                            *k += 1;
                            return;
                        }
                        "," => *k += 1,
                        "" => return,
                        _ => {
                            let before = *k;
                            use_leaves(toks, k, path.clone(), out);
                            if *k == before {
                                *k += 1;
                            }
                        }
                    }
                }
            }
            "*" => {
                *k += 1;
                return;
            }
            t if is_ident(t) => {
                path.push(t.to_string());
                *k += 1;
                if text(*k) == "::" {
                    *k += 1;
                } else {
                    break;
                }
            }
            _ => return,
        }
    }
    let name = if text(*k) == "as" {
        *k += 2;
        text(*k - 1).to_string()
    } else if path.last().map(String::as_str) == Some("self") {
        path.pop();
        path.last().cloned().unwrap_or_default()
    } else {
        path.last().cloned().unwrap_or_default()
    };
    out.push((path, name));
}

// ---------------------------------------------------------------------------------------------
// The module graph
// ---------------------------------------------------------------------------------------------

/// Where a path to the crate root was found, and which top-level module it reaches.
#[derive(Debug, Clone)]
struct Use {
    /// The file (as `rel` under `src/`).
    file: String,
    line: usize,
    /// The top-level module reached, or `None` when the root-level name is no module.
    module: Option<String>,
    /// The name after the root, as written.
    name: String,
}

struct Analysis {
    modules: BTreeSet<String>,
    /// `edges[x][y]`: the first `(file, line)` by which module x names module y.
    edges: BTreeMap<String, BTreeMap<String, (String, usize)>>,
    /// Every root path of every file, `lib.rs` included, in file and line order.
    uses: Vec<Use>,
}

/// Reads files given as `(rel, text)` pairs, `rel` relative to `src/`.
fn analyze(files: &[(&str, &str)]) -> Analysis {
    let modules: BTreeSet<String> = files.iter().filter_map(|(rel, _)| module_of(rel)).collect();
    let reexported = files
        .iter()
        .find(|(rel, _)| is_root(rel))
        .map(|(_, text)| reexports(text, &modules))
        .unwrap_or_default();
    let mut sorted: Vec<&(&str, &str)> = files.iter().collect();
    sorted.sort_by_key(|(rel, _)| *rel);
    let mut uses = Vec::new();
    let mut edges: BTreeMap<String, BTreeMap<String, (String, usize)>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeMap::new()))
        .collect();
    for (rel, text) in sorted {
        let from = module_of(rel);
        for m in root_mentions(text, file_depth(rel)) {
            let module = if modules.contains(&m.target) {
                Some(m.target.clone())
            } else {
                reexported.get(&m.target).cloned()
            };
            if let (Some(from), Some(to)) = (&from, &module) {
                if from != to {
                    edges
                        .get_mut(from)
                        .unwrap()
                        .entry(to.clone())
                        .or_insert_with(|| (rel.to_string(), m.line));
                }
            }
            uses.push(Use {
                file: rel.to_string(),
                line: m.line,
                module,
                name: m.target,
            });
        }
    }
    Analysis {
        modules,
        edges,
        uses,
    }
}

/// Strongly connected components (Tarjan), each sorted, in a stable order.
fn strongly_connected(analysis: &Analysis) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, (String, usize)>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let edges = s.edges;
        for w in edges[v].keys() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            component.sort();
            s.out.push(component);
        }
    }
    let mut s = State {
        edges: &analysis.edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in &analysis.modules {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    let mut out = s.out;
    out.sort();
    out
}

/// The components that hold a cycle (more than one module; self-edges are never recorded).
fn cyclic_components(analysis: &Analysis) -> Vec<Vec<String>> {
    strongly_connected(analysis)
        .into_iter()
        .filter(|c| c.len() > 1)
        .collect()
}

/// Every elementary cycle inside `component`, each starting at its smallest module, up to
/// `limit` of them; the second value says whether more were left out.
fn elementary_cycles(
    analysis: &Analysis,
    component: &[String],
    limit: usize,
) -> (Vec<Vec<String>>, bool) {
    fn extend(
        analysis: &Analysis,
        allowed: &BTreeSet<&str>,
        start: &str,
        path: &mut Vec<String>,
        found: &mut Vec<Vec<String>>,
        limit: usize,
    ) -> bool {
        let last = path.last().unwrap().clone();
        for next in analysis.edges[&last].keys() {
            if next == start {
                if found.len() == limit {
                    return false;
                }
                found.push(path.clone());
            } else if next.as_str() > start
                && allowed.contains(next.as_str())
                && !path.contains(next)
            {
                path.push(next.clone());
                let more = extend(analysis, allowed, start, path, found, limit);
                path.pop();
                if !more {
                    return false;
                }
            }
        }
        true
    }
    let allowed: BTreeSet<&str> = component.iter().map(String::as_str).collect();
    let mut found = Vec::new();
    for start in component {
        let mut path = vec![start.clone()];
        if !extend(analysis, &allowed, start, &mut path, &mut found, limit) {
            return (found, true);
        }
    }
    (found, false)
}

/// One line per module: `x -> y, z` (or `x -> (nothing)`).
fn render_graph(analysis: &Analysis) -> String {
    let mut out = String::new();
    for (from, to) in &analysis.edges {
        let targets: Vec<&str> = to.keys().map(String::as_str).collect();
        let targets = if targets.is_empty() {
            "(nothing)".to_string()
        } else {
            targets.join(", ")
        };
        writeln!(out, "{from} -> {targets}").unwrap();
    }
    out
}

/// Each cycle as `a -> b -> a`, then one `file:line` per edge; empty when there is none.
fn render_cycles(analysis: &Analysis, show: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut budget = MAX_CYCLES_PRINTED;
    for component in cyclic_components(analysis) {
        writeln!(
            out,
            "strongly connected component of {} modules: {}",
            component.len(),
            component.join(", ")
        )
        .unwrap();
        let (cycles, more) = elementary_cycles(analysis, &component, budget);
        budget -= cycles.len();
        for cycle in &cycles {
            let mut ring = cycle.clone();
            ring.push(cycle[0].clone());
            writeln!(out, "  cycle: {}", ring.join(" -> ")).unwrap();
            for pair in ring.windows(2) {
                let (file, line) = &analysis.edges[&pair[0]][&pair[1]];
                writeln!(out, "    {} -> {}: {}:{line}", pair[0], pair[1], show(file)).unwrap();
            }
        }
        if more {
            writeln!(
                out,
                "  … more cycles left out (at most {MAX_CYCLES_PRINTED} are printed)"
            )
            .unwrap();
        }
    }
    out
}

/// Where a file names the reference wing (`sqlsuite_reference::X`): `(line, X)`.
fn reference_mentions(text: &str) -> Vec<(usize, String)> {
    let toks = tokenize(&blank_comments_and_literals(text));
    toks.windows(3)
        .filter(|w| w[0].text == "sqlsuite_reference" && w[1].text == "::" && is_ident(&w[2].text))
        .map(|w| (w[0].line, w[2].text.clone()))
        .collect()
}

/// The places a file of the core names the reference wing where the rules do not allow it:
/// `(line, the wing's module)`.
fn reference_offenders(rel: &str, text: &str) -> Vec<(usize, String)> {
    let module = module_of(rel);
    if module
        .as_deref()
        .is_some_and(|m| REFERENCE_GATES.contains(&m))
    {
        return Vec::new();
    }
    reference_mentions(text)
        .into_iter()
        .filter(|(_, wing)| {
            !REFERENCE_SHARED.iter().any(|(shared, from)| {
                shared == wing
                    && (from.is_empty() || module.as_deref().is_some_and(|m| from.contains(&m)))
            })
        })
        .collect()
}

fn load(src: &str) -> (Vec<SourceFile>, Analysis) {
    let files = read_tree(src);
    let pairs: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.rel.as_str(), f.text.as_str()))
        .collect();
    let analysis = analyze(&pairs);
    (files, analysis)
}

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

#[test]
fn crates_depend_on_each_other_as_drawn() {
    let packages: Vec<&str> = LAYERS.iter().map(|(name, _, _)| *name).collect();
    let mut wrong = Vec::new();
    for (name, src, allowed) in LAYERS {
        let manifest = root().join(src).parent().unwrap().join("Cargo.toml");
        let text = fs::read_to_string(&manifest)
            .unwrap_or_else(|e| panic!("reading {}: {e}", manifest.display()));
        let toml: toml::Table = text.parse().expect("Cargo.toml parses");
        let deps: BTreeSet<&str> = ["dependencies", "build-dependencies"]
            .iter()
            .filter_map(|k| toml.get(*k).and_then(|d| d.as_table()))
            .flat_map(|t| t.keys().map(String::as_str))
            .filter(|d| packages.contains(d))
            .collect();
        let extra: Vec<&&str> = deps.iter().filter(|d| !allowed.contains(d)).collect();
        println!(
            "{name} -> {}",
            deps.iter().copied().collect::<Vec<_>>().join(", ")
        );
        if !extra.is_empty() {
            wrong.push(format!(
                "{name} depends on {extra:?}; it may on {allowed:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "crates outside their layer:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn top_level_modules_import_each_other_without_a_cycle() {
    let mut failed = Vec::new();
    for (name, src, _) in LAYERS {
        let (_, analysis) = load(src);
        let mut report = String::new();
        writeln!(
            report,
            "Module graph of {name} ({src}, {} top-level modules; `x -> y` when a file of x \
             names crate::y):",
            analysis.modules.len()
        )
        .unwrap();
        report.push_str(&render_graph(&analysis));
        let unresolved: Vec<String> = analysis
            .uses
            .iter()
            .filter(|u| u.module.is_none())
            .map(|u| format!("{}:{} (crate::{})", display(src, &u.file), u.line, u.name))
            .collect();
        if !unresolved.is_empty() {
            writeln!(
                report,
                "note: root paths that reach no top-level module (not counted): {}",
                unresolved.join(", ")
            )
            .unwrap();
        }
        let cycles = render_cycles(&analysis, |rel| display(src, rel));
        if cycles.is_empty() {
            report.push_str("No import cycle among the top-level modules.\n");
        } else {
            report.push_str("IMPORT CYCLES among the top-level modules:\n");
            report.push_str(&cycles);
            failed.push(name);
        }
        println!("{report}");
    }
    assert!(
        failed.is_empty(),
        "top-level modules import each other in a cycle in {failed:?} (listed above)"
    );
}

#[test]
fn the_core_reaches_the_reference_wing_only_through_metrics_and_the_exec_plan() {
    let src = "crates/core/src";
    let (files, _) = load(src);
    let offending: Vec<String> = files
        .iter()
        .flat_map(|f| {
            reference_offenders(&f.rel, &f.text)
                .into_iter()
                .map(|(line, wing)| {
                    format!(
                        "  {}:{line} (sqlsuite_reference::{wing})",
                        display(src, &f.rel)
                    )
                })
        })
        .collect();
    if !offending.is_empty() {
        panic!(
            "only {REFERENCE_GATES:?} may name the reference wing (besides {:?}):\n{}",
            REFERENCE_SHARED.map(|(m, _)| m),
            offending.join("\n")
        );
    }
    println!("{src}: the reference wing is named only from {REFERENCE_GATES:?}, and its shared modules as allowed.");
}

/// The reason a file gives for its length: the text after `//! Length:` on one of its first
/// `REASON_WINDOW` lines, if not empty.
fn length_reason(text: &str) -> Option<&str> {
    text.lines().take(REASON_WINDOW).find_map(|l| {
        l.trim_start()
            .strip_prefix(REASON_PREFIX)
            .map(str::trim)
            .filter(|r| !r.is_empty())
    })
}

#[test]
fn long_files_give_a_reason() {
    let mut long = Vec::new();
    let mut excused = Vec::new();
    for (_, src, _) in LAYERS {
        let (files, _) = load(src);
        for f in &files {
            let lines = f.text.lines().count();
            if lines <= MAX_LINES {
                continue;
            }
            match length_reason(&f.text) {
                Some(reason) => excused.push(format!(
                    "  {} ({lines} lines): {reason}",
                    display(src, &f.rel)
                )),
                None => long.push(format!("  {} ({lines} lines)", display(src, &f.rel))),
            }
        }
    }
    if !excused.is_empty() {
        println!(
            "Files over {MAX_LINES} lines, with their reason:\n{}",
            excused.join("\n")
        );
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines must say why in a `{REASON_PREFIX} …` line within their \
         first {REASON_WINDOW} lines:\n{}",
        long.join("\n")
    );
}

/// Functions of `text` outside `#[cfg(test)]` code: `(name, first line, lines, whether its doc
/// comment gives a `Length:` reason)`. Read from the text with comments and literals blanked:
/// a function runs from `fn name` to the brace that closes its body.
fn functions(text: &str) -> Vec<(String, usize, usize, bool)> {
    let clean = blank_comments_and_literals(text);
    let lines: Vec<&str> = text.lines().collect();
    let toks = tokenize(&clean);
    let mut out = Vec::new();
    // Token positions of `#[cfg(test)]` items' bodies to skip.
    let mut i = 0;
    let mut skip_until_depth: Option<usize> = None;
    let mut depth = 0usize;
    while i < toks.len() {
        let t = toks[i].text.as_str();
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if skip_until_depth == Some(depth) {
                    skip_until_depth = None;
                }
            }
            "cfg"
                if skip_until_depth.is_none()
                    && toks.get(i + 2).is_some_and(|t| t.text == "test") =>
            {
                // The item this attribute is on: skip its body.
                let mut k = i;
                while k < toks.len() && toks[k].text != "{" && toks[k].text != ";" {
                    k += 1;
                }
                if toks.get(k).is_some_and(|t| t.text == "{") {
                    skip_until_depth = Some(depth);
                }
            }
            "fn" if skip_until_depth.is_none()
                && toks.get(i + 1).is_some_and(|n| is_ident(&n.text)) =>
            {
                let name = toks[i + 1].text.clone();
                let start = toks[i].line;
                // The body: the first `{` after the signature (a `;` first: no body).
                let mut k = i + 2;
                let mut angle_or_paren = 0i32;
                while k < toks.len() {
                    match toks[k].text.as_str() {
                        "(" | "[" => angle_or_paren += 1,
                        ")" | "]" => angle_or_paren -= 1,
                        "{" | ";" if angle_or_paren == 0 => break,
                        _ => {}
                    }
                    k += 1;
                }
                if toks.get(k).is_some_and(|t| t.text == "{") {
                    let mut d = 0usize;
                    let mut end = k;
                    while end < toks.len() {
                        match toks[end].text.as_str() {
                            "{" => d += 1,
                            "}" => {
                                d -= 1;
                                if d == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        end += 1;
                    }
                    let last = toks.get(end).map_or(start, |t| t.line);
                    let doc_has_reason = lines[..start.saturating_sub(1)]
                        .iter()
                        .rev()
                        .take_while(|l| {
                            let l = l.trim_start();
                            l.starts_with("///") || l.starts_with("#[")
                        })
                        .any(|l| {
                            l.trim_start()
                                .trim_start_matches('/')
                                .trim_start()
                                .starts_with("Length:")
                        });
                    out.push((name, start, last - start + 1, doc_has_reason));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[test]
fn long_functions_give_a_reason() {
    let mut long = Vec::new();
    let mut excused = Vec::new();
    for (_, src, _) in LAYERS {
        let (files, _) = load(src);
        for f in &files {
            for (name, line, lines, reason) in functions(&f.text) {
                if lines <= MAX_FUNCTION_LINES {
                    continue;
                }
                let place = format!(
                    "  {}:{line} fn {name} ({lines} lines)",
                    display(src, &f.rel)
                );
                if reason {
                    excused.push(place);
                } else {
                    long.push(place);
                }
            }
        }
    }
    if !excused.is_empty() {
        println!(
            "Functions over {MAX_FUNCTION_LINES} lines whose doc says why:\n{}",
            excused.join("\n")
        );
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines must be split (a type with a method per \
         phase) or say why in a `Length:` line of their doc:\n{}",
        long.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Self-test of the machinery on tiny in-memory trees
// ---------------------------------------------------------------------------------------------

mod self_test {
    use super::*;

    fn targets(src: &str, depth: usize) -> Vec<String> {
        root_mentions(src, depth)
            .into_iter()
            .map(|m| m.target)
            .collect()
    }

    fn edge_list(a: &Analysis) -> Vec<(String, String, String, usize)> {
        a.edges
            .iter()
            .flat_map(|(from, to)| {
                to.iter()
                    .map(move |(t, (f, l))| (from.clone(), t.clone(), f.clone(), *l))
            })
            .collect()
    }

    #[test]
    fn a_three_module_cycle_is_found_with_its_edges() {
        let a = analyze(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
            ("a.rs", "//! a\nuse crate::b::B;\n"),
            ("b/mod.rs", "mod inner;\n"),
            ("b/inner.rs", "\n\nfn f() { crate::c::g(); }\n"),
            ("c.rs", "use crate::{a};\n"),
        ]);
        assert_eq!(
            edge_list(&a),
            vec![
                ("a".into(), "b".into(), "a.rs".into(), 2),
                ("b".into(), "c".into(), "b/inner.rs".into(), 3),
                ("c".into(), "a".into(), "c.rs".into(), 1),
            ]
        );
        assert_eq!(cyclic_components(&a), vec![vec!["a", "b", "c"]]);
        let (cycles, more) = elementary_cycles(&a, &["a".into(), "b".into(), "c".into()], 10);
        assert_eq!(cycles, vec![vec!["a", "b", "c"]]);
        assert!(!more);
        let text = render_cycles(&a, |f| f.to_string());
        assert!(text.contains("cycle: a -> b -> c -> a"), "{text}");
        assert!(text.contains("a -> b: a.rs:2"), "{text}");
        assert!(text.contains("b -> c: b/inner.rs:3"), "{text}");
        assert!(text.contains("c -> a: c.rs:1"), "{text}");
    }

    #[test]
    fn every_cycle_of_a_component_is_listed() {
        // a <-> b and a -> c -> b -> a: two elementary cycles in one component.
        let a = analyze(&[
            ("a.rs", "use crate::b;\nuse crate::c;\n"),
            ("b.rs", "use crate::a;\n"),
            ("c.rs", "use crate::b;\n"),
        ]);
        let component = cyclic_components(&a);
        assert_eq!(component, vec![vec!["a", "b", "c"]]);
        let (cycles, _) = elementary_cycles(&a, &component[0], 10);
        assert_eq!(cycles, vec![vec!["a", "b"], vec!["a", "c", "b"]]);
        let (cycles, more) = elementary_cycles(&a, &component[0], 1);
        assert_eq!(cycles.len(), 1);
        assert!(more);
    }

    #[test]
    fn a_dag_passes() {
        let a = analyze(&[
            ("lib.rs", ""),
            ("a.rs", "use crate::{b, c};\n"),
            (
                "b.rs",
                "use crate::c::X;\nuse crate::b::Y; // itself: no edge\n",
            ),
            ("c.rs", "pub struct X;\n"),
        ]);
        assert!(cyclic_components(&a).is_empty());
        assert_eq!(render_cycles(&a, |f| f.to_string()), "");
        assert_eq!(
            render_graph(&a),
            "a -> b, c\nb -> c\nc -> (nothing)\n".to_string()
        );
    }

    #[test]
    fn grouped_imports_give_their_first_segments() {
        assert_eq!(targets("use crate::{a::{b, c}, d};", 1), ["a", "d"]);
        assert_eq!(
            targets(
                "use crate::{\n    self,\n    e::{f::{g, h}, i},\n    j as k,\n    {l, m::n},\n};",
                1
            ),
            ["e", "j", "l", "m"]
        );
        let m = root_mentions("use crate::{\n    a,\n    b::c,\n};", 1);
        assert_eq!(
            m,
            vec![
                Mention {
                    target: "a".into(),
                    line: 2
                },
                Mention {
                    target: "b".into(),
                    line: 3
                },
            ]
        );
    }

    #[test]
    fn inline_paths_count() {
        assert_eq!(
            targets(
                "fn f() { let x = crate::a::f(1); crate :: b::g(); }\nmacro_rules! m { () => { $crate::c::h() } }",
                1
            ),
            ["a", "b", "c"]
        );
        // `pub(crate)` and `my_crate::` are no root paths.
        assert!(targets("pub(crate) fn f() { my_crate::x(); }", 1).is_empty());
    }

    #[test]
    fn comments_and_string_literals_are_ignored() {
        let src = r####"
// use crate::a;
//! see crate::b
/// [`crate::c`]
/* crate::d /* nested crate::e */ still crate::f */
fn g() -> &'static str {
    let _q = '"';
    let _s = "crate::h \" crate::i";
    let _r = r#"crate::j " crate::k"#;
    let _b = br"crate::l";
    let _c = b'\'';
    crate::real::go()
}
"####;
        let m = root_mentions(src, 1);
        assert_eq!(
            m,
            vec![Mention {
                target: "real".into(),
                line: 12
            }]
        );
        // A lifetime's quote does not open a char literal that would hide a path.
        assert_eq!(targets("fn f<'a>(x: &'a str) { crate::x::y(x) }", 1), ["x"]);
    }

    #[test]
    fn super_paths_that_reach_the_root_count() {
        // In x/y.rs (depth 2): super:: is x, super::super:: is the root.
        assert_eq!(targets("use super::z;\nuse super::super::q::R;", 2), ["q"]);
        // In x.rs (depth 1), super:: is the root, but not inside an inline module.
        assert_eq!(
            targets(
                "use super::a;\nmod tests { use super::b; use super::super::c; }\nuse super::d;",
                1
            ),
            ["a", "c", "d"]
        );
    }

    #[test]
    fn reexported_names_count_as_their_module() {
        let a = analyze(&[
            (
                "lib.rs",
                "pub mod m;\npub mod n;\npub use m::Thing;\npub use n::{Other as Renamed};\n",
            ),
            ("m.rs", "pub struct Thing;\nuse crate::Renamed;\n"),
            (
                "n.rs",
                "pub struct Other;\nfn f() -> crate::Thing { todo!() }\nuse crate::Root;\n",
            ),
        ]);
        assert_eq!(
            edge_list(&a),
            vec![
                ("m".into(), "n".into(), "m.rs".into(), 2),
                ("n".into(), "m".into(), "n.rs".into(), 2),
            ]
        );
        let unresolved: Vec<_> = a.uses.iter().filter(|u| u.module.is_none()).collect();
        assert_eq!(unresolved.len(), 1);
        assert_eq!(unresolved[0].name, "Root");
    }

    #[test]
    fn only_metrics_and_the_exec_plan_reach_the_reference_wing() {
        let text = "use sqlsuite_reference::python::python_strip;\n\
                    use sqlsuite_reference::tables;\n\
                    // sqlsuite_reference::defog in a comment\n\
                    fn f() { sqlsuite_reference::defog::expand(); }\n";
        assert_eq!(reference_offenders("metric/exec.rs", text), vec![]);
        assert_eq!(reference_offenders("exec_plan/mod.rs", text), vec![]);
        assert_eq!(
            reference_offenders("dataset/mod.rs", text),
            vec![(4, "defog".to_owned())]
        );
        assert_eq!(
            reference_offenders("report/html.rs", text),
            vec![(2, "tables".to_owned()), (4, "defog".to_owned())]
        );
    }

    #[test]
    fn functions_are_measured_outside_test_code() {
        let text = "/// Short.\nfn a() {\n    if x { y() }\n}\n\
                    /// Long.\n///\n/// Length: one match arm per token.\nfn b() {\n}\n\
                    fn c();\n\
                    #[cfg(test)]\nmod tests {\n    fn d() {\n    }\n}\n";
        let found = functions(text);
        assert_eq!(
            found,
            vec![("a".into(), 2, 3, false), ("b".into(), 8, 2, true)]
        );
    }

    #[test]
    fn a_length_reason_is_read_from_the_top() {
        let top = "//! Tokens.\n//!\n//! Length: one table per SQL keyword class.\nfn f() {}\n";
        assert_eq!(length_reason(top), Some("one table per SQL keyword class."));
        assert_eq!(length_reason("//! Length:   \n"), None);
        let late = format!("{}//! Length: too late\n", "\n".repeat(REASON_WINDOW));
        assert_eq!(length_reason(&late), None);
        assert_eq!(length_reason("// Length: not a doc line\n"), None);
    }

    #[test]
    fn modules_and_depths_come_from_paths() {
        assert_eq!(module_of("lib.rs"), None);
        assert_eq!(module_of("main.rs"), None);
        assert_eq!(module_of("sql_text.rs").as_deref(), Some("sql_text"));
        assert_eq!(module_of("metric/exec.rs").as_deref(), Some("metric"));
        assert_eq!(file_depth("lib.rs"), 0);
        assert_eq!(file_depth("a.rs"), 1);
        assert_eq!(file_depth("a/mod.rs"), 1);
        assert_eq!(file_depth("a/b.rs"), 2);
        assert_eq!(file_depth("a/b/mod.rs"), 2);
    }
}
