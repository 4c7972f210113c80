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
    let runs = digit_run_ranges(s);
    let (mut out, mut last) = (String::new(), 0);
    for &(a, b) in &runs {
        out.push_str(&s[last..a]);
        out.push('#');
        last = b;
    }
    out.push_str(&s[last..]);
    (!runs.is_empty()).then_some(out)
}

/// The byte ranges of the runs of ASCII digits of `s`.
pub(crate) fn digit_run_ranges(s: &str) -> Vec<(usize, usize)> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut j = 0;
    while j < bytes.len() {
        if bytes[j].is_ascii_digit() {
            let a = j;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            out.push((a, j));
        } else {
            j += 1;
        }
    }
    out
}
