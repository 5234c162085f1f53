//! The secret filter's data files (`src/secrets/data/`): the provider table, the word lists,
//! the prose lexicon in many languages and the command-line password options. They are text
//! compiled into the binary and parsed the first time a scan needs each one (a few hundred
//! microseconds in all, docs/performance.md), so the rules stay data a reader can review
//! without reading Rust.
//!
//! The files are part of the program, not user input: a malformed line is a bug that the unit
//! tests catch (they parse every file and compile every pattern), so a parse error panics with
//! the file and line.

use std::collections::HashMap;
use std::sync::OnceLock;

const PROVIDERS: &str = include_str!("data/providers.txt");
const WORDS: &str = include_str!("data/words.txt");
const PROSE: &str = include_str!("data/prose.txt");
const COMMANDS: &str = include_str!("data/commands.txt");

// ---------------------------------------------------------------------------------------------
// The provider table.

/// How one kind of secret of a provider is recognised (see `data/providers.txt`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shape {
    /// A token that names its issuer, matched wherever it stands as a whole word.
    Token(String),
    /// `<key naming the provider> <operator> <value>`: the names (an alternation) and the
    /// value's pattern.
    Keyed(String, String),
    /// A full pattern with its own context; its first capture group that took part is the
    /// secret.
    Pattern(String),
}

/// One provider's rule.
#[derive(Debug)]
pub(super) struct Provider {
    /// Stable kebab-case rule name, reported in findings and error messages.
    pub(super) id: &'static str,
    /// Lower-case literals, one of which occurs in every match.
    pub(super) keywords: Vec<&'static str>,
    pub(super) shapes: Vec<Shape>,
    /// Prefixes `redact` keeps: the first one the secret starts with.
    pub(super) keep: Vec<&'static str>,
    /// Minimum Shannon entropy of the secret in bits per character (0: none).
    pub(super) entropy: f64,
    /// Regexes for secrets that are not findings.
    pub(super) allow: Vec<String>,
    /// The gitleaks default-config rules this entry covers.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) gitleaks: Vec<&'static str>,
}

/// The parsed `providers.txt`.
#[derive(Debug)]
pub(super) struct ProviderTable {
    pub(super) providers: Vec<Provider>,
    /// gitleaks rules covered by hand-written rules: (our rule, their rules).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) covered_by: Vec<(&'static str, Vec<&'static str>)>,
    /// gitleaks rules with no counterpart, and why.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) not_covered: Vec<(&'static str, &'static str)>,
}

/// The provider table, parsed on first use.
pub(super) fn providers() -> &'static ProviderTable {
    static TABLE: OnceLock<ProviderTable> = OnceLock::new();
    TABLE.get_or_init(|| parse_providers(PROVIDERS).unwrap_or_else(|e| panic!("{e}")))
}

/// Splits a line into its first word and the rest (trimmed).
fn field(line: &str) -> (&str, &str) {
    match line.split_once(char::is_whitespace) {
        Some((f, rest)) => (f, rest.trim()),
        None => (line, ""),
    }
}

/// Replaces `{name}` with the pattern `@define name` gave it.
fn expand(pattern: &str, defines: &[(&str, &str)]) -> String {
    let mut out = pattern.to_owned();
    for (name, value) in defines {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

pub(super) fn parse_providers(text: &'static str) -> Result<ProviderTable, String> {
    let mut table = ProviderTable {
        providers: Vec::new(),
        covered_by: Vec::new(),
        not_covered: Vec::new(),
    };
    let mut defines: Vec<(&str, &str)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let err = |msg: &str| format!("src/secrets/data/providers.txt:{}: {msg}", n + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(id) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table.providers.push(Provider {
                id,
                keywords: Vec::new(),
                shapes: Vec::new(),
                keep: Vec::new(),
                entropy: 0.0,
                allow: Vec::new(),
                gitleaks: Vec::new(),
            });
            continue;
        }
        let (name, value) = field(line);
        if value.is_empty() {
            return Err(err(&format!("`{name}` without a value")));
        }
        match name {
            "@define" => {
                let (d, pattern) = field(value);
                defines.push((d, pattern));
                continue;
            }
            "covered-by" => {
                let mut words = value.split_whitespace();
                let rule = words.next().unwrap_or_default();
                table.covered_by.push((rule, words.collect()));
                continue;
            }
            "not-covered" => {
                table.not_covered.push(field(value));
                continue;
            }
            _ => {}
        }
        let Some(p) = table.providers.last_mut() else {
            return Err(err("a field before the first [rule]"));
        };
        match name {
            "keywords" => p.keywords.extend(value.split_whitespace()),
            "keyword" => p.keywords.push(value),
            "token" => p.shapes.push(Shape::Token(expand(value, &defines))),
            "pattern" => p.shapes.push(Shape::Pattern(expand(value, &defines))),
            "keyed" => {
                let (names, v) = field(value);
                if v.is_empty() {
                    return Err(err("`keyed` needs names and a value pattern"));
                }
                p.shapes
                    .push(Shape::Keyed(expand(names, &defines), expand(v, &defines)));
            }
            "keep" => p.keep.extend(value.split_whitespace()),
            "entropy" => {
                p.entropy = value
                    .parse()
                    .map_err(|_| err(&format!("entropy {value:?} is not a number")))?;
            }
            "allow" => p.allow.push(expand(value, &defines)),
            "gitleaks" if value == "-" => {}
            "gitleaks" => p.gitleaks.extend(value.split_whitespace()),
            _ => return Err(err(&format!("unknown field `{name}`"))),
        }
    }
    for p in &table.providers {
        if p.keywords.is_empty() || p.shapes.is_empty() {
            return Err(format!(
                "src/secrets/data/providers.txt: [{}] needs keywords and a shape",
                p.id
            ));
        }
        if let Some(k) = p.keywords.iter().find(|k| k.len() < 3) {
            return Err(format!(
                "src/secrets/data/providers.txt: [{}]: keyword {k:?} is shorter than three bytes",
                p.id
            ));
        }
    }
    Ok(table)
}

// ---------------------------------------------------------------------------------------------
// Lists: `[name]` and entries separated by blanks, "quoted" when they hold one.

/// Entries of a list file, by list name, in file order.
fn parse_lists(file: &str, text: &'static str) -> Result<Vec<(&'static str, Vec<String>)>, String> {
    let mut lists: Vec<(&'static str, Vec<String>)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            lists.push((name, Vec::new()));
            continue;
        }
        let Some((_, entries)) = lists.last_mut() else {
            return Err(format!("{file}:{}: an entry before the first [list]", n + 1));
        };
        let mut rest = line;
        while !rest.is_empty() {
            if let Some(quoted) = rest.strip_prefix('"') {
                let Some(close) = quoted.find('"') else {
                    return Err(format!("{file}:{}: an unclosed quote", n + 1));
                };
                entries.push(quoted[..close].to_owned());
                rest = quoted[close + 1..].trim_start();
            } else {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                entries.push(rest[..end].to_owned());
                rest = rest[end..].trim_start();
            }
        }
    }
    Ok(lists)
}

/// The word lists of `words.txt`, lower-cased.
pub(super) struct Words {
    lists: HashMap<&'static str, Vec<String>>,
    /// The last bytes of every assignment key, for a one-probe first test.
    key_last: [bool; 256],
}

/// What an assignment key names.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Field {
    AwsSecret,
    Password,
    /// `DB_PASS`, `SMTP_PWD`: also names of flags and constants, so numbers are not values.
    ShortPassword,
    Secret,
    Token,
    ApiKey,
}

/// The key lists of `words.txt`, in the order they are tried.
pub(super) const KEY_LISTS: &[(&str, Field)] = &[
    ("aws-secret-keys", Field::AwsSecret),
    ("password-keys", Field::Password),
    ("secret-keys", Field::Secret),
    ("api-key-keys", Field::ApiKey),
    ("token-keys", Field::Token),
];

impl Words {
    /// The entries of list `name` (empty if there is none).
    pub(super) fn list(&self, name: &str) -> &[String] {
        self.lists.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether `word` is an entry of list `name`, ASCII-case-insensitively.
    pub(super) fn has(&self, name: &str, word: &[u8]) -> bool {
        self.list(name)
            .iter()
            .any(|e| word.eq_ignore_ascii_case(e.as_bytes()))
    }

    /// Whether `word` ends with an entry of list `name`, ASCII-case-insensitively.
    pub(super) fn ends_with(&self, name: &str, word: &[u8]) -> bool {
        self.list(name)
            .iter()
            .any(|e| super::rules::ends_with_ci(word, e.as_bytes()))
    }

    /// Whether some assignment key ends in byte `b` (lower case).
    pub(super) fn key_may_end_with(&self, b: u8) -> bool {
        self.key_last[b.to_ascii_lowercase() as usize]
    }
}

/// The word lists, parsed on first use.
pub(super) fn words() -> &'static Words {
    static WORDS_TABLE: OnceLock<Words> = OnceLock::new();
    WORDS_TABLE.get_or_init(|| parse_words(WORDS).unwrap_or_else(|e| panic!("{e}")))
}

pub(super) fn parse_words(text: &'static str) -> Result<Words, String> {
    let file = "src/secrets/data/words.txt";
    let mut lists = HashMap::new();
    for (name, entries) in parse_lists(file, text)? {
        let lower: Vec<String> = entries.iter().map(|e| e.to_lowercase()).collect();
        if lists.insert(name, lower).is_some() {
            return Err(format!("{file}: [{name}] twice"));
        }
    }
    let mut key_last = [false; 256];
    for (name, _) in KEY_LISTS {
        let Some(keys) = lists.get(name) else {
            return Err(format!("{file}: no [{name}]"));
        };
        for k in keys {
            key_last[*k.as_bytes().last().unwrap_or(&0) as usize] = true;
        }
    }
    for name in [
        "dummy-values",
        "tech-words",
        "description-suffixes",
        "credential-headers",
        "example-credentials",
        "stop-words",
    ] {
        if !lists.contains_key(name) {
            return Err(format!("{file}: no [{name}]"));
        }
    }
    Ok(Words { lists, key_last })
}

// ---------------------------------------------------------------------------------------------
// The prose lexicon.

/// What a noun in prose names.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Said {
    Password,
    Token,
    /// A login pair: `login: admin / S3cret!`.
    Login,
}

/// One language's glue words and how its words attach.
#[derive(Debug, Default)]
pub(super) struct Lang {
    pub(super) tag: &'static str,
    pub(super) qualifiers: Vec<String>,
    pub(super) copulas: Vec<String>,
    pub(super) adverbs: Vec<String>,
    pub(super) glued: bool,
    pub(super) inflects: usize,
    pub(super) compounds: bool,
    pub(super) genitive: bool,
    pub(super) dash: bool,
}

/// A noun of some language, lower-cased.
#[derive(Debug)]
pub(super) struct Noun {
    pub(super) text: String,
    pub(super) lang: usize,
    pub(super) said: Said,
}

/// The parsed `prose.txt`, with an index by the nouns' first character.
#[derive(Debug)]
pub(super) struct Lexicon {
    pub(super) langs: Vec<Lang>,
    pub(super) nouns: Vec<Noun>,
    /// Nouns by their first (lower-case) character, longest first.
    by_first: HashMap<char, Vec<usize>>,
    /// Which bytes can start a noun (either case): most text positions are rejected by one
    /// probe.
    pub(super) first_bytes: [bool; 256],
}

impl Lexicon {
    /// The nouns that may start with `c`, longest first.
    pub(super) fn starting_with(&self, c: char) -> &[usize] {
        let lower = c.to_lowercase().next().unwrap_or(c);
        self.by_first.get(&lower).map_or(&[], Vec::as_slice)
    }
}

/// The prose lexicon, parsed on first use.
pub(super) fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| parse_lexicon(PROSE).unwrap_or_else(|e| panic!("{e}")))
}

pub(super) fn parse_lexicon(text: &'static str) -> Result<Lexicon, String> {
    let file = "src/secrets/data/prose.txt";
    let mut langs: Vec<Lang> = Vec::new();
    let mut nouns = Vec::new();
    for (name, entries) in parse_lists(file, text)? {
        let Some((tag, list)) = name.split_once('.') else {
            return Err(format!("{file}: [{name}] is not [<lang>.<list>]"));
        };
        let lang = match langs.iter().position(|l| l.tag == tag) {
            Some(i) => i,
            None => {
                langs.push(Lang {
                    tag,
                    ..Lang::default()
                });
                langs.len() - 1
            }
        };
        let lower = || entries.iter().map(|e| e.to_lowercase());
        let l = &mut langs[lang];
        let said = match list {
            "password" => Some(Said::Password),
            "token" => Some(Said::Token),
            "login" => Some(Said::Login),
            "qualifier" => {
                l.qualifiers.extend(lower());
                None
            }
            "copula" => {
                l.copulas.extend(lower());
                None
            }
            "adverb" => {
                l.adverbs.extend(lower());
                None
            }
            "flags" => {
                for flag in lower() {
                    match flag.split_once('=') {
                        Some(("inflects", n)) => {
                            l.inflects = n
                                .parse()
                                .map_err(|_| format!("{file}: [{name}]: inflects={n}"))?;
                        }
                        None if flag == "glued" => l.glued = true,
                        None if flag == "compounds" => l.compounds = true,
                        None if flag == "genitive" => l.genitive = true,
                        None if flag == "dash" => l.dash = true,
                        _ => return Err(format!("{file}: [{name}]: unknown flag {flag}")),
                    }
                }
                None
            }
            _ => return Err(format!("{file}: unknown list [{name}]")),
        };
        if let Some(said) = said {
            let lower: Vec<String> = entries.iter().map(|e| e.to_lowercase()).collect();
            for text in lower {
                nouns.push(Noun { text, lang, said });
            }
        }
    }
    let mut by_first: HashMap<char, Vec<usize>> = HashMap::new();
    let mut first_bytes = [false; 256];
    for (i, n) in nouns.iter().enumerate() {
        let Some(c) = n.text.chars().next() else {
            return Err(format!("{file}: an empty noun"));
        };
        by_first.entry(c).or_default().push(i);
        let mut buf = [0u8; 4];
        for variant in c.to_lowercase().chain(c.to_uppercase()).chain([c]) {
            first_bytes[variant.encode_utf8(&mut buf).as_bytes()[0] as usize] = true;
        }
    }
    for list in by_first.values_mut() {
        list.sort_by_key(|&i| std::cmp::Reverse(nouns[i].text.len()));
    }
    Ok(Lexicon {
        langs,
        nouns,
        by_first,
        first_bytes,
    })
}

// ---------------------------------------------------------------------------------------------
// Command-line options.

/// Where an option's value is (see `data/commands.txt`).
#[derive(Debug, Default, Clone)]
pub(super) struct Forms {
    pub(super) next: bool,
    pub(super) glued: bool,
    pub(super) eq: bool,
    pub(super) cluster: bool,
    pub(super) arg: Option<usize>,
    pub(super) last: bool,
    pub(super) prefix: Option<String>,
    pub(super) user_sep: Option<u8>,
    pub(super) header: bool,
}

/// One option of one command.
#[derive(Debug)]
pub(super) struct CliOption {
    pub(super) rule: &'static str,
    pub(super) sub: Option<&'static str>,
    /// `None`: the command (and subcommand) itself is the trigger.
    pub(super) option: Option<&'static str>,
    pub(super) forms: Forms,
}

/// The parsed `commands.txt`: options by command name.
#[derive(Debug)]
pub(super) struct Commands {
    pub(super) by_name: HashMap<&'static str, Vec<CliOption>>,
}

/// The command table, parsed on first use.
pub(super) fn commands() -> &'static Commands {
    static TABLE: OnceLock<Commands> = OnceLock::new();
    TABLE.get_or_init(|| parse_commands(COMMANDS).unwrap_or_else(|e| panic!("{e}")))
}

pub(super) fn parse_commands(text: &'static str) -> Result<Commands, String> {
    let file = "src/secrets/data/commands.txt";
    let mut by_name: HashMap<&'static str, Vec<CliOption>> = HashMap::new();
    let mut rule = None;
    for (n, raw) in text.lines().enumerate() {
        let err = |msg: &str| format!("{file}:{}: {msg}", n + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(r) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            rule = Some(r);
            continue;
        }
        let Some(rule) = rule else {
            return Err(err("a line before the first [rule]"));
        };
        let mut words = line.split_whitespace();
        let (Some(command), Some(option)) = (words.next(), words.next()) else {
            return Err(err("needs a command, an option and forms"));
        };
        let (name, sub) = match command.split_once('/') {
            Some((name, sub)) => (name, Some(sub)),
            None => (command, None),
        };
        let mut forms = Forms::default();
        for form in words {
            match form.split_once('=') {
                None if form == "next" => forms.next = true,
                None if form == "glued" => forms.glued = true,
                None if form == "eq" => forms.eq = true,
                None if form == "cluster" => forms.cluster = true,
                None if form == "last" => forms.last = true,
                None if form == "header" => forms.header = true,
                Some(("arg", n)) => {
                    forms.arg = Some(
                        n.parse()
                            .ok()
                            .filter(|&n| n > 0)
                            .ok_or_else(|| err("arg=N needs N ≥ 1"))?,
                    );
                }
                Some(("prefix", p)) => forms.prefix = Some(p.to_owned()),
                Some(("user", c)) if c.len() == 1 => forms.user_sep = Some(c.as_bytes()[0]),
                _ => return Err(err(&format!("unknown form {form:?}"))),
            }
        }
        let option = (option != ".").then_some(option);
        let takes = forms.next || forms.glued || forms.eq || forms.arg.is_some() || forms.last;
        if !takes {
            return Err(err("no form says where the value is"));
        }
        if option.is_none() && (forms.next || forms.glued || forms.eq) {
            return Err(err("`.` (no option) goes with arg=N or last only"));
        }
        by_name.entry(name).or_default().push(CliOption {
            rule,
            sub,
            option,
            forms,
        });
    }
    Ok(Commands { by_name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_data_file_parses() {
        let t = parse_providers(PROVIDERS).unwrap();
        assert!(t.providers.len() >= 120, "{}", t.providers.len());
        let ids: Vec<_> = t.providers.iter().map(|p| p.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted, "providers.txt is alphabetical by id");
        let w = parse_words(WORDS).unwrap();
        assert!(w.has("dummy-values", b"ChangeMe"));
        assert!(w.ends_with("password-keys", b"DB_PASSWORD"));
        let l = parse_lexicon(PROSE).unwrap();
        assert!(l.langs.len() >= 13, "{}", l.langs.len());
        for tag in [
            "en", "de", "es", "fr", "pt", "it", "nl", "pl", "ru", "zh", "ja", "ko", "tr",
        ] {
            let i = l.langs.iter().position(|x| x.tag == tag).unwrap();
            for said in [Said::Password, Said::Token, Said::Login] {
                assert!(
                    l.nouns.iter().any(|n| n.lang == i && n.said == said),
                    "{tag} has no {said:?} nouns"
                );
            }
        }
        let c = parse_commands(COMMANDS).unwrap();
        for name in ["sshpass", "mysql", "redis-cli", "htpasswd", "curl", "docker"] {
            assert!(c.by_name.contains_key(name), "{name}");
        }
    }

    /// Scratch: the data file says what the Rust table said.
    #[test]
    fn same_as_the_old_table() {
        use super::super::providers as old;
        let t = parse_providers(PROVIDERS).unwrap();
        assert_eq!(t.providers.len(), old::PROVIDERS.len());
        for (n, o) in t.providers.iter().zip(old::PROVIDERS) {
            assert_eq!(n.id, o.id);
            assert_eq!(n.keywords, o.keywords.to_vec(), "{}", n.id);
            assert_eq!(n.keep, o.keep.to_vec(), "{}", n.id);
            assert_eq!(n.entropy, o.entropy, "{}", n.id);
            assert_eq!(n.gitleaks, o.gitleaks.to_vec(), "{}", n.id);
            let allow: Vec<String> = o.allow.iter().map(|a| a.to_string()).collect();
            assert_eq!(n.allow, allow, "{}", n.id);
            let shapes: Vec<Shape> = o
                .shapes
                .iter()
                .map(|s| match s {
                    old::Shape::Token(p) => Shape::Token(p.to_string()),
                    old::Shape::Keyed(a, b) => Shape::Keyed(a.to_string(), b.to_string()),
                    old::Shape::Pattern(p) => Shape::Pattern(p.to_string()),
                })
                .collect();
            assert_eq!(n.shapes, shapes, "{}", n.id);
        }
        let hw: Vec<(&str, Vec<&str>)> = old::HANDWRITTEN.iter().map(|(a, b)| (*a, b.to_vec())).collect();
        assert_eq!(t.covered_by, hw);
        assert_eq!(t.not_covered, old::NOT_COVERED.to_vec());
    }

    #[test]
    fn parse_errors_name_the_file_and_line() {
        let e = parse_providers("[a-rule]\nkeywords abc\nbogus x\n").unwrap_err();
        assert!(e.ends_with("providers.txt:3: unknown field `bogus`"), "{e}");
        let e = parse_providers("keywords abc\n").unwrap_err();
        assert!(e.contains("providers.txt:1:"), "{e}");
        let e = parse_commands("[r]\nmysql -p sideways\n").unwrap_err();
        assert!(e.contains("commands.txt:2: unknown form"), "{e}");
        let e = parse_lexicon("[xx.colour]\nred\n").unwrap_err();
        assert!(e.contains("unknown list [xx.colour]"), "{e}");
    }
}
