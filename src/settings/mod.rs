//! The `rune.*` settings: one table (`table.txt`) that documents them (docs/config.md, the
//! manual's CONFIGURATION) and checks their values with git's own rules, so a bad value is
//! a warning naming the key, never a silent default.

use std::sync::OnceLock;

/// How a setting's value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Bool,
    Int,
    Number,
    List,
    Text,
    Path,
    Pair,
}

impl Type {
    fn parse(s: &str) -> Option<Type> {
        Some(match s {
            "bool" => Type::Bool,
            "int" => Type::Int,
            "number" => Type::Number,
            "list" => Type::List,
            "text" => Type::Text,
            "path" => Type::Path,
            "pair" => Type::Pair,
            _ => return None,
        })
    }

    /// The type's name in the reference.
    pub fn name(self) -> &'static str {
        match self {
            Type::Bool => "boolean",
            Type::Int => "integer",
            Type::Number => "number",
            Type::List => "list",
            Type::Text => "text",
            Type::Path => "path",
            Type::Pair => "<warn>,<block>",
        }
    }
}

/// One setting.
#[derive(Debug, Clone)]
pub struct Setting {
    /// The key as documented (`rune.context.preview.<caller>`).
    pub key: &'static str,
    pub ty: Type,
    pub default: &'static str,
    pub about: &'static str,
}

impl Setting {
    /// Whether `key` (as git reports it, any case in section and name) is this setting.
    fn matches(&self, key: &str) -> bool {
        let want: Vec<&str> = self.key.split('.').collect();
        let have: Vec<&str> = key.split('.').collect();
        if let Some(i) = want.iter().position(|p| p.starts_with('<')) {
            // `rune.context.preview.<caller>`: the prefix, then one name of any spelling.
            have.len() == want.len()
                && want[..i]
                    .iter()
                    .zip(&have[..i])
                    .all(|(w, h)| w.eq_ignore_ascii_case(h))
        } else {
            // Section and key are case-insensitive in git; a subsection is not, but ours are
            // written in one case only.
            self.key.eq_ignore_ascii_case(key)
        }
    }
}

const TABLE: &str = include_str!("table.txt");

/// Every setting, in the table's order.
pub fn all() -> &'static [Setting] {
    static ALL: OnceLock<Vec<Setting>> = OnceLock::new();
    ALL.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let f: Vec<&'static str> = l.splitn(4, " | ").collect();
                assert!(f.len() == 4, "settings/table.txt: bad line {l:?}");
                Setting {
                    key: f[0],
                    ty: Type::parse(f[1]).unwrap_or_else(|| panic!("bad type in {l:?}")),
                    default: f[2],
                    about: f[3],
                }
            })
            .collect()
    })
}

/// The setting `key` names, if git-rune knows it.
pub fn find(key: &str) -> Option<&'static Setting> {
    all().iter().find(|s| s.matches(key))
}

/// A boolean by git's rules: true/yes/on/1 and false/no/off/0 in any case, a key given
/// without `=` (`value` `None`) is true, an empty value is false.
pub fn parse_bool(value: Option<&str>) -> Option<bool> {
    let Some(v) = value else { return Some(true) };
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" | "" => Some(false),
        _ => None,
    }
}

/// An integer by git's rules: optional sign, digits, and an optional k, m or g suffix
/// (1024, 1024², 1024³).
pub fn parse_int(value: &str) -> Option<i64> {
    let v = value.trim();
    let (digits, scale) = match v.chars().last()?.to_ascii_lowercase() {
        'k' => (&v[..v.len() - 1], 1i64 << 10),
        'm' => (&v[..v.len() - 1], 1 << 20),
        'g' => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    digits.parse::<i64>().ok()?.checked_mul(scale)
}

/// A positive integer setting read by git's rules; `None` when unset or bad (the bad value
/// is reported once per command by [`check`]).
pub fn positive(value: Option<String>) -> Option<u64> {
    value
        .as_deref()
        .and_then(parse_int)
        .and_then(|n| u64::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// What is wrong with `value` for `setting`, if anything.
fn problem(setting: &Setting, value: Option<&str>) -> Option<String> {
    let v = value.unwrap_or("");
    match setting.ty {
        Type::Bool => parse_bool(value)
            .is_none()
            .then(|| "not a boolean (use true or false, yes or no, on or off, 1 or 0)".to_owned()),
        Type::Int => match parse_int(v) {
            Some(n) if n > 0 => None,
            Some(_) => Some("must be more than 0".to_owned()),
            None => Some("not an integer (a whole number, optionally with k, m or g)".to_owned()),
        },
        Type::Number => match v.trim().parse::<f64>() {
            Ok(n) if n > 0.0 => None,
            _ => Some("not a number above 0".to_owned()),
        },
        Type::Pair => {
            let ok = v.split_once(',').is_some_and(|(a, b)| {
                matches!(
                    (parse_int(a), parse_int(b)),
                    (Some(w), Some(b)) if 0 < w && w < b
                )
            });
            (!ok).then(|| "not \"<warn>,<block>\" (two token counts, warn below block)".to_owned())
        }
        Type::List | Type::Text | Type::Path => value
            .is_none_or(|v| v.trim().is_empty())
            .then(|| "is empty".to_owned()),
    }
}

/// Checks every `rune.*` key set (`entries`: full key and value, `None` for a key without
/// `=`): a value the key's type does not allow, or a key git-rune does not know, is one
/// warning that names the key and what to do.
pub fn check(entries: &[(String, Option<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (key, value) in entries {
        match find(key) {
            Some(s) => {
                if let Some(p) = problem(s, value.as_deref()) {
                    let shown = value.as_deref().unwrap_or("(no value)");
                    out.push(format!(
                        "{key} = {shown:?} is {p}; git-rune uses the default ({}) until it is fixed (`git config {key} <value>`, or `git config --unset {key}`)",
                        s.default
                    ));
                }
            }
            None => out.push(format!(
                "{key} is not a git-rune setting; `git rune --help` (CONFIGURATION) lists them{}",
                suggestion(key)
                    .map(|k| format!(" (did you mean {k}?)"))
                    .unwrap_or_default()
            )),
        }
    }
    out
}

/// A known key one letter or case away from `key`.
fn suggestion(key: &str) -> Option<&'static str> {
    let k = key.to_ascii_lowercase();
    all()
        .iter()
        .filter(|s| !s.key.contains('<'))
        .find(|s| distance(&s.key.to_ascii_lowercase(), &k) <= 2)
        .map(|s| s.key)
}

/// Levenshtein distance between two short keys.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(cur)
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The reference as markdown (docs/config.md).
pub fn markdown() -> String {
    let mut out = String::from(
        "# Configuration\n\n<!-- Generated from src/settings/table.txt by \
         `UPDATE_CLI_DOCS=1 cargo test --locked --test it cli_docs`; do not edit. -->\n\n\
         git-rune reads these settings with `git config` (repository, global or system files, \
         as git does). A value of the wrong type is a warning naming the key, and the default \
         applies until it is fixed. Booleans follow git's rules (true/false, yes/no, on/off, \
         1/0); integers may end in k, m or g.\n\n| key | type | default | what it does |\n| --- | --- | --- | --- |\n",
    );
    for s in all() {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            s.key,
            s.ty.name(),
            s.default,
            s.about.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads() {
        assert!(all().len() >= 10);
        assert_eq!(find("rune.strictpush").unwrap().ty, Type::Bool);
        assert_eq!(find("RUNE.context.preview.team").unwrap().ty, Type::Pair);
        assert!(find("rune.nothing").is_none());
    }

    #[test]
    fn booleans_and_integers_follow_git() {
        for t in ["true", "Yes", "on", "1"] {
            assert_eq!(parse_bool(Some(t)), Some(true), "{t}");
        }
        for f in ["false", "NO", "off", "0", ""] {
            assert_eq!(parse_bool(Some(f)), Some(false), "{f}");
        }
        assert_eq!(parse_bool(None), Some(true));
        assert_eq!(parse_bool(Some("maybe")), None);
        assert_eq!(parse_int("2k"), Some(2048));
        assert_eq!(parse_int("1M"), Some(1 << 20));
        assert_eq!(parse_int("3g"), Some(3 << 30));
        assert_eq!(parse_int("abc"), None);
        assert_eq!(parse_int("-5"), Some(-5));
    }

    #[test]
    fn bad_values_are_named() {
        let w = check(&[
            ("rune.strictPush".into(), Some("maybe".into())),
            ("rune.agent.loadBudget".into(), Some("abc".into())),
            ("rune.agent.loadBudget".into(), Some("4k".into())),
            ("rune.strictPush".into(), None),
            ("rune.stritPush".into(), Some("true".into())),
        ]);
        assert_eq!(w.len(), 3, "{w:#?}");
        assert!(
            w[0].starts_with("rune.strictPush = \"maybe\" is not a boolean"),
            "{}",
            w[0]
        );
        assert!(w[1].contains("rune.agent.loadBudget") && w[1].contains("not an integer"));
        assert!(w[2].contains("did you mean rune.strictPush?"), "{}", w[2]);
    }
}
