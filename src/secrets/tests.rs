//! The secrets corpus and property tests: one positive and one negative test per hand-written
//! rule, the in-code corpus, redaction, linearity and the property tests. Long because every
//! rule has its cases here, built from the same noise helpers (which the other test files
//! import); the shape corpora live in `corpus_tests.rs`.

use super::*;
use proptest::prelude::*;

pub(super) const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub(super) const ALNUM_CHARS: &str =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub(super) const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
pub(super) const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub(super) const HEX_CHARS: &str = "0123456789abcdef";

/// Deterministic pseudo-random text: fake secrets are assembled at run time, so no literal
/// secret sits in the source for push-protection scanners to flag.
pub(super) fn noise(seed: u64, len: usize, alphabet: &str) -> String {
    let a = alphabet.as_bytes();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a[(x % a.len() as u64) as usize] as char
        })
        .collect()
}

/// Like `noise`, but sure to hold an upper-case letter, a lower-case letter and a digit.
pub(super) fn mixed(seed: u64, len: usize, alphabet: &str) -> String {
    format!("Kq7{}", noise(seed, len - 3, alphabet))
}

pub(super) fn cat(parts: &[&str]) -> String {
    parts.concat()
}

fn private_key_block(label: &str, seed: u64, end: bool) -> String {
    let body: Vec<String> = (0..4).map(|i| mixed(seed + i, 64, BASE64)).collect();
    let mut s = cat(&[
        "-----BEGIN ",
        label,
        " PRIVATE",
        " KEY-----\n",
        &body.join("\n"),
    ]);
    if end {
        s += &cat(&["\n-----END ", label, " PRIVATE", " KEY-----"]);
    }
    s
}

fn jwt(seed: u64) -> String {
    cat(&[
        "ey",
        "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
        "ey",
        &mixed(seed, 40, URLSAFE),
        ".",
        &mixed(seed + 1, 43, URLSAFE),
    ])
}

/// (expected rule, line, the secret value inside the line).
fn dirty() -> Vec<(&'static str, String, String)> {
    let mut v: Vec<(&'static str, String, String)> = Vec::new();
    let mut add = |rule, before: &str, secret: String, after: &str| {
        v.push((rule, cat(&[before, &secret, after]), secret));
    };
    add(
        "aws-access-key",
        "aws_access_key_id = ",
        cat(&["AK", "IA", &noise(1, 16, UPPER_DIGITS)]),
        "",
    );
    add(
        "aws-access-key",
        "creds: ",
        cat(&["AS", "IA", &noise(2, 16, UPPER_DIGITS)]),
        " (session)",
    );
    add(
        "aws-secret-key",
        "aws_secret_access_key = ",
        mixed(3, 40, BASE64),
        "",
    );
    add(
        "aws-secret-key",
        "secretAccessKey: \"",
        mixed(4, 40, BASE64),
        "\"",
    );
    add(
        "github-token",
        "export GITHUB_TOKEN=",
        cat(&["gh", "p_", &mixed(5, 36, ALNUM_CHARS)]),
        "",
    );
    add(
        "github-token",
        "used ",
        cat(&["gh", "o_", &mixed(6, 36, ALNUM_CHARS)]),
        " for oauth",
    );
    add(
        "github-token",
        "",
        cat(&["github", "_pat_", &mixed(7, 82, "abcXYZ019_")]),
        "",
    );
    add(
        "gitlab-token",
        "GITLAB ",
        cat(&["gl", "pat-", &mixed(8, 20, URLSAFE)]),
        "",
    );
    add(
        "slack-token",
        "bot: ",
        cat(&[
            "xo",
            "xb-",
            "2048123456-1234567890123-",
            &mixed(9, 24, ALNUM_CHARS),
        ]),
        "",
    );
    add(
        "slack-token",
        "",
        cat(&[
            "xo",
            "xp-",
            "2048123456-2048123456-",
            &mixed(10, 32, ALNUM_CHARS),
        ]),
        "",
    );
    add(
        "slack-webhook",
        "notify ",
        cat(&[
            "https://hooks.slack.com/services/",
            "T0",
            &noise(11, 8, UPPER_DIGITS),
            "/B0",
            &noise(12, 8, UPPER_DIGITS),
            "/",
            &mixed(13, 24, ALNUM_CHARS),
        ]),
        " on deploy",
    );
    add(
        "stripe-key",
        "STRIPE=",
        cat(&["sk", "_live_", &mixed(14, 24, ALNUM_CHARS)]),
        "",
    );
    add(
        "stripe-key",
        "restricted ",
        cat(&["rk", "_live_", &mixed(15, 24, ALNUM_CHARS)]),
        "",
    );
    add(
        "stripe-key",
        "tests use ",
        cat(&["sk", "_test_", &mixed(16, 24, ALNUM_CHARS)]),
        "",
    );
    add(
        "sendgrid-key",
        "mail via ",
        cat(&[
            "S",
            "G.",
            &mixed(17, 22, URLSAFE),
            ".",
            &mixed(18, 43, URLSAFE),
        ]),
        "",
    );
    add(
        "twilio-api-key",
        "twilio ",
        cat(&["S", "K", &noise(19, 32, HEX_CHARS)]),
        "",
    );
    add(
        "google-api-key",
        "maps key ",
        cat(&["AI", "za", &mixed(20, 35, URLSAFE)]),
        "",
    );
    add(
        "openai-key",
        "OPENAI_API_KEY=",
        cat(&["sk", "-proj-", &mixed(21, 100, URLSAFE)]),
        "",
    );
    add(
        "openai-key",
        "old key ",
        cat(&["sk", "-", &mixed(22, 48, ALNUM_CHARS)]),
        "",
    );
    add(
        "anthropic-key",
        "ANTHROPIC_API_KEY=",
        cat(&["sk", "-ant-api03-", &mixed(23, 93, URLSAFE)]),
        "",
    );
    add(
        "private-key",
        "key:\n",
        private_key_block("RSA", 24, true),
        "\nend",
    );
    add(
        "private-key",
        "",
        private_key_block("OPENSSH", 25, true),
        "",
    );
    add(
        "private-key",
        "pasted: ",
        private_key_block("EC", 26, false),
        "",
    );
    add("jwt", "session=", jwt(27), "; Path=/");
    add("jwt", "Authorization: Bearer ", jwt(28), "");
    add(
        "password-assignment",
        "db_password: \"",
        "s3cr3t-v4lue".into(),
        "\"",
    );
    add(
        "password-assignment",
        "PGPASSWORD=",
        "Tr0ub4dor".into(),
        " psql",
    );
    add("password-assignment", "password: ", "hunter2".into(), "\n");
    add(
        "password-assignment",
        "{\"password\":\"",
        "correct horse".into(),
        "\"}",
    );
    add(
        "password-assignment",
        "**Password:** ",
        "opensesame".into(),
        "",
    );
    add(
        "secret-assignment",
        "client_secret=",
        mixed(29, 24, ALNUM_CHARS),
        "&grant_type=x",
    );
    add(
        "secret-assignment",
        "JWT_SECRET = '",
        "dev-signing-key".into(),
        "'",
    );
    add(
        "token-assignment",
        "auth_token: \"",
        noise(30, 32, HEX_CHARS),
        "\"",
    );
    // An npm token under a token key: the vendor rule names it (issue 11).
    add(
        "npm-access-token",
        "NPM_TOKEN=",
        cat(&["npm", "_", &mixed(31, 36, ALNUM_CHARS)]),
        "",
    );
    add(
        "api-key-assignment",
        "apiKey: '",
        mixed(32, 32, ALNUM_CHARS),
        "'",
    );
    add("api-key-assignment", "X-Api-Key=", "live7Q2kd9".into(), "");
    add(
        "url-credentials",
        "DATABASE_URL=postgres://app:",
        "Zr8-kP2q".into(),
        "@db.internal:5432/app",
    );
    add(
        "url-credentials",
        "redis://:",
        "n0tHunter".into(),
        "@cache:6379/0",
    );
    add(
        "url-credentials",
        "clone https://deploy:",
        "w1nter2024".into(),
        "@git.example.org/x.git",
    );
    add(
        "bearer-token",
        "curl -H 'Authorization: Bearer ",
        mixed(33, 40, ALNUM_CHARS),
        "' api",
    );
    add(
        "bearer-token",
        "bearer ",
        cat(&["Zm9v", &mixed(34, 20, URLSAFE), "~.x"]),
        "",
    );
    add(
        "high-entropy-string",
        "cache salt ",
        mixed(35, 44, BASE64),
        " (rotated)",
    );
    add("high-entropy-string", "", mixed(36, 64, URLSAFE), "");
    add(
        "secret-in-prose",
        "the password is ",
        "hunter2x".into(),
        " for the staging admin",
    );
    add(
        "secret-in-prose",
        "The API key for billing is ",
        mixed(37, 32, ALNUM_CHARS),
        ", rotate it after the demo",
    );
    add(
        "curl-auth-user",
        "curl -u admin:",
        "pass".into(),
        " https://staging.internal/api/health",
    );
    add(
        "curl-auth-user",
        "curl --user=\"deploy:",
        "Tr0ub4dor&3".into(),
        "\" https://ci.acme.dev",
    );
    add(
        "curl-auth-header",
        "curl -H 'X-Api-Key: ",
        mixed(38, 24, ALNUM_CHARS),
        "' https://api.acme.dev/v1/items",
    );
    // Issue 29's nine shapes.
    add(
        "basic-auth",
        "GET /api HTTP/1.1\nAuthorization: Basic ",
        "YWRtaW46UzNjcjN0IQ==".into(),
        "\nAccept: */*",
    );
    add(
        "registry-auth",
        "{\"auths\":{\"registry.acme.dev\":{\"auth\":\"",
        "ZGVwbG95OmhRN3pLMnBMOW1Y".into(),
        "\"}}}",
    );
    add(
        "password-flag",
        "sshpass -p ",
        "Hq7zK2pL9".into(),
        " ssh deploy@host",
    );
    add(
        "password-flag",
        "mysql -u app -p",
        "Hq7zK2pL9".into(),
        " shop",
    );
    add(
        "login-credentials",
        "login: admin / ",
        "Hq7zK2pL9".into(),
        "",
    );
    add(
        "secret-in-prose",
        "the passphrase is ",
        "correct-horse-battery-staple".into(),
        "",
    );
    add(
        "secret-in-prose",
        "Das Passwort für den Server ist ",
        "Sommer2024!".into(),
        "",
    );
    add(
        "secret-in-prose",
        "La contraseña del servidor es ",
        "Verano2024!".into(),
        "",
    );
    add(
        "auth-header",
        "xhr.setRequestHeader(\"Authorization\", \"Token ",
        mixed(39, 32, ALNUM_CHARS),
        "\")",
    );
    add(
        "netrc-password",
        "machine git.acme.dev\n  login ci\n  password ",
        "Tr0ub4dor-3".into(),
        "\n",
    );
    add(
        "secret-flag",
        "deploy --api-key ",
        mixed(40, 24, ALNUM_CHARS),
        " --env prod",
    );
    v
}

/// Every hand-written rule name `scan` can report (the provider table's are in
/// `data/providers.txt`): the first column of the rules table in the module's documentation,
/// which so has to name them all.
pub(super) static RULES: std::sync::LazyLock<Vec<&str>> = std::sync::LazyLock::new(|| {
    let rules: Vec<&str> = include_str!("mod.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("//! | `")?.split('`').next())
        .collect();
    assert!(
        rules.len() >= 29,
        "the rules table of secrets/mod.rs: {rules:?}"
    );
    rules
});

/// Every rule name `scan` can report: the hand-written ones and the provider table's.
pub(super) fn all_rules() -> Vec<&'static str> {
    RULES.iter().copied().chain(table::ids()).collect()
}

/// Engineering lines that must never be refused as secrets.
const CLEAN: &[&str] = &[
    "Decision: store memory under refs/rune/ so it travels with git push and fetch.",
    "Learned: gix ref transactions need the expected old value for compare-and-swap.",
    "fix(view): keep unsaved edits when checking out (9481bba0c4ffe1e5e0f2f4a3f9c8d7e6b5a4c3b2)",
    "record id 3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea",
    "session 550e8400-e29b-41d4-a716-446655440000 resumed after compaction",
    "See https://github.com/rust-lang/rust/issues/12345 and https://docs.rs/gix/latest/gix/",
    "ssh://git@github.com/acme/widgets.git is the canonical remote",
    "src/commands/load.rs renders the checkpoint before open tasks",
    "tests/it/drift_graph.rs covers HEAD ahead/behind counting",
    "The password reset flow sends a token by mail; tokens expire after 15 minutes.",
    "Never log the api key; read it from the environment at startup.",
    "password=<password> in .env.example is a placeholder, fill it locally",
    "password: ${DB_PASSWORD}",
    "DB_PASSWORD=changeme for the docker-compose dev stack",
    "secret: none",
    "is_secret=false marks public settings",
    "max_tokens=4096 keeps the completion bounded",
    "when token=EOF the lexer stops",
    "api_key=os.environ['API_KEY'] in settings.py",
    "password=getpass() prompts instead of storing",
    "connect(user=u, password=args.password)",
    "Use a Bearer token from `gh auth token`; never paste it here.",
    "Authorization: Bearer $GITHUB_TOKEN",
    "postgres://user:${PGPASS}@localhost/app for local runs",
    "AKIAIOSFODNN7EXAMPLE is the documented example access key id",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "The ghp_ prefix marks a GitHub personal access token.",
    "sk-learn is not a key; scikit-learn is imported as sklearn.",
    "Twilio account sid AC0123456789abcdef0123456789abcdef is not secret on its own.",
    "Publishable key prefix pk_live_ is fine to ship in the browser bundle.",
    "AbstractSingletonProxyFactoryBean2 is the worst class name in the codebase",
    "src/main/java/com/acme/billing/InvoiceReconciliationServiceV2Impl.java",
    "refs/rune/branches/feature/add-2fa-login-flow keeps per-branch state",
    "x86_64-unknown-linux-gnu/release/deps/git_rune-0123abcd is the build output",
    "sha512 digest cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
    "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY----- is the PEM shape",
    "-----BEGIN PUBLIC KEY----- blocks are fine to commit",
    "JWTs start with eyJ because base64 of {\" is eyJ.",
    "Café au lait, naïve façade, 日本語のメモ, emoji 👩‍💻 are fine.",
    "passwd: files systemd",
    "The secret: it lives in the vault, not here.",
    "git log --notes=rune shows Rune-Memory: trailers",
    "export DATABASE_URL=postgres://postgres:postgres@localhost:5432/dev",
    "https://example.com/a?page=2&sort=desc#top and mailto:dev@example.com",
    "let password = read_password()?; let token = tokens.next();",
    "    token: Option<String>,",
    "    secret: SecretString,",
    "let password = pw_hash;",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "Change-Id: I8473b95934b5732ac55d26311a706c9c2bde9940",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl deploy@ci",
];

fn covers(findings: &[Finding], rule: &str, text: &str, secret: &str) -> bool {
    let at = text.find(secret).expect("secret in its line");
    findings
        .iter()
        .any(|f| f.rule == rule && f.start <= at && at + secret.len() <= f.end)
}

#[test]
fn corpus_has_no_false_positives_or_negatives() {
    let dirty = dirty();
    let fp: Vec<_> = CLEAN.iter().filter(|l| !scan(l).is_empty()).collect();
    let fneg: Vec<_> = dirty
        .iter()
        .filter(|(rule, line, secret)| !covers(&scan(line), rule, line, secret))
        .map(|(rule, line, _)| (rule, line, scan(line)))
        .collect();
    println!(
        "secrets corpus: {} clean, {} dirty; false-positive rate {:.3}, false-negative rate {:.3}",
        CLEAN.len(),
        dirty.len(),
        fp.len() as f64 / CLEAN.len() as f64,
        fneg.len() as f64 / dirty.len() as f64
    );
    assert!(CLEAN.len() >= 30 && dirty.len() >= 30);
    assert!(fp.is_empty(), "false positives: {fp:#?}");
    assert!(fneg.is_empty(), "false negatives: {fneg:#?}");
    let rules: std::collections::BTreeSet<_> = dirty.iter().map(|d| d.0).collect();
    for rule in RULES.iter() {
        assert!(rules.contains(rule), "{rule} has no dirty sample");
    }
}

#[test]
fn corpus_secrets_never_survive_redaction() {
    for (rule, line, secret) in dirty() {
        let red = redact(&line);
        assert!(!red.contains(&secret), "{rule}: {red}");
        assert!(red.contains(REDACTED), "{rule}: {red}");
        assert!(
            scan(&red).is_empty(),
            "{rule}: rescan of {red}: {:?}",
            scan(&red)
        );
    }
}

pub(super) fn rules_in(text: &str) -> Vec<&'static str> {
    scan(text).into_iter().map(|f| f.rule).collect()
}

/// One positive and one negative test per rule, each named after it.
macro_rules! rule_tests {
    ($($name:ident: $rule:literal, pos: $pos:expr, neg: $neg:expr;)*) => {$(
        mod $name {
            use super::*;
            #[test]
            fn positive() {
                let text: String = $pos;
                assert_eq!(rules_in(&text), vec![$rule], "{text}");
            }
            #[test]
            fn negative() {
                let text: String = $neg;
                assert_eq!(rules_in(&text), Vec::<&str>::new(), "{text}");
            }
        }
    )*
        #[test]
        fn every_rule_has_tests() {
            let tested = [$($rule),*];
            for rule in RULES.iter() {
                assert!(tested.contains(rule), "{rule} has no tests");
            }
        }
    };
}

rule_tests! {
    aws_access_key: "aws-access-key",
        pos: cat(&["id=", "AK", "IA", &noise(40, 16, UPPER_DIGITS)]),
        neg: cat(&["AKIAIOSFODNN7EXAMPLE and ", "AK", "IA", &noise(41, 15, UPPER_DIGITS)]);
    aws_secret_key: "aws-secret-key",
        pos: cat(&["AWS_SECRET_ACCESS_KEY=", &mixed(42, 40, BASE64)]),
        neg: "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}".into();
    github_token: "github-token",
        pos: cat(&["token ", "gh", "s_", &mixed(43, 36, ALNUM_CHARS)]),
        neg: "ghp_ tokens and gh-pages; ghp_short".into();
    // GitLab and Slack moved to the provider table; their old samples still hold.
    gitlab_token: "gitlab-token",
        pos: cat(&["gl", "pat-", &mixed(44, 20, URLSAFE)]),
        neg: "glpat-short is not long enough".into();
    slack_token: "slack-token",
        pos: cat(&["xo", "xa-", "2048123456-", &mixed(45, 24, ALNUM_CHARS)]),
        neg: "xoxb-tokens-are-bot-tokens".into();
    slack_webhook: "slack-webhook",
        pos: cat(&["https://hooks.slack.com/services/", "T0AB/B0CD/", &mixed(46, 24, ALNUM_CHARS)]),
        neg: "post to https://hooks.slack.com/services/ (T/B/x)".into();
    stripe_key: "stripe-key",
        pos: cat(&["sk", "_live_", &mixed(47, 24, ALNUM_CHARS)]),
        neg: cat(&["sk_live_short and ", "pk", "_live_", &mixed(61, 99, ALNUM_CHARS)]);
    sendgrid_key: "sendgrid-key",
        pos: cat(&["S", "G.", &mixed(48, 22, URLSAFE), ".", &mixed(49, 43, URLSAFE)]),
        neg: "SG.short.parts and SG.x".into();
    twilio_api_key: "twilio-api-key",
        pos: cat(&["S", "K", &noise(50, 32, HEX_CHARS)]),
        neg: cat(&["AC", &noise(51, 32, HEX_CHARS), " and SK", &noise(52, 31, HEX_CHARS)]);
    google_api_key: "google-api-key",
        pos: cat(&["AI", "za", &mixed(53, 35, URLSAFE)]),
        neg: "AIzaShort".into();
    openai_key: "openai-key",
        pos: cat(&["sk", "-", &mixed(54, 48, ALNUM_CHARS)]),
        neg: "sk-learn and sk-lowercase-only-long-name-here".into();
    anthropic_key: "anthropic-key",
        pos: cat(&["sk", "-ant-api03-", &mixed(55, 93, URLSAFE)]),
        neg: "sk-ant-short".into();
    private_key: "private-key",
        pos: private_key_block("ENCRYPTED", 56, true),
        neg: cat(&["-----BEGIN PUBLIC KEY-----\n", &mixed(57, 64, BASE64), "\n-----END PUBLIC KEY-----"]);
    jwt: "jwt",
        pos: jwt(58),
        neg: "eyJhbGciOiJub25lIn0.e30.sig and eyJ alone".into();
    password_assignment: "password-assignment",
        pos: "DB_PASSWORD='p4ss w0rd'".into(),
        neg: "password=<password> password=${PW} password=changeme password=xxxx".into();
    secret_assignment: "secret-assignment",
        pos: "app.secret_key = \"flask-dev-key\"".into(),
        neg: "secret_name=prod-db; is_secret=true; secret: {{ vault }}".into();
    token_assignment: "token-assignment",
        pos: "access_token=ya29Q8vxk2Lm".into(),
        neg: "token=EOF, next_token=None, token=abcdefgh".into();
    api_key_assignment: "api-key-assignment",
        pos: "api-key: 8f14e45fceea167a5a36dedd4bea2543ab".into(),
        neg: "api_key=settings.API_KEY and apikey: YOUR_API_KEY".into();
    url_credentials: "url-credentials",
        pos: "mysql://root:Pa55word!@10.0.0.5:3306/db".into(),
        neg: "https://user@example.com:8443/path?q=a:b@c and https://u:***@h".into();
    bearer_token: "bearer-token",
        pos: cat(&["Bearer ", &mixed(59, 24, ALNUM_CHARS)]),
        neg: "Bearer <token>, Bearer ${TOKEN}, a bearer tokenization scheme".into();
    secret_in_prose: "secret-in-prose",
        pos: "the password is hunter2x for the staging admin".into(),
        neg: "we read it with password = input('Password: ') and never log it".into();
    curl_auth_user: "curl-auth-user",
        pos: "curl -u admin:pass https://staging.internal/api/health".into(),
        neg: "curl -u \"$USER:$TOKEN\" https://x; curl -u guest:guest http://localhost; curl -u admin https://y".into();
    curl_auth_header: "curl-auth-header",
        pos: cat(&["curl -H 'X-Api-Key: ", &mixed(62, 24, ALNUM_CHARS), "' https://api.acme.dev"]),
        neg: "curl -H 'Content-Type: application/json' -H \"X-Api-Key: ${API_KEY}\" https://x".into();
    basic_auth: "basic-auth",
        pos: "Authorization: Basic ZGVwbG95OlMzY3JldC1wYXNz".into(),
        neg: "Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ= (username:password) and Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==".into();
    auth_header: "auth-header",
        pos: "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b".into(),
        neg: "Authorization: Token <your-token>, Authorization: Digest username=\"me\"".into();
    registry_auth: "registry-auth",
        pos: "{\"auths\": {\"ghcr.io\": {\"auth\": \"Y2ktYm90OlNwM2NpYWwtUGFzcw==\"}}}".into(),
        neg: "{\"auth\": \"\", \"credsStore\": \"desktop\"} and auth: true".into();
    netrc_password: "netrc-password",
        pos: "machine api.heroku.com login me@acme.dev password S3cretPass".into(),
        neg: "machine learning models need a login page and a password reset flow".into();
    password_flag: "password-flag",
        pos: "sshpass -p 'Hq7zK2pL9' ssh deploy@bastion".into(),
        neg: "sshpass -p is unsafe; use sshpass -e with $SSHPASS, or mysql -p to be prompted".into();
    secret_flag: "secret-flag",
        pos: "vault-cli --token Zr8kP2qLm4nX7vB9 login".into(),
        neg: "gh auth login --with-token < token.txt; --token $TOKEN; --secret-name prod".into();
    login_credentials: "login-credentials",
        pos: "login: admin / Hq7zK2pL9".into(),
        neg: "login: <user> / <password>; login: email / password; Login: SSO/SAML".into();
    high_entropy_string: "high-entropy-string",
        pos: mixed(60, 48, BASE64),
        neg: "9481bba0c4ffe1e5e0f2f4a3f9c8d7e6b5a4c3b2 550e8400-e29b-41d4-a716-446655440000 ThisIsAVeryLongCamelCaseName2024WithDigits".into();
}

#[test]
fn redact_keeps_only_what_says_what_it_was() {
    let gh = cat(&["gh", "p_", &mixed(70, 36, ALNUM_CHARS)]);
    assert_eq!(redact(&format!("t={gh}.")), format!("t=ghp_{REDACTED}."));
    assert_eq!(
        redact("password = \"hunter two\" ok"),
        format!("password = \"{REDACTED}\" ok")
    );
    let key = private_key_block("RSA", 71, true);
    let header = cat(&["-----BEGIN RSA", " PRIVATE", " KEY-----"]);
    assert_eq!(
        redact(&format!("a\n{key}\nb")),
        format!("a\n{header}{REDACTED}\nb")
    );
    assert_eq!(
        redact("postgres://app:Zr8-kP2q@db/app"),
        format!("postgres://app:{REDACTED}@db/app")
    );
    let proj = cat(&["sk", "-proj-", &mixed(72, 60, URLSAFE)]);
    assert_eq!(redact(&proj), format!("sk-proj-{REDACTED}"));
    assert_eq!(redact("nothing here"), "nothing here");
}

#[test]
fn overlaps_resolve_to_one_finding_naming_the_vendor() {
    let gh = cat(&["gh", "p_", &mixed(73, 36, ALNUM_CHARS)]);
    for text in [
        format!("GITHUB_TOKEN={gh}"),
        format!("https://x-access-token:{gh}@github.com/o/r"),
        format!("Authorization: Bearer {gh}"),
    ] {
        let f = scan(&text);
        assert_eq!(f.len(), 1, "{text}: {f:?}");
        assert_eq!(f[0].rule, "github-token");
        assert_eq!(&text[f[0].start..f[0].end], gh);
    }
    // A value that holds more than the token is redacted whole.
    let text = format!("password=\"{gh} plus\"");
    let f = scan(&text);
    assert_eq!((f.len(), f[0].rule), (1, "password-assignment"));
}

#[test]
fn line_of_counts_from_one() {
    let text = "a\nb\nc";
    assert_eq!(line_of(text, 0), 1);
    assert_eq!(line_of(text, 2), 2);
    assert_eq!(line_of(text, 4), 3);
    assert_eq!(line_of(text, 999), 3);
    let line = format!(
        "one\ntwo {}",
        cat(&["AK", "IA", &noise(74, 16, UPPER_DIGITS)])
    );
    assert_eq!(line_of(&line, scan(&line)[0].start), 2);
}

#[test]
fn near_miss_megabyte_inputs_finish() {
    let inputs = [
        "AKIA".repeat(250_000),
        "ghp_".repeat(250_000),
        "sk-".repeat(333_000),
        format!("eyJ{}", "a.".repeat(300_000)),
        format!(
            "eyJhbGciOiJIUzI1NiJ9{}",
            ".eyJhbGciOiJIUzI1NiJ9".repeat(50_000)
        ),
        "password=".repeat(111_000),
        "password: x ".repeat(80_000),
        "token=\"".repeat(140_000),
        "://".repeat(333_000),
        "a://b:c".repeat(140_000),
        cat(&["-----BEGIN ", "RSA PRIVATE", " KEY-----\n"]).repeat(32_000),
        format!(
            "{}-----END",
            cat(&["-----BEGIN ", "RSA PRIVATE", " KEY-----\n"]).repeat(32_000)
        ),
        "-----BEGIN ".repeat(90_000),
        "Bearer ".repeat(150_000),
        "hooks.slack.com/services/".repeat(40_000),
        noise(75, 1_000_000, BASE64),
        "é€😀".repeat(110_000),
    ];
    for text in &inputs {
        let findings = scan(text);
        assert!(findings.windows(2).all(|w| w[0].end <= w[1].start));
    }
    assert!(!redact(&inputs[5]).contains("password=password"));
}

fn check_findings(text: &str) {
    let findings = scan(text);
    for w in findings.windows(2) {
        assert!(w[0].end <= w[1].start, "{findings:?}");
    }
    for f in &findings {
        assert!(f.start < f.end && f.end <= text.len());
        assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
        assert!(all_rules().contains(&f.rule), "{}", f.rule);
    }
    let red = redact(text);
    let again = scan(&red);
    assert!(again.is_empty(), "rescan of {red:?} found {again:?}");
    for f in &findings {
        let value = &text[f.start..f.end];
        if text.matches(value).count() == 1 {
            assert!(!red.contains(value), "{value:?} survived in {red:?}");
        }
    }
    let _ = line_of(text, text.len() / 2);
}

/// Fragments that build near-misses of every rule, so generated text exercises the matchers
/// and not just their rejection of noise.
const FRAGMENTS: &str = "(AKIA|ASIA|ghp_|github_pat_|glpat-|xoxb-|sk_live_|SG\\.|SK|AIza|sk-|sk-ant-|sk-proj-|eyJ|\\.|password|token|api_key|secret|aws_secret_access_key|=|: |\"|'|`|://|@|Bearer |-----BEGIN |RSA PRIVATE KEY-----|-----END |hooks\\.slack\\.com/services/|EXAMPLE|hf_|dapi|dop_v1_|shpat_|dp\\.st\\.|key-|xapp-1-|xoxb-1-|PMAK-|AGE-SECRET-KEY-1|glpat-|curl |-u |--user |-H |Authorization: |Basic |the password is |DB_PASS=|twitter_key=|vault |s\\.|twilio |[0-9a-f]{8}|\\$|<|>|[A-Za-z0-9+/_-]{1,12}|[ \\n\\t]|é|€|😀|\u{200d})*";

proptest! {
    // 256 cases, or as many as PROPTEST_CASES says (with_cases would ignore it).
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn arbitrary_unicode_never_panics(text in any::<String>()) {
        check_findings(&text);
    }

    #[test]
    fn fragment_soup_holds_the_invariants(text in FRAGMENTS) {
        check_findings(&text);
    }

    #[test]
    fn embedded_secrets_are_found_and_removed(
        before in "[a-z =:\"'\\n]{0,20}",
        pick in 0usize..512,
        after in "[a-z =:\"'\\n.,]{0,20}",
    ) {
        let mut dirty = dirty();
        dirty.extend(super::provider_tests::provider_samples());
        let (rule, line, secret) = &dirty[pick % dirty.len()];
        let text = format!("{before}\n{line}\n{after}");
        let red = redact(&text);
        prop_assert!(!red.contains(secret.as_str()), "{rule}: {red}");
        prop_assert!(scan(&red).is_empty(), "{rule}: {red}");
    }
}

#[test]
fn log2_matches_libm() {
    let mut values = vec![
        1.0,
        2.0,
        0.5,
        0.75,
        1e-300,
        5e-324,
        f64::MIN_POSITIVE,
        1e300,
        3.0,
    ];
    // Every probability the entropy of a string of up to 200 bytes can use.
    for n in 1..=200u32 {
        values.extend((1..=n).map(|c| f64::from(c) / f64::from(n)));
    }
    for x in values {
        let (ours, libm) = (log2(x), x.log2());
        assert!(
            (ours - libm).abs() <= 4.0 * f64::EPSILON * libm.abs().max(1.0),
            "log2({x:e}) = {ours}, libm says {libm}"
        );
    }
}

/// Issue 11: `.env` spellings of password keys are keys; names that merely end in the same
/// letters, the shell's `PWD`, flags and constants are not.
#[test]
fn env_style_password_keys() {
    for line in [
        "DB_PASS=s3cr3t-v4lue",
        "SMTP_PASS='hunter two'",
        "MYSQL_ROOT_PWD=Tr0ub4dor",
        "REDIS_PW=n0tHunter",
        "dbPass: s3cr3tValue",
        "pass: hunter2x",
        "ldap.pass=Zr8-kP2q",
    ] {
        assert_eq!(rules_in(line), ["password-assignment"], "{line}");
    }
    for line in [
        "PWD=/home/alice/src",
        "OLDPWD=/tmp",
        "bypass=on-call",
        "compass: north-east",
        "first_pass = second_pass",
        "DEVSTAT_MATCH_PASS = 0x04,",
        "force_pass: true/false",
        "DB_PASS=/run/secrets/db_pass",
        "let pass = Pass::Shadow;",
        "SMTP_PASS=",
    ] {
        assert_eq!(rules_in(line), Vec::<&str>::new(), "{line}");
    }
}

/// Issue 11: a password stated in prose is a secret; prose about passwords is not.
#[test]
fn secrets_stated_in_prose() {
    for (line, secret) in [
        ("the password is hunter2x", "hunter2x"),
        (
            "The admin password for staging is Tr0ub4dor&3, rotate it",
            "Tr0ub4dor&3",
        ),
        (
            "root password was changed to Winter2024! yesterday",
            "Winter2024!",
        ),
        ("the wifi password is now 'opensesame'", "opensesame"),
        ("Password: hunter2x, user: admin", "hunter2x"),
        (
            "my passphrase is \"correct horse battery staple\"",
            "correct horse battery staple",
        ),
        (
            "the api key is Zr8kP2qLm4nX7vB9cD1fG3hJ",
            "Zr8kP2qLm4nX7vB9cD1fG3hJ",
        ),
    ] {
        let f = scan(line);
        assert_eq!(f.len(), 1, "{line}: {f:?}");
        assert_eq!(
            (f[0].rule, &line[f[0].start..f[0].end]),
            ("secret-in-prose", secret)
        );
    }
    for line in [
        "we read it with password = input('Password: ') and never log it",
        "rotate the password every 90 days",
        "the password field is hashed with argon2",
        "the password is argon2id-hashed",
        "the password is at least 12 characters",
        "the password is stored in 1Password",
        "the password hash is $2b$12$abc",
        "the password is 2FA-protected",
        "the password is sha256 of the salt",
        "the token is refreshed hourly",
        "the token is 550e8400 short",
        "we changed the password and the build is green2",
        ":type passphrase: :py:data:`bytes`",
        "the password was changed yesterday",
        "the secret key rotation job is in cron",
    ] {
        assert_eq!(rules_in(line), Vec::<&str>::new(), "{line}");
    }
}

/// Issue 11: `curl -u user:password` and credential headers.
#[test]
fn curl_credentials() {
    for (line, rule, secret) in [
        ("curl -u admin:pass https://x", "curl-auth-user", "pass"),
        (
            "curl --user deploy:Tr0ub4dor https://x",
            "curl-auth-user",
            "Tr0ub4dor",
        ),
        (
            "curl --user=deploy:Tr0ub4dor https://x",
            "curl-auth-user",
            "Tr0ub4dor",
        ),
        (
            "curl -s -u 'ci:hunter 2' -X POST https://x",
            "curl-auth-user",
            "hunter 2",
        ),
        (
            "curl -uroot:s3cr3t http://localhost",
            "curl-auth-user",
            "s3cr3t",
        ),
        (
            "curl -X POST \\\n  -u admin:s3cr3t \\\n  https://x",
            "curl-auth-user",
            "s3cr3t",
        ),
        (
            "curl -H 'Authorization: Basic YWRtaW46czNjcjN0' https://x",
            "curl-auth-header",
            "YWRtaW46czNjcjN0",
        ),
        (
            "curl -H \"Authorization: Token 9f8e7d6c5b4a3210\" https://x",
            "curl-auth-header",
            "9f8e7d6c5b4a3210",
        ),
        (
            "curl --header 'PRIVATE-TOKEN: Zr8kP2qLm4nX7vB9' https://x",
            "curl-auth-header",
            "Zr8kP2qLm4nX7vB9",
        ),
    ] {
        let f = scan(line);
        assert_eq!(f.len(), 1, "{line}: {f:?}");
        assert_eq!(
            (f[0].rule, &line[f[0].start..f[0].end]),
            (rule, secret),
            "{line}"
        );
        assert!(scan(&redact(line)).is_empty());
    }
    for line in [
        "curl -u admin https://x",
        "curl -u \"$USER:$TOKEN\" https://x",
        "curl -u ${CI_USER}:${CI_PASS} https://x",
        "curl -u guest:guest http://localhost:15672",
        "curl -u user:<password> https://x",
        "curl -u 'apikey:' https://x",
        "curl --user-agent 'bot/1.0' https://x",
        "curl -H 'Accept: application/json' https://x",
        "curl -H \"Authorization: Bearer $TOKEN\" https://x",
        "curl https://x\n-u admin:s3cr3t is another command's flag",
        "libcurl -u is not a command here",
    ] {
        assert_eq!(rules_in(line), Vec::<&str>::new(), "{line}");
    }
}

/// Cases the fragment property test shrank to while the provider table, the prose and curl
/// rules and the .env keys were added: each broke `scan(redact(t))` being empty.
#[test]
fn redaction_regressions() {
    for text in [
        // A value rejected as code hid a key inside it.
        "hooks.slack.com/services/aws_secret_access_key://DB_PASS=DB_PASS=twilio ",
        // A provider token glued to a longer word appeared once the word was redacted.
        "xapp-1-sk-ant-glpat-dop_v1_dop_v1_DB_PASS=",
        // Values that took part of PEM armor.
        "DB_PASS=-----BEGIN RSA PRIVATE KEY-----AGE-SECRET-KEY-1",
        "-----BEGIN RSA PRIVATE KEY-----the password is password-----END AKIAAuthorization: ",
        "Bearer 0hooks.slack.com/services/AKIAxapp-1------BEGIN ",
        // A candidate inside one that touched armor survived, and its redaction shortened the
        // outer one.
        "sk-proj-api_key-H dapiBasic Bearer -wPhooks.slack.com/services/aws_secret_access_key=-----END AGE-SECRET-KEY-1CQpP>@EXAMPLEgithub_pat_xapp-1-",
    ] {
        check_findings(text);
    }
}

/// Issue 29: an error message that quotes an argument holding a secret keeps everything but
/// the secret (clap's "unexpected argument '<private key>' found", then its usage lines).
#[test]
fn redact_message_takes_out_quoted_arguments_only() {
    let key = private_key_block("OPENSSH", 80, true);
    let msg = format!(
        "error: unexpected argument '{key}' found\n\n  tip: to pass '{key}' as a value, use '-- {key}'\n\nUsage: git rune learn --insight <INSIGHT>\n"
    );
    let args = ["git-rune", "learn", "--insight", key.as_str(), "--bogus"];
    let out = redact_message(&msg, args);
    assert!(!out.contains(&key[40..80]), "{out}");
    assert!(out.contains("' found"), "{out}");
    assert!(
        out.contains("Usage: git rune learn --insight <INSIGHT>"),
        "{out}"
    );
    assert_eq!(out.matches(REDACTED).count(), 3, "{out}");
    // A value after `=`, and a message that quotes only part of the argument.
    let aws = cat(&["AK", "IA", &noise(81, 16, UPPER_DIGITS)]);
    let arg = format!("--insight=the key {aws}");
    let out = redact_message(&format!("invalid value '{aws}'"), [arg.as_str()]);
    assert_eq!(out, format!("invalid value '{REDACTED}'"));
    // clap reads a private key as an option and quotes the part before its first `=`.
    let (name, _) = key.split_once('=').unwrap_or((&key, ""));
    let key_eq = format!("{key}=\n-----END");
    let (name, _) = key_eq.split_once('=').map_or((name, ""), |x| x);
    let msg = format!("error: unexpected argument '{name}' found\n\nUsage: git rune learn\n");
    let out = redact_message(&msg, [key_eq.as_str()]);
    assert!(out.ends_with("' found\n\nUsage: git rune learn\n"), "{out}");
    assert!(!out.contains(&key[40..80]), "{out}");
    // Nothing to take out: the message is unchanged.
    assert_eq!(
        redact_message("unexpected argument '--bogus'", ["--bogus"]),
        "unexpected argument '--bogus'"
    );
}
