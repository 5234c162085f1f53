//! Timing of the learned classifier, run by hand (unit-test modules may print).

use super::model::score;
use super::scan_text;

/// Rough cost on a 2 KB note: `cargo test --release --lib model_tests::timing -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn timing() {
    let para = "The index is rebuilt when the manifest changes. We keep the cache keyed by \
                the tree hash, so a checkout of another branch never reads stale entries. ";
    let text = para.repeat(2048 / para.len() + 1);
    let text = &text[..2048];
    let n = 2000;
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(scan_text(std::hint::black_box(text)));
    }
    let all = t.elapsed() / n;
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(score(std::hint::black_box(text)));
    }
    let model = t.elapsed() / n;
    println!("scan_text on 2 KB: {all:?} in all, of which the model {model:?}");
}
