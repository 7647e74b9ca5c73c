//! Jupyter notebooks (`.ipynb`) for the `claude-code` surface: `Read` shows the cells with their
//! outputs (images as image parts); `NotebookEdit` replaces, inserts or deletes one cell.
//!
//! An edit splices the notebook's own bytes: the spans of the cells (and of a cell's `source`,
//! `outputs` and `execution_count`) come from `serde_json`'s borrowed `RawValue`s, and only
//! those spans are rewritten, in the notebook's own indentation (Jupyter's one space, or none
//! for a compact file). Every other byte stays as it was. The write is the engine's atomic
//! write, under the path's lock, after the read-before-write check.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::ledger::{ledger_key, require_fresh};
use super::Call;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::output::{Output, Part};
use crate::{atomic, paths, text};

pub const EDIT_DESCRIPTION: &str = "Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source, inserts a new cell, or deletes a cell. The notebook_path parameter must be an absolute path inside the workspace (a relative path resolves from the workspace root). cell_id is the cell's id, or cell-N for the N-th cell counted from 0. Use edit_mode=insert to add a new cell after the cell with cell_id (at the beginning when cell_id is omitted); cell_type is required for insert. Use edit_mode=delete to delete the cell at cell_id. Replacing a code cell clears its outputs and execution_count. The rest of the notebook file is kept byte for byte. You must Read the notebook before editing it.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Code,
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    Replace,
    Insert,
    Delete,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// The absolute path to the Jupyter notebook file to edit.
    pub notebook_path: String,
    /// The ID of the cell to edit (or cell-N for the N-th cell, from 0). When inserting, the new
    /// cell is inserted after this cell, or at the beginning if not specified.
    pub cell_id: Option<String>,
    /// The new source for the cell. Required, as in Claude Code's own schema (a delete
    /// ignores it; pass "").
    pub new_source: String,
    /// The type of the cell (code or markdown). If not specified, replace keeps the current
    /// type. Required for insert.
    pub cell_type: Option<CellType>,
    /// The type of edit to make (replace, insert, delete). Defaults to replace.
    pub edit_mode: Option<EditMode>,
}

#[derive(Deserialize)]
struct Top<'a> {
    #[serde(borrow)]
    cells: &'a RawValue,
    nbformat: Option<u64>,
    nbformat_minor: Option<u64>,
}

/// A notebook's text and where its cells lie in it.
struct Parsed<'a> {
    text: &'a str,
    /// The `cells` array's span.
    array: (usize, usize),
    cells: Vec<Cell<'a>>,
    /// Whether cells carry an `id` (nbformat 4.5 and later).
    with_ids: bool,
}

struct Cell<'a> {
    span: (usize, usize),
    fields: HashMap<String, &'a RawValue>,
}

impl Cell<'_> {
    fn str_field(&self, key: &str) -> Option<String> {
        self.fields
            .get(key)
            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
    }

    fn value(&self, key: &str) -> Option<Value> {
        self.fields
            .get(key)
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
    }

    fn cell_type(&self) -> String {
        self.str_field("cell_type").unwrap_or_else(|| "code".into())
    }

    fn id(&self, index: usize) -> String {
        self.str_field("id")
            .unwrap_or_else(|| format!("cell-{index}"))
    }
}

fn span_of(base: &str, raw: &RawValue) -> (usize, usize) {
    let s = raw.get();
    let start = s.as_ptr() as usize - base.as_ptr() as usize;
    (start, start + s.len())
}

fn invalid(display: &str, detail: impl std::fmt::Display) -> ToolError {
    ToolError::invalid_input(format!(
        "{display} is not a valid Jupyter notebook: {detail}"
    ))
    .with("path", display)
}

fn parse<'a>(text: &'a str, display: &str) -> ToolResult<Parsed<'a>> {
    let top: Top = serde_json::from_str(text).map_err(|e| invalid(display, e))?;
    let raw_cells: Vec<&RawValue> =
        serde_json::from_str(top.cells.get()).map_err(|e| invalid(display, e))?;
    let mut cells = Vec::with_capacity(raw_cells.len());
    for raw in raw_cells {
        let fields: HashMap<String, &RawValue> =
            serde_json::from_str(raw.get()).map_err(|e| invalid(display, e))?;
        cells.push(Cell {
            span: span_of(text, raw),
            fields,
        });
    }
    let with_ids = cells.iter().any(|c| c.fields.contains_key("id"))
        || (top.nbformat.unwrap_or(4), top.nbformat_minor.unwrap_or(0)) >= (4, 5);
    Ok(Parsed {
        text,
        array: span_of(text, top.cells),
        cells,
        with_ids,
    })
}

/// A source value (a string, or a list of line strings) as one string.
fn joined(value: Option<Value>) -> String {
    match value {
        Some(Value::String(s)) => s,
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// Shows a notebook for `Read`: each cell as `<cell id="…">…</cell id="…">` (markdown and raw
/// cells name their type), then a code cell's outputs: text as `<output>` blocks, `image/png`
/// and `image/jpeg` data as image parts, errors as `ename: evalue`.
pub fn render(bytes: &[u8], display: &str) -> ToolResult<Output> {
    let text = std::str::from_utf8(bytes).map_err(|e| invalid(display, e))?;
    let nb = parse(text, display)?;
    let mut parts: Vec<Part> = Vec::new();
    let mut buf = String::new();
    if nb.cells.is_empty() {
        buf.push_str("(notebook has no cells)");
    }
    for (i, cell) in nb.cells.iter().enumerate() {
        let id = cell.id(i);
        let kind = cell.cell_type();
        buf.push_str(&format!("<cell id=\"{id}\">"));
        if kind != "code" {
            buf.push_str(&format!("<cell_type>{kind}</cell_type>"));
        }
        buf.push_str(&joined(cell.value("source")));
        buf.push_str(&format!("</cell id=\"{id}\">\n"));
        let outputs = match cell.value("outputs") {
            Some(Value::Array(o)) => o,
            _ => Vec::new(),
        };
        for output in outputs {
            let mut shown = String::new();
            match output.get("output_type").and_then(Value::as_str) {
                Some("stream") => shown = joined(output.get("text").cloned()),
                Some("error") => {
                    shown = format!(
                        "{}: {}",
                        output
                            .get("ename")
                            .and_then(Value::as_str)
                            .unwrap_or("Error"),
                        output.get("evalue").and_then(Value::as_str).unwrap_or("")
                    )
                }
                _ => {
                    let data = output.get("data");
                    if let Some(t) = data.and_then(|d| d.get("text/plain")) {
                        shown = joined(Some(t.clone()));
                    }
                    for mime in ["image/png", "image/jpeg"] {
                        if let Some(img) = data.and_then(|d| d.get(mime)) {
                            let b64: String = joined(Some(img.clone()))
                                .chars()
                                .filter(|c| !c.is_whitespace())
                                .collect();
                            parts.push(Part::Text(std::mem::take(&mut buf)));
                            parts.push(Part::Image {
                                data: b64,
                                mime_type: mime.into(),
                            });
                        }
                    }
                }
            }
            if !shown.is_empty() {
                buf.push_str("<output>");
                buf.push_str(&shown);
                if !shown.ends_with('\n') {
                    buf.push('\n');
                }
                buf.push_str("</output>\n");
            }
        }
    }
    parts.push(Part::Text(buf));
    parts.retain(|p| !matches!(p, Part::Text(t) if t.is_empty()));
    Ok(Output {
        content: parts,
        meta: None,
    })
}

/// The leading whitespace of the line holding byte `pos`, or `None` when `pos` is on the first
/// line (a compact notebook).
fn line_indent(text: &str, pos: usize) -> Option<&str> {
    let start = text[..pos].rfind('\n')? + 1;
    let line = &text[start..pos];
    Some(&line[..line.len() - line.trim_start().len()])
}

/// `value` as JSON in the notebook's style: pretty with `unit` per level, every line after the
/// first indented by `base` (the indentation of the line the value starts on); compact when the
/// notebook is.
fn render_value(value: &Value, unit: Option<&str>, base: &str) -> String {
    // Jupyter writes notebooks with sorted keys (nbformat's `sort_keys=True`).
    let value = &sorted_keys(value);
    let Some(unit) = unit.filter(|u| !u.is_empty()) else {
        return value.to_string();
    };
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(value, &mut ser).expect("a Value serializes");
    String::from_utf8(out)
        .expect("JSON is UTF-8")
        .replace('\n', &format!("\n{base}"))
}

/// `value` with every object's keys in sorted order, at every depth.
fn sorted_keys(value: &Value) -> Value {
    match value {
        Value::Object(obj) => {
            let mut keys: Vec<&String> = obj.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted_keys(&obj[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}

/// Notebook source lines: each keeps its `\n`, as Jupyter stores them.
fn source_value(source: &str) -> Value {
    Value::Array(
        source
            .split_inclusive('\n')
            .map(|l| Value::String(l.to_string()))
            .collect(),
    )
}

/// A fresh 8-hex-digit cell id.
fn new_id(seed: usize) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let hash = super::ledger::content_hash(format!("{nanos}:{seed}").as_bytes());
    format!("{:08x}", hash as u32)
}

fn new_cell(kind: CellType, source: &str, id: Option<String>, metadata: Value) -> Value {
    let mut cell = json!({
        "cell_type": kind.as_str(),
        "metadata": metadata,
        "source": source_value(source),
    });
    if let Some(id) = id {
        cell["id"] = json!(id);
    }
    if kind == CellType::Code {
        cell["execution_count"] = Value::Null;
        cell["outputs"] = json!([]);
    }
    cell
}

/// Finds a cell by id, or by `cell-N` / `N` (0-based).
fn find(nb: &Parsed, cell_id: &str) -> Option<usize> {
    if let Some(i) = nb
        .cells
        .iter()
        .enumerate()
        .position(|(i, c)| c.id(i) == cell_id)
    {
        return Some(i);
    }
    let n = cell_id.strip_prefix("cell-").unwrap_or(cell_id);
    n.parse::<usize>().ok().filter(|&i| i < nb.cells.len())
}

fn not_found(cell_id: &str) -> ToolError {
    ToolError::new(
        ErrorCode::NotFound,
        format!("Cell with ID \"{cell_id}\" not found in notebook."),
    )
    .with("cell_id", cell_id)
}

/// The edited notebook bytes and the message for the model.
pub fn apply(text: &str, a: &EditArgs, display: &str) -> ToolResult<(String, String)> {
    let nb = parse(text, display)?;
    let mode = a.edit_mode.unwrap_or(EditMode::Replace);
    let unit = line_indent(text, nb.array.0);
    // (start, end, replacement), applied from the back.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let target = match (&a.cell_id, mode) {
        (Some(id), _) => Some(find(&nb, id).ok_or_else(|| not_found(id))?),
        (None, EditMode::Insert) => None,
        (None, _) => {
            return Err(ToolError::invalid_input(
                "cell_id is required for replace and delete: pass the cell's id (or cell-N)",
            )
            .with("field", "cell_id"))
        }
    };
    let message = match mode {
        EditMode::Replace => {
            let i = target.expect("replace has a target");
            let cell = &nb.cells[i];
            let current = cell.cell_type();
            let kind = a.cell_type.unwrap_or(if current == "markdown" {
                CellType::Markdown
            } else {
                CellType::Code
            });
            if kind.as_str() != current {
                let id = cell.str_field("id");
                let metadata = cell.value("metadata").unwrap_or_else(|| json!({}));
                let base = line_indent(text, cell.span.0).unwrap_or("");
                let rendered =
                    render_value(&new_cell(kind, &a.new_source, id, metadata), unit, base);
                edits.push((cell.span.0, cell.span.1, rendered));
            } else {
                let mut set = |key: &str, value: &Value| {
                    if let Some(raw) = cell.fields.get(key) {
                        let span = span_of(text, raw);
                        let base = line_indent(text, span.0).unwrap_or("");
                        edits.push((span.0, span.1, render_value(value, unit, base)));
                    }
                };
                let keeps_string = cell
                    .fields
                    .get("source")
                    .is_some_and(|r| r.get().starts_with('"'));
                let source = if keeps_string {
                    Value::String(a.new_source.clone())
                } else {
                    source_value(&a.new_source)
                };
                set("source", &source);
                if kind == CellType::Code {
                    set("outputs", &json!([]));
                    set("execution_count", &Value::Null);
                }
            }
            format!("Updated cell {} with {}", cell.id(i), a.new_source)
        }
        EditMode::Insert => {
            let Some(kind) = a.cell_type else {
                return Err(ToolError::invalid_input(
                    "cell_type is required when using edit_mode=insert: pass code or markdown",
                )
                .with("field", "cell_type"));
            };
            let id = new_id(nb.cells.len());
            let cell = new_cell(
                kind,
                &a.new_source,
                nb.with_ids.then(|| id.clone()),
                json!({}),
            );
            match nb.cells.first() {
                None => {
                    let base = line_indent(text, nb.array.0).unwrap_or("");
                    edits.push((
                        nb.array.0,
                        nb.array.1,
                        render_value(&Value::Array(vec![cell]), unit, base),
                    ));
                }
                Some(first) => {
                    let base = line_indent(text, first.span.0);
                    let rendered = render_value(&cell, unit, base.unwrap_or(""));
                    let sep = match base.filter(|_| unit.is_some_and(|u| !u.is_empty())) {
                        Some(b) => format!(",\n{b}"),
                        None => ",".to_string(),
                    };
                    match target {
                        Some(i) => {
                            let end = nb.cells[i].span.1;
                            edits.push((end, end, format!("{sep}{rendered}")));
                        }
                        None => {
                            edits.push((first.span.0, first.span.0, format!("{rendered}{sep}")))
                        }
                    }
                }
            }
            let shown_id = if nb.with_ids {
                id
            } else {
                format!("cell-{}", target.map_or(0, |i| i + 1))
            };
            format!("Inserted cell {shown_id} with {}", a.new_source)
        }
        EditMode::Delete => {
            let i = target.expect("delete has a target");
            let n = nb.cells.len();
            if n == 1 {
                edits.push((nb.array.0, nb.array.1, "[]".into()));
            } else if i + 1 < n {
                edits.push((nb.cells[i].span.0, nb.cells[i + 1].span.0, String::new()));
            } else {
                edits.push((nb.cells[i - 1].span.1, nb.cells[i].span.1, String::new()));
            }
            format!("Deleted cell {}", nb.cells[i].id(i))
        }
    };
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = nb.text.to_string();
    for (start, end, with) in edits {
        out.replace_range(start..end, &with);
    }
    Ok((out, message))
}

/// `NotebookEdit`: read-before-write check, splice, atomic write, ledger refresh.
pub fn edit(a: EditArgs, call: &Call) -> ToolResult<Output> {
    let ctx = call.ctx;
    let path = paths::resolve(ctx, &a.notebook_path)?;
    if path.abs.extension().is_none_or(|e| e != "ipynb") {
        return Err(ToolError::invalid_input(format!(
            "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool: {}",
            path.display
        ))
        .with("path", path.display.as_str()));
    }
    let _lock = atomic::lock(&[&path.abs]);
    if atomic::check_target(&path)?.is_none() {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!("Notebook file does not exist: {}", path.display),
        )
        .with("path", path.display.as_str()));
    }
    let bytes = text::read_capped(&path, ctx)?;
    let key = ledger_key(&path);
    require_fresh(call.ledger, &key, &bytes, &path.display)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| invalid(&path.display, e))?;
    let (updated, message) = apply(text, &a, &path.display)?;
    let updated = updated.into_bytes();
    call.ledger.record(&key, &updated);
    atomic::write_atomic(&path, updated)?;
    Ok(Output::text(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 3,\n   \"id\": \"aa\",\n   \"metadata\": {},\n   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"1\\n\"\n     ]\n    }\n   ],\n   \"source\": [\n    \"print(1)\"\n   ]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"bb\",\n   \"metadata\": {},\n   \"source\": [\n    \"# T\"\n   ]\n  }\n ],\n \"metadata\": {\"kernelspec\": {\"name\": \"python3\"}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

    fn args(mode: EditMode, id: Option<&str>, src: &str, kind: Option<CellType>) -> EditArgs {
        EditArgs {
            notebook_path: "n.ipynb".into(),
            cell_id: id.map(str::to_string),
            new_source: src.into(),
            cell_type: kind,
            edit_mode: Some(mode),
        }
    }

    #[test]
    fn replace_clears_outputs_and_keeps_the_rest() {
        let (out, msg) = apply(
            NB,
            &args(EditMode::Replace, Some("aa"), "x = 1\ny", None),
            "n",
        )
        .unwrap();
        assert_eq!(msg, "Updated cell aa with x = 1\ny");
        let expected = NB
            .replace("\"execution_count\": 3", "\"execution_count\": null")
            .replace(
                "[\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"1\\n\"\n     ]\n    }\n   ]",
                "[]",
            )
            .replace("[\n    \"print(1)\"\n   ]", "[\n    \"x = 1\\n\",\n    \"y\"\n   ]");
        assert_eq!(out, expected);
    }

    #[test]
    fn insert_and_delete_splice_cells() {
        let (out, _) = apply(
            NB,
            &args(EditMode::Insert, Some("aa"), "z", Some(CellType::Markdown)),
            "n",
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"].as_array().unwrap().len(), 3);
        assert_eq!(v["cells"][1]["source"], json!(["z"]));
        assert_eq!(v["cells"][1]["cell_type"], "markdown");
        assert!(out.starts_with("{\n \"cells\": [\n  {\n   \"cell_type\": \"code\""));
        assert!(out.contains("  },\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": "));
        let (out, msg) = apply(NB, &args(EditMode::Delete, Some("cell-1"), "", None), "n").unwrap();
        assert_eq!(msg, "Deleted cell bb");
        assert!(out.contains("   ]\n  }\n ],\n \"metadata\""), "{out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"].as_array().unwrap().len(), 1);
        let (out, _) = apply(NB, &args(EditMode::Delete, Some("aa"), "", None), "n").unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"][0]["id"], "bb");
        assert!(apply(NB, &args(EditMode::Delete, Some("zz"), "", None), "n").is_err());
        assert!(apply(NB, &args(EditMode::Insert, None, "", None), "n").is_err());
    }

    #[test]
    fn renders_cells_and_outputs() {
        let out = render(NB.as_bytes(), "n").unwrap().joined_text();
        assert_eq!(
            out,
            "<cell id=\"aa\">print(1)</cell id=\"aa\">\n<output>1\n</output>\n<cell id=\"bb\"><cell_type>markdown</cell_type># T</cell id=\"bb\">\n"
        );
    }

    #[test]
    fn compact_and_empty_notebooks_keep_their_style() {
        let compact = r#"{"cells":[{"cell_type":"markdown","metadata":{},"source":"a"}],"metadata":{},"nbformat":4,"nbformat_minor":4}"#;
        let (out, _) = apply(
            compact,
            &args(EditMode::Insert, Some("cell-0"), "b", Some(CellType::Code)),
            "n",
        )
        .unwrap();
        assert_eq!(
            out,
            r#"{"cells":[{"cell_type":"markdown","metadata":{},"source":"a"},{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":["b"]}],"metadata":{},"nbformat":4,"nbformat_minor":4}"#
        );
        let (out, _) = apply(compact, &args(EditMode::Replace, Some("0"), "z", None), "n").unwrap();
        assert_eq!(out, compact.replace(r#""source":"a""#, r#""source":"z""#));
        let empty = "{\n \"cells\": [],\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
        let (out, _) = apply(
            empty,
            &args(EditMode::Insert, None, "x", Some(CellType::Markdown)),
            "n",
        )
        .unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["cells"][0]["source"], json!(["x"]));
        assert!(
            out.starts_with("{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": ")
        );
        assert!(out.ends_with("  }\n ],\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n"));
    }
}
