//! The contract's conservative lexer (CONTRACT-v0.5 §5, "How it works"): segments, tokens,
//! argv, `decidable`, `paths` and `undecidable`, exactly as the contract defines them. The real
//! parser ([`super::parse`]) only ever adds to what this finds; it never takes anything away.
//!
//! Where the contract leaves a detail open, this follows bash: a backslash outside single
//! quotes escapes the next character (so `\;` does not split and `\*` is not a glob), a
//! backslash-newline is a line continuation, and `<&` (input fd duplication) does not split a
//! segment any more than `>&` does.

use std::collections::HashSet;

/// One segment of a command, as the contract defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The segment's source text, trimmed.
    pub command: String,
    /// Tokens with leading assignments and wrappers removed.
    pub argv: Vec<String>,
    /// `argv.join(" ")`.
    pub normalized: String,
    /// False on unbalanced quotes or a dynamic construct in the text.
    pub decidable: bool,
}

/// What the contract's lexer finds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LexFacts {
    pub paths: Vec<String>,
    pub undecidable: bool,
    pub segments: Vec<Segment>,
    /// Why `undecidable` is set, for people reading the facts.
    pub reasons: Vec<String>,
    /// More than [`MAX_SEGMENTS`] segments: nothing else was lexed.
    pub too_many: bool,
}

/// One token: its text with quotes removed and substitutions dropped, and the char index of
/// its first unquoted glob character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub first_glob: Option<usize>,
}

/// More segments than this are not lexed one by one (the command is undecidable): no
/// command line has them, and the work and the facts would grow without bound.
pub const MAX_SEGMENTS: usize = 2000;

/// Runs the contract's lexer over `command`.
pub fn lex(command: &str) -> LexFacts {
    let chars: Vec<char> = command.chars().collect();
    let (pieces, balanced) = split_segments(&chars);
    let mut facts = LexFacts::default();
    if pieces.len() > MAX_SEGMENTS {
        facts.undecidable = true;
        facts.too_many = true;
        return facts;
    }
    let mut seen = HashSet::new();
    if !balanced {
        facts.undecidable = true;
        facts
            .reasons
            .push("unbalanced quotes, backticks or parentheses".to_string());
    }
    for piece in pieces {
        let text: String = piece.iter().collect::<String>().trim().to_string();
        if text.is_empty() {
            continue;
        }
        let seg_chars: Vec<char> = text.chars().collect();
        let (tokens, quotes_balanced) = tokenize(&seg_chars);
        let argv = strip_argv(tokens.iter().map(|t| t.text.clone()).collect());
        let trigger = dynamic_trigger(&seg_chars);
        let decidable = quotes_balanced && trigger.is_none();
        if !quotes_balanced {
            facts
                .reasons
                .push(format!("unbalanced quotes in segment: {text}"));
        }
        if let Some(t) = trigger {
            facts
                .reasons
                .push(format!("dynamic construct `{t}` in segment: {text}"));
        }
        if !decidable {
            facts.undecidable = true;
        }
        for token in &tokens {
            if let Some(reason) = path_of_token(token, &mut facts.paths, &mut seen) {
                facts.undecidable = true;
                facts.reasons.push(reason);
            }
        }
        facts.segments.push(Segment {
            normalized: argv.join(" "),
            command: text,
            argv,
            decidable,
        });
    }
    facts
}

/// Splits on `&&`, `||`, `;`, `|`, newline and `&` outside quotes, backticks and parentheses.
/// Returns the raw pieces and whether quotes, backticks and parentheses were balanced.
fn split_segments(chars: &[char]) -> (Vec<Vec<char>>, bool) {
    let mut pieces = Vec::new();
    let mut cur = Vec::new();
    let mut quote: Option<char> = None;
    let mut backtick = false;
    let mut depth: usize = 0;
    let mut balanced = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            cur.push(c);
            if q == '"' && c == '\\' && i + 1 < chars.len() {
                cur.push(chars[i + 1]);
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if backtick {
            cur.push(c);
            if c == '\\' && i + 1 < chars.len() {
                cur.push(chars[i + 1]);
                i += 2;
                continue;
            }
            if c == '`' {
                backtick = false;
            }
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                cur.push(c);
                if i + 1 < chars.len() {
                    cur.push(chars[i + 1]);
                }
                i += 2;
                continue;
            }
            '\'' | '"' => quote = Some(c),
            '`' => backtick = true,
            '(' => depth += 1,
            ')' => {
                if depth == 0 {
                    balanced = false;
                } else {
                    depth -= 1;
                }
            }
            _ => {}
        }
        if depth == 0 && !matches!(c, '(' | ')') {
            let next = chars.get(i + 1).copied();
            let prev = if i > 0 { Some(chars[i - 1]) } else { None };
            let split_len = match c {
                '&' if next == Some('&') => 2,
                '|' if next == Some('|') => 2,
                ';' | '|' | '\n' => 1,
                '&' if next == Some('>') || matches!(prev, Some('>') | Some('<')) => 0,
                '&' => 1,
                _ => 0,
            };
            if split_len > 0 {
                pieces.push(std::mem::take(&mut cur));
                i += split_len;
                continue;
            }
        }
        cur.push(c);
        i += 1;
    }
    pieces.push(cur);
    if quote.is_some() || backtick || depth != 0 {
        balanced = false;
    }
    (pieces, balanced)
}

/// Skips a `$(…)`, `<(…)` or `>(…)` whose `(` is at `open`; returns the index after its `)`
/// (or the end). Quotes and backticks inside are honoured so a quoted `)` does not close it.
fn skip_parens(chars: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut i = open;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' && q != '\'' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                i += 2;
                continue;
            }
            '\'' | '"' | '`' => quote = Some(c),
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// Skips a backtick substitution whose opening backtick is at `open`.
fn skip_backticks(chars: &[char], open: usize) -> usize {
    let mut i = open + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '`' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

fn is_glob_char(c: char) -> bool {
    matches!(c, '*' | '?' | '[' | ']' | '{' | '}')
}

/// Splits a segment into tokens: on whitespace and parentheses, quotes removed (content kept),
/// backtick and `$(…)`/`<(…)`/`>(…)` contents dropped outside quotes. Also says whether its
/// quotes balance.
pub fn tokenize(chars: &[char]) -> (Vec<Token>, bool) {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0usize;
    let mut first_glob: Option<usize> = None;
    let mut quote: Option<char> = None;
    let mut i = 0;
    let flush = |tokens: &mut Vec<Token>,
                 cur: &mut String,
                 cur_len: &mut usize,
                 first_glob: &mut Option<usize>| {
        if !cur.is_empty() {
            tokens.push(Token {
                text: std::mem::take(cur),
                first_glob: first_glob.take(),
            });
        }
        *cur_len = 0;
        *first_glob = None;
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match quote {
            Some('\'') => {
                if c == '\'' {
                    quote = None;
                } else {
                    cur.push(c);
                    cur_len += 1;
                }
                i += 1;
                continue;
            }
            Some(_) => {
                match c {
                    '"' => quote = None,
                    '\\' if matches!(next, Some('"' | '\\' | '$' | '`')) => {
                        cur.extend(next);
                        cur_len += 1;
                        i += 2;
                        continue;
                    }
                    '\\' if next == Some('\n') => {
                        i += 2;
                        continue;
                    }
                    // Inside double quotes a substitution is kept as written (CONTRACT-v0.5-
                    // wording §9: `"$(cat /x)"` is one token `$(cat /x)`); the segment is
                    // undecidable for it all the same.
                    _ => {
                        cur.push(c);
                        cur_len += 1;
                    }
                }
                i += 1;
                continue;
            }
            None => {}
        }
        match c {
            ' ' | '\t' | '\n' | '\r' | '(' | ')' => {
                flush(&mut tokens, &mut cur, &mut cur_len, &mut first_glob);
            }
            '\'' | '"' => quote = Some(c),
            '\\' => {
                if let Some(n) = next {
                    if n != '\n' {
                        cur.push(n);
                        cur_len += 1;
                    }
                }
                i += 2;
                continue;
            }
            '`' => {
                i = skip_backticks(chars, i);
                continue;
            }
            '$' | '<' | '>' if next == Some('(') => {
                i = skip_parens(chars, i + 1);
                continue;
            }
            _ => {
                if is_glob_char(c) && first_glob.is_none() {
                    first_glob = Some(cur_len);
                }
                cur.push(c);
                cur_len += 1;
            }
        }
        i += 1;
    }
    flush(&mut tokens, &mut cur, &mut cur_len, &mut first_glob);
    (tokens, quote.is_none())
}

fn is_assignment(token: &str) -> bool {
    let mut chars = token.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    for c in chars {
        if c == '=' {
            return true;
        }
        if !(c == '_' || c.is_ascii_alphanumeric()) {
            return false;
        }
    }
    false
}

/// `^[0-9]+(\.[0-9]+)?[smhd]?$`
fn is_duration(token: &str) -> bool {
    let t = token.strip_suffix(['s', 'm', 'h', 'd']).unwrap_or(token);
    let (int, frac) = match t.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (t, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(int) && frac.is_none_or(digits)
}

/// Removes leading `NAME=value` assignments and the wrappers `timeout`, `time`, `nice`,
/// `nohup`, `stdbuf` (with their `-…` options and `timeout`'s duration), repeatedly.
pub fn strip_argv(mut argv: Vec<String>) -> Vec<String> {
    let mut start = 0;
    loop {
        while start < argv.len() && is_assignment(&argv[start]) {
            start += 1;
        }
        let Some(first) = argv.get(start) else { break };
        let wrapper = first.clone();
        if !matches!(
            wrapper.as_str(),
            "timeout" | "time" | "nice" | "nohup" | "stdbuf"
        ) {
            break;
        }
        start += 1;
        while start < argv.len() && argv[start].starts_with('-') {
            start += 1;
        }
        if wrapper == "timeout" && argv.get(start).is_some_and(|t| is_duration(t)) {
            start += 1;
        }
    }
    argv.drain(..start);
    argv
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The first character of a shell variable's name.
fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// The first dynamic construct in a segment's text (single-quoted parts removed), if any.
fn dynamic_trigger(chars: &[char]) -> Option<String> {
    // Remove single-quoted parts (single quotes inside double quotes are literal).
    let mut text: Vec<char> = Vec::with_capacity(chars.len());
    let mut in_double = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            text.push(c);
            text.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if c == '"' {
            in_double = !in_double;
        } else if c == '\'' && !in_double {
            match chars[i + 1..].iter().position(|&x| x == '\'') {
                Some(end) => {
                    i += end + 2;
                    text.push(' ');
                    continue;
                }
                None => break,
            }
        }
        text.push(c);
        i += 1;
    }
    let words: Vec<(&str, Vec<char>)> = [
        "eval", "exec", "source", "env", "xargs", "base64", "sh -c", "bash -c",
    ]
    .into_iter()
    .map(|w| (w, w.chars().collect()))
    .collect();
    let n = text.len();
    for i in 0..n {
        let c = text[i];
        let next = text.get(i + 1).copied();
        match c {
            '`' => return Some("`".into()),
            '$' if next == Some('(') => return Some("$(".into()),
            // `$name` or `${name` (CONTRACT-v0.5 §5): `$1`, `${1}` or `${#}` name no variable.
            '$' if next == Some('{') && text.get(i + 2).is_some_and(|&n| is_name_start(n)) => {
                return Some("${".into())
            }
            '$' if next.is_some_and(is_name_start) => return Some("$name".into()),
            '<' | '>' if next == Some('(') => return Some(format!("{c}(")),
            _ => {}
        }
        let boundary_before = i == 0 || !is_word_char(text[i - 1]);
        if !boundary_before || !is_word_char(c) {
            continue;
        }
        for (word, w) in &words {
            if text[i..].starts_with(w) {
                let after = text.get(i + w.len()).copied();
                if after.is_none_or(|a| !is_word_char(a)) {
                    return Some(word.to_string());
                }
            }
        }
    }
    None
}

/// Peels a leading redirection `^[0-9&]*(>>?|<)`.
fn peel_redirection(token: &str) -> (&str, usize) {
    let bytes = token.as_bytes();
    let mut i = 0;
    while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'&') {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'>') if bytes.get(i + 1) == Some(&b'>') => (&token[i + 2..], i + 2),
        Some(b'>') | Some(b'<') => (&token[i + 1..], i + 1),
        _ => (token, 0),
    }
}

/// The contract's path shape: non-empty, not an option, none of the special characters, and
/// a `/`, a leading `~` or `.`, or a `name.ext` shape.
pub fn looks_like_path(t: &str) -> bool {
    if t.is_empty() || t.starts_with('-') {
        return false;
    }
    if t.chars().any(|c| "$,*?[](){}|<>!;=&`".contains(c)) {
        return false;
    }
    if t.contains('/') || t.starts_with('~') || t.starts_with('.') {
        return true;
    }
    // ^[\w.-]+\.\w+$
    let Some(dot) = t.rfind('.') else {
        return false;
    };
    let (head, ext) = (&t[..dot], &t[dot + 1..]);
    !head.is_empty()
        && !ext.is_empty()
        && head
            .chars()
            .all(|c| is_word_char(c) || c == '.' || c == '-')
        && ext.chars().all(is_word_char)
}

/// The literal directory before a glob: up to the last `/` before `first_glob` (chars), `.`
/// without a slash and `/` for a root.
pub fn glob_prefix(text: &str, first_glob: usize) -> String {
    let prefix: String = text.chars().take(first_glob).collect();
    match prefix.rfind('/') {
        None => ".".to_string(),
        Some(0) => "/".to_string(),
        Some(i) => prefix[..i].to_string(),
    }
}

fn push_unique(paths: &mut Vec<String>, seen: &mut HashSet<String>, p: String) {
    if seen.insert(p.clone()) {
        paths.push(p);
    }
}

/// Adds the path a token names, if any; returns a reason when the token is undecidable.
fn path_of_token(
    token: &Token,
    paths: &mut Vec<String>,
    seen: &mut HashSet<String>,
) -> Option<String> {
    let (t, peeled) = peel_redirection(&token.text);
    if t.is_empty() {
        return None;
    }
    if t.starts_with('~') && !(t == "~" || t.starts_with("~/")) {
        return Some(format!("`{t}` names another user's home directory"));
    }
    if let Some(g) = token.first_glob {
        let peeled_chars = token.text[..peeled].chars().count();
        if g >= peeled_chars {
            let prefix = glob_prefix(t, g - peeled_chars);
            let dotdot = t.split('/').any(|c| c == "..");
            push_unique(paths, seen, prefix);
            if dotdot {
                return Some(format!("glob `{t}` climbs with `..`"));
            }
            return None;
        }
    }
    if looks_like_path(t) {
        push_unique(paths, seen, t.to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(c: &str) -> Vec<String> {
        lex(c).segments[0].argv.clone()
    }

    #[test]
    fn segments_split_outside_quotes_and_parens() {
        let f = lex("npm test && git status; ls | wc -l & echo 'a;b' \"c|d\" (x; y)");
        let cmds: Vec<_> = f.segments.iter().map(|s| s.command.as_str()).collect();
        assert_eq!(
            cmds,
            [
                "npm test",
                "git status",
                "ls",
                "wc -l",
                "echo 'a;b' \"c|d\" (x; y)"
            ]
        );
        assert!(!f.undecidable);
        assert_eq!(lex("cmd 2>&1 &>x >&2").segments.len(), 1);
    }

    #[test]
    fn wrappers_and_assignments_are_stripped() {
        assert_eq!(argv("FOO=1 timeout 5s nice -n nohup ls -la"), ["ls", "-la"]);
        assert_eq!(argv("timeout 1.5 stdbuf -oL time x"), ["x"]);
        assert_eq!(argv("echo \"a b\" 'c'"), ["echo", "a b", "c"]);
        assert_eq!(argv("echo $(date) `id` x"), ["echo", "x"]);
    }

    #[test]
    fn substitutions_in_double_quotes_stay_in_their_token() {
        // CONTRACT-v0.5-wording §9: "`"$(cat /x)"` is one token `$(cat /x)` with
        // metacharacters: not listed."
        let f = lex("echo \"$(cat /x)\" \"`id` y\"");
        assert_eq!(f.segments[0].argv, ["echo", "$(cat /x)", "`id` y"]);
        assert!(f.paths.is_empty());
        assert!(f.undecidable && !f.segments[0].decidable);
    }

    #[test]
    fn decidable_triggers() {
        for c in [
            "echo $(date)",
            "echo `id`",
            "echo $HOME",
            "echo ${X}",
            "echo ${_x}",
            "eval x",
            "sh -c 'ls'",
            "bash -c ls",
            "cat .env",
            "diff <(a) b",
            "echo 'unterminated",
        ] {
            assert!(lex(c).undecidable, "{c}");
        }
        for c in [
            "echo '$HOME'",
            "ls -la",
            "cat environment.txt",
            "echo $1",
            "echo ${1}",
        ] {
            assert!(!lex(c).undecidable, "{c}");
        }
    }

    #[test]
    fn paths_follow_the_contract() {
        assert_eq!(
            lex("cat a.txt src/x ./y ~/z Makefile -o >/dev/null 2>&1 2>>log.txt").paths,
            ["a.txt", "src/x", "./y", "~/z", "/dev/null", "log.txt"]
        );
        assert_eq!(lex("ls *.ts src/*.rs /*").paths, [".", "src", "/"]);
        assert_eq!(lex("ls '*.ts'").paths, Vec::<String>::new());
        let f = lex("ls ../*.ts");
        assert!(f.undecidable);
        assert_eq!(f.paths, [".."]);
        let f = lex("cat ~root/x");
        assert!(f.undecidable);
        assert!(f.paths.is_empty());
        assert_eq!(lex("grep -r foo .").paths, ["."]);
    }

    #[test]
    fn unbalanced_is_undecidable() {
        assert!(lex("echo \"a").undecidable);
        assert!(lex("echo `a").undecidable);
        assert!(lex("echo (a").undecidable);
        assert!(lex("echo a)").undecidable);
    }
}
