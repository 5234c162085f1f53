//! Several processes writing at once lose nothing: every ref update is compare-and-swap.

use std::process::Command;

use crate::common::TestRepo;

#[test]
fn concurrent_writers_lose_no_records() {
    let repo = TestRepo::new();
    repo.rune(&["init"]).success();
    let writers = 6;
    let each = 5;
    let children: Vec<_> = (0..writers)
        .map(|w| {
            let mut cmd = Command::new("sh");
            repo.env(&mut cmd);
            let exe = env!("CARGO_BIN_EXE_git-rune");
            let script = (0..each)
                .map(|i| format!("{exe} -q learn --type insight --key w{w}-{i} --insight 'from writer {w} item {i}' || exit 1"))
                .collect::<Vec<_>>()
                .join("\n");
            cmd.args(["-c", &script]).spawn().expect("spawn writer")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a writer failed");
    }
    let out = repo.rune(&["show", "learnings", "--json"]).success();
    assert_eq!(out.stdout.lines().count(), writers * each, "{}", out.stdout);
    assert_eq!(
        repo.git(&["rev-list", "--count", "refs/rune/memory"]),
        (writers * each).to_string(),
        "one commit per write, a linear chain"
    );
}
