//! Located TOML: a manifest's text, and the reading of one of its sections into a typed value
//! with every error at `file:line:column`.
//!
//! The manifest parses the sections every dataset has; the sections that belong to one metric,
//! format or backend (`[metrics.exec]`, `[databases]`) are read by that part itself, through a
//! [`Section`], so that adding one touches no other file. Reading a section re-reads the
//! manifest's text and deserializes only the value at the section's path, which keeps the TOML
//! parser's positions for every error inside it (an unknown key, a wrong type).
//!
//! This module depends on nothing else in the crate.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::Deserializer;
use toml::Spanned;

/// An error located in a manifest.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", file.display())]
pub struct ManifestError {
    /// The manifest file.
    pub file: PathBuf,
    /// 1-based line of the offending text (0 when the error is about the whole file).
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// A manifest's text and where it lives: what errors are located in and relative paths are
/// resolved against.
#[derive(Clone)]
pub struct Source {
    file: PathBuf,
    text: Arc<str>,
    dir: PathBuf,
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source").field("file", &self.file).finish()
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
    (line, column)
}

impl Source {
    /// The text of `file` (read by the caller); relative paths in it are relative to the file's
    /// directory.
    pub fn new(file: &Path, text: &str) -> Source {
        Source {
            file: file.to_path_buf(),
            text: text.into(),
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
        }
    }

    /// The file the text was read from.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The directory relative paths are resolved against.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// An error at byte range `span` of the text.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> ManifestError {
        let (line, column) = line_col(&self.text, span.start);
        ManifestError {
            file: self.file.clone(),
            line,
            column,
            message: message.into(),
        }
    }

    /// The whole document as `T`.
    pub fn document<T: DeserializeOwned>(&self) -> Result<T, ManifestError> {
        T::deserialize(toml::Deserializer::new(&self.text)).map_err(|e| self.toml_error(&e))
    }

    /// The section at `path` (`["metrics", "exec"]`), if the document has it.
    pub fn section<'a>(&'a self, path: &[&'a str]) -> Result<Option<Section<'a>>, ManifestError> {
        let seed = At {
            path,
            leaf: std::marker::PhantomData::<IgnoredAny>,
        };
        let found = seed
            .deserialize(toml::Deserializer::new(&self.text))
            .map_err(|e| self.toml_error(&e))?;
        Ok(found.map(|(span, _)| Section {
            source: self,
            path: path.to_vec(),
            span: Some(span),
        }))
    }

    fn toml_error(&self, e: &toml::de::Error) -> ManifestError {
        self.error(e.span().unwrap_or(0..0), e.message().trim().to_owned())
    }

    /// Interpolates a string value (`${VAR}`, `${VAR:-default}`), reporting errors at its
    /// position.
    pub fn string(&self, value: &Spanned<String>) -> Result<String, ManifestError> {
        interpolate(value.get_ref(), |name| std::env::var(name).ok())
            .map_err(|message| self.error(value.span(), message))
    }

    /// Interpolates a path value and makes it relative to the manifest's directory. A relative
    /// path that comes from an environment variable is relative to the current directory, where
    /// the user set it.
    pub fn path(&self, value: &Spanned<String>) -> Result<PathBuf, ManifestError> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let lookup = |name: &str| {
            std::env::var(name).ok().map(|v| {
                if v.is_empty() || Path::new(&v).is_absolute() {
                    v
                } else {
                    cwd.join(v).to_string_lossy().into_owned()
                }
            })
        };
        let s = interpolate(value.get_ref(), lookup)
            .map_err(|message| self.error(value.span(), message))?;
        Ok(clean(&self.dir.join(s)))
    }
}

/// One table of a manifest (`[metrics.exec]`, `[databases]`), read by the part it configures.
/// A section may be absent (a metric enabled by default): it then reads as an empty table.
#[derive(Debug, Clone)]
pub struct Section<'a> {
    source: &'a Source,
    path: Vec<&'a str>,
    /// Where the table is; `None` for an absent section.
    span: Option<Range<usize>>,
}

impl<'a> Section<'a> {
    /// The manifest the section is in (for interpolating strings and resolving paths).
    pub fn source(&self) -> &'a Source {
        self.source
    }

    /// The section's name as written in the manifest (`metrics.exec`).
    pub fn name(&self) -> String {
        self.path.join(".")
    }

    /// An absent section at `path` of `source`: it reads as an empty table, and its errors are
    /// located at the manifest's start.
    pub fn absent(source: &'a Source, path: &[&'a str]) -> Section<'a> {
        Section {
            source,
            path: path.to_vec(),
            span: None,
        }
    }

    /// Whether the manifest has the section.
    pub fn is_present(&self) -> bool {
        self.span.is_some()
    }

    /// Where the section's value starts (the manifest's start for an absent section).
    pub fn span(&self) -> Range<usize> {
        self.span.clone().unwrap_or(0..0)
    }

    /// The section's table as `T`; errors inside it are located.
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, ManifestError> {
        if self.span.is_none() {
            return T::deserialize(toml::Deserializer::new(""))
                .map_err(|e| self.source.toml_error(&e));
        }
        let seed = At {
            path: &self.path,
            leaf: std::marker::PhantomData::<T>,
        };
        let value = seed
            .deserialize(toml::Deserializer::new(&self.source.text))
            .map_err(|e| self.source.toml_error(&e))?;
        value
            .map(|(_, value)| value)
            .ok_or_else(|| self.error(format!("[{}] disappeared", self.name())))
    }

    /// The section's table as two values that share it, `T` and a block of options `B` that
    /// several parts have in common (the query limits of every metric that runs queries). Each
    /// reads its own keys; a key neither knows is an error at its line, as with
    /// `deny_unknown_fields` (which neither may use: each would refuse the other's keys).
    pub fn read_with<T: DeserializeOwned, B: DeserializeOwned>(
        &self,
    ) -> Result<(T, B), ManifestError> {
        if self.span.is_some() {
            let known: Vec<&str> = fields_of::<T>()
                .iter()
                .chain(fields_of::<B>())
                .copied()
                .collect();
            let keys: BTreeMap<Spanned<String>, IgnoredAny> = self.read()?;
            if let Some(key) = keys
                .keys()
                .filter(|k| !known.contains(&k.get_ref().as_str()))
                .min_by_key(|k| k.span().start)
            {
                let expected: Vec<String> = known.iter().map(|f| format!("`{f}`")).collect();
                return Err(self.source.error(
                    key.span(),
                    format!(
                        "unknown field `{}`, expected one of {}",
                        key.get_ref(),
                        expected.join(", ")
                    ),
                ));
            }
        }
        Ok((self.read()?, self.read()?))
    }

    /// An error at the section.
    pub fn error(&self, message: impl Into<String>) -> ManifestError {
        self.source.error(self.span(), message)
    }
}

/// A value read from its own manifest section, as the part it configures reads it.
pub trait FromSection: Sized {
    /// Reads the value from its table; errors are located in the manifest.
    fn from_section(section: &Section<'_>) -> Result<Self, ManifestError>;
}

/// The field names a derived struct deserializes (serde's list: skipped fields are not in it).
fn fields_of<T: DeserializeOwned>() -> &'static [&'static str] {
    #[derive(Debug)]
    struct Caught(Option<&'static [&'static str]>);
    impl fmt::Display for Caught {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("not a struct")
        }
    }
    impl std::error::Error for Caught {}
    impl serde::de::Error for Caught {
        fn custom<M: fmt::Display>(_: M) -> Self {
            Caught(None)
        }
    }
    struct Probe;
    impl<'de> Deserializer<'de> for Probe {
        type Error = Caught;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Caught> {
            Err(Caught(None))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Caught> {
            Err(Caught(Some(fields)))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    match T::deserialize(Probe) {
        Err(Caught(Some(fields))) => fields,
        _ => &[],
    }
}

/// Deserializes only the value at a non-empty `path` of a document, with the span of its key
/// (`None` if the document has none there); every other value is skipped unread. (Key spans,
/// because the TOML parser gives no span for a table written as a `[header]`.)
struct At<'p, T> {
    path: &'p [&'p str],
    leaf: std::marker::PhantomData<T>,
}

impl<'de, T: serde::Deserialize<'de>> DeserializeSeed<'de> for At<'_, T> {
    type Value = Option<(Range<usize>, T)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for At<'_, T> {
    type Value = Option<(Range<usize>, T)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a table with `{}`", self.path.join("."))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some((first, rest)) = self.path.split_first() else {
            return Ok(None);
        };
        let mut found = None;
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            if key.get_ref() == first && found.is_none() {
                found = if rest.is_empty() {
                    Some((key.span(), map.next_value::<T>()?))
                } else {
                    map.next_value_seed(At {
                        path: rest,
                        leaf: self.leaf,
                    })?
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Expands `${VAR}` and `${VAR:-default}` (the default is used when VAR is unset or empty, as in
/// POSIX shells; it may itself contain `${...}`). `$$` is a literal `$`.
pub(crate) fn interpolate(
    input: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    interpolate_with(input, &lookup)
}

fn interpolate_with(
    input: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = input;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        let Some(body) = after.strip_prefix('{') else {
            out.push('$');
            rest = after;
            continue;
        };
        // Find the matching close brace (defaults may nest `${...}`).
        let mut depth = 1;
        let mut end = None;
        let bytes = body.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| format!("unclosed `${{` in {input:?}"))?;
        let inner = &body[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("invalid variable name {name:?} in {input:?}"));
        }
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(&interpolate_with(d, lookup)?),
            (None, None) => {
                return Err(format!(
                    "environment variable {name} is not set (write ${{{name}:-default}} to give a default)"
                ))
            }
        }
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Removes `.` and folds `dir/..` lexically (`datasets/demo/../../snapshots` → `snapshots`), so
/// messages show short paths. A leading `..` stays.
pub fn clean(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            c => out.push(c),
        }
    }
    if out.is_empty() {
        PathBuf::from(".")
    } else {
        out.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME_DIR" => Some("/home/x".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn paths_are_cleaned_lexically() {
        assert_eq!(
            clean(Path::new("datasets/demo/../../snapshots")),
            Path::new("snapshots")
        );
        assert_eq!(
            clean(Path::new("datasets/../../shared/./x")),
            Path::new("../shared/x")
        );
        assert_eq!(clean(Path::new("/a/../../b")), Path::new("/b"));
        assert_eq!(clean(Path::new("a/..")), Path::new("."));
    }

    #[test]
    fn interpolation() {
        assert_eq!(interpolate("a/${HOME_DIR}/b", env).unwrap(), "a//home/x/b");
        assert_eq!(
            interpolate("${NOPE:-../shared}/d", env).unwrap(),
            "../shared/d"
        );
        assert_eq!(interpolate("${EMPTY:-dflt}", env).unwrap(), "dflt");
        assert_eq!(interpolate("${NOPE:-${HOME_DIR}}", env).unwrap(), "/home/x");
        assert_eq!(interpolate("cost $$5 $x", env).unwrap(), "cost $5 $x");
        assert!(interpolate("${NOPE}", env)
            .unwrap_err()
            .contains("NOPE is not set"));
        assert!(interpolate("${NOPE", env).unwrap_err().contains("unclosed"));
        assert!(interpolate("${A B}", env)
            .unwrap_err()
            .contains("invalid variable"));
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Opts {
        n: u32,
    }

    const DOC: &str = "[a]\nx = 1\n\n[metrics.one]\nn = 3\n\n[metrics.two]\nn = \"x\"\n\n[metrics.three]\nn = 1\nm = 2\n";

    #[derive(Debug, Deserialize, PartialEq, Default)]
    #[serde(default)]
    struct Own {
        n: u32,
    }

    #[derive(Debug, Deserialize, PartialEq, Default)]
    #[serde(default)]
    struct Shared {
        timeout_ms: u64,
    }

    #[test]
    fn a_section_shared_by_two_blocks_refuses_keys_neither_knows() {
        let text = "[m]\nn = 2\ntimeout_ms = 5\n[k]\ntimeout_ms = 5\nn = 1\nnope = 3\n[t]\ntimeout_ms = \"x\"\n";
        let source = Source::new(Path::new("m.toml"), text);
        let m = source.section(&["m"]).unwrap().unwrap();
        let (own, shared): (Own, Shared) = m.read_with().unwrap();
        assert_eq!((own.n, shared.timeout_ms), (2, 5));
        let k = source.section(&["k"]).unwrap().unwrap();
        let e = k.read_with::<Own, Shared>().unwrap_err();
        assert_eq!((e.line, e.column), (7, 1), "{e}");
        assert_eq!(
            e.message,
            "unknown field `nope`, expected one of `n`, `timeout_ms`"
        );
        let t = source.section(&["t"]).unwrap().unwrap();
        let e = t.read_with::<Own, Shared>().unwrap_err();
        assert_eq!((e.line, e.column), (9, 14), "{e}");
        // Absent, both blocks read their defaults.
        let absent = Section::absent(&source, &["x"]);
        assert_eq!(
            absent.read_with::<Own, Shared>().unwrap(),
            (Own::default(), Shared::default())
        );
    }

    #[test]
    fn a_section_is_read_with_located_errors() {
        let source = Source::new(Path::new("d/m.toml"), DOC);
        let one = source.section(&["metrics", "one"]).unwrap().unwrap();
        assert_eq!(one.read::<Opts>().unwrap(), Opts { n: 3 });
        assert_eq!(one.name(), "metrics.one");
        assert!(source.section(&["metrics", "four"]).unwrap().is_none());
        assert!(source.section(&["b"]).unwrap().is_none());
        let two = source.section(&["metrics", "two"]).unwrap().unwrap();
        let e = two.read::<Opts>().unwrap_err();
        assert_eq!((e.line, e.column), (8, 5), "{e}");
        assert!(e.message.contains("invalid type"), "{e}");
        let three = source.section(&["metrics", "three"]).unwrap().unwrap();
        let e = three.read::<Opts>().unwrap_err();
        assert_eq!((e.line, e.column), (12, 1), "{e}");
        assert!(e.message.contains("unknown field `m`"), "{e}");
        assert!(e.to_string().starts_with("d/m.toml:12:1: "), "{e}");
    }
}
