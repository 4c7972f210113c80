//! Recursive-descent parser reproducing the reference `get_sql`, including
//! its leniencies (trailing tokens ignored, `LIMIT` value ignored, ...) and
//! its failure cases (comma joins, `LEFT JOIN`, unknown columns, ...).

use super::ast::{
    ColUnit, CondItem, CondUnit, Condition, FromClause, OrderBy, Select, Sql, TableUnit, ValUnit,
    Value, AGG_OPS, UNIT_OPS, WHERE_OPS,
};
use super::schema::Schema;
use super::tokenize::tokenize;
use super::ParseError;
use std::collections::HashMap;

/// Maximum nesting of (sub-)queries; deeper input is rejected. The reference
/// fails on deep nesting too (Python's recursion limit).
pub(super) const MAX_DEPTH: usize = 100;

const CLAUSE_KEYWORDS: [&str; 9] = [
    "select",
    "from",
    "where",
    "group",
    "order",
    "limit",
    "intersect",
    "union",
    "except",
];
const JOIN_KEYWORDS: [&str; 3] = ["join", "on", "as"];

type PResult<T> = Result<(usize, T), ParseError>;

fn is_clause(t: &str) -> bool {
    CLAUSE_KEYWORDS.contains(&t)
}

/// Whether `t` ends the list of a clause: the next clause's keyword, `)` or `;`.
fn ends_clause(t: &str) -> bool {
    is_clause(t) || t == ")" || t == ";"
}

fn index_of(table: &[&str], t: &str) -> Option<usize> {
    table.iter().position(|x| *x == t)
}

/// Accepts what Python's `float()` accepts for a token without spaces.
fn py_float(s: &str) -> Option<f64> {
    let cleaned = if s.contains('_') {
        let chars: Vec<char> = s.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            if *c == '_' {
                let prev_ok = i > 0 && chars[i - 1].is_ascii_digit();
                let next_ok = chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
                if !prev_ok || !next_ok {
                    return None;
                }
            }
        }
        s.replace('_', "")
    } else {
        s.to_string()
    };
    let body = cleaned.trim_start_matches(['+', '-']);
    if cleaned.len() - body.len() > 1 {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return cleaned.to_ascii_lowercase().parse::<f64>().ok();
    }
    // Plain decimal: digits [. digits] [e [+-] digits], at least one digit.
    let b = body.as_bytes();
    let mut i = 0;
    let mut mantissa_digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        mantissa_digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            mantissa_digits += 1;
        }
    }
    if mantissa_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    cleaned.parse::<f64>().ok()
}

/// Parsing context shared by all productions of one query.
struct Ctx<'a> {
    schema: &'a Schema,
    aliases: HashMap<String, String>,
    strict: bool,
}

fn tok(toks: &[String], idx: usize) -> Result<&str, ParseError> {
    toks.get(idx)
        .map(String::as_str)
        .ok_or_else(|| ParseError::new(Some(idx), None, "unexpected end of query"))
}

fn fail(toks: &[String], idx: usize, msg: impl Into<String>) -> ParseError {
    ParseError::new(Some(idx), toks.get(idx).cloned(), msg)
}

/// Steps over an optional `(` at `idx`: where what it encloses starts, and whether a `)` must
/// close it ([`close_paren`]).
fn open_paren(toks: &[String], idx: usize) -> Result<(usize, bool), ParseError> {
    Ok(if tok(toks, idx)? == "(" {
        (idx + 1, true)
    } else {
        (idx, false)
    })
}

/// Steps over the `)` at `idx` that closes what [`open_paren`] opened (nothing to do when
/// nothing was opened); `message` says what is missing otherwise.
fn close_paren(
    toks: &[String],
    idx: usize,
    opened: bool,
    message: &str,
) -> Result<usize, ParseError> {
    if !opened {
        return Ok(idx);
    }
    if tok(toks, idx)? != ")" {
        return Err(fail(toks, idx, message));
    }
    Ok(idx + 1)
}

/// Where the items of a two-word clause (`group by`, `order by`) starting at `idx` begin:
/// `None` when the clause is absent, an error when `keyword` is not followed by `by`.
fn by_clause(toks: &[String], idx: usize, keyword: &str) -> Result<Option<usize>, ParseError> {
    if toks.get(idx).is_none_or(|t| t != keyword) {
        return Ok(None);
    }
    if tok(toks, idx + 1)? != "by" {
        return Err(fail(
            toks,
            idx + 1,
            format!("expected `by` after `{keyword}`"),
        ));
    }
    Ok(Some(idx + 2))
}

impl Ctx<'_> {
    fn alias(&self, toks: &[String], idx: usize, name: &str) -> Result<&str, ParseError> {
        self.aliases
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| fail(toks, idx, format!("unknown table or alias `{name}`")))
    }

    fn parse_col(&self, toks: &[String], idx: usize, default_tables: &[String]) -> PResult<String> {
        let t = tok(toks, idx)?;
        if t == "*" {
            return Ok((idx + 1, "__all__".to_string()));
        }
        if t.contains('.') {
            let parts: Vec<&str> = t.split('.').collect();
            if parts.len() != 2 {
                return Err(fail(toks, idx, format!("malformed column `{t}`")));
            }
            let table = self.alias(toks, idx, parts[0])?;
            let key = format!("{table}.{}", parts[1]);
            let id = self
                .schema
                .id_of(&key)
                .ok_or_else(|| fail(toks, idx, format!("unknown column `{key}`")))?;
            return Ok((idx + 1, id.to_string()));
        }
        if default_tables.is_empty() {
            return Err(fail(toks, idx, "column outside any FROM table"));
        }
        for alias in default_tables {
            let table = self.alias(toks, idx, alias)?;
            let cols = self
                .schema
                .columns_of(table)
                .ok_or_else(|| fail(toks, idx, format!("`{table}` is not a table")))?;
            if cols.iter().any(|c| c == t) {
                let key = format!("{table}.{t}");
                let id = self
                    .schema
                    .id_of(&key)
                    .ok_or_else(|| fail(toks, idx, format!("unknown column `{key}`")))?;
                return Ok((idx + 1, id.to_string()));
            }
        }
        Err(fail(toks, idx, format!("unknown column `{t}`")))
    }

    fn parse_col_unit(&self, toks: &[String], start: usize, dt: &[String]) -> PResult<ColUnit> {
        let (mut idx, block) = open_paren(toks, start)?;
        let mut distinct = false;
        if let Some(agg) = index_of(&AGG_OPS, tok(toks, idx)?) {
            idx += 1;
            if idx >= toks.len() || toks[idx] != "(" {
                return Err(fail(toks, idx, "expected `(` after aggregate"));
            }
            idx += 1;
            if tok(toks, idx)? == "distinct" {
                idx += 1;
                distinct = true;
            }
            let (next, col) = self.parse_col(toks, idx, dt)?;
            idx = next;
            if idx >= toks.len() || toks[idx] != ")" {
                return Err(fail(toks, idx, "expected `)` after aggregate argument"));
            }
            idx += 1;
            return Ok((
                idx,
                ColUnit {
                    agg,
                    col,
                    distinct: Some(distinct),
                },
            ));
        }
        if tok(toks, idx)? == "distinct" {
            idx += 1;
            distinct = true;
        }
        let (next, col) = self.parse_col(toks, idx, dt)?;
        idx = close_paren(toks, next, block, "expected `)`")?;
        Ok((
            idx,
            ColUnit {
                agg: 0,
                col,
                distinct: Some(distinct),
            },
        ))
    }

    fn parse_val_unit(&self, toks: &[String], start: usize, dt: &[String]) -> PResult<ValUnit> {
        let (mut idx, block) = open_paren(toks, start)?;
        let (next, left) = self.parse_col_unit(toks, idx, dt)?;
        idx = next;
        let mut op = 0;
        let mut right = None;
        if let Some(o) = toks.get(idx).and_then(|t| index_of(&UNIT_OPS, t)) {
            op = o;
            idx += 1;
            let (next, r) = self.parse_col_unit(toks, idx, dt)?;
            idx = next;
            right = Some(r);
        }
        idx = close_paren(toks, idx, block, "expected `)`")?;
        Ok((idx, ValUnit { op, left, right }))
    }

    fn parse_table_unit(&self, toks: &[String], start: usize) -> PResult<(String, String)> {
        let name = tok(toks, start)?;
        let key = self.alias(toks, start, name)?.to_string();
        let idx = if toks.get(start + 1).is_some_and(|t| t == "as") {
            start + 3
        } else {
            start + 1
        };
        let id = self
            .schema
            .id_of(&key)
            .ok_or_else(|| fail(toks, start, format!("unknown table `{key}`")))?;
        Ok((idx, (id.to_string(), key)))
    }

    fn parse_value(
        &self,
        toks: &[String],
        start: usize,
        dt: &[String],
        depth: usize,
    ) -> PResult<Value> {
        let (mut idx, block) = open_paren(toks, start)?;
        let t = tok(toks, idx)?;
        let val;
        if t == "select" {
            let (next, sql) = self.parse_sql(toks, idx, depth + 1)?;
            idx = next;
            val = Value::Sql(Box::new(sql));
        } else if t.contains('"') {
            val = Value::Str(t.to_string());
            idx += 1;
        } else if let Some(f) = py_float(t) {
            val = Value::Number(f);
            idx += 1;
        } else {
            let mut end = idx;
            while end < toks.len() {
                let e = toks[end].as_str();
                if e == "," || e == ")" || e == "and" || is_clause(e) || JOIN_KEYWORDS.contains(&e)
                {
                    break;
                }
                end += 1;
            }
            let (_, cu) = self.parse_col_unit(&toks[start..end], 0, dt)?;
            val = Value::Col(cu);
            idx = end;
        }
        idx = close_paren(toks, idx, block, "expected `)` after value")?;
        Ok((idx, val))
    }

    fn parse_condition(
        &self,
        toks: &[String],
        start: usize,
        dt: &[String],
        depth: usize,
    ) -> PResult<Condition> {
        let mut idx = start;
        let mut conds = Vec::new();
        while idx < toks.len() {
            let (next, val_unit) = self.parse_val_unit(toks, idx, dt)?;
            idx = next;
            let mut not = false;
            if tok(toks, idx)? == "not" {
                not = true;
                idx += 1;
            }
            let op = toks
                .get(idx)
                .and_then(|t| index_of(&WHERE_OPS, t))
                .ok_or_else(|| fail(toks, idx, "expected a comparison operator"))?;
            idx += 1;
            let (val1, val2);
            if op == 1 {
                let (next, v1) = self.parse_value(toks, idx, dt, depth)?;
                idx = next;
                if tok(toks, idx)? != "and" {
                    return Err(fail(toks, idx, "expected `and` in BETWEEN"));
                }
                idx += 1;
                let (next, v2) = self.parse_value(toks, idx, dt, depth)?;
                idx = next;
                val1 = v1;
                val2 = v2;
            } else {
                let (next, v1) = self.parse_value(toks, idx, dt, depth)?;
                idx = next;
                val1 = v1;
                val2 = Value::Null;
            }
            conds.push(CondItem::Unit(CondUnit {
                not,
                op,
                val_unit,
                val1,
                val2,
            }));
            if let Some(t) = toks.get(idx) {
                if ends_clause(t) || JOIN_KEYWORDS.contains(&t.as_str()) {
                    break;
                }
                if t == "and" || t == "or" {
                    conds.push(if t == "and" {
                        CondItem::And
                    } else {
                        CondItem::Or
                    });
                    idx += 1;
                }
            }
        }
        Ok((idx, conds))
    }

    fn parse_select(&self, toks: &[String], start: usize, dt: &[String]) -> PResult<Select> {
        let mut idx = start;
        if tok(toks, idx)? != "select" {
            return Err(fail(toks, idx, "`select` not found"));
        }
        idx += 1;
        let mut distinct = false;
        if toks.get(idx).is_some_and(|t| t == "distinct") {
            idx += 1;
            distinct = true;
        }
        let mut items = Vec::new();
        while idx < toks.len() && !is_clause(&toks[idx]) {
            let mut agg = 0;
            if let Some(a) = index_of(&AGG_OPS, &toks[idx]) {
                agg = a;
                idx += 1;
            }
            let (next, vu) = self.parse_val_unit(toks, idx, dt)?;
            idx = next;
            items.push((agg, vu));
            if toks.get(idx).is_some_and(|t| t == ",") {
                idx += 1;
            }
        }
        Ok((
            idx,
            Select {
                distinct: Some(distinct),
                items,
            },
        ))
    }

    fn parse_from(
        &self,
        toks: &[String],
        start: usize,
        depth: usize,
    ) -> PResult<(FromClause, Vec<String>)> {
        let from_pos = toks
            .get(start..)
            .and_then(|rest| rest.iter().position(|t| t == "from"))
            .ok_or_else(|| fail(toks, start, "`from` not found"))?;
        let mut idx = start + from_pos + 1;
        let mut default_tables = Vec::new();
        let mut table_units = Vec::new();
        let mut conds: Condition = Vec::new();
        while idx < toks.len() {
            let (unit_start, block) = open_paren(toks, idx)?;
            idx = unit_start;
            if tok(toks, idx)? == "select" {
                let (next, sql) = self.parse_sql(toks, idx, depth + 1)?;
                idx = next;
                table_units.push(TableUnit::Sql(Box::new(sql)));
            } else {
                if toks.get(idx).is_some_and(|t| t == "join") {
                    idx += 1;
                }
                let (next, (id, name)) = self.parse_table_unit(toks, idx)?;
                idx = next;
                table_units.push(TableUnit::Table(id));
                default_tables.push(name);
            }
            if toks.get(idx).is_some_and(|t| t == "on") {
                idx += 1;
                let (next, this) = self.parse_condition(toks, idx, &default_tables, depth)?;
                idx = next;
                if !conds.is_empty() {
                    conds.push(CondItem::And);
                }
                conds.extend(this);
            }
            idx = close_paren(toks, idx, block, "expected `)` in FROM")?;
            if toks.get(idx).is_some_and(|t| ends_clause(t)) {
                break;
            }
        }
        Ok((idx, (FromClause { table_units, conds }, default_tables)))
    }

    fn parse_condition_clause(
        &self,
        toks: &[String],
        start: usize,
        keyword: &str,
        dt: &[String],
        depth: usize,
    ) -> PResult<Condition> {
        if toks.get(start).is_none_or(|t| t != keyword) {
            return Ok((start, Vec::new()));
        }
        self.parse_condition(toks, start + 1, dt, depth)
    }

    fn parse_group_by(
        &self,
        toks: &[String],
        start: usize,
        dt: &[String],
    ) -> PResult<Vec<ColUnit>> {
        let mut units = Vec::new();
        let Some(mut idx) = by_clause(toks, start, "group")? else {
            return Ok((start, units));
        };
        while idx < toks.len() && !ends_clause(&toks[idx]) {
            let (next, cu) = self.parse_col_unit(toks, idx, dt)?;
            idx = next;
            units.push(cu);
            if toks.get(idx).is_some_and(|t| t == ",") {
                idx += 1;
            } else {
                break;
            }
        }
        Ok((idx, units))
    }

    fn parse_order_by(
        &self,
        toks: &[String],
        start: usize,
        dt: &[String],
    ) -> PResult<Option<OrderBy>> {
        let Some(mut idx) = by_clause(toks, start, "order")? else {
            return Ok((start, None));
        };
        let mut direction = "asc";
        let mut items = Vec::new();
        while idx < toks.len() && !ends_clause(&toks[idx]) {
            let (next, vu) = self.parse_val_unit(toks, idx, dt)?;
            idx = next;
            items.push(vu);
            match toks.get(idx).map(String::as_str) {
                Some("asc") => {
                    direction = "asc";
                    idx += 1;
                }
                Some("desc") => {
                    direction = "desc";
                    idx += 1;
                }
                _ => {}
            }
            if toks.get(idx).is_some_and(|t| t == ",") {
                idx += 1;
            } else {
                break;
            }
        }
        Ok((idx, Some(OrderBy { direction, items })))
    }

    fn parse_limit(&self, toks: &[String], start: usize) -> PResult<Option<String>> {
        if toks.get(start).is_none_or(|t| t != "limit") {
            return Ok((start, None));
        }
        let value = tok(toks, start + 1)?;
        let limit = if self.strict {
            match value.parse::<i64>() {
                Ok(n) => n.to_string(),
                Err(_) => value.to_string(),
            }
        } else {
            // The reference checks the token's Python type (always `str`)
            // against `int`, so the recorded limit is always 1.
            "1".to_string()
        };
        Ok((start + 2, Some(limit)))
    }

    fn parse_sql(&self, toks: &[String], start: usize, depth: usize) -> PResult<Sql> {
        if depth > MAX_DEPTH {
            return Err(fail(
                toks,
                start,
                format!("query nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        let (idx, block) = open_paren(toks, start)?;
        let (from_end, (from, dt)) = self.parse_from(toks, start, depth)?;
        let (_, select) = self.parse_select(toks, idx, &dt)?;
        let (next, where_) = self.parse_condition_clause(toks, from_end, "where", &dt, depth)?;
        let (next, group_by) = self.parse_group_by(toks, next, &dt)?;
        let (next, having) = self.parse_condition_clause(toks, next, "having", &dt, depth)?;
        let (next, order_by) = self.parse_order_by(toks, next, &dt)?;
        let (next, limit) = self.parse_limit(toks, next)?;
        let idx = skip_semicolons(toks, next);
        let idx = close_paren(toks, idx, block, "expected `)` closing sub-query")?;
        let mut idx = skip_semicolons(toks, idx);
        let mut sql = Sql {
            select,
            from,
            where_,
            group_by,
            having,
            order_by,
            limit,
            intersect: None,
            except: None,
            union: None,
        };
        if let Some(op) = toks.get(idx).map(String::as_str) {
            if matches!(op, "intersect" | "union" | "except") {
                let (next, rhs) = self.parse_sql(toks, idx + 1, depth + 1)?;
                idx = next;
                let rhs = Some(Box::new(rhs));
                match op {
                    "intersect" => sql.intersect = rhs,
                    "union" => sql.union = rhs,
                    _ => sql.except = rhs,
                }
            }
        }
        Ok((idx, sql))
    }
}

fn skip_semicolons(toks: &[String], mut idx: usize) -> usize {
    while toks.get(idx).is_some_and(|t| t == ";") {
        idx += 1;
    }
    idx
}

/// Builds the alias map: every `X as Y` maps `Y` to `X` (the token before
/// `as`; for a leading `as` that is the last token, as with Python's `-1`
/// index), then every schema table maps to itself. An alias equal to a table
/// name is an error, as in the reference.
fn tables_with_alias(
    schema: &Schema,
    toks: &[String],
) -> Result<HashMap<String, String>, ParseError> {
    let mut map = HashMap::new();
    for (i, t) in toks.iter().enumerate() {
        if t != "as" {
            continue;
        }
        let alias = toks
            .get(i + 1)
            .ok_or_else(|| ParseError::new(Some(i), Some(t.clone()), "`as` without alias"))?;
        let target = if i == 0 { toks.last() } else { toks.get(i - 1) };
        if let Some(target) = target {
            map.insert(alias.clone(), target.clone());
        }
    }
    for (table, _) in &schema.tables {
        if map.contains_key(table) {
            return Err(ParseError::new(
                None,
                Some(table.clone()),
                format!("alias `{table}` has the same name as a table"),
            ));
        }
        map.insert(table.clone(), table.clone());
    }
    Ok(map)
}

/// Tokenizes and parses `sql` against `schema`; `strict` keeps LIMIT values.
pub(super) fn parse_query(schema: &Schema, sql: &str, strict: bool) -> Result<Sql, ParseError> {
    let toks = tokenize(sql)?;
    let aliases = tables_with_alias(schema, &toks)?;
    let ctx = Ctx {
        schema,
        aliases,
        strict,
    };
    let (_, parsed) = ctx.parse_sql(&toks, 0, 0)?;
    Ok(parsed)
}
