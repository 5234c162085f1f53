//! The consolidation matrix (the seed's, made exact; docs/storage.md says the same): which
//! completed tasks are grouped into one consolidated task. Pure and deterministic: the same
//! tasks, blocks and `now` give the same plan.
//!
//! * **Candidates**: completed tasks that are not consolidated groups themselves.
//! * **Protected** (never consolidated): marked `keep` (a unique pitfall), critical bugs
//!   (`BUGFIX` at `P1`), completed less than 3 days before `now`, and tasks referenced by open
//!   work (their id in an open task's title or context, or in a context block's
//!   `related_tasks` beside an open task).
//! * **Areas**: two candidates are in one area when they have the same category (none counts
//!   as one) and either the same title stem (the first two words, lowercased, without
//!   punctuation) or a shared file (path without `:line`); areas are the connected groups.
//! * **Criteria** of an area (the seed's four): it is an area (2+ tasks); 5+ related completed
//!   tasks; no protected-critical finding (no `keep` and no critical bug in it); the newest
//!   completion more than 3 days before `now`. With 3 or more, its unprotected tasks are
//!   consolidated, if at least 2.
//! * **Cap**: then, if more than 5 individual completed tasks remain, the unprotected ones
//!   beyond the 5 most recently completed are consolidated per category.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::kinds::{ContextBlock, Task};
use crate::model::task::{parse_task_id, task_id, COMPLETED};
use crate::model::{Body, Record};

/// Individual completed tasks kept at most (the seed's "last 5").
pub const KEEP_INDIVIDUAL: usize = 5;
/// Tasks completed this recently are not consolidated.
pub const RECENT_DAYS: i64 = 3;
/// An area needs this many completed tasks for its second criterion.
pub const AREA_SIZE: usize = 5;

/// One consolidated task to make.
#[derive(Debug, Clone, PartialEq)]
pub struct Group<'a> {
    pub title: String,
    pub category: String,
    pub members: Vec<&'a Record>,
    /// Which of the four criteria held (area, 5+, no critical finding, older than 3 days);
    /// all false for a group the cap made.
    pub criteria: [bool; 4],
    /// Made by the cap on individual tasks rather than by the matrix.
    pub by_cap: bool,
}

impl Group<'_> {
    /// The consolidated task's body: the area's name, the members' summary, contexts and
    /// files, completed when the last member was.
    pub fn body(&self) -> Body {
        let mut titles = Vec::new();
        let mut ids = Vec::new();
        let mut notes = Vec::new();
        let mut files = BTreeSet::new();
        let mut created = String::new();
        let mut completed = String::new();
        for m in &self.members {
            if let Body::Task(t) = &m.body {
                titles.push(t.title.clone());
                ids.push(task_id(t.num));
                if !t.context.is_empty() {
                    notes.push(format!("{}: {}", task_id(t.num), t.context));
                }
                files.extend(t.files.iter().cloned());
                if created.is_empty() || t.created < created {
                    created.clone_from(&t.created);
                }
                if t.completed > completed {
                    completed.clone_from(&t.completed);
                }
            }
        }
        let mut context = format!(
            "Summary: {} ({} tasks: {}).",
            titles.join("; "),
            self.members.len(),
            ids.join(", ")
        );
        if !notes.is_empty() {
            context.push_str(&format!(" Notes: {}.", notes.join(" | ")));
        }
        if !files.is_empty() {
            context.push_str(&format!(
                " See: {}",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        Body::Task(Task {
            title: self.title.clone(),
            status: COMPLETED.into(),
            category: self.category.clone(),
            created,
            completed,
            consolidated: true,
            consolidated_count: self.members.len() as u32,
            context,
            files: files.into_iter().collect(),
            ..Task::default()
        })
    }
}

struct Cand<'a> {
    r: &'a Record,
    num: u32,
    title: &'a str,
    category: &'a str,
    completed: &'a str,
    files: Vec<String>,
    stem: String,
    critical: bool,
    protected: bool,
}

/// The first two words of a title, lowercased, without punctuation.
pub fn stem(title: &str) -> String {
    title
        .split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

fn days_between(from: &str, to: &str) -> i64 {
    crate::text::secs_between(from, to).div_euclid(86_400)
}

/// Numbers of completed tasks open work refers to.
fn referenced(tasks: &[Record], blocks: &[Record]) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    let mut open = BTreeSet::new();
    for r in tasks {
        if let Body::Task(t) = &r.body {
            if t.status == COMPLETED {
                continue;
            }
            open.insert(t.num);
            let text = format!("{} {}", t.title, t.context);
            for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if word.len() > 5 && word[..5].eq_ignore_ascii_case("task_") {
                    out.extend(parse_task_id(word));
                }
            }
        }
    }
    for b in blocks {
        if let Body::ContextBlock(ContextBlock { related_tasks, .. }) = &b.body {
            let nums: Vec<u32> = related_tasks
                .iter()
                .filter_map(|t| parse_task_id(t))
                .collect();
            if nums.iter().any(|n| open.contains(n)) {
                out.extend(nums);
            }
        }
    }
    out
}

/// The groups to consolidate, in the order they are made.
pub fn plan<'a>(tasks: &'a [Record], blocks: &[Record], now: &str) -> Vec<Group<'a>> {
    let refs = referenced(tasks, blocks);
    let mut cands: Vec<Cand<'a>> = tasks
        .iter()
        .filter_map(|r| match &r.body {
            Body::Task(t) if !t.consolidated && t.status == COMPLETED => {
                let critical = t.keep || (t.category == "BUGFIX" && t.priority == "P1");
                let recent = days_between(&t.completed, now) < RECENT_DAYS;
                Some(Cand {
                    r,
                    num: t.num,
                    title: &t.title,
                    category: &t.category,
                    completed: &t.completed,
                    files: t
                        .files
                        .iter()
                        .map(|f| f.split(':').next().unwrap_or(f).to_owned())
                        .collect(),
                    stem: stem(&t.title),
                    critical,
                    protected: critical || recent || refs.contains(&t.num),
                })
            }
            _ => None,
        })
        .collect();
    cands.sort_by_key(|c| c.num);

    // Areas: connected groups under "same category and (same stem or a shared file)".
    let n = cands.len();
    let areas = crate::rank::groups(n, |i, j| {
        let (a, b) = (&cands[i], &cands[j]);
        a.category == b.category
            && ((!a.stem.is_empty() && a.stem == b.stem)
                || a.files.iter().any(|f| b.files.contains(f)))
    });

    let mut groups = Vec::new();
    let mut used = vec![false; n];
    for members in &areas {
        let newest = members
            .iter()
            .map(|&i| cands[i].completed)
            .max()
            .unwrap_or_default();
        let criteria = [
            members.len() >= 2,
            members.len() >= AREA_SIZE,
            !members.iter().any(|&i| cands[i].critical),
            days_between(newest, now) >= RECENT_DAYS,
        ];
        if criteria.iter().filter(|c| **c).count() < 3 {
            continue;
        }
        let eligible: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| !cands[i].protected)
            .collect();
        if eligible.len() < 2 {
            continue;
        }
        for &i in &eligible {
            used[i] = true;
        }
        groups.push(Group {
            title: area_title(eligible.iter().map(|&i| &cands[i])),
            category: cands[eligible[0]].category.to_owned(),
            members: eligible.iter().map(|&i| cands[i].r).collect(),
            criteria,
            by_cap: false,
        });
    }

    // The cap: at most 5 individual completed tasks stay (protected ones always do).
    let mut left: Vec<usize> = (0..n).filter(|&i| !used[i]).collect();
    left.sort_by(|&a, &b| {
        (cands[b].completed, cands[b].num).cmp(&(cands[a].completed, cands[a].num))
    });
    let mut over: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in left.iter().skip(KEEP_INDIVIDUAL) {
        if !cands[i].protected {
            over.entry(cands[i].category).or_default().push(i);
        }
    }
    for (category, mut members) in over {
        members.sort_by_key(|&i| cands[i].num);
        let what = Some(category).filter(|c| !c.is_empty()).unwrap_or("other");
        groups.push(Group {
            title: format!("Earlier {} work", what.to_lowercase()),
            category: category.to_owned(),
            members: members.iter().map(|&i| cands[i].r).collect(),
            criteria: [false; 4],
            by_cap: true,
        });
    }
    groups
}

/// An area's name: the stem its tasks share (capitalized), else the newest task's title.
fn area_title<'a, 'b: 'a>(members: impl Iterator<Item = &'a Cand<'b>>) -> String {
    let members: Vec<&Cand<'_>> = members.collect();
    let first = &members[0].stem;
    if !first.is_empty() && members.iter().all(|c| &c.stem == first) {
        let mut s = first.clone();
        if let Some(c) = s.get(..1) {
            s = c.to_uppercase() + &s[1..];
        }
        return s;
    }
    members
        .iter()
        .max_by_key(|c| (c.completed, c.num))
        .map(|c| c.title.to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Draft;

    const NOW: &str = "2026-04-20T12:00:00Z";

    struct T {
        num: u32,
        title: &'static str,
        category: &'static str,
        priority: &'static str,
        completed: &'static str,
        files: &'static [&'static str],
        keep: bool,
        status: &'static str,
        context: &'static str,
    }

    const fn t(
        num: u32,
        title: &'static str,
        category: &'static str,
        completed: &'static str,
    ) -> T {
        T {
            num,
            title,
            category,
            priority: "P2",
            completed,
            files: &[],
            keep: false,
            status: "completed",
            context: "",
        }
    }

    fn records(list: &[T]) -> Vec<Record> {
        list.iter()
            .map(|t| {
                Draft::new(Body::Task(Task {
                    uid: format!("{:04x}", t.num),
                    num: t.num,
                    claimed: "2026-04-01T00:00:00Z".into(),
                    title: t.title.into(),
                    status: t.status.into(),
                    priority: t.priority.into(),
                    category: t.category.into(),
                    created: "2026-04-01T00:00:00Z".into(),
                    completed: if t.status == "completed" {
                        t.completed.into()
                    } else {
                        String::new()
                    },
                    consolidated: false,
                    consolidated_count: 0,
                    context: t.context.into(),
                    files: t.files.iter().map(|f| f.to_string()).collect(),
                    keep: t.keep,
                    aliases: Vec::new(),
                    extra: Vec::new(),
                }))
                .stamp("2026-04-01T00:00:00Z", t.num as u64, "a")
            })
            .collect()
    }

    fn nums(g: &Group<'_>) -> Vec<u32> {
        g.members
            .iter()
            .map(|r| match r.body {
                Body::Task(Task { num, .. }) => num,
                _ => 0,
            })
            .collect()
    }

    const OLD: &str = "2026-04-10T00:00:00Z";
    const RECENT: &str = "2026-04-19T00:00:00Z";

    /// The matrix, one row per case: (tasks, expected groups as member numbers).
    #[test]
    fn the_matrix() {
        let five_old: Vec<T> = (1..=5)
            .map(|n| t(n, "Redesign homepage part", "FEATURE", OLD))
            .collect();
        type Case = (&'static str, Vec<T>, Vec<Vec<u32>>);
        let cases: Vec<Case> = vec![
            ("all four criteria: grouped", five_old, vec![vec![1, 2, 3, 4, 5]]),
            (
                "three criteria (only 3 tasks): grouped",
                (1..=3).map(|n| t(n, "Redesign homepage x", "FEATURE", OLD)).collect(),
                vec![vec![1, 2, 3]],
            ),
            (
                "two criteria (3 tasks, one recent): the recent one stays, but the area fails 4 → not grouped",
                vec![
                    t(1, "Redesign homepage a", "FEATURE", OLD),
                    t(2, "Redesign homepage b", "FEATURE", OLD),
                    t(3, "Redesign homepage c", "FEATURE", RECENT),
                ],
                vec![],
            ),
            (
                "a critical bug in the area: 3 criteria with 5+, the bug stays individual",
                {
                    let mut v: Vec<T> = (1..=5).map(|n| t(n, "Fix parser edge", "BUGFIX", OLD)).collect();
                    v[0].priority = "P1";
                    v
                },
                vec![vec![2, 3, 4, 5]],
            ),
            (
                "keep marks a unique pitfall: never grouped",
                {
                    let mut v: Vec<T> = (1..=5).map(|n| t(n, "Fix parser edge", "BUGFIX", OLD)).collect();
                    v[4].keep = true;
                    v
                },
                vec![vec![1, 2, 3, 4]],
            ),
            (
                "different categories are different areas",
                vec![
                    t(1, "Redesign homepage a", "FEATURE", OLD),
                    t(2, "Redesign homepage b", "DOCS", OLD),
                ],
                vec![],
            ),
            (
                "shared files link titles that differ",
                {
                    let mut v = vec![
                        t(1, "Parser speedup", "REFACTOR", OLD),
                        t(2, "Tidy tokenizer", "REFACTOR", OLD),
                    ];
                    v[0].files = &["src/parse.rs:10"];
                    v[1].files = &["src/parse.rs:99"];
                    v
                },
                vec![vec![1, 2]],
            ),
            (
                "referenced by pending work: stays",
                {
                    let mut v: Vec<T> = (1..=3).map(|n| t(n, "Redesign homepage x", "FEATURE", OLD)).collect();
                    let mut open = t(4, "Follow up", "FEATURE", "");
                    open.status = "pending";
                    open.context = "after TASK_002";
                    v.push(open);
                    v
                },
                vec![vec![1, 3]],
            ),
            (
                "the cap: 7 unrelated old tasks, the 2 oldest-completed consolidated by category",
                (1..=7)
                    .map(|n| {
                        let titles = ["Alpha one", "Beta two", "Gamma three", "Delta four", "Eps five", "Zeta six", "Eta seven"];
                        let done = ["2026-04-01T00:00:00Z", "2026-04-02T00:00:00Z", "2026-04-03T00:00:00Z", "2026-04-04T00:00:00Z", "2026-04-05T00:00:00Z", "2026-04-06T00:00:00Z", "2026-04-07T00:00:00Z"];
                        t(n, titles[n as usize - 1], "DOCS", done[n as usize - 1])
                    })
                    .collect(),
                vec![vec![1, 2]],
            ),
        ];
        for (name, tasks, want) in cases {
            let records = records(&tasks);
            let got: Vec<Vec<u32>> = plan(&records, &[], NOW).iter().map(nums).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn the_consolidated_task_keeps_summary_contexts_and_files() {
        let mut v: Vec<T> = (1..=3)
            .map(|n| t(n, "Redesign homepage x", "FEATURE", OLD))
            .collect();
        v[1].context = "Pitfall: Safari grid";
        v[2].files = &["docs/plan.md"];
        let records = records(&v);
        let groups = plan(&records, &[], NOW);
        let Body::Task(Task {
            title,
            context,
            files,
            consolidated_count,
            completed,
            ..
        }) = groups[0].body()
        else {
            panic!()
        };
        assert_eq!(title, "Redesign homepage");
        assert_eq!(consolidated_count, 3);
        assert_eq!(completed, OLD);
        assert_eq!(files, vec!["docs/plan.md"]);
        assert!(
            context.contains("TASK_002: Pitfall: Safari grid"),
            "{context}"
        );
        assert!(
            context.contains("3 tasks: TASK_001, TASK_002, TASK_003"),
            "{context}"
        );
    }
}
