//! Tests of `invariants.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;
use crate::model::{fold, Draft};
use crate::view::{self, ViewFile};

fn rule(section: &str, title: &str, what: &str, r#where: &[&str], why: &str) -> Body {
    Body::Invariant(Invariant {
        section: section.into(),
        title: title.into(),
        what: what.into(),
        r#where: r#where.iter().map(|s| s.to_string()).collect(),
        why: why.into(),
        extra: Vec::new(),
    })
}

fn with_extra(mut body: Body, x: Extra) -> Body {
    if let Body::Invariant(Invariant { extra, .. }) = &mut body {
        extra.push(x);
    }
    body
}

#[test]
fn categories_and_icons() {
    assert_eq!(category("Danger Zones"), Category::Danger);
    assert_eq!(category("Critical Contracts"), Category::Critical);
    assert_eq!(category("API contracts"), Category::Critical);
    assert_eq!(category("State Machines"), Category::State);
    assert_eq!(category("Cross-File Couplings"), Category::Cross);
    assert_eq!(category("Style"), Category::Other);
    assert_eq!(Category::Cross.icon(), "🔗");
    assert!(is_archived("Archived") && is_archived(" archived rules") && !is_archived("Danger"));
}

#[test]
fn renders_sections_in_the_loaders_order_and_form() {
    let bodies = [
        rule("Archived", "Old rule", "", &[], ""),
        rule("Style", "Tabs", "", &[], "consistency"),
        rule(
            "Cross-File Couplings",
            "Manifest mirror",
            "marketplace.json mirrors plugin.json",
            &[".claude-plugin/marketplace.json"],
            "",
        ),
        rule(
            "Danger Zones",
            "Router",
            "L0 router, never bypass",
            &["skills/skill-router/**", "src/{a,b}.rs"],
            "auth lives there",
        ),
    ];
    let records: Vec<Record> = bodies
        .into_iter()
        .enumerate()
        .map(|(i, b)| Draft::new(b).stamp("2026-04-04T14:30:00Z", i as u64 + 1, "a"))
        .collect();
    assert_eq!(
        view::render_all(ViewFile::Invariants, &fold(&records)),
        "# Project Invariants

## Danger Zones

#### Router
- **WHAT**: L0 router, never bypass
- **WHERE**: `skills/skill-router/**`, `src/{a,b}.rs`
- **WHY**: auth lives there

## Cross-File Consistency

#### Manifest mirror
- **WHAT**: marketplace.json mirrors plugin.json
- **WHERE**: `.claude-plugin/marketplace.json`

## Style

#### Tabs
- **WHY**: consistency

## Archived

#### Old rule
"
    );
}

#[test]
fn parses_leniently() {
    let text = "# Invariants
## Critical Contracts
### IR schema
What: the IR schema is the adapter contract
  and must stay stable
**Where**: compiler/parser.js, compiler/ir.js
- **Owner:** compiler team
* Why: adapters break silently
## State Machines
### Phases
- **What:** phase order is pre → run → post
";
    assert_eq!(
        view::parse_bodies(ViewFile::Invariants, text).unwrap(),
        vec![
            with_extra(
                with_extra(
                    rule(
                        "Critical Invariants",
                        "IR schema",
                        "the IR schema is the adapter contract",
                        &["compiler/parser.js", "compiler/ir.js"],
                        "adapters break silently"
                    ),
                    Extra {
                        after: "What".into(),
                        label: CONTINUED.into(),
                        text: "  and must stay stable".into(),
                    }
                ),
                Extra {
                    after: "Where".into(),
                    label: "Owner".into(),
                    text: "compiler team".into(),
                }
            ),
            rule(
                "State Machine Rules",
                "Phases",
                "phase order is pre → run → post",
                &[],
                ""
            ),
        ]
    );
}

#[test]
fn nothing_a_file_holds_is_refused_and_the_layout_comes_back() {
    for text in [
        "# Invariants\n## Danger Zones\nprose\n",
        "text first\n",
        "#### before any section\n- **WHAT**: x\n",
        "## Danger Zones\n#### \n",
    ] {
        let framed = view::parse_framed(ViewFile::Invariants, text).unwrap();
        assert!(framed.items.is_empty(), "{text:?}");
        assert_eq!(framed.frame.as_deref(), Some(text), "{text:?}");
    }
    // Prose under a rule is kept with it.
    let got = view::parse_bodies(
        ViewFile::Invariants,
        "## Danger Zones\n### R\n- **What:** x\nloose text\n",
    )
    .unwrap();
    assert!(
        matches!(&got[0], Body::Invariant(Invariant { extra, .. }) if extra[0].text == "loose text" && extra[0].after == "What"),
        "{got:?}"
    );
}
