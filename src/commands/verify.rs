//! `git rune verify`: CLEAN, SUSPICIOUS or TAINTED per finding and overall; exit 0 only when
//! CLEAN.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::Context;
use crate::integrity::Verdict;
use crate::memory::verify::verify;
use crate::output::json::{self, FindingJson, VerifyJson};
use crate::text::short;

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Also print the text each integrity rule matched. It may be the very instruction the
    /// gate withholds from agents: use it in a terminal, not in an agent's session.
    #[arg(long)]
    pub show_text: bool,
}

pub fn run(ctx: &Context, args: VerifyArgs) -> Result<ExitCode> {
    let store = ctx.store()?;
    let mut v = verify(&store)?;
    // Remembrance documents whose echo_ref no longer matches the entry in memory.
    for st in crate::echoes::stale_refs(&store)? {
        v.findings.push(crate::memory::verify::Finding {
            verdict: Verdict::Suspicious,
            refname: st.path,
            record: None,
            kind: None,
            path: None,
            rule: "stale-echo-ref".to_owned(),
            detail: format!(
                "echo_ref {} is {} in memory; promote the entry again or update the document",
                st.echo_ref, st.why
            ),
            excerpt: None,
        });
    }
    let overall = v.verdict();
    let mut out = String::new();
    if ctx.ui.json {
        for f in &v.findings {
            out.push_str(&json::line(&FindingJson {
                verdict: f.verdict.label(),
                refname: &f.refname,
                record: f.record.as_deref(),
                kind: f.kind,
                path: f.path.as_deref(),
                rule: &f.rule,
                detail: &f.detail,
                excerpt: f.excerpt.as_deref().filter(|_| args.show_text),
            }));
            out.push('\n');
        }
        out.push_str(&json::line(&VerifyJson {
            findings: v.findings.len(),
            records: v.records,
            refs: v.refs,
            verdict: overall.label(),
            version: json::VERSION,
        }));
        out.push('\n');
    } else {
        for f in &v.findings {
            let what = match (&f.record, f.kind, &f.path) {
                (Some(id), Some(kind), Some(path)) => format!(":{path} {kind} {}", short(id)),
                (Some(id), Some(kind), None) => format!(" {kind} {}", short(id)),
                _ => String::new(),
            };
            let excerpt = match f.excerpt.as_deref().filter(|_| args.show_text) {
                Some(x) => format!(": {}", crate::text::sanitize(x)),
                None => String::new(),
            };
            out.push_str(&format!(
                "{} {}{what}: {} ({}{excerpt})\n",
                f.verdict.label(),
                f.refname,
                f.rule,
                &f.detail
            ));
        }
        out.push_str(&format!(
            "{}: {} refs, {} records, {} findings\n",
            overall.label(),
            v.refs,
            v.records,
            v.findings.len()
        ));
    }
    ctx.ui.print(&out)?;
    Ok(if overall == Verdict::Clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
