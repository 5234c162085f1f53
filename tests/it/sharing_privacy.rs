//! Memory goes only where the user said (issue 26): a remote opts in (`init` for the one it
//! came from, `git rune remote add|remove`), a push anywhere else carries no memory and says
//! so once, a branch's session state travels only with its branch, a fork's upstream never
//! gets memory unless asked, and `status` shows where memory goes. Real clones over `file://`.

use crate::common::{Remote, TestRepo};

/// Every ref a bare remote holds.
fn remote_refs(remote: &Remote) -> String {
    remote.git(&["for-each-ref", "--format=%(refname)"])
}

fn memory_on(remote: &Remote) -> Vec<String> {
    remote_refs(remote)
        .lines()
        .filter(|r| r.starts_with("refs/rune") || r.starts_with("refs/notes/"))
        .map(str::to_owned)
        .collect()
}

/// A clone of `origin` with git-rune set up (`init --hooks`), a first commit pushed, and
/// private session state on a branch it never pushes.
fn set_up(origin: &Remote) -> TestRepo {
    let a = origin.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    a.rune(&["-q", "init", "--hooks"]).success();
    a.learn("client", "client Globex, host globex-stg-3");
    a.git(&["switch", "-q", "-c", "internal-incident"]);
    a.rune(&[
        "progress",
        "--in-progress",
        "Investigating the ACME data leak incident",
    ])
    .success();
    a.commit_file("incident.txt", "x\n", "incident work");
    a.git(&["switch", "-q", "main"]);
    a.git(&["switch", "-q", "-c", "feature"]);
    a.rune(&["progress", "--in-progress", "the feature"])
        .success();
    a.commit_file("feature.txt", "f\n", "feature work");
    a
}

#[test]
fn a_push_to_another_remote_or_a_url_carries_no_memory_and_says_so_once() {
    let origin = Remote::new();
    let public = Remote::new();
    let a = set_up(&origin);
    a.git(&["remote", "add", "public", &public.url()]);
    let out = a.git_output(&["push", "-q", "public", "feature"]);
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(said.contains("carries no memory"), "{said}");
    assert!(said.contains("git rune remote add public"), "{said}");
    assert!(memory_on(&public).is_empty(), "{:?}", memory_on(&public));
    // Said once.
    a.commit_file("feature2.txt", "f\n", "more");
    let out = a.git_output(&["push", "-q", "public", "feature"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("carries no memory"));
    assert!(memory_on(&public).is_empty());
    // A URL gets nothing either.
    let bare = Remote::new();
    let out = a.git_output(&["push", "-q", &bare.url(), "feature"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("carries no memory"));
    assert!(memory_on(&bare).is_empty());
    // `sync --all` goes only where memory goes.
    a.rune(&["-q", "sync", "--all"]).success();
    assert!(memory_on(&public).is_empty());
    assert!(!memory_on(&origin).is_empty());
    // status says where memory goes.
    let st = a.rune(&["status"]).success().stdout;
    assert!(st.contains("memory goes to origin"), "{st}");
    assert!(st.contains("memory stays away from public"), "{st}");
    let json = a.rune(&["status", "--json"]).success().stdout;
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let remotes = v["remotes"].as_array().unwrap();
    assert!(remotes
        .iter()
        .any(|r| r["remote"] == "origin" && r["memory"] == true));
    assert!(remotes
        .iter()
        .any(|r| r["remote"] == "public" && r["memory"] == false));
    // Opting in is one command, and so is opting out.
    a.rune(&["remote", "add", "public"]).success();
    a.git(&["push", "-q", "public", "feature"]);
    assert!(!memory_on(&public).is_empty());
    a.rune(&["remote", "remove", "public"]).success();
    let before = memory_on(&public);
    a.learn("later", "not for public");
    a.commit_file("feature3.txt", "f\n", "more");
    a.git(&["push", "-q", "public", "feature"]);
    assert_eq!(memory_on(&public), before);
}

#[test]
fn a_branch_state_travels_only_with_its_branch() {
    let origin = Remote::new();
    let a = set_up(&origin);
    // The hook pushes memory with `feature`, and feature's state, never the incident's.
    let out = a.git_output(&["push", "-q", "origin", "feature"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let refs = memory_on(&origin);
    assert!(
        refs.iter().any(|r| r.ends_with("/branches/feature")),
        "{refs:?}"
    );
    assert!(
        !refs.iter().any(|r| r.contains("internal-incident")),
        "{refs:?}"
    );
    // Nor does an explicit sync send it, nor anything the remote now holds name it.
    a.rune(&["-q", "sync"]).success();
    let refs = memory_on(&origin);
    assert!(
        !refs.iter().any(|r| r.contains("internal-incident")),
        "{refs:?}"
    );
    let all = origin.git(&["log", "--all", "-p", "--format=%B"]);
    assert!(
        !all.contains("ACME") && !all.contains("internal-incident"),
        "the incident's state or its commit's note reached the remote"
    );
    // Another clone sees the feature's state and project memory, not the incident.
    let b = origin.clone("bob");
    b.rune(&["-q", "init"]).success();
    let refs = b.git(&["for-each-ref", "--format=%(refname)", "refs/rune/"]);
    assert!(refs.contains("refs/rune/branches/feature"), "{refs}");
    assert!(!refs.contains("internal-incident"), "{refs}");
    assert!(b.rune(&["load"]).success().stdout.contains("client Globex"));
    // Once the branch itself is pushed, its state goes with it.
    a.git(&["push", "-q", "origin", "internal-incident"]);
    assert!(memory_on(&origin)
        .iter()
        .any(|r| r.ends_with("/branches/internal-incident")));
}

/// `remote.<name>.push` decides which branches a plain `git push` sends, and so whose session
/// state goes with it; `rune.strictPush` never sends memory where it may not go.
#[test]
fn push_settings_are_respected() {
    let origin = Remote::new();
    let public = Remote::new();
    let a = set_up(&origin);
    a.git(&[
        "config",
        "remote.origin.push",
        "refs/heads/feature:refs/heads/feature",
    ]);
    a.git(&["config", "rune.strictPush", "true"]);
    a.git(&["switch", "-q", "internal-incident"]);
    let out = a.git_output(&["push", "-q", "origin"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let refs = memory_on(&origin);
    assert!(
        refs.iter().any(|r| r.ends_with("/branches/feature")),
        "{refs:?}"
    );
    assert!(
        !remote_refs(&origin).contains("internal-incident"),
        "{}",
        remote_refs(&origin)
    );
    // Strict or not, a remote that did not opt in gets no memory.
    a.git(&["remote", "add", "public", &public.url()]);
    let out = a.git_output(&["push", "-q", "public", "feature"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("carries no memory"));
    assert!(memory_on(&public).is_empty(), "{:?}", memory_on(&public));
}

#[test]
fn a_forks_upstream_never_gets_memory_unless_asked() {
    let upstream = Remote::new();
    let maintainer = upstream.clone("maintainer");
    maintainer.commit_file("README", "project\n", "start");
    maintainer.git(&["push", "-q", "origin", "main"]);
    // The contributor's fork: a copy of upstream, cloned as origin, upstream added.
    let fork = Remote::new();
    maintainer.git(&["push", "-q", &fork.url(), "main"]);
    let c = fork.clone("contributor");
    c.git(&["remote", "add", "upstream", &upstream.url()]);
    c.git(&["fetch", "-q", "upstream"]);
    c.git(&["branch", "-q", "--set-upstream-to=upstream/main", "main"]);
    c.rune(&["-q", "init", "--hooks"]).success();
    c.learn("client", "client Globex, host globex-stg-3");
    c.git(&["switch", "-q", "-c", "fix"]);
    c.commit_file("fix.txt", "fix\n", "a fix");
    // The PR branch goes to upstream: no memory with it.
    let out = c.git_output(&["push", "-q", "upstream", "fix"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("carries no memory"));
    assert!(
        memory_on(&upstream).is_empty(),
        "{:?}",
        memory_on(&upstream)
    );
    // `sync` with no remote named defaults to main's upstream remote: it merges, never
    // pushes there.
    c.git(&["switch", "-q", "main"]);
    let out = c.rune(&["sync"]).success();
    assert!(
        out.stderr.contains("memory was not pushed to upstream"),
        "{}",
        out.stderr
    );
    assert!(memory_on(&upstream).is_empty());
    // The fork itself gets it.
    c.git(&["push", "-q", "origin", "fix"]);
    assert!(!memory_on(&fork).is_empty());
    c.rune(&["-q", "sync", "--all"]).success();
    c.rune(&["-q", "gc", "upstream"]).success();
    assert!(memory_on(&upstream).is_empty());
    // The maintainer's next command merges nothing of the contributor's.
    maintainer.rune(&["-q", "init"]).success();
    let load = maintainer.rune(&["load"]).success().stdout;
    assert!(!load.contains("Globex"), "{load}");
    // Asked explicitly, it goes.
    c.rune(&["remote", "add", "upstream"]).success();
    c.rune(&["-q", "sync", "upstream"]).success();
    assert!(!memory_on(&upstream).is_empty());
}

#[test]
fn a_clone_set_up_by_an_older_version_keeps_sharing_with_origin() {
    let origin = Remote::new();
    let a = origin.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    // What an older `init` left: the fetch refspecs on every remote, no opt-in setting.
    let other = Remote::new();
    a.git(&["remote", "add", "mirror", &other.url()]);
    for remote in ["origin", "mirror"] {
        a.git(&[
            "config",
            "--add",
            &format!("remote.{remote}.fetch"),
            &format!("+refs/rune/*:refs/rune-remotes/{remote}/rune/*"),
        ]);
        a.git(&[
            "config",
            "--add",
            &format!("remote.{remote}.fetch"),
            &format!("+refs/notes/rune*:refs/rune-remotes/{remote}/notes/rune*"),
        ]);
    }
    a.rune(&["-q", "hooks", "install"]).success();
    a.learn("k", "v");
    a.git(&["push", "-q", "origin", "main"]);
    assert!(!memory_on(&origin).is_empty());
    a.git(&["push", "-q", "mirror", "main"]);
    assert!(memory_on(&other).is_empty());
    let st = a.rune(&["remote", "list"]).success().stdout;
    assert!(
        st.contains("origin: memory goes there (set up by an earlier"),
        "{st}"
    );
    assert!(st.contains("mirror: memory stays here"), "{st}");
}

/// Inside a pre-push hook of the user's own, git-rune reads git's ref list (so the pushed
/// branch's state goes) and puts it back for the user's part, which still sees it.
#[test]
fn a_chained_pre_push_hook_still_gets_the_ref_list() {
    let origin = Remote::new();
    let a = origin.clone("ada");
    a.commit_file("README", "hi\n", "start");
    a.git(&["push", "-q", "origin", "main"]);
    let hook = a.root.join(".git/hooks/pre-push");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\ncat > .git/seen-by-user-hook\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    a.rune(&["-q", "init", "--hooks"]).success();
    a.git(&["switch", "-q", "-c", "feature"]);
    a.rune(&["progress", "--in-progress", "the feature"])
        .success();
    a.commit_file("feature.txt", "f\n", "feature work");
    let head = a.git(&["rev-parse", "HEAD"]);
    a.git(&["push", "-q", "origin", "feature"]);
    let seen = a.read(".git/seen-by-user-hook");
    assert!(
        seen.starts_with(&format!("refs/heads/feature {head} refs/heads/feature ")),
        "{seen:?}"
    );
    assert!(memory_on(&origin)
        .iter()
        .any(|r| r.ends_with("/branches/feature")));
    // The note of the pushed commit went with it.
    let notes = origin.git(&["for-each-ref", "--format=%(refname)", "refs/rune-clones/"]);
    let own = notes.lines().find(|r| r.ends_with("/notes")).unwrap();
    let noted = origin
        .git(&["ls-tree", "-r", "--name-only", own])
        .replace('/', "");
    assert!(noted.contains(&head), "{noted}");
}
