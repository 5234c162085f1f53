//! A corpus of what agents and people really write into the view files: sloppy but
//! meaningful. Each case pins the records the file must yield (with their times) and the exact
//! canonical text the view writes back; nothing written may be lost between the two.

use super::{normalize, parse, render_all, Parsed, ViewFile};
use crate::model::{fold, Draft, Record};

const NOW: &str = "2026-06-01T12:00:00Z";

/// Parses `input`, stamps each entry at the time it gives (else `NOW`), and renders back.
fn read_back(file: ViewFile, input: &str) -> String {
    let parsed = parse(file, input).unwrap_or_else(|e| panic!("{file:?}: {e}\n---\n{input}"));
    let mut out = String::from("--- records\n");
    let mut records: Vec<Record> = Vec::new();
    for (i, p) in parsed.into_iter().enumerate() {
        let Parsed::Entry(e) = p else {
            out.push_str(&format!("{p:?}\n"));
            continue;
        };
        let mut body = e.body;
        let normal = body.clone();
        normalize(&mut body);
        assert_eq!(body, normal, "parse output is normal");
        out.push_str(&format!(
            "at {}: {}\n",
            e.at.as_deref().unwrap_or("(none: save time)"),
            serde_json::to_string(&body).unwrap()
        ));
        let at = e.at.unwrap_or_else(|| NOW.to_owned());
        records.push(Draft::new(body).stamp(&at, i as u64 + 1, "t <t@t>"));
    }
    let text = render_all(file, &fold(&records));
    out.push_str("--- rendered\n");
    out.push_str(&text);
    // Canonical text reads back as the same records.
    let again = parse(file, &text).unwrap();
    assert_eq!(
        again.len(),
        records.len(),
        "the rendering reads back whole:\n{text}"
    );
    out
}

macro_rules! corpus {
    ($($name:ident: $file:expr, $input:expr;)*) => {
        $(
            #[test]
            fn $name() {
                insta::assert_snapshot!(read_back($file, $input));
            }
        )*
    };
}

corpus! {
    decision_at_three_hashes_is_its_own_entry: ViewFile::Decisions, "# Decisions Log

## [2026-04-04 14:30] Decision: Use Postgres
**Context:** We need transactions
**Decision:** Postgres 16
**Rationale:** The team knows it
**Impact:** db/

### [2026-04-05 09:00] Decision: Use Redis for the cache
**Context:** Reads are hot
**Decision:** Redis 7
";
    decision_unknown_fields_and_prose_are_kept: ViewFile::Decisions, "## [2026-04-04 14:30] Decision: Queue
**Context:** Jobs pile up
**Decision:** SQS
**Alternatives considered:** RabbitMQ (ops cost), Kafka (overkill)
**Rationale:** Managed
**Status:** accepted
**Impact:** worker/

We revisit this when volume doubles.
Owner: the platform team.
";
    decision_bare_iso_date_and_bulleted_fields: ViewFile::Decisions, "## 2026-04-05T10:15:00Z Decision: Retry policy
- **Context:** Flaky upstream
- **Decision:** Exponential backoff, 5 tries
- **Rationale:** Standard
- **Impact:** src/api/client.ts
";
    decision_crlf_bom_and_date_without_time: ViewFile::Decisions, "\u{feff}# Decisions Log\r\n\r\n## [2026-04-05] Decision: Logging\r\n**Decision:** structured JSON logs\r\n";
    decision_cr_only_line_endings: ViewFile::Decisions, "# Decisions Log\r\r## [2026-04-05 08:00] Decision: Old Mac\r**Decision:** still read\r**Impact:** everything\r";
    convention_with_fenced_example_and_star_bullets: ViewFile::Conventions, "# Conventions

## [2026-04-04] Convention: Async-first I/O
* **Pattern:** All I/O is async
* **Example:**
```python
async def fetch():

    # blank lines and headings in code stay
    ...
```
* **Applies to:** src/
";
    instinct_confidence_as_words_and_notes: ViewFile::Instincts, "## [2026-04-04] Instinct: Prefer httpx
**Trigger:** Adding an HTTP call
**Action:** Use httpx.AsyncClient
**Confidence:** High
**Evidence:** corrected twice

## [2026-04-05] Instinct: Pin versions
**Trigger:** Adding a dependency
**Action:** Pin it
**Confidence:** 0.7 (validated)
**Evidence:** a broken build
";
    progress_python_context_and_next_steps: ViewFile::Progress, "# Progress

## [2026-04-04 14:30] Session Summary
**Completed:**
- [x] Parser
**Next steps:**
- Renderer
**Python Context** (if Python project):
- Python: 3.12 (uv)
- mypy: 0 (strict)
";
    progress_update_heading_with_only_python_block: ViewFile::Progress, "## Progress update
**Python Context**:
- Python: 3.11
- Coverage: 80%
";
    checkpoint_extra_sections_and_level_three_headings: ViewFile::Checkpoint, "# Checkpoint — [2026-04-04 14:30]

### What I Was Doing
Adding retry logic to the client

### Current Git State
- Branch: feat/retry
- Last commit: abc1234 fix
- Uncommitted changes: clean
- Stashed: yes — wip on the docs

### Decisions Made This Session (Load-Bearing)
- Backoff: exponential, because the upstream throttles

### What's Left (Ordered)
1. Handle 429
2. Tests

## Notes
Talk to Bob about quotas.

### Resume Command
Continue with 429 handling in src/api/client.ts
";
    learnings_unknown_keys_missing_confidence_and_pretty_printing: ViewFile::Learnings, r#"{"ts":"2026-04-04T14:30:00Z","skill":"cook","type":"decision","key":"state-lib","insight":"Chose Zustand","confidence":0.8,"source":"review","tags":["ui","state"]}
{"ts":"2026-04-03T09:00:00+02:00","type":"error","key":"flaky-ci","insight":"Root cause was a shared temp dir"}
{
  "ts": "2026-04-05",
  "type": "Insight",
  "key": "cache",
  "insight": "Keys include the tenant",
  "confidence": 0.9
}
"#;
    cumulative_notes_sections_of_ones_own: ViewFile::CumulativeNotes, "# Cumulative Project Notes

## Project Profile
* A billing service

## Open Questions
- Do we shard by tenant?
- What about EU data residency?

## attention points
- The migration is fragile
";
    task_notes_ideas_section: ViewFile::TaskNotes, "# Task Notes: retry

## What Worked (with evidence)
- backoff: tests pass

## Ideas
- jitter from a seeded RNG
";
    invariants_under_four_hashes: ViewFile::Invariants, "# Invariants

## Danger Zones

#### Never bypass the router
- **What:** every request goes through the L0 router
- **Where:** `skills/skill-router/**`
- **Why:** skipping it loses auth checks
- **Owner:** platform

### Critical Contracts

#### IR schema
What: the IR schema is the adapter contract
";
    session_log_dates_and_a_heading: ViewFile::SessionLog, "# Session Log

[2026-04-04 14:30] — set up the database layer
- [2026-04-05] - wrote the retry logic
## April recap
plain line without a date
";
}
