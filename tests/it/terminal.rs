//! Nothing agent-written reaches the terminal raw: escape sequences, BEL, C1 controls, bidi
//! and zero-width characters and Unicode tag characters are removed from every command's text
//! output, on stdout and stderr alike.

use crate::common::TestRepo;

/// Hostile characters of every class, around ordinary text.
const NASTY: &str =
    "A\u{1b}[2J\u{1b}]0;pwned\u{7}B\u{9b}31m\u{85}C\u{202e}D\u{200b}E\u{e0041}\u{e0042}F\u{fe00}G";

fn assert_clean(what: &str, text: &str) {
    let bad: Vec<String> = text
        .chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{e0000}'..='\u{e007f}' | '\u{fe00}'..='\u{fe0d}')
        })
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    assert!(bad.is_empty(), "{what} printed {bad:?}:\n{text}");
}

#[test]
fn every_command_sanitises_what_agents_wrote() {
    let repo = TestRepo::new();
    repo.commit_file("a.txt", "a\n", "first");
    repo.rune(&["-q", "init", "--hooks"]).success();
    let title = format!("Title {NASTY}");
    let runs: Vec<Vec<String>> = vec![
        vec![
            "decide".into(),
            title.clone(),
            "--context".into(),
            NASTY.into(),
            "--decision".into(),
            NASTY.into(),
            "--rationale".into(),
            "r".into(),
            "--impact".into(),
            "i".into(),
            "--files".into(),
            "a.txt".into(),
        ],
        vec![
            "convention".into(),
            title.clone(),
            "--pattern".into(),
            NASTY.into(),
        ],
        vec![
            "learn".into(),
            "--type".into(),
            "insight".into(),
            "--key".into(),
            format!("k{NASTY}"),
            "--insight".into(),
            NASTY.into(),
        ],
        vec![
            "instinct".into(),
            title.clone(),
            "--trigger".into(),
            NASTY.into(),
            "--action".into(),
            "a".into(),
            "--confidence".into(),
            "0.5".into(),
            "--evidence".into(),
            "e".into(),
        ],
        vec!["progress".into(), "--next".into(), NASTY.into()],
        vec![
            "checkpoint".into(),
            "--doing".into(),
            NASTY.into(),
            "--left".into(),
            NASTY.into(),
            "--resume".into(),
            NASTY.into(),
        ],
        vec![
            "remember".into(),
            "--section".into(),
            "Active Topics".into(),
            NASTY.into(),
        ],
        vec!["save".into(), "-m".into(), format!("summary {NASTY}")],
    ];
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = repo.rune(&args).success();
        assert_clean(args[0], &format!("{}{}", out.stdout, out.stderr));
    }
    repo.commit_file("a.txt", "b\n", "second");
    for args in [
        &["load"][..],
        &["status"],
        &["show", "decisions"],
        &["show", "learnings"],
        &["show", "checkpoint"],
        &["show", "progress"],
        &["log"],
        &["log", "--all"],
        &["why", "HEAD"],
        &["why", "a.txt:1"],
        &["diff", "HEAD~1..HEAD"],
        &["resume"],
        &["verify"],
    ] {
        let out = repo.rune(args);
        assert_clean(
            args.join(" ").as_str(),
            &format!("{}{}", out.stdout, out.stderr),
        );
    }
    // A failing command's error names what the user typed, sanitised too.
    let out = repo.rune(&["show", NASTY]).failure();
    assert_clean("show <nasty kind>", &out.stderr);
}
