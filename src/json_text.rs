//! JSON string literals written fast, byte for byte as `serde_json` writes them: `"` and `\`
//! and the short escapes (`\n`, `\r`, `\t`, `\b`, `\f`) take two bytes, other control
//! characters `\u00XX`, everything else (DEL and non-ASCII included) is copied as is.
//!
//! Tool output can be tens of megabytes of mostly plain text; scanning eight bytes at a time
//! for the rare byte that needs escaping keeps writing it close to a memory copy.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `w` is below 0x20, a `"` or a `\`.
#[inline]
fn word_needs_escape(w: u64) -> bool {
    let has_zero = |x: u64| x.wrapping_sub(LO) & !x & HI != 0;
    let below_space = w.wrapping_sub(LO * 0x20) & !w & HI != 0;
    below_space || has_zero(w ^ (LO * b'"' as u64)) || has_zero(w ^ (LO * b'\\' as u64))
}

/// The escape of byte `b`, if it needs one.
#[inline]
fn escape(b: u8) -> Option<&'static str> {
    const SHORT: [(u8, &str); 7] = [
        (b'"', "\\\""),
        (b'\\', "\\\\"),
        (b'\n', "\\n"),
        (b'\r', "\\r"),
        (b'\t', "\\t"),
        (0x08, "\\b"),
        (0x0c, "\\f"),
    ];
    if b >= 0x20 && b != b'"' && b != b'\\' {
        return None;
    }
    if let Some((_, e)) = SHORT.iter().find(|(c, _)| *c == b) {
        return Some(e);
    }
    const UNICODE: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\u0008", "\\u0009", "\\u000a", "\\u000b", "\\u000c", "\\u000d", "\\u000e", "\\u000f",
        "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
        "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ];
    UNICODE.get(b as usize).copied()
}

/// Index of the first byte at or after `from` that needs escaping.
#[inline]
fn next_escape(bytes: &[u8], mut i: usize) -> Option<usize> {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if word_needs_escape(u64::from_le_bytes(word)) {
            break;
        }
        i += 8;
    }
    bytes[i.min(bytes.len())..]
        .iter()
        .position(|&b| escape(b).is_some())
        .map(|p| i + p)
}

/// Appends `s` as a JSON string literal, quotes included.
pub fn push_str_literal(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = next_escape(bytes, start) {
        // Escaped bytes are ASCII, so `i` is a char boundary.
        out.push_str(&s[start..i]);
        out.push_str(escape(bytes[i]).unwrap_or_default());
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The length of `s` once escaped inside a JSON string (quotes not counted).
pub fn escaped_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut len = s.len();
    let mut start = 0;
    while let Some(i) = next_escape(bytes, start) {
        len += escape(bytes[i]).map_or(0, |e| e.len() - 1);
        start = i + 1;
    }
    len
}

/// The escaped length of one character (for cutting on character boundaries).
pub fn char_escaped_len(c: char) -> usize {
    if c.is_ascii() {
        escape(c as u8).map_or(1, str::len)
    } else {
        c.len_utf8()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(s: &str) -> String {
        let mut out = String::new();
        push_str_literal(&mut out, s);
        out
    }

    #[test]
    fn matches_serde_json_for_every_ascii_byte_and_more() {
        let mut all: String = (0u8..=0x7f).map(char::from).collect();
        all.push_str("é😀\u{2028}");
        for s in [
            all.as_str(),
            "",
            "plain",
            "exactly8",
            "a\"b\\c\nd",
            "long run without escapes, then one at the end\n",
            "\u{0}\u{1f}\u{7f}",
        ] {
            let want = serde_json::to_string(s).unwrap();
            assert_eq!(literal(s), want, "{s:?}");
            assert_eq!(escaped_len(s), want.len() - 2, "{s:?}");
        }
        for c in ['a', '"', '\\', '\n', '\u{0}', '\u{1f}', 'é', '😀', '\u{7f}'] {
            let want = serde_json::to_string(&c.to_string()).unwrap();
            assert_eq!(char_escaped_len(c), want.len() - 2, "{c:?}");
        }
    }

    #[test]
    fn word_check_flags_exactly_the_escapable_bytes() {
        for b in 0u8..=255 {
            let w = u64::from_le_bytes([b'a', b'a', b'a', b, b'a', b'a', b'a', b'a']);
            assert_eq!(word_needs_escape(w), escape(b).is_some(), "byte {b:#x}");
        }
    }
}
