//! Unicode punctuation folding for the last, most tolerant matching tier: typographic dashes,
//! curly quotes and odd spaces that a model (or an editor) substitutes for their ASCII forms.
//!
//! Folding is one character to one character, so a folded line has as many characters as the
//! original; it is used only to *compare* text, never to produce what gets written.

use std::borrow::Cow;

/// The ASCII stand-in of a typographic character, or the character itself.
pub fn fold_char(c: char) -> char {
    match c {
        // Hyphens and dashes: ‐ ‑ ‒ – — ― and the minus sign −.
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        // Single quotes: ‘ ’ ‚ ‛ and the prime ′.
        '\u{2018}'..='\u{201B}' | '\u{2032}' => '\'',
        // Double quotes: “ ” „ ‟ and the double prime ″.
        '\u{201C}'..='\u{201F}' | '\u{2033}' => '"',
        // Spaces: no-break, en/em and the other fixed-width spaces, narrow no-break,
        // medium mathematical, ideographic.
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        _ => c,
    }
}

/// `text` with every typographic dash, quote and space folded to ASCII (borrowed when there
/// is nothing to fold).
pub fn fold_punctuation(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || !text.chars().any(|c| fold_char(c) != c) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(fold_char).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_dashes_quotes_and_spaces() {
        assert_eq!(
            fold_punctuation("“a” – ‘b’\u{00A0}c—d\u{3000}e"),
            "\"a\" - 'b' c-d e"
        );
    }

    #[test]
    fn leaves_other_text_borrowed() {
        assert!(matches!(fold_punctuation("plain"), Cow::Borrowed(_)));
        assert!(matches!(fold_punctuation("héllo ✓"), Cow::Borrowed(_)));
        assert_eq!(fold_punctuation("héllo ✓"), "héllo ✓");
    }
}
