//! `read_image`: a PNG, JPEG, GIF or WebP file as an image content part, for models that can
//! look at images. The format comes from the magic bytes, never the extension. The width and
//! height, read from the header without decoding the image, go to `meta` (the contract allows
//! no text part): `{ mimeType, bytes, width, height }`.

use std::io::Read;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::paths;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The image file (PNG, JPEG, GIF or WebP): relative to the workspace root, or absolute.
    pub path: String,
}

pub struct ReadImage;

impl Tool for ReadImage {
    const NAME: &'static str = "read_image";
    const DESCRIPTION: &'static str = "Look at an image file: returns a PNG, JPEG, GIF or WebP image (detected from its content, not its name) as an image you can see. Use it for screenshots, diagrams and UI assets. Other files are refused; use read_file for text and file_stat to check a file's type and size first.";
    const MUTATING: bool = false;
    const TITLE: &'static str = "Read an image";
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        use base64::Engine as _;
        let image = load(ctx, &args.path, ctx.max_image_bytes)?;
        let data = base64::engine::general_purpose::STANDARD.encode(&image.bytes);
        let out = Output::image(data, image.mime);
        if ctx.contract_exact() {
            // The contract's result is exactly one image part (CONTRACT-v0.5 §2), no meta.
            return Ok(out);
        }
        let mut out = out
            .with_meta("mimeType", image.mime)
            .with_meta("bytes", image.bytes.len());
        if let Some((width, height)) = image.size {
            out = out.with_meta("width", width).with_meta("height", height);
        }
        Ok(out)
    }
}

/// A loaded image: its bytes, MIME type and (when the header gives them) dimensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub bytes: Vec<u8>,
    pub mime: &'static str,
    pub size: Option<(u32, u32)>,
}

/// Reads `raw` as an image under `max_image_bytes`.
/// Errors: `not_found`, `not_a_file` (a directory), `too_large`, `not_an_image`.
pub fn load(config: &Config, raw: &str, max_image_bytes: u64) -> ToolResult<Image> {
    let path = paths::resolve(config, raw)?;
    let file = crate::confine::open_read(&path)
        .map_err(|e| crate::text::open_failure(config, &path, &e))?;
    let meta = file.metadata().map_err(|e| io_err(e, raw))?;
    if meta.is_dir() {
        return Err(ToolError::is_a_directory(raw));
    }
    if !meta.is_file() {
        return Err(not_an_image(raw));
    }
    if meta.len() > max_image_bytes {
        return Err(too_large(raw, meta.len(), max_image_bytes));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_image_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err(e, raw))?;
    if bytes.len() as u64 > max_image_bytes {
        return Err(too_large(raw, bytes.len() as u64, max_image_bytes));
    }
    let Some(mime) = sniff(&bytes) else {
        return Err(not_an_image(raw));
    };
    let size = dimensions(&bytes, mime);
    Ok(Image { bytes, mime, size })
}

fn not_an_image(raw: &str) -> ToolError {
    ToolError::new(
        ErrorCode::NotAnImage,
        format!("Not a supported image (expected png, jpeg, gif, or webp): {raw}"),
    )
    .with("path", raw)
}

fn too_large(raw: &str, size: u64, limit: u64) -> ToolError {
    ToolError::new(
        ErrorCode::TooLarge,
        format!(
            "Image is {size} bytes, exceeding the {limit}-byte limit (raise MAX_IMAGE_BYTES): {raw}"
        ),
    )
    .with("path", raw)
    .with("size", size)
    .with("limit", limit)
}

/// The image MIME type from the magic bytes: PNG's 8-byte signature, `FF D8 FF` (JPEG),
/// `GIF87a` / `GIF89a`, `RIFF????WEBP`.
pub fn sniff(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(b"\xFF\xD8\xFF") {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Width and height from the header, without decoding: PNG's IHDR, GIF's logical screen,
/// JPEG's first SOF marker, WebP's VP8 / VP8L / VP8X chunk. `None` when the header is cut or
/// unusual.
pub fn dimensions(b: &[u8], mime: &str) -> Option<(u32, u32)> {
    let be32 = |i: usize| Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?));
    let be16 = |i: usize| Some(u16::from_be_bytes(b.get(i..i + 2)?.try_into().ok()?) as u32);
    let le16 = |i: usize| Some(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?) as u32);
    let le24 = |i: usize| {
        let s = b.get(i..i + 3)?;
        Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
    };
    match mime {
        "image/png" if b.get(12..16) == Some(b"IHDR") => Some((be32(16)?, be32(20)?)),
        "image/gif" => Some((le16(6)?, le16(8)?)),
        "image/jpeg" => {
            let mut i = 2;
            while i + 4 <= b.len() {
                if b[i] != 0xFF {
                    return None;
                }
                let marker = b[i + 1];
                if marker == 0xFF {
                    i += 1;
                    continue;
                }
                if marker == 0xD8 || marker == 0x01 || (0xD0..=0xD7).contains(&marker) {
                    i += 2;
                    continue;
                }
                let len = be16(i + 2)? as usize;
                let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
                if is_sof {
                    return Some((be16(i + 7)?, be16(i + 5)?));
                }
                i += 2 + len;
            }
            None
        }
        "image/webp" => match b.get(12..16)? {
            b"VP8 " if b.get(23..26) == Some(b"\x9d\x01\x2a") => {
                Some((le16(26)? & 0x3FFF, le16(28)? & 0x3FFF))
            }
            b"VP8L" if b.get(20) == Some(&0x2F) => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
            }
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;
    use std::fs;

    /// A valid 3x2 PNG header (signature, IHDR).
    pub fn png_3x2() -> Vec<u8> {
        let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        v.extend_from_slice(&3u32.to_be_bytes());
        v.extend_from_slice(&2u32.to_be_bytes());
        v.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        v
    }

    #[test]
    fn sniffs_and_measures() {
        assert_eq!(sniff(&png_3x2()), Some("image/png"));
        assert_eq!(dimensions(&png_3x2(), "image/png"), Some((3, 2)));
        let gif = b"GIF89a\x05\x00\x07\x00";
        assert_eq!(sniff(gif), Some("image/gif"));
        assert_eq!(dimensions(gif, "image/gif"), Some((5, 7)));
        let mut jpg = b"\xFF\xD8\xFF\xE0\x00\x04ab".to_vec();
        jpg.extend_from_slice(b"\xFF\xC0\x00\x11\x08\x00\x0A\x00\x14\x03");
        assert_eq!(sniff(&jpg), Some("image/jpeg"));
        assert_eq!(dimensions(&jpg, "image/jpeg"), Some((20, 10)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend_from_slice(&[9, 0, 0, 4, 0, 0]);
        assert_eq!(sniff(&webp), Some("image/webp"));
        assert_eq!(dimensions(&webp, "image/webp"), Some((10, 5)));
        assert_eq!(sniff(b"hello"), None);
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVE"), None);
    }

    #[test]
    fn the_tool_returns_one_image_part_and_meta_with_extras() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), png_3x2()).unwrap();
        // The root's answer is the image part alone (CONTRACT-v0.5 §2).
        let exact = config_at(dir.path());
        let out = ReadImage::run(Args { path: "a".into() }, &Ctx::plain(&exact)).unwrap();
        assert_eq!(out.content.len(), 1);
        assert!(out.meta.is_none());
        let c = Config {
            extras: true,
            ..config_at(dir.path())
        };
        let out = ReadImage::run(Args { path: "a".into() }, &Ctx::plain(&c)).unwrap();
        assert_eq!(out.content.len(), 1);
        assert!(
            matches!(&out.content[0], crate::output::Part::Image { mime_type, .. } if mime_type == "image/png")
        );
        let meta = out.meta.unwrap();
        assert_eq!(
            (meta["width"].as_u64(), meta["height"].as_u64()),
            (Some(3), Some(2))
        );
    }

    #[test]
    fn load_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let c = config_at(root);
        fs::write(root.join("a.png"), png_3x2()).unwrap();
        fs::write(root.join("t.png"), "text").unwrap();
        fs::create_dir(root.join("d")).unwrap();
        let img = load(&c, "a.png", 5_000_000).unwrap();
        assert_eq!((img.mime, img.size), ("image/png", Some((3, 2))));
        let code = |r: ToolResult<Image>| r.unwrap_err().code;
        assert_eq!(code(load(&c, "t.png", 5_000_000)), ErrorCode::NotAnImage);
        assert_eq!(code(load(&c, "d", 5_000_000)), ErrorCode::NotAFile);
        assert_eq!(code(load(&c, "nope", 5_000_000)), ErrorCode::NotFound);
        let e = load(&c, "a.png", 10).unwrap_err();
        assert!(
            e.message.ends_with("(raise MAX_IMAGE_BYTES): a.png"),
            "{}",
            e.message
        );
        assert_eq!(code(load(&c, "../x.png", 5_000_000)), ErrorCode::PathEscape);
    }
}
