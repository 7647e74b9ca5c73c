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

/// Per byte: 0 when it is copied as is, else the letter after the backslash (`u` for the
/// `\u00XX` form).
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[0x08] = b'b';
    table[0x0c] = b'f';
    table
};

/// The `\u00XX` escapes of the control characters.
const UNICODE: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\u0008", "\\u0009", "\\u000a", "\\u000b", "\\u000c", "\\u000d", "\\u000e", "\\u000f",
    "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
    "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

/// Appends the escape of byte `b` (which needs one).
#[inline]
fn push_escape(out: &mut String, b: u8) {
    out.push_str(match ESCAPE[b as usize] {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        b'n' => "\\n",
        b'r' => "\\r",
        b't' => "\\t",
        b'b' => "\\b",
        b'f' => "\\f",
        _ => UNICODE.get(b as usize).copied().unwrap_or_default(),
    });
}

/// Index of the first byte at or after `i` that needs escaping.
#[inline]
fn next_escape(bytes: &[u8], i: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    return sse2::next_escape(bytes, i);
    #[cfg(not(target_arch = "x86_64"))]
    return swar_next_escape(bytes, i);
}

/// [`next_escape`] eight bytes at a time, portable.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn swar_next_escape(bytes: &[u8], mut i: usize) -> Option<usize> {
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
        .position(|&b| ESCAPE[b as usize] != 0)
        .map(|p| i + p)
}

/// [`next_escape`] sixteen bytes at a time with SSE2, which every x86-64 CPU has.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    pub fn next_escape(bytes: &[u8], mut i: usize) -> Option<usize> {
        // SAFETY: SSE2 is part of the x86-64 baseline; every load reads 16 bytes that lie
        // inside `bytes` (checked by the loop condition) and needs no alignment.
        unsafe {
            let ctl_max = _mm_set1_epi8(0x1f);
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            while i + 16 <= bytes.len() {
                let x = _mm_loadu_si128(bytes.as_ptr().add(i) as *const __m128i);
                // x <= 0x1f (unsigned) exactly when max(x, 0x1f) == 0x1f.
                let ctl = _mm_cmpeq_epi8(_mm_max_epu8(x, ctl_max), ctl_max);
                let hit = _mm_or_si128(
                    ctl,
                    _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                );
                let mask = _mm_movemask_epi8(hit) as u32;
                if mask != 0 {
                    return Some(i + mask.trailing_zeros() as usize);
                }
                i += 16;
            }
        }
        super::swar_next_escape(bytes, i)
    }
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
        push_escape(out, bytes[i]);
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
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
        }
    }

    #[test]
    fn next_escape_finds_every_escapable_byte_at_every_offset() {
        for b in 0u8..=255 {
            for at in [0, 7, 8, 15, 16, 17, 31, 40] {
                let mut bytes = vec![b'a'; 48];
                bytes[at] = b;
                let want = (ESCAPE[b as usize] != 0).then_some(at);
                assert_eq!(next_escape(&bytes, 0), want, "byte {b:#x} at {at}");
                assert_eq!(swar_next_escape(&bytes, 0), want, "byte {b:#x} at {at}");
                assert_eq!(next_escape(&bytes, at + 1), None);
            }
        }
    }

    #[test]
    fn word_check_flags_exactly_the_escapable_bytes() {
        for b in 0u8..=255 {
            let w = u64::from_le_bytes([b'a', b'a', b'a', b, b'a', b'a', b'a', b'a']);
            assert_eq!(word_needs_escape(w), ESCAPE[b as usize] != 0, "byte {b:#x}");
        }
    }
}
