//! "Did you mean": the closest of a few known names to a misspelled one (a tool name, an
//! option key). A primitive: it knows nothing of what the names are.

/// The candidate closest to `word` by edit distance (a swap of two letters is one edit), when one is close enough to be the
/// likely intent: at most a third of the longer name's length apart (and at least one edit
/// allowed), ties broken by the candidates' order. Case is ignored.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (word.len().max(c.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_likely_intent_and_nothing_far_away() {
        let tools = ["read_file", "read_files", "write_file", "grep", "glob"];
        assert_eq!(closest("read_fil", tools), Some("read_file"));
        assert_eq!(closest("Read_File", tools), Some("read_file"));
        assert_eq!(closest("gerp", tools), Some("grep"));
        assert_eq!(closest("launch_rocket", tools), None);
        let options = ["readOnly", "workspaceRoot", "maxOutputBytes"];
        assert_eq!(closest("readonly", options), Some("readOnly"));
        assert_eq!(closest("workspace_root", options), Some("workspaceRoot"));
        assert_eq!(closest("x", options), None);
    }
}
