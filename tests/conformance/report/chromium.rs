//! Headless Chromium (Debian's `chromium`): the DOM a page has after its script ran, and
//! screenshots; and reading that DOM.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Debian's Chromium, if installed.
pub fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

fn run(browser: &Path, page: &Path, fragment: &str, extra: &[String]) -> Vec<u8> {
    // A profile of its own: trials run in parallel.
    let profile = tempfile::tempdir().expect("a profile directory");
    let url = format!("file://{}#{fragment}", page.display());
    let mut args = vec![
        "--headless".to_owned(),
        "--no-sandbox".to_owned(),
        "--disable-gpu".to_owned(),
        "--no-first-run".to_owned(),
        format!("--user-data-dir={}", profile.path().display()),
    ];
    args.extend_from_slice(extra);
    args.push(url);
    let out = Command::new(browser)
        .args(&args)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The page's DOM after its script ran, with `fragment` in the address.
pub fn dom(browser: &Path, page: &Path, fragment: &str) -> String {
    let out = run(browser, page, fragment, &["--dump-dom".to_owned()]);
    String::from_utf8_lossy(&out).into_owned()
}

/// The DOM of a copy of the page with `script` run after the page's own (to click a header or
/// measure where something is drawn), in a window of `width` × `height` pixels.
pub fn dom_after(
    browser: &Path,
    page: &Path,
    fragment: &str,
    script: &str,
    (width, height): (u32, u32),
) -> String {
    let html = std::fs::read_to_string(page).expect("the page");
    let probe = page.with_extension("probe.html");
    let at = html.rfind("</body>").expect("a </body>");
    let text = format!("{}<script>{script}</script>{}", &html[..at], &html[at..]);
    std::fs::write(&probe, text).expect("the probe page");
    let out = run(
        browser,
        &probe,
        fragment,
        &[
            "--dump-dom".to_owned(),
            format!("--window-size={width},{height}"),
            "--hide-scrollbars".to_owned(),
        ],
    );
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of attribute `name` on the page's `<html>` element (a probe's result).
pub fn html_attribute(dom: &str, name: &str) -> Option<String> {
    let html = &dom[dom.find("<html")?..];
    let head = &html[..html.find('>')?];
    let rest = &head[head.find(&format!(" {name}=\""))? + name.len() + 3..];
    Some(unescape(&rest[..rest.find('"')?]))
}

/// Writes a PNG screenshot of the page (with `fragment` in the address) to `png`.
pub fn screenshot(browser: &Path, page: &Path, fragment: &str, png: &Path) {
    screenshot_sized(browser, page, fragment, png, (1280, 3000));
}

/// [`screenshot`] in a window of `width` × `height` pixels (1280 × 800: a laptop's first screen).
pub fn screenshot_sized(
    browser: &Path,
    page: &Path,
    fragment: &str,
    png: &Path,
    (width, height): (u32, u32),
) {
    if let Some(dir) = png.parent() {
        std::fs::create_dir_all(dir).expect("the screenshot directory");
    }
    let _ = std::fs::remove_file(png);
    run(
        browser,
        page,
        fragment,
        &[
            format!("--screenshot={}", png.display()),
            format!("--window-size={width},{height}"),
            "--hide-scrollbars".to_owned(),
        ],
    );
    let bytes = std::fs::read(png).unwrap_or_default();
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "no screenshot at {} ({} bytes)",
        png.display(),
        bytes.len()
    );
    eprintln!("screenshot: {}", png.display());
}

/// Where screenshots go: `target/tmp/report-screenshots/` (Cargo's temporary directory for
/// integration tests, under the target directory) for people to look at.
pub fn screenshot_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("report-screenshots")
        .join(format!("{name}.png"))
}

/// Text as the DOM serialiser writes it, back to the text.
pub fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The contents of the first element that starts with `start` (its opening tag included, up to
/// the first `end` after it).
pub fn element<'a>(dom: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let at = dom.find(start)?;
    let rest = &dom[at..];
    Some(&rest[..rest.find(end)?])
}

/// The cells' texts of each row of a table's body: `<tr …><td …>a</td>…</tr>` → `["a", …]`.
pub fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .split("<tr")
        .skip(1)
        .filter(|r| r.contains("<td"))
        .map(|r| {
            r.split("<td")
                .skip(1)
                .map(|c| {
                    let text = &c[c.find('>').map_or(0, |i| i + 1)..];
                    unescape(&text[..text.find("</td>").unwrap_or(text.len())])
                })
                .collect()
        })
        .collect()
}

/// The milliseconds the page's script recorded when it had rendered (`data-render-ms`).
pub fn render_ms(dom: &str) -> Option<u64> {
    let rest = &dom[dom.find("data-render-ms=\"")? + "data-render-ms=\"".len()..];
    rest[..rest.find('"')?].parse().ok()
}
