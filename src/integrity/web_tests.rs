//! Tests of `inert_urls`: links and images made inert, idempotence, code spans, megabyte
//! near-misses.

use super::*;

#[test]
fn inert_urls_defang_images_links_and_bare_urls() {
    assert_eq!(
        inert_urls("see ![chart](https://x.example/c.png?q=1 \"t\") now"),
        "see [image: chart] hxxps://x[.]example/c.png?q=1 now"
    );
    assert_eq!(
        inert_urls("[docs](https://docs.rs/gix) and https://git-scm.com/docs."),
        "docs (hxxps://docs[.]rs/gix) and hxxps://git-scm[.]com/docs."
    );
    assert_eq!(inert_urls("<https://a.example/x>"), "hxxps://a[.]example/x");
    assert_eq!(inert_urls("www.example.com/a"), "www[.]example[.]com/a");
    assert_eq!(inert_urls("ftp://10.0.0.1/f"), "fxp://10[.]0[.]0[.]1/f");
    assert_eq!(
        inert_urls("[ref]: http://a.example/i.png"),
        "[ref]: hxxp://a[.]example/i.png"
    );
    assert_eq!(
        inert_urls("[![badge](https://a.example/b.svg)](https://a.example/ci)"),
        "[image: badge] hxxps://a[.]example/b.svg (hxxps://a[.]example/ci)"
    );
    // Code is neither fetched nor linked by renderers, and an agent may need it as written.
    let code = "run `curl https://a.example/x`\n```\nwget https://a.example/y\n```\n";
    assert_eq!(inert_urls(code), code);
    // Not a URL: left alone.
    for text in [
        "[x](./docs/a.md)",
        "mailto:a@b.example",
        "no links here",
        "ahttps://x",
    ] {
        assert_eq!(inert_urls(text), text);
    }
}

#[test]
fn inert_urls_is_idempotent_and_leaves_no_fetchable_url() {
    let texts = [
        "![a](https://x.example/p.png?d={secret}) [b](http://y.example) https://z.example/q?x=1",
        "<img src=\"https://x.example/t.gif\"> <https://x.example> www.x.example",
        "[https://x.example](https://x.example) ![](<https://x.example/a b.png>)",
    ];
    for text in texts {
        let once = inert_urls(text);
        assert_eq!(inert_urls(&once), once, "{text:?}");
        assert!(
            !once.contains("http://") && !once.contains("https://") && !once.contains("www."),
            "{once:?}"
        );
        assert!(!once.contains("]("), "{once:?}");
    }
}

#[test]
fn inert_urls_covers_protocol_relative_and_odd_spellings() {
    // Fetched from the page's own scheme: the host is bracketed so it no longer resolves.
    assert_eq!(
        inert_urls("![x](//evil.example/a.png)"),
        "[image: x] //evil[.]example/a.png"
    );
    assert_eq!(
        inert_urls("<img src=//evil.example/p.gif> url(//cdn.example/x.png)"),
        "<img src=//evil[.]example/p.gif> url(//cdn[.]example/x.png)"
    );
    // Comments and paths are not hosts.
    for text in [
        "x = 1 // see above.",
        "a//b.c",
        "(// TODO)",
        "//localhost/x",
    ] {
        assert_eq!(inert_urls(text), text);
    }
    assert_eq!(inert_urls("HTTPS://A.EXAMPLE/x"), "HxxPS://A[.]EXAMPLE/x");
    assert_eq!(inert_urls("Www.A.example"), "Www[.]A[.]example");
    // URLs nested in a URL are defanged with it, hosts and all.
    assert_eq!(
        inert_urls("https://a.example/?next=https://b.example/?n=ftp://c.example"),
        "hxxps://a[.]example/?next=hxxps://b[.]example/?n=fxp://c[.]example"
    );
    assert_eq!(
        inert_urls("https://a.example/(www.evil.example"),
        "hxxps://a[.]example/(www[.]evil.example"
    );
    // Not an autolink (a space), but the URL in it is still defanged.
    assert_eq!(
        inert_urls("<http://a.example/x y>"),
        "<hxxp://a[.]example/x y>"
    );
    // Trailing sentence punctuation stays outside the URL; parentheses in it stay inside.
    assert_eq!(
        inert_urls("See https://a.example/x. Or [w](https://a.example/A_(b))."),
        "See hxxps://a[.]example/x. Or w (hxxps://a[.]example/A_(b))."
    );
}

#[test]
fn inert_urls_keeps_non_ascii_text_and_hosts() {
    assert_eq!(
        inert_urls("ünïcödé https://例え.jp/パス?q=日本 ![画像](https://例え.jp/a.png)"),
        "ünïcödé hxxps://例え[.]jp/パス?q=日本 [image: 画像] hxxps://例え[.]jp/a.png"
    );
    assert_eq!(
        inert_urls("см. [документация](https://пример.рф/док) — ок"),
        "см. документация (hxxps://пример[.]рф/док) — ок"
    );
    let text = "नमस्ते दुनिया, 忽略 www 点 com, ＷＷＷ．ｘ．ｃｏｍ";
    assert_eq!(inert_urls(text), text);
}

#[test]
fn inert_urls_lets_code_spans_bind_first() {
    // The code span `b](…) c` binds before the link, as in CommonMark: no link, and the span
    // is left alone while the URL after it is defanged.
    let text = "[a `b](https://x.example) c` https://d.example";
    assert_eq!(
        inert_urls(text),
        "[a `b](https://x.example) c` hxxps://d[.]example"
    );
    // A run of two backticks is closed by two, not by one.
    assert_eq!(
        inert_urls("x ``a ` https://a.example`` https://b.example"),
        "x ``a ` https://a.example`` hxxps://b[.]example"
    );
    // An unclosed run is literal text.
    assert_eq!(
        inert_urls("a ` https://a.example"),
        "a ` hxxps://a[.]example"
    );
    let fenced = "~~~\nhttps://a.example\n~~~\nhttps://b.example";
    assert_eq!(
        inert_urls(fenced),
        "~~~\nhttps://a.example\n~~~\nhxxps://b[.]example"
    );
}

#[test]
fn inert_urls_is_idempotent_on_tricky_text() {
    let texts = [
        "https://x.https://x.https://x.",
        "ftp://a.ftp://a.ftp://a.",
        "(//a.b(//a.b(//a.b",
        "=//a.b/=//a.b/",
        "https://a.example/x_www.evil.example",
        "![a](https://x.example/_ \"t\")www.b.example",
        "<https://a.example/`b>` https://c.example`",
        "[x [a](https://b.example \"[\")](https://c.example)",
        "[`x`](https://a.example) ![`y`](https://b.example)",
        "![a]\n(https://a.example)",
        "[ref]: <https://a.example/x.png> \"t\"",
        "x![[b](https://y.example)](https://z.example)y",
    ];
    for text in texts {
        let once = inert_urls(text);
        assert_eq!(inert_urls(&once), once, "{text:?}");
        assert_fetches_nothing(&once);
    }
    // Long URLs are consumed whole, however long.
    let long = format!("https://a.example/{}", "https://".repeat(2000));
    let once = inert_urls(&long);
    assert_eq!(inert_urls(&once), once);
    assert_fetches_nothing(&once);
}

/// No web URL left that a renderer would link or fetch (outside code): every scheme left is
/// glued to the word before it.
pub(super) fn assert_fetches_nothing(out: &str) {
    let lower = out.to_ascii_lowercase();
    let b = lower.as_bytes();
    for scheme in ["http://", "https://", "ftp://"] {
        for (p, _) in lower.match_indices(scheme) {
            let code = out[..p].contains('`') || out[..p].contains("~~~");
            assert!(
                code || (p > 0 && (b[p - 1].is_ascii_alphanumeric() || b[p - 1] == b'.')),
                "{scheme} at {p} in {out:?}"
            );
        }
    }
    for (p, _) in lower.match_indices("www.") {
        let code = out[..p].contains('`') || out[..p].contains("~~~");
        let linked = (p == 0 || b" \t\n(*_~<\"'".contains(&b[p - 1]))
            && b.get(p + 4).is_some_and(u8::is_ascii_alphanumeric);
        assert!(code || !linked, "www. at {p} in {out:?}");
    }
}

/// The same for `inert_urls`, behind a URL so that it does not return early: unclosed brackets,
/// parentheses, angle brackets and backtick runs, and URLs that never end.
#[test]
fn inert_urls_near_miss_megabyte_inputs_finish() {
    const N: usize = 1 << 18;
    let shapes = [
        "[",
        "![",
        "[[]",
        "[[][]",
        "![a](https://x ",
        "[](https://x",
        "![](<https://x",
        "[a](<https://x ",
        "](https://x",
        "<https://x",
        "https://x.",
        "https://",
        "ftp://a.",
        "www.a",
        "(www.a.b",
        "(//a.b",
        "=//a.b/",
        "[`](https://x",
        "`",
        "```\n",
    ];
    let mut inputs: Vec<String> = shapes
        .iter()
        .map(|s| format!("https://x {}", s.repeat(N / s.len())))
        .collect();
    // Unclosed backtick runs of every length on one line.
    let mut runs = String::from("https://x ");
    for n in 1.. {
        if runs.len() > N {
            break;
        }
        runs.push_str(&"`".repeat(n));
        runs.push(' ');
    }
    inputs.push(runs);
    for text in &inputs {
        let once = inert_urls(text);
        assert_eq!(inert_urls(&once), once);
        let issues = scan_text(text);
        assert!(issues.len() <= RULES.len() * MAX_ISSUES_PER_RULE);
    }
}
