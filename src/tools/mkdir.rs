//! `mkdir`: create a directory and its missing parents (`mkdir -p`); idempotent.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::call::Ctx;
use crate::config::Config;
use crate::error::{io_err, ErrorCode, ToolError, ToolResult};
use crate::output::Output;
use crate::{confine, paths};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The directory to create, with any missing parents: relative to the workspace root, or
    /// absolute.
    pub path: String,
}

pub struct Mkdir;

impl Tool for Mkdir {
    const NAME: &'static str = "mkdir";
    const DESCRIPTION: &'static str = "Create a directory, with any missing parent directories (like mkdir -p). An existing directory is fine: the result says it already exists. Files do not need this: write_file, copy and move create missing parents themselves.";
    const MUTATING: bool = true;
    const TITLE: &'static str = "Create a directory";
    const DESTRUCTIVE: bool = false;
    const IDEMPOTENT: bool = true;
    const SINCE_V05: bool = true;
    type Args = Args;

    fn run(args: Args, ctx: &Ctx) -> ToolResult<Output> {
        let config: &Config = ctx;
        // `mkdir -p a/b/`: a trailing `/` names the directory to make, so it is not required
        // to exist yet (the resolver's rule for every other tool).
        let trimmed = args.path.trim_end_matches('/');
        let path = paths::resolve(
            config,
            if trimmed.is_empty() {
                &args.path
            } else {
                trimmed
            },
        )?;
        match confine::stat(&path) {
            Ok(m) if m.is_dir() => {
                return Ok(format!("Directory already exists: {}.", path.display).into())
            }
            Ok(_) => return Err(exists_not_a_dir(&args.path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                return Err(ToolError::not_a_directory(&args.path))
            }
            Err(_) => {}
        }
        super::r#move::check_cancel(ctx, "mkdir")?;
        // Missing parents are made beneath the root (mkdirat), then the directory itself.
        let mut created = confine::Created::new();
        let made = confine::open_parent(&path, Some(&mut created))
            .and_then(|(dir, name)| dir.mkdir(&name, 0o777));
        match made {
            Ok(()) => Ok(format!("Created directory {}.", path.display).into()),
            Err(e)
                if e.kind() == std::io::ErrorKind::AlreadyExists
                    && confine::stat(&path).is_ok_and(|m| m.is_dir()) =>
            {
                Ok(format!("Directory already exists: {}.", path.display).into())
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::NotADirectory
                    || e.kind() == std::io::ErrorKind::AlreadyExists =>
            {
                Err(ToolError::not_a_directory(&args.path))
            }
            Err(e) => Err(io_err(e, &args.path)),
        }
    }
}

fn exists_not_a_dir(input: &str) -> ToolError {
    ToolError::new(
        ErrorCode::NotAFile,
        format!("Path exists and is not a directory: {input}"),
    )
    .with("path", input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::config_at;
    use std::fs;
    use std::path::Path;

    fn run(root: &Path, p: &str) -> ToolResult<String> {
        crate::testutil::run_text::<Mkdir>(Args { path: p.into() }, &config_at(root))
    }

    #[test]
    fn creates_is_idempotent_and_refuses_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(run(root, "a/b/c").unwrap(), "Created directory a/b/c.");
        assert!(root.join("a/b/c").is_dir());
        assert_eq!(run(root, "a/b").unwrap(), "Directory already exists: a/b.");
        assert_eq!(run(root, ".").unwrap(), "Directory already exists: ..");
        fs::write(root.join("f"), "x").unwrap();
        assert_eq!(
            run(root, "f").unwrap_err().message,
            "Path exists and is not a directory: f"
        );
        let e = run(root, "f/g").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::NotAFile, "Not a directory: f/g")
        );
        assert_eq!(run(root, "../x").unwrap_err().code, ErrorCode::PathEscape);
    }

    #[test]
    fn a_trailing_slash_still_makes_the_directory() {
        // CONTRACT-v0.5 §2: mkdir "Behaves like `mkdir -p`".
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(run(root, "./n/m/").unwrap(), "Created directory n/m.");
        assert!(root.join("n/m").is_dir());
        assert_eq!(
            run(root, "n/m//").unwrap(),
            "Directory already exists: n/m."
        );
        fs::write(root.join("f"), "x").unwrap();
        assert_eq!(
            run(root, "f/").unwrap_err().message,
            "Path exists and is not a directory: f/"
        );
    }
}
