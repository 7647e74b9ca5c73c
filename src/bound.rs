//! Output bounding: cutting text to a byte budget on a UTF-8 boundary, with the contract's
//! marker `\n[... output truncated: <shown> of <total> bytes shown ...]`.

/// Cuts `text` so that it, with the marker, fits in `max_bytes`. Text that already fits is
/// returned unchanged.
pub fn bound(text: String, max_bytes: usize) -> String {
    bound_with_note(text, max_bytes, None)
}

/// Like [`bound`], with an extra clause inside the marker:
/// `[... output truncated: <shown> of <total> bytes shown; <note> ...]`.
pub fn bound_with_note(text: String, max_bytes: usize, note: Option<&str>) -> String {
    if text.len() <= max_bytes {
        return text;
    }
    let total = text.len();
    // The marker's own length depends on `shown` by at most a few digits: size it with the
    // widest possible number so the result never exceeds the budget.
    let reserve = marker(total, total, note).len();
    let keep = floor_char_boundary(&text, max_bytes.saturating_sub(reserve));
    let mut out = text;
    out.truncate(keep);
    out.push_str(&marker(keep, total, note));
    out
}

/// The contract's truncation marker, with its leading newline:
/// `\n[... output truncated: <shown> of <total> bytes shown ...]`, or with `; <note>` before the
/// closing `...]` when a note is given.
pub fn marker(shown: usize, total: usize, note: Option<&str>) -> String {
    match note {
        Some(note) => {
            format!("\n[... output truncated: {shown} of {total} bytes shown; {note} ...]")
        }
        None => format!("\n[... output truncated: {shown} of {total} bytes shown ...]"),
    }
}

/// `[... earlier output truncated: last <shown> of <total> bytes shown[; <note>] ...]\n`.
/// The cut start moves forward to a character boundary, so what is shown never exceeds the
/// budget. When not even the marker fits, the marker alone is returned.
pub fn cut_tail_with_marker(
    text: &str,
    budget: usize,
    total: usize,
    note: Option<&str>,
    cost: impl Fn(char) -> usize,
) -> String {
    let reserve: usize = tail_marker(total.max(text.len()), total, note)
        .chars()
        .map(&cost)
        .sum();
    let room = budget.saturating_sub(reserve);
    let mut spent = 0;
    let mut start = text.len();
    for (i, c) in text.char_indices().rev() {
        let n = cost(c);
        if spent + n > room {
            break;
        }
        spent += n;
        start = i;
    }
    let kept = &text[start..];
    let mut out = tail_marker(kept.len(), total, note);
    out.push_str(kept);
    out
}

/// `[... earlier output truncated: last <shown> of <total> bytes shown[; <note>] ...]\n`.
pub fn tail_marker(shown: usize, total: usize, note: Option<&str>) -> String {
    match note {
        Some(note) => format!(
            "[... earlier output truncated: last {shown} of {total} bytes shown; {note} ...]\n"
        ),
        None => {
            format!("[... earlier output truncated: last {shown} of {total} bytes shown ...]\n")
        }
    }
}

/// The largest index ≤ `index` that is a char boundary of `s`.
pub fn floor_char_boundary(s: &str, index: usize) -> usize {
    if index >= s.len() {
        return s.len();
    }
    let mut i = index;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(bound("abc".into(), 3), "abc");
    }

    #[test]
    fn long_text_is_cut_with_marker_within_budget() {
        let text = "x".repeat(5000);
        let out = bound(text, 1024);
        assert!(out.len() <= 1024, "{}", out.len());
        let shown = out.find('\n').unwrap();
        assert!(out.ends_with(&format!(
            "[... output truncated: {shown} of 5000 bytes shown ...]"
        )));
    }

    #[test]
    fn cuts_on_char_boundary() {
        let text = "é".repeat(3000);
        let out = bound(text, 1025);
        let body = &out[..out.find('\n').unwrap()];
        assert!(body.chars().all(|c| c == 'é'));
    }

    #[test]
    fn note_goes_inside_marker() {
        let out = bound_with_note("y".repeat(3000), 1024, Some("full output written to f.log"));
        assert!(out.ends_with("bytes shown; full output written to f.log ...]"));
    }
}
