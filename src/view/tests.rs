//! Tests of `view/mod.rs` (moved out of the file they test, which stays under 600 lines).

use super::*;
use crate::model::kinds::{Convention, CumulativeNote, Progress};
use crate::model::GitState;

/// Four records of `file`'s kind, in list order (the second one withheld by the test).
fn list_of(file: ViewFile) -> Vec<Record> {
    use crate::model::testing::{decision, learning, meta};
    (1..=4u64)
        .map(|i| match file {
            ViewFile::Decisions => decision(i, &format!("d{i}"), &[]),
            ViewFile::Learnings => learning(i, &format!("k{i}"), &format!("i{i}")),
            ViewFile::Conventions => Record::new(
                meta(i, &[]),
                Body::Convention(Convention {
                    title: format!("c{i}"),
                    pattern: "p".into(),
                    example: if i % 2 == 0 {
                        "e".into()
                    } else {
                        String::new()
                    },
                    applies_to: String::new(),
                    extra: Vec::new(),
                }),
            ),
            ViewFile::Progress => Record::new(
                meta(i, &[]),
                Body::Progress(Progress {
                    completed: vec![format!("done {i}")],
                    in_progress: Vec::new(),
                    blocked: Vec::new(),
                    next: vec!["next".into()],
                    extra: Vec::new(),
                }),
            ),
            ViewFile::SessionLog => Record::new(
                meta(i, &[]),
                Body::Session(Session {
                    summary: format!("s{i}"),
                    git: None,
                }),
            ),
            _ => unreachable!("{file:?} is not appendable"),
        })
        .collect()
}

#[test]
fn appendable_files_render_a_longer_list_as_the_shorter_ones_text_and_the_rest() {
    for file in ViewFile::ALL {
        let Some(_) = header(file, true) else {
            assert_eq!(appended(file, true, &[], &show_all), None, "{file:?}");
            continue;
        };
        let list = list_of(file);
        let withheld = list[1].id.clone();
        let withhold = |r: &Record| r.id == withheld;
        let render_list = |rs: &[Record]| {
            let mut state = State::default();
            *state.of_kind_mut(file.kind()).unwrap() = rs.to_vec();
            render(file, &state, &withhold)
        };
        for split in 0..=list.len() {
            for end in split..=list.len() {
                let (before, added) = (&list[..split], &list[split..end]);
                let tail = appended(file, !before.is_empty(), added, &withhold)
                    .unwrap_or_else(|| panic!("{file:?} {split} {end}"));
                assert_eq!(
                    render_list(&list[..end]),
                    render_list(before) + &tail,
                    "{file:?}, {split} then {end}"
                );
            }
        }
    }
}

#[test]
fn names_kinds_and_scopes_agree() {
    for f in ViewFile::ALL {
        assert_eq!(ViewFile::from_name(f.name()), Some(f));
        assert_eq!(f.kind().scope(), Some(f.scope()), "{f:?}");
    }
    assert_eq!(ViewFile::from_name("nope.md"), None);
}

#[test]
fn visible_hides_blobs_and_git_state() {
    let s = Body::Session(Session {
        summary: "s".into(),
        git: Some(GitState::default()),
    });
    assert_eq!(
        visible(&s),
        Body::Session(Session {
            summary: "s".into(),
            git: None
        })
    );
}

#[test]
fn normalize_is_idempotent_on_tricky_text() {
    let mut b = Body::Decision(Decision {
        title: " a\nb ".into(),
        context: "x\r\n## y\n**Z:** w  \n\n".into(),
        decision: "d".into(),
        rationale: String::new(),
        impact: String::new(),
        files: vec!["`a`, b".into(), " ".into()],
        file_blobs: Default::default(),
        extra: Vec::new(),
    });
    normalize(&mut b);
    let once = b.clone();
    normalize(&mut b);
    assert_eq!(b, once);
    match once {
        Body::Decision(Decision {
            title,
            context,
            files,
            ..
        }) => {
            assert_eq!(title, "a b");
            assert_eq!(context, "x\n ## y\n **Z:** w");
            assert_eq!(files, vec!["a", "b"]);
        }
        _ => unreachable!(),
    }
}

#[test]
fn note_sections_get_canonical_names() {
    let mut b = Body::CumulativeNote(CumulativeNote {
        section: "attention-points".into(),
        text: "- [ ] x".into(),
    });
    normalize(&mut b);
    assert_eq!(
        b,
        Body::CumulativeNote(CumulativeNote {
            section: "Attention Points".into(),
            text: "x".into()
        })
    );
}
