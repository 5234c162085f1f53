//! Decoding stored record lines: every read of memory decodes every line it reads, so this is
//! the floor under `load`, `status` and the hooks at 100,000 records. Lines of six kinds as
//! git-rune writes them; prints nanoseconds per line (median of the rounds).
//!
//!     cargo bench --locked --bench decode
//!
//! The lines are built as text, not through the model, so the same file measures any version
//! of the decoder (docs/performance.md has the before/after of the record-kind redesign).

use std::time::Instant;

const LINES: usize = 100_000;
const ROUNDS: usize = 9;

fn lines() -> Vec<String> {
    let meta = |i: usize| {
        format!(
            r#"{{"id":"{i:064x}","ts":"2026-01-01T00:00:{:02}Z","clock":{i},"author":"Ada Lovelace <ada@example.com>""#,
            i % 60
        )
    };
    (0..LINES)
        .map(|i| {
            let m = meta(i);
            match i % 6 {
                0 | 1 => format!(
                    r#"{m},"kind":"learning","skill":"cook","type":"insight","key":"key-{i}","insight":"The cache key must include the tenant id, or two tenants share entries {i}","confidence":0.8,"files":["src/cache.rs"],"file_blobs":{{"src/cache.rs":"{i:040x}"}}}}"#
                ),
                2 => format!(
                    r#"{m},"kind":"decision","title":"Use Postgres {i}","context":"We need transactions across services","decision":"Postgres 16 for every service","rationale":"The team knows it","impact":"db/, migrations","files":["db/schema.sql"]}}"#
                ),
                3 => format!(
                    r#"{m},"kind":"task","uid":"{i:016x}","num":{},"claimed":"2026-01-01T00:00:00Z","title":"Fix the flaky test {i}","status":"pending","priority":"P2","category":"BUGFIX","created":"2026-01-01T00:00:00Z","files":["tests/a.rs"]}}"#,
                    i + 1
                ),
                4 => format!(
                    r#"{m},"kind":"echo","uid":"{i:016x}","role":"reviewer","layer":"inscribed","date":"2026-02-11","title":"Pattern: Unused imports {i}","source":"rune:review PR #42","confidence":0.7,"evidence":"`src/a.py:1-5` — 3 found","verified":"2026-02-11","text":"New files often carry unused imports from templates."}}"#
                ),
                _ => format!(
                    r#"{m},"kind":"checkpoint","doing":"Migrations, step 2 of 3 ({i})","left":["write the rollback","test it"],"context":["the staging db is shared"],"resume":"Continue with the rollback in db/migrate.rs","git":{{"branch":"main","head":"{i:040x}","dirty":["db/migrate.rs"]}}}}"#
                ),
            }
        })
        .collect()
}

fn main() {
    let lines = lines();
    let bytes: usize = lines.iter().map(String::len).sum();
    let mut per_line = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let mut ok = 0usize;
        for l in &lines {
            ok += git_rune::model::decode_line(l).is_ok() as usize;
        }
        let ns = t.elapsed().as_nanos() as f64 / LINES as f64;
        assert_eq!(ok, LINES, "every line decodes");
        per_line.push(ns);
    }
    per_line.sort_by(f64::total_cmp);
    println!(
        "decode {LINES} lines ({:.1} MB): median {:.0} ns/line, min {:.0}, max {:.0}",
        bytes as f64 / 1e6,
        per_line[ROUNDS / 2],
        per_line[0],
        per_line[ROUNDS - 1]
    );
}
