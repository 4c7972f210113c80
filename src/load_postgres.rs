//! `sqlsuite load-postgres`: copy the SQLite test suite a PostgreSQL manifest names
//! (`[databases] suite`, `name` with `{file}`) to its server, one database per file
//! (`sqlsuite::backend::postgres_load`), the manifest's read-only role granted `SELECT` alone.

use std::collections::BTreeSet;
use std::process::ExitCode;

use anyhow::Context;

use sqlsuite::backend::postgres_load::load_suite;
use sqlsuite::backend::Naming;
use sqlsuite::Manifest;

use crate::cli::LoadPostgresArgs;

pub fn run(args: &LoadPostgresArgs) -> anyhow::Result<ExitCode> {
    let manifest = Manifest::load(&args.manifest)?;
    let composition = sqlsuite::registry::compose_for_writing_databases(&manifest)?;
    let databases = composition.databases.as_ref();
    let Some((Naming::Suite { files, names }, reader)) =
        databases.map(|d| (&d.naming, d.connection.as_deref()))
    else {
        anyhow::bail!(
            "{}: [databases] names no suite to load (backend = \"postgres\" with `suite`)",
            args.manifest.display()
        );
    };
    let reader = reader
        .map(sqlsuite::backend::postgres_load::connection_user)
        .transpose()?
        .flatten();
    let admin = std::env::var(&args.admin_env).with_context(|| {
        format!(
            "environment variable {} (a superuser's connection string)",
            args.admin_env
        )
    })?;
    let items = (composition.format.read_gold)(&composition.inputs)?;
    let db_ids: Vec<String> = items
        .iter()
        .map(|i| i.db_id.clone())
        .filter(|d| args.only.is_empty() || args.only.contains(d))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // The keys of the databases the suite stands for: `[distill] profile` (BIRD's) names them.
    let profile = manifest
        .distill
        .profile
        .as_deref()
        .map(|path| {
            sqlsuite_distill::Profile::read(path)
                .with_context(|| format!("{}: [distill] profile", args.manifest.display()))
        })
        .transpose()?;
    let keys = |db_id: &str| {
        profile
            .as_ref()
            .map(|p| p.primary_keys(db_id))
            .unwrap_or_default()
    };
    let loaded = load_suite(&admin, files, names, &db_ids, reader.as_deref(), &keys)?;
    let (mut fresh, mut reused, mut failed, mut nulled) = (0, 0, 0, 0);
    let (mut keys_declared, mut keys_refused) = (0, 0);
    for l in &loaded {
        match &l.outcome {
            Ok(r) if r.reused => reused += 1,
            Ok(r) => {
                fresh += 1;
                keys_declared += r.keys;
                for (table, why) in &r.keys_refused {
                    keys_refused += 1;
                    println!("{}: {table}: primary key not declared: {why}", l.database);
                }
                for (column, n) in &r.nulled {
                    nulled += n;
                    println!("{}: {column}: {n} values no PostgreSQL column of its type holds, loaded as NULL", l.database);
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("{}: {e}", l.file.display());
            }
        }
    }
    println!(
        "{} databases: {fresh} loaded ({nulled} values as NULL; {keys_declared} primary keys declared, {keys_refused} not), {reused} already loaded from the same file and keys, {failed} failed",
        loaded.len()
    );
    if loaded.is_empty() {
        anyhow::bail!("no file matches {files} for {}", db_ids.join(", "));
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
