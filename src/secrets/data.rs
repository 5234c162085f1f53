//! The secret filter's data files (`src/secrets/data/`): the provider table, the word lists
//! and the command-line password options (the prose lexicon is `lexicon.rs`'s). They are text
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
#[derive(Debug, Default)]
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
#[derive(Debug, Default)]
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

/// The lines of a data file that say something, trimmed (blank lines and `#` comments
/// skipped), with their numbers from 1 and, for a `[name]` heading, the name.
fn lines(text: &'static str) -> impl Iterator<Item = (usize, &'static str, Option<&'static str>)> {
    text.lines().enumerate().filter_map(|(n, line)| {
        let line = line.trim();
        let heading = line.strip_prefix('[').and_then(|l| l.strip_suffix(']'));
        (!line.is_empty() && !line.starts_with('#')).then_some((n + 1, line, heading))
    })
}

/// Splits a line into its first word and the rest (trimmed).
fn field(line: &str) -> (&str, &str) {
    line.split_once(char::is_whitespace)
        .map_or((line, ""), |(f, rest)| (f, rest.trim()))
}

/// Replaces `{name}` with the pattern `@define name` gave it.
fn expand(pattern: &str, defines: &[(&str, &str)]) -> String {
    let mut out = pattern.to_owned();
    if !pattern.contains('{') {
        return out;
    }
    for (name, value) in defines {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

pub(super) fn parse_providers(text: &'static str) -> Result<ProviderTable, String> {
    let mut table = ProviderTable::default();
    let mut defines: Vec<(&str, &str)> = Vec::new();
    // Which rules have said what of gitleaks' they cover (`-`: nothing).
    let mut said_gitleaks: Vec<bool> = Vec::new();
    for (n, line, heading) in lines(text) {
        let err = |msg: &str| format!("src/secrets/data/providers.txt:{n}: {msg}");
        if let Some(id) = heading {
            table.providers.push(Provider {
                id,
                ..Provider::default()
            });
            said_gitleaks.push(false);
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
        if name == "gitleaks" {
            if let Some(said) = said_gitleaks.last_mut() {
                *said = true;
            }
        }
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
    for (p, said) in table.providers.iter().zip(&said_gitleaks) {
        let bad = |msg: &str| Err(format!("src/secrets/data/providers.txt: [{}]{msg}", p.id));
        if !said {
            return bad(" needs a gitleaks line (`-` for none)");
        }
        if p.keywords.is_empty() || p.shapes.is_empty() {
            return bad(" needs keywords and a shape");
        }
        if let Some(k) = p.keywords.iter().find(|k| k.len() < 3) {
            return bad(&format!(": keyword {k:?} is shorter than three bytes"));
        }
    }
    Ok(table)
}

// ---------------------------------------------------------------------------------------------
// Lists: `[name]` and entries separated by blanks, "quoted" when they hold one.

/// Entries of a list file, by list name, in file order.
pub(super) fn parse_lists(
    file: &str,
    text: &'static str,
) -> Result<Vec<(&'static str, Vec<String>)>, String> {
    let mut lists: Vec<(&'static str, Vec<String>)> = Vec::new();
    for (n, line, heading) in lines(text) {
        if let Some(name) = heading {
            lists.push((name, Vec::new()));
            continue;
        }
        let Some((_, entries)) = lists.last_mut() else {
            return Err(format!("{file}:{n}: an entry before the first [list]"));
        };
        let Some(items) = crate::text::split_quoted(line) else {
            return Err(format!("{file}:{n}: an unclosed quote"));
        };
        entries.extend(items.into_iter().map(str::to_owned));
    }
    Ok(lists)
}

/// The lists of `words.txt` other than the assignment keys.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum List {
    /// Values people write in place of a secret.
    Dummy,
    /// Words with digits that describe how a password is kept.
    Tech,
    /// Last parts of hyphenated words that describe a secret.
    Descriptions,
    /// Header names whose value is a credential.
    CredentialHeaders,
    /// The documentation's example `user:password` pairs.
    ExampleCredentials,
    /// Words of prose that follow an option or a login.
    Stop,
    /// How tools are told where to read a secret from (`env:`, `file:`).
    References,
}

/// Each list's name in `words.txt`.
const LISTS: &[(&str, List)] = &[
    ("dummy-values", List::Dummy),
    ("tech-words", List::Tech),
    ("description-suffixes", List::Descriptions),
    ("credential-headers", List::CredentialHeaders),
    ("example-credentials", List::ExampleCredentials),
    ("stop-words", List::Stop),
    ("references", List::References),
];

/// The word lists of `words.txt`, lower-cased.
pub(super) struct Words {
    /// Indexed like [`KEY_LISTS`].
    keys: Vec<Vec<String>>,
    /// Indexed like [`LISTS`].
    lists: Vec<Vec<String>>,
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
    /// The entries of `list`.
    pub(super) fn list(&self, list: List) -> &[String] {
        &self.lists[list as usize]
    }

    /// Whether `word` is an entry of `list`, ASCII-case-insensitively.
    pub(super) fn has(&self, list: List, word: &[u8]) -> bool {
        self.list(list)
            .iter()
            .any(|e| word.eq_ignore_ascii_case(e.as_bytes()))
    }

    /// Whether `word` ends with an entry of `list`, ASCII-case-insensitively.
    pub(super) fn ends_with(&self, list: List, word: &[u8]) -> bool {
        self.list(list)
            .iter()
            .any(|e| crate::bytes::ends_with_ci(word, e.as_bytes()))
    }

    /// Whether `word` ends with a key of the `i`-th of [`KEY_LISTS`].
    pub(super) fn ends_with_key(&self, i: usize, word: &[u8]) -> bool {
        self.keys[i]
            .iter()
            .any(|e| crate::bytes::ends_with_ci(word, e.as_bytes()))
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
    let mut by_name: HashMap<&str, Vec<String>> = HashMap::new();
    for (name, entries) in parse_lists(file, text)? {
        let lower: Vec<String> = entries.iter().map(|e| e.to_lowercase()).collect();
        if by_name.insert(name, lower).is_some() {
            return Err(format!("{file}: [{name}] twice"));
        }
    }
    let mut take = |name: &str| {
        by_name
            .remove(name)
            .ok_or_else(|| format!("{file}: no [{name}]"))
    };
    let keys = KEY_LISTS
        .iter()
        .map(|(name, _)| take(name))
        .collect::<Result<Vec<_>, _>>()?;
    let lists = LISTS
        .iter()
        .map(|(name, _)| take(name))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(name) = by_name.keys().next() {
        return Err(format!("{file}: [{name}] is no list the filter reads"));
    }
    let mut key_last = [false; 256];
    for k in keys.iter().flatten() {
        if let Some(&last) = k.as_bytes().last() {
            key_last[last as usize] = true;
        }
    }
    Ok(Words {
        keys,
        lists,
        key_last,
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
    /// Which first two bytes start a command's name: most words are rejected by one probe.
    pairs: Box<[u64; 1024]>,
}

impl Commands {
    /// Whether a command's name may start with bytes `b0`, `b1`.
    pub(super) fn may_start(&self, b0: u8, b1: u8) -> bool {
        let k = usize::from(b0) << 8 | usize::from(b1);
        self.pairs[k >> 6] >> (k & 63) & 1 == 1
    }
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
    for (n, line, heading) in lines(text) {
        let err = |msg: &str| format!("{file}:{n}: {msg}");
        if let Some(r) = heading {
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
    let mut pairs = Box::new([0u64; 1024]);
    for name in by_name.keys() {
        let b = name.as_bytes();
        let k = usize::from(b[0]) << 8 | usize::from(*b.get(1).unwrap_or(&0));
        pairs[k >> 6] |= 1 << (k & 63);
    }
    Ok(Commands { by_name, pairs })
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
        assert!(w.has(List::Dummy, b"ChangeMe"));
        assert!(w.ends_with_key(1, b"DB_PASSWORD"));
        let l = super::super::lexicon::parse_lexicon(include_str!("data/prose.txt")).unwrap();
        assert!(l.langs.len() >= 13, "{}", l.langs.len());
        for tag in [
            "en", "de", "es", "fr", "pt", "it", "nl", "pl", "ru", "zh", "ja", "ko", "tr",
        ] {
            let i = l.langs.iter().position(|x| x.tag == tag).unwrap();
            use super::super::lexicon::Said;
            for said in [Said::Password, Said::Token, Said::Login] {
                assert!(
                    l.nouns
                        .iter()
                        .any(|n| n.langs.contains(&i) && n.said == said),
                    "{tag} has no {said:?} nouns"
                );
            }
        }
        let c = parse_commands(COMMANDS).unwrap();
        for name in [
            "sshpass",
            "mysql",
            "redis-cli",
            "htpasswd",
            "curl",
            "docker",
        ] {
            assert!(c.by_name.contains_key(name), "{name}");
        }
    }

    #[test]
    fn parse_errors_name_the_file_and_line() {
        let e = parse_providers("[a-rule]\nkeywords abc\nbogus x\n").unwrap_err();
        assert!(e.ends_with("providers.txt:3: unknown field `bogus`"), "{e}");
        let e = parse_providers("keywords abc\n").unwrap_err();
        assert!(e.contains("providers.txt:1:"), "{e}");
        let e = parse_commands("[r]\nmysql -p sideways\n").unwrap_err();
        assert!(e.contains("commands.txt:2: unknown form"), "{e}");
        let e = super::super::lexicon::parse_lexicon("[xx.colour]\nred\n").unwrap_err();
        assert!(e.contains("unknown list [xx.colour]"), "{e}");
    }
}
