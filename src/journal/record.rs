//! An item's verdicts as a journal line holds them, both ways: [`encode`] writes every field of
//! every [`Verdict`] (the destructuring below fails to compile when `Verdict` gains one), and
//! [`decode`] gives the same [`ItemResult`] back, checked by encoding it again.
//!
//! `{"metric":"exec","verdict":"incorrect","reason":"row_count","message":"…","details":"…",
//!   "steps":{"gold":4000,"prediction":6000},"components":[{"component":"select","acc":1.0,
//!   "rec":0.5,"f1":0.6666666666666666,"label_total":2,"pred_total":1}],
//!   "scores":[["bleu",0.25]],"gold_flags":["ties_at_limit"]}`: `reason` is the verdict's code
//! and `message` its one line, as in `--format jsonl`; scores keep their order (a list of
//! pairs); a number that is not finite is written as a string (`"NaN"`, `"inf"`, `"-inf"`).
//! A counterexample (`counterexample`, [`sqlsuite::counterexample::Found`]) is written as serde
//! writes it, `null` without one; so are the differing rows (`rows`,
//! [`sqlsuite::metric::differing::DifferingRows`]). Numbers round-trip exactly (serde_json's `float_roundtrip`, on for the whole build).

use std::collections::BTreeSet;
use std::sync::Mutex;

use serde_json::{json, Value};
use sqlsuite::metric::{ComponentScore, Status, Steps, Verdict};
use sqlsuite::ItemResult;

/// The JSON of an item's verdicts, in the metrics' order.
pub fn encode(result: &ItemResult) -> Value {
    Value::Array(
        result
            .verdicts
            .iter()
            .map(|(metric, v)| verdict(metric, v))
            .collect(),
    )
}

fn verdict(metric: &str, v: &Verdict) -> Value {
    let Verdict {
        status,
        code,
        reason,
        details,
        components,
        scores,
        gold_flags,
        steps,
        counterexample,
        rows,
    } = v;
    json!({
        "metric": metric,
        "verdict": status,
        "reason": code,
        "message": reason,
        "details": details,
        "steps": steps,
        "components": components.iter().map(component).collect::<Vec<_>>(),
        "scores": scores.iter().map(|(n, x)| json!([n, number(*x)])).collect::<Vec<_>>(),
        "gold_flags": gold_flags,
        "counterexample": counterexample,
        "rows": rows,
    })
}

fn component(c: &ComponentScore) -> Value {
    let ComponentScore {
        component,
        acc,
        rec,
        f1,
        label_total,
        pred_total,
    } = c;
    json!({
        "component": component,
        "acc": number(*acc),
        "rec": number(*rec),
        "f1": number(*f1),
        "label_total": label_total,
        "pred_total": pred_total,
    })
}

/// A float as JSON: a number if finite (serde_json writes the others as `null`), else a string.
fn number(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else if x.is_nan() {
        json!("NaN")
    } else if x > 0.0 {
        json!("inf")
    } else {
        json!("-inf")
    }
}

/// The verdicts a journal line holds, for an evaluation whose metrics are `metrics` (in its
/// order): the line must name exactly those, and encoding the result again must give the same
/// JSON (nothing the line says is lost).
pub fn decode(value: &Value, metrics: &[&'static str]) -> Result<ItemResult, String> {
    let list = value.as_array().ok_or("\"verdicts\" is not a list")?;
    let names: Vec<&str> = list
        .iter()
        .map(|v| v["metric"].as_str().unwrap_or("?"))
        .collect();
    if names != metrics {
        return Err(format!(
            "verdicts of the metrics {names:?}, but the evaluation has {metrics:?}"
        ));
    }
    let verdicts = list
        .iter()
        .zip(metrics)
        .map(|(v, &m)| Ok((m, read_verdict(v)?)))
        .collect::<Result<Vec<_>, String>>()?;
    let result = ItemResult { verdicts };
    if encode(&result) != *value {
        return Err("its verdicts do not read back as written".into());
    }
    Ok(result)
}

fn read_verdict(v: &Value) -> Result<Verdict, String> {
    let text = |key: &str| -> Result<String, String> {
        v[key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("a verdict without {key:?}"))
    };
    let list = |key: &str| -> Result<&Vec<Value>, String> {
        v[key]
            .as_array()
            .ok_or_else(|| format!("a verdict without the list {key:?}"))
    };
    let scores = list("scores")?
        .iter()
        .map(|pair| match pair.as_array().map(Vec::as_slice) {
            Some([name, x]) => Ok((name_of(name)?, read_number(x)?)),
            _ => Err(format!("a score that is not [name, value]: {pair}")),
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Verdict {
        status: status(&text("verdict")?)?,
        code: text("reason")?,
        reason: text("message")?,
        details: text("details")?,
        components: list("components")?
            .iter()
            .map(read_component)
            .collect::<Result<_, String>>()?,
        scores: scores.into_boxed_slice(),
        gold_flags: list("gold_flags")?
            .iter()
            .map(name_of)
            .collect::<Result<_, String>>()?,
        steps: read_steps(&v["steps"])?,
        counterexample: match &v["counterexample"] {
            Value::Null => None,
            found => Some(Box::new(serde_json::from_value(found.clone()).map_err(
                |e| format!("a counterexample that does not read back: {e}"),
            )?)),
        },
        rows: match &v["rows"] {
            Value::Null => None,
            rows => Some(Box::new(
                serde_json::from_value(rows.clone())
                    .map_err(|e| format!("differing rows that do not read back: {e}"))?,
            )),
        },
    })
}

fn status(text: &str) -> Result<Status, String> {
    [
        Status::Correct,
        Status::Incorrect,
        Status::GoldError,
        Status::Skipped,
    ]
    .into_iter()
    .find(|s| s.to_string() == text)
    .ok_or_else(|| format!("no verdict {text:?}"))
}

fn read_steps(v: &Value) -> Result<Option<Steps>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let gold = v["gold"].as_u64().ok_or("steps without \"gold\"")?;
    let prediction = match &v["prediction"] {
        Value::Null => None,
        p => Some(
            p.as_u64()
                .ok_or("steps with a \"prediction\" that is no count")?,
        ),
    };
    Ok(Some(Steps { gold, prediction }))
}

fn read_component(v: &Value) -> Result<ComponentScore, String> {
    let count = |key: &str| -> Result<usize, String> {
        v[key]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("a component score without {key:?}"))
    };
    Ok(ComponentScore {
        component: name_of(&v["component"])?,
        acc: read_number(&v["acc"])?,
        rec: read_number(&v["rec"])?,
        f1: read_number(&v["f1"])?,
        label_total: count("label_total")?,
        pred_total: count("pred_total")?,
    })
}

fn read_number(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| format!("no number: {n}")),
        Value::String(s) if s == "NaN" => Ok(f64::NAN),
        Value::String(s) if s == "inf" => Ok(f64::INFINITY),
        Value::String(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
        other => Err(format!("no number: {other}")),
    }
}

/// The longest name (a score, a component, a gold flag) a journal may hold.
const MAX_NAME: usize = 64;
/// At most this many distinct names per process: each is kept for the rest of it.
const MAX_NAMES: usize = 1024;

/// The names verdicts carry are `&'static str` (a metric names its scores and flags in its
/// code); read from a journal, each distinct one is made static once and then shared.
static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());

fn name_of(v: &Value) -> Result<&'static str, String> {
    let text = v.as_str().ok_or_else(|| format!("no name: {v}"))?;
    // Exact match's components are names like `select(no AGG)`.
    if text.len() > MAX_NAME || text.chars().any(char::is_control) {
        return Err(format!("not a name: {text:?}"));
    }
    let mut names = NAMES.lock().map_err(|_| "the name table is poisoned")?;
    if let Some(&known) = names.get(text) {
        return Ok(known);
    }
    if names.len() >= MAX_NAMES {
        return Err(format!("more than {MAX_NAMES} distinct names"));
    }
    let name: &'static str = Box::leak(text.to_owned().into_boxed_str());
    names.insert(name);
    Ok(name)
}
