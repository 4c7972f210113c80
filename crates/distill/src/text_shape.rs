//! The shape of a text, as the profile's samples are read: its runs of digits between the
//! same other characters (`1:23.794` is `#:#.#`), and whether it begins with a date.

/// Whether `s` begins with a date (`2014-07-02 16:05:34.0`, a layout `profile`'s date formats do
/// not list): its digits recombined would make months past 12.
pub(crate) fn dated(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..10].iter().enumerate().all(|(i, &ch)| match i {
            4 | 7 => ch == b'-' || ch == b'/',
            _ => ch.is_ascii_digit(),
        })
}

/// `s` with each run of digits made one `#`, if it has a digit.
pub(crate) fn digit_runs(s: &str) -> Option<String> {
    let mut out = String::new();
    for ch in s.chars() {
        if !ch.is_ascii_digit() {
            out.push(ch);
        } else if !out.ends_with('#') {
            out.push('#');
        }
    }
    out.contains('#').then_some(out)
}
