//! Random-looking strings: the `high-entropy-string` rule, and the entropy the provider
//! table's floors are measured in.

use super::rules::*;

// ---------------------------------------------------------------------------------------------
// High-entropy strings.

/// The 1st percentile of the Shannon entropy (bits per char) of random base64 strings of each
/// length, measured over 20,000 samples per length: 99% of random keys clear the bar, while
/// CamelCase identifiers and paths of the same length fall 0.1–0.5 bits below it.
pub(super) const ENTROPY_FLOOR: &[(usize, f64)] = &[
    (32, 4.22),
    (36, 4.35),
    (40, 4.46),
    (48, 4.65),
    (56, 4.81),
    (64, 4.92),
    (80, 5.11),
    (100, 5.27),
    (128, 5.42),
    (200, 5.6),
];

pub(super) fn entropy_floor(n: usize) -> f64 {
    let mut prev = ENTROPY_FLOOR[0];
    for &(len, h) in ENTROPY_FLOOR {
        if n <= len {
            if len == prev.0 {
                return h;
            }
            let t = (n - prev.0) as f64 / (len - prev.0) as f64;
            return prev.1 + t * (h - prev.1);
        }
        prev = (len, h);
    }
    prev.1
}

pub(super) fn shannon(s: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &c in s {
        counts[c as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * log2(p)
        })
        .sum()
}

/// `x.log2()` for a positive finite `x`, in plain Rust: `f64::log2` is libm's, and this is
/// the only function git-rune would load libm for, which every process (the post-commit
/// hook's included) would pay for at start (docs/performance.md). Accurate to the last bit
/// or two: `ln m = 2·atanh((m−1)/(m+1))` with the mantissa `m` in [√½, √2).
pub(super) fn log2(x: f64) -> f64 {
    const MANTISSA: u64 = (1 << 52) - 1;
    let (x, shift) = if x < f64::MIN_POSITIVE {
        (x * (1u64 << 54) as f64, -54)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let mut exponent = ((bits >> 52) & 0x7ff) as i32 - 1023 + shift;
    let mut m = f64::from_bits((bits & MANTISSA) | (1023 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        exponent += 1;
    }
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    // |z| < 0.172: twelve terms of z + z³/3 + z⁵/5 + … are past f64 precision.
    let (mut term, mut atanh) = (z, 0.0);
    for k in 0..12 {
        atanh += term / f64::from(2 * k + 1);
        term *= z2;
    }
    f64::from(exponent) + 2.0 * atanh * std::f64::consts::LOG2_E
}

pub(super) fn scan_high_entropy(b: &[u8], public: &[(usize, usize)], out: &mut Vec<Cand>) {
    let mut public = public.iter().peekable();
    let mut i = 0;
    while i < b.len() {
        if !is(b[i], B64) {
            i += 1;
            continue;
        }
        let s = i;
        let e = run_end(b, i, B64);
        i = e;
        while public.next_if(|&&(_, pe)| pe <= s).is_some() {}
        let in_public_block = public.peek().is_some_and(|&&(ps, _)| ps <= s);
        if !in_public_block && !is_ssh_public_key(b, s) && looks_random(&b[s..e]) {
            // Trailing base64 padding belongs to the value.
            let end = run_while(b, e, b.len().min(e + 2), |c| c == b'=');
            out.push(cand(s, end, "high-entropy-string", P_ENTROPY));
        }
    }
}

/// `ssh-ed25519 AAAA…` / `ecdsa-sha2-nistp256 AAAA…`: an OpenSSH public key, meant to be shared.
pub(super) fn is_ssh_public_key(b: &[u8], s: usize) -> bool {
    if !b[s..].starts_with(b"AAAA") || s < 2 || b[s - 1] != b' ' {
        return false;
    }
    let mut k = s - 1;
    while k > 0 && is(b[k - 1], WORD | B64) && s - k < 40 {
        k -= 1;
    }
    let algo = &b[k..s - 1];
    algo.starts_with(b"ssh-") || algo.starts_with(b"ecdsa-")
}

pub(super) fn looks_random(run: &[u8]) -> bool {
    if run.starts_with(b"pk_live_") || run.starts_with(b"pk_test_") {
        return false; // Stripe publishable keys ship in web pages
    }
    if [&b"sha256-"[..], b"sha384-", b"sha512-"]
        .iter()
        .any(|p| run.starts_with(p))
    {
        return false; // Subresource Integrity hashes ship in web pages too
    }
    if run.len() < 32 || run.iter().all(|&c| is(c, HEX) || c == b'-') {
        return false; // object ids, sha256 ids, UUIDs and other hex digests
    }
    if kind_count(run) < 3 {
        return false;
    }
    if run.contains(&b'/') {
        // A path: no segment is long and mixed like a key's. Random base64 rarely has long
        // stretches between slashes that are not themselves random-looking.
        let longest = run
            .split(|&c| c == b'/')
            .max_by_key(|s| s.len())
            .unwrap_or(run);
        if longest.len() < 16 || kind_count(longest) < 3 {
            return false;
        }
    }
    shannon(run) >= entropy_floor(run.len())
}
