//! A pinned clock for SQLite, at the engine level: a VFS that wraps the default one and answers
//! its current-time calls (`xCurrentTime`, `xCurrentTimeInt64`, which `'now'`,
//! `CURRENT_TIMESTAMP` and their relatives read) with a fixed moment. Every other call goes to
//! the default VFS unchanged, so files open as they would without it (read-only and immutable,
//! by [`super::sqlite::open`]'s URI and flags).
//!
//! One VFS is registered per distinct moment, named `sqlsuite-clock-<unix ms>`, once per process
//! (under a lock), and never unregistered: a connection may use it as long as it lives. The safe
//! surface is [`connect`] (and [`vfs_for`]).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::Mutex;

use rusqlite::{ffi, Connection, OpenFlags};

use crate::clock::{Clock, Moment};

/// What a clock VFS's `pAppData` points to: the wrapped VFS and the moment.
struct Pinned {
    root: *mut ffi::sqlite3_vfs,
    julian_ms: i64,
}

/// Registered VFS names by moment; the structures they point to are leaked on purpose.
static REGISTERED: Mutex<Option<HashMap<Moment, &'static str>>> = Mutex::new(None);

/// The name of the VFS whose clock stands at `moment` (registered on first use), for
/// [`rusqlite::Connection::open_with_flags_and_vfs`].
pub fn vfs_for(moment: Moment) -> Result<&'static str, String> {
    let mut guard = REGISTERED.lock().unwrap_or_else(|p| p.into_inner());
    let registered = guard.get_or_insert_with(HashMap::new);
    if let Some(name) = registered.get(&moment) {
        return Ok(name);
    }
    let name: &'static str =
        Box::leak(format!("sqlsuite-clock-{}", moment.unix_millis()).into_boxed_str());
    register(name, moment)?;
    registered.insert(moment, name);
    Ok(name)
}

/// Opens `path` (a file, a URI with `SQLITE_OPEN_URI`, or `:memory:`) with `flags`, its
/// queries reading `clock`: through the default VFS for the machine's clock, through the
/// moment's VFS for a pinned one.
pub fn connect(path: &str, flags: OpenFlags, clock: Clock) -> rusqlite::Result<Connection> {
    match clock.pinned() {
        None => Connection::open_with_flags(path, flags),
        Some(moment) => {
            let vfs = vfs_for(moment).map_err(|e| rusqlite::Error::InvalidPath(e.into()))?;
            Connection::open_with_flags_and_vfs(path, flags, vfs)
        }
    }
}

/// Builds and registers the VFS `name` (not as the default).
fn register(name: &'static str, moment: Moment) -> Result<(), String> {
    // SAFETY: `sqlite3_vfs_find(NULL)` initializes SQLite if needed and returns the default
    // VFS, which lives as long as the process; we only read its fields.
    let root = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
    if root.is_null() {
        return Err("SQLite has no default VFS".into());
    }
    // SAFETY: `root` is non-null and points to a registered VFS.
    let (sz_os_file, mx_pathname) = unsafe { ((*root).szOsFile, (*root).mxPathname) };
    let c_name = CString::new(name).map_err(|e| e.to_string())?;
    let app = Box::leak(Box::new(Pinned {
        root,
        julian_ms: moment.julian_millis(),
    }));
    let vfs = Box::leak(Box::new(ffi::sqlite3_vfs {
        iVersion: 2,
        szOsFile: sz_os_file,
        mxPathname: mx_pathname,
        pNext: std::ptr::null_mut(),
        zName: c_name.into_raw(),
        pAppData: (app as *mut Pinned).cast(),
        xOpen: Some(x_open),
        xDelete: Some(x_delete),
        xAccess: Some(x_access),
        xFullPathname: Some(x_full_pathname),
        xDlOpen: Some(x_dl_open),
        xDlError: Some(x_dl_error),
        xDlSym: Some(x_dl_sym),
        xDlClose: Some(x_dl_close),
        xRandomness: Some(x_randomness),
        xSleep: Some(x_sleep),
        xCurrentTime: Some(x_current_time),
        xGetLastError: Some(x_get_last_error),
        xCurrentTimeInt64: Some(x_current_time_int64),
        xSetSystemCall: None,
        xGetSystemCall: None,
        xNextSystemCall: None,
    }));
    // SAFETY: `vfs` is a complete version-2 VFS that lives for the rest of the process;
    // registration is serialized by SQLite's own mutex (and by `REGISTERED`).
    let rc = unsafe { ffi::sqlite3_vfs_register(vfs, 0) };
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(format!(
            "registering the clock VFS {name}: SQLite error {rc}"
        ))
    }
}

/// The [`Pinned`] of a clock VFS.
///
/// # Safety
/// `vfs` must be one this module registered.
unsafe fn pinned<'a>(vfs: *mut ffi::sqlite3_vfs) -> &'a Pinned {
    &*((*vfs).pAppData as *const Pinned)
}

/// The wrapped VFS of a clock VFS.
///
/// # Safety
/// As [`pinned`].
unsafe fn root(vfs: *mut ffi::sqlite3_vfs) -> &'static mut ffi::sqlite3_vfs {
    &mut *pinned(vfs).root
}

unsafe extern "C" fn x_current_time_int64(vfs: *mut ffi::sqlite3_vfs, out: *mut i64) -> c_int {
    *out = pinned(vfs).julian_ms;
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_current_time(vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    *out = pinned(vfs).julian_ms as f64 / 86_400_000.0;
    ffi::SQLITE_OK
}

// Everything else: the wrapped VFS, called as itself (it may read its own `pAppData`).
// SAFETY (all): SQLite calls these only through a VFS this module registered, with the
// arguments the wrapped VFS's methods take; a method the root lacks is reported as an error.

unsafe extern "C" fn x_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let r = root(vfs);
    r.xOpen
        .map_or(ffi::SQLITE_ERROR, |f| f(r, name, file, flags, out_flags))
}

unsafe extern "C" fn x_delete(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    sync: c_int,
) -> c_int {
    let r = root(vfs);
    r.xDelete.map_or(ffi::SQLITE_ERROR, |f| f(r, name, sync))
}

unsafe extern "C" fn x_access(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    flags: c_int,
    out: *mut c_int,
) -> c_int {
    let r = root(vfs);
    r.xAccess
        .map_or(ffi::SQLITE_ERROR, |f| f(r, name, flags, out))
}

unsafe extern "C" fn x_full_pathname(
    vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    n: c_int,
    out: *mut c_char,
) -> c_int {
    let r = root(vfs);
    r.xFullPathname
        .map_or(ffi::SQLITE_ERROR, |f| f(r, name, n, out))
}

unsafe extern "C" fn x_dl_open(vfs: *mut ffi::sqlite3_vfs, name: *const c_char) -> *mut c_void {
    let r = root(vfs);
    r.xDlOpen.map_or(std::ptr::null_mut(), |f| f(r, name))
}

unsafe extern "C" fn x_dl_error(vfs: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) {
    let r = root(vfs);
    if let Some(f) = r.xDlError {
        f(r, n, out);
    }
}

type DlSym = Option<unsafe extern "C" fn(*mut ffi::sqlite3_vfs, *mut c_void, *const c_char)>;

unsafe extern "C" fn x_dl_sym(
    vfs: *mut ffi::sqlite3_vfs,
    handle: *mut c_void,
    symbol: *const c_char,
) -> DlSym {
    let r = root(vfs);
    r.xDlSym.and_then(|f| f(r, handle, symbol))
}

unsafe extern "C" fn x_dl_close(vfs: *mut ffi::sqlite3_vfs, handle: *mut c_void) {
    let r = root(vfs);
    if let Some(f) = r.xDlClose {
        f(r, handle);
    }
}

unsafe extern "C" fn x_randomness(vfs: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let r = root(vfs);
    r.xRandomness.map_or(0, |f| f(r, n, out))
}

unsafe extern "C" fn x_sleep(vfs: *mut ffi::sqlite3_vfs, microseconds: c_int) -> c_int {
    let r = root(vfs);
    r.xSleep.map_or(0, |f| f(r, microseconds))
}

unsafe extern "C" fn x_get_last_error(
    vfs: *mut ffi::sqlite3_vfs,
    n: c_int,
    out: *mut c_char,
) -> c_int {
    let r = root(vfs);
    r.xGetLastError.map_or(0, |f| f(r, n, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(moment: &str) -> Connection {
        let m = Moment::parse(moment).unwrap();
        let vfs = vfs_for(m).unwrap();
        Connection::open_in_memory_with_flags_and_vfs(OpenFlags::default(), vfs).unwrap()
    }

    fn text(conn: &Connection, sql: &str) -> String {
        conn.query_row(sql, [], |r| r.get::<_, String>(0)).unwrap()
    }

    #[test]
    fn now_and_its_relatives_answer_the_pinned_moment() {
        let conn = at("2024-05-01T12:34:56Z");
        assert_eq!(text(&conn, "SELECT datetime('now')"), "2024-05-01 12:34:56");
        assert_eq!(text(&conn, "SELECT date('now')"), "2024-05-01");
        assert_eq!(
            text(&conn, "SELECT CURRENT_TIMESTAMP"),
            "2024-05-01 12:34:56"
        );
        assert_eq!(text(&conn, "SELECT CURRENT_DATE"), "2024-05-01");
        assert_eq!(text(&conn, "SELECT strftime('%H:%M', 'now')"), "12:34");
        let jd: f64 = conn
            .query_row("SELECT julianday('now')", [], |r| r.get(0))
            .unwrap();
        let expected = 2_460_431.5 + (12.0 * 3600.0 + 34.0 * 60.0 + 56.0) / 86_400.0;
        assert!((jd - expected).abs() < 1e-6, "{jd} vs {expected}");
    }

    #[test]
    fn two_moments_at_once_on_two_connections() {
        let a = at("2001-02-03T04:05:06Z");
        let b = at("1999-12-31T23:59:59Z");
        let again = at("2001-02-03T04:05:06Z");
        assert_eq!(text(&a, "SELECT datetime('now')"), "2001-02-03 04:05:06");
        assert_eq!(text(&b, "SELECT datetime('now')"), "1999-12-31 23:59:59");
        assert_eq!(
            text(&again, "SELECT datetime('now')"),
            "2001-02-03 04:05:06"
        );
        let plain = Connection::open_in_memory().unwrap();
        assert_ne!(text(&plain, "SELECT date('now')"), "1999-12-31");
    }

    #[test]
    fn the_backend_reads_its_clock_on_read_only_files_and_scripts() {
        use crate::backend::sqlite::Sqlite;
        use crate::backend::{Backend, Database, Limits};
        use crate::denotation::Value;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (d TEXT); INSERT INTO t VALUES ('2024-04-20');")
            .unwrap();
        let script = dir.path().join("s.sql");
        std::fs::write(&script, "CREATE TABLE t (d TEXT);").unwrap();
        let pinned = Sqlite::at(Clock::Pinned(
            Moment::parse("2024-05-01T12:00:00Z").unwrap(),
        ));
        let limits = Limits::default();
        let first = |db: &Database, backend: &Sqlite, sql: &str| {
            let table = backend.execute(db, sql, &limits).unwrap();
            format!("{:?}", table.rows[0][0])
        };
        let (file, script) = (Database::file(&path), Database::file(&script));
        let sql = "SELECT date('now')";
        let day = format!("{:?}", Value::Text("2024-05-01".into()));
        assert_eq!(first(&file, &pinned, sql), day);
        assert_eq!(first(&script, &pinned, sql), day);
        // The same file on the machine's clock, from the same thread's connection cache.
        assert_ne!(first(&file, &Sqlite::default(), sql), day);
        let recent = "SELECT count(*) FROM t WHERE d >= date('now', '-30 days')";
        assert_eq!(
            first(&file, &pinned, recent),
            format!("{:?}", Value::Int(1))
        );
        assert!(pinned.execute(&file, "DELETE FROM t", &limits).is_err());
        assert!(pinned
            .execute(&file, "SELECT 1; DELETE FROM t", &limits)
            .is_err());
        let count = Connection::open(&path)
            .unwrap()
            .query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))
            .unwrap();
        assert_eq!(count, 1, "the file is untouched");
    }

    #[test]
    fn registration_is_once_per_moment_from_any_thread() {
        let m = Moment::parse("2010-10-10T10:10:10Z").unwrap();
        let names: Vec<&str> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8).map(|_| s.spawn(|| vfs_for(m).unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(names.iter().all(|n| std::ptr::eq(*n, names[0])));
        assert_eq!(names[0], "sqlsuite-clock-1286705410000");
    }
}
