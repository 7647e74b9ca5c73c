//! What a tool returns: content parts for the model, plus `meta` for the host.
//!
//! The newest contract's results are `{ isError, content: ContentPart[], meta? }`; the seed
//! contract's are `{ isError, text }`, which is the text parts joined. Tools build an
//! [`Output`]; the binding turns it into either shape.

use serde_json::{Map, Value};

/// One piece of a result: text, or an image (base64 data and its MIME type).
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Image { data: String, mime_type: String },
}

/// A successful tool result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Output {
    pub content: Vec<Part>,
    /// A sidecar for the host (a UI's diff, an image's size); never shown to the model.
    pub meta: Option<Map<String, Value>>,
}

impl Output {
    /// One text part.
    pub fn text(text: impl Into<String>) -> Self {
        Output {
            content: vec![Part::Text(text.into())],
            meta: None,
        }
    }

    /// One image part: `data` is base64.
    pub fn image(data: String, mime_type: &str) -> Self {
        Output {
            content: vec![Part::Image {
                data,
                mime_type: mime_type.to_string(),
            }],
            meta: None,
        }
    }

    /// Adds `key` to `meta` when there is a value (builder style).
    pub fn with_meta_opt(self, key: &str, value: Option<impl Into<Value>>) -> Self {
        match value {
            Some(value) => self.with_meta(key, value),
            None => self,
        }
    }

    /// Adds `key` to `meta` (builder style).
    pub fn with_meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.meta
            .get_or_insert_with(Map::new)
            .insert(key.to_string(), value.into());
        self
    }

    /// The text parts joined with no separator (the contract's `contentText`); images skipped.
    pub fn joined_text(&self) -> String {
        let mut out = String::new();
        for part in &self.content {
            if let Part::Text(t) = part {
                out.push_str(t);
            }
        }
        out
    }

    /// Applies `f` to every text part (bounding, appending a warning, …).
    pub fn map_text(mut self, mut f: impl FnMut(String) -> String) -> Self {
        for part in &mut self.content {
            if let Part::Text(t) = part {
                *t = f(std::mem::take(t));
            }
        }
        self
    }
}

impl From<String> for Output {
    fn from(text: String) -> Self {
        Output::text(text)
    }
}

impl From<&str> for Output {
    fn from(text: &str) -> Self {
        Output::text(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_text_skips_images() {
        let mut out = Output::text("a");
        out.content.push(Part::Image {
            data: "AA==".into(),
            mime_type: "image/png".into(),
        });
        out.content.push(Part::Text("b".into()));
        assert_eq!(out.joined_text(), "ab");
        let out = out.map_text(|t| t.to_uppercase());
        assert_eq!(out.joined_text(), "AB");
    }

    #[test]
    fn meta_accumulates() {
        let out = Output::text("x").with_meta("diff", "d").with_meta("n", 1);
        let meta = out.meta.unwrap();
        assert_eq!(meta["diff"], "d");
        assert_eq!(meta["n"], 1);
    }
}
