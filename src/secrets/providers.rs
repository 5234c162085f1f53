//! The provider rules as data: which services' credentials git-rune recognises, by what
//! shape, and what `redact` keeps of them. `table.rs` walks this list; nothing here runs.
//!
//! The list of providers and their token formats follows gitleaks' default configuration
//! (`config/gitleaks.toml`, MIT licence): every rule there is covered by one entry here or
//! by a hand-written rule in `rules.rs` ([`HANDWRITTEN`]), or listed in [`NOT_COVERED`] with
//! the reason. Token formats are facts about the providers; the patterns below are written
//! in this module's own form (see [`Shape`]), which the table compiles into regexes.
//!
//! Conventions, so the entries stay short:
//!
//! * `keywords` are lower-case and matched ASCII-case-insensitively. A rule's regexes run
//!   only around a keyword hit, so every match of every shape contains one of its keywords
//!   (a unit test checks this on every sample).
//! * `Shape::Token` patterns are whole tokens that name their issuer (`dapi…`, `shpat_…`);
//!   they must be a whole `[A-Za-z0-9_-]` word (a token glued into a longer word is not the
//!   token).
//! * `Shape::Keyed` values are only secrets because the key says whose they are
//!   (`TWITTER_API_SECRET = …`); hex and UUID values count there, never on their own.
//! * Classes are spelt out (`[0-9a-f]`, `[A-Za-z0-9_-]`): the regexes are ASCII-only and
//!   case-sensitive unless a pattern says `(?i:…)`.

/// What `redact` keeps of a finding: the first of these prefixes the secret starts with
/// (ASCII-case-insensitively), or nothing.
pub(super) type Keep = &'static [&'static str];

/// How one kind of secret of a provider is recognised.
pub(super) enum Shape {
    /// A token that names its issuer, matched wherever it stands as a whole word.
    Token(&'static str),
    /// `<key naming the provider> <= : := => , …> <value>`: names (an alternation, matched
    /// case-insensitively anywhere in the key) and the value's pattern. The value must not
    /// be a placeholder or a variable name, and must mix two of upper case, lower case and
    /// digits (or be all digits), so identifiers and words are never values.
    Keyed(&'static str, &'static str),
    /// A full pattern with its own context; the first capture group that took part is the
    /// secret.
    Pattern(&'static str),
}

/// One provider's rule.
pub(super) struct Provider {
    /// Stable kebab-case rule name, reported in findings and error messages.
    pub(super) id: &'static str,
    /// Lower-case literals, one of which occurs in every match.
    pub(super) keywords: &'static [&'static str],
    pub(super) shapes: &'static [Shape],
    pub(super) keep: Keep,
    /// Minimum Shannon entropy of the secret in bits per character (0: none).
    pub(super) entropy: f64,
    /// Regexes (unanchored unless they anchor themselves) for secrets that are not findings.
    pub(super) allow: &'static [&'static str],
    /// The gitleaks default-config rules this entry covers.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) gitleaks: &'static [&'static str],
}

use Shape::{Keyed, Pattern, Token};

const P: Provider = Provider {
    id: "",
    keywords: &[],
    shapes: &[],
    keep: &[],
    entropy: 0.0,
    allow: &[],
    gitleaks: &[],
};

/// A UUID, as some providers' keys are (only secrets under a key naming the provider).
macro_rules! uuid {
    () => {
        "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
    };
}

/// Every provider rule, alphabetically by id.
pub(super) const PROVIDERS: &[Provider] = &[
    Provider {
        id: "1password-token",
        keywords: &["a3-", "ops_eyj"],
        shapes: &[
            // Secret Key: A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX (or the middle group split 6-5).
            Token(
                r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
            ),
            // Service account token: ops_ + base64 of a JSON object.
            Token(r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}"),
        ],
        keep: &["A3-", "ops_"],
        entropy: 3.0,
        gitleaks: &["1password-secret-key", "1password-service-account-token"],
        ..P
    },
    Provider {
        id: "adafruit-api-key",
        keywords: &["adafruit"],
        shapes: &[Keyed("adafruit", "[A-Za-z0-9_-]{32}")],
        gitleaks: &["adafruit-api-key"],
        ..P
    },
    Provider {
        id: "adobe-client-secret",
        keywords: &["adobe", "p8e-"],
        shapes: &[
            Keyed("adobe", "[0-9A-Fa-f]{32}"),
            Token("p8e-[A-Za-z0-9]{32}"),
        ],
        keep: &["p8e-"],
        gitleaks: &["adobe-client-id", "adobe-client-secret"],
        ..P
    },
    Provider {
        id: "age-secret-key",
        keywords: &["age-secret-key-1"],
        // Bech32: digits and upper-case letters without 1, B, I and O.
        shapes: &[Token("AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}")],
        keep: &["AGE-SECRET-KEY-1"],
        gitleaks: &["age-secret-key"],
        ..P
    },
    Provider {
        id: "airtable-token",
        keywords: &["airtable", "pat"],
        shapes: &[
            Keyed("airtable", "[A-Za-z0-9]{17}"),
            Token(r"pat[A-Za-z0-9]{14}\.[0-9a-f]{64}"),
        ],
        keep: &["pat"],
        gitleaks: &["airtable-api-key", "airtable-personnal-access-token"],
        ..P
    },
    Provider {
        id: "algolia-api-key",
        keywords: &["algolia"],
        shapes: &[Keyed("algolia", "[A-Za-z0-9]{32}")],
        gitleaks: &["algolia-api-key"],
        ..P
    },
    Provider {
        id: "alibaba-access-key",
        keywords: &["ltai", "alibaba"],
        shapes: &[
            Token("LTAI[A-Za-z0-9]{20}"),
            Keyed("alibaba", "[A-Za-z0-9]{30}"),
        ],
        keep: &["LTAI"],
        gitleaks: &["alibaba-access-key-id", "alibaba-secret-key"],
        ..P
    },
    Provider {
        id: "asana-client-secret",
        keywords: &["asana"],
        shapes: &[Keyed("asana", "[0-9]{16}|[A-Za-z0-9]{32}")],
        gitleaks: &["asana-client-id", "asana-client-secret"],
        ..P
    },
    Provider {
        id: "atlassian-api-token",
        keywords: &["atlassian", "confluence", "jira", "atatt3"],
        shapes: &[
            Keyed("atlassian|confluence|jira", "[A-Za-z0-9]{20}[0-9A-Fa-f]{4}"),
            Token("ATATT3[A-Za-z0-9_=-]{186}"),
        ],
        keep: &["ATATT3"],
        gitleaks: &["atlassian-api-token"],
        ..P
    },
    Provider {
        id: "authress-access-key",
        keywords: &["sc_", "ext_", "scauth_", "authress_"],
        shapes: &[Token(
            r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
        )],
        keep: &["authress_", "scauth_", "sc_", "ext_"],
        gitleaks: &["authress-service-client-access-key"],
        ..P
    },
    Provider {
        id: "aws-bedrock-api-key",
        keywords: &["absk", "bedrock-api-key-"],
        shapes: &[
            Token("ABSK[A-Za-z0-9+/]{109,269}={0,2}"),
            // Short-lived keys: base64 of a presigned bedrock.amazonaws.com URL.
            Token("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=_-]*"),
        ],
        keep: &["ABSK", "bedrock-api-key-"],
        gitleaks: &[
            "aws-amazon-bedrock-api-key-long-lived",
            "aws-amazon-bedrock-api-key-short-lived",
        ],
        ..P
    },
    Provider {
        id: "azure-ad-client-secret",
        // The digit before Q~, so that every keyword is three bytes long.
        keywords: &["0q~", "1q~", "2q~", "3q~", "4q~", "5q~", "6q~", "7q~", "8q~", "9q~"],
        shapes: &[Pattern(
            r#"(?:^|[\s"'`=:(,>\\])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:[\s"'`<),\\]|$)"#,
        )],
        entropy: 3.0,
        gitleaks: &["azure-ad-client-secret"],
        ..P
    },
    Provider {
        id: "beamer-api-token",
        keywords: &["beamer"],
        shapes: &[Keyed("beamer", "b_[A-Za-z0-9=_-]{44}")],
        gitleaks: &["beamer-api-token"],
        ..P
    },
    Provider {
        id: "bitbucket-client-secret",
        keywords: &["bitbucket"],
        shapes: &[Keyed("bitbucket", "[A-Za-z0-9]{32}|[A-Za-z0-9=_-]{64}")],
        gitleaks: &["bitbucket-client-id", "bitbucket-client-secret"],
        ..P
    },
    Provider {
        id: "bittrex-api-key",
        keywords: &["bittrex"],
        shapes: &[Keyed("bittrex", "[A-Za-z0-9]{32}")],
        gitleaks: &["bittrex-access-key", "bittrex-secret-key"],
        ..P
    },
    Provider {
        id: "cisco-meraki-api-key",
        keywords: &["meraki"],
        shapes: &[Keyed("meraki", "[0-9a-f]{40}")],
        gitleaks: &["cisco-meraki-api-key"],
        ..P
    },
    Provider {
        id: "clickhouse-cloud-api-secret-key",
        keywords: &["4b1d"],
        shapes: &[Token("4b1d[A-Za-z0-9]{38}")],
        keep: &["4b1d"],
        entropy: 3.0,
        gitleaks: &["clickhouse-cloud-api-secret-key"],
        ..P
    },
    Provider {
        id: "clojars-api-token",
        keywords: &["clojars_"],
        shapes: &[Token("(?i:CLOJARS_)[A-Za-z0-9]{60}")],
        keep: &["CLOJARS_"],
        gitleaks: &["clojars-api-token"],
        ..P
    },
    Provider {
        id: "cloudflare-api-key",
        keywords: &["cloudflare", "v1.0-"],
        shapes: &[
            Keyed("cloudflare", "[A-Za-z0-9_-]{40}|[0-9a-f]{37}"),
            // Origin CA key.
            Token(r"v1\.0-[0-9a-f]{24}-[0-9a-f]{146}"),
        ],
        keep: &["v1.0-"],
        gitleaks: &[
            "cloudflare-api-key",
            "cloudflare-global-api-key",
            "cloudflare-origin-ca-key",
        ],
        ..P
    },
    Provider {
        id: "codecov-access-token",
        keywords: &["codecov"],
        shapes: &[Keyed("codecov", concat!("[A-Za-z0-9]{32}|", uuid!()))],
        gitleaks: &["codecov-access-token"],
        ..P
    },
    Provider {
        id: "cohere-api-token",
        keywords: &["cohere", "co_api_key"],
        shapes: &[Keyed("cohere|co_api_key", "[A-Za-z0-9]{40}")],
        gitleaks: &["cohere-api-token"],
        ..P
    },
    Provider {
        id: "coinbase-access-token",
        keywords: &["coinbase"],
        shapes: &[Keyed("coinbase", "[A-Za-z0-9_-]{64}")],
        gitleaks: &["coinbase-access-token"],
        ..P
    },
    Provider {
        id: "confluent-api-key",
        keywords: &["confluent"],
        shapes: &[Keyed("confluent", "[A-Za-z0-9]{16}|[A-Za-z0-9]{64}")],
        gitleaks: &["confluent-access-token", "confluent-secret-key"],
        ..P
    },
    Provider {
        id: "contentful-delivery-api-token",
        keywords: &["contentful"],
        shapes: &[Keyed("contentful", "[A-Za-z0-9=_-]{43}")],
        gitleaks: &["contentful-delivery-api-token"],
        ..P
    },
    Provider {
        id: "databricks-api-token",
        keywords: &["dapi"],
        shapes: &[Token("dapi[0-9a-f]{32}(?:-[0-9])?")],
        keep: &["dapi"],
        gitleaks: &["databricks-api-token"],
        ..P
    },
    Provider {
        id: "datadog-api-key",
        keywords: &["datadog", "dd_api_key", "dd_app_key", "dd_application_key"],
        shapes: &[Keyed(
            "datadog|dd_api_key|dd_app_key|dd_application_key",
            "[0-9a-f]{32}|[A-Za-z0-9]{40}",
        )],
        gitleaks: &["datadog-access-token"],
        ..P
    },
    Provider {
        id: "defined-networking-api-token",
        keywords: &["dnkey-"],
        shapes: &[Token("dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}")],
        keep: &["dnkey-"],
        gitleaks: &["defined-networking-api-token"],
        ..P
    },
    Provider {
        id: "digitalocean-token",
        keywords: &["doo_v1_", "dop_v1_", "dor_v1_"],
        shapes: &[Token("do[opr]_v1_[0-9a-f]{64}")],
        keep: &["doo_v1_", "dop_v1_", "dor_v1_"],
        gitleaks: &[
            "digitalocean-access-token",
            "digitalocean-pat",
            "digitalocean-refresh-token",
        ],
        ..P
    },
    Provider {
        id: "discord-token",
        keywords: &["discord"],
        shapes: &[
            Keyed("discord", "[0-9a-f]{64}|[0-9]{18}|[A-Za-z0-9=_-]{32}"),
            // A bot token: base64 user id . timestamp . HMAC.
            Pattern(
                r"(?i:discord)[^\n]{0,80}?(?-u:\b)([MN][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})(?:[^A-Za-z0-9_-]|$)",
            ),
        ],
        gitleaks: &[
            "discord-api-token",
            "discord-client-id",
            "discord-client-secret",
        ],
        ..P
    },
    Provider {
        id: "doppler-token",
        keywords: &["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."],
        // Personal, service (optionally with the config's name), CLI, service account, SCIM
        // and audit tokens.
        shapes: &[Token(
            r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]{1,64}\.)?[A-Za-z0-9]{40,44}",
        )],
        keep: &["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."],
        gitleaks: &["doppler-api-token"],
        ..P
    },
    Provider {
        id: "droneci-access-token",
        keywords: &["droneci", "drone_token"],
        shapes: &[Keyed("droneci|drone_token", "[A-Za-z0-9]{32}")],
        gitleaks: &["droneci-access-token"],
        ..P
    },
    Provider {
        id: "dropbox-api-token",
        keywords: &["dropbox", "sl."],
        shapes: &[
            Keyed(
                "dropbox",
                "[A-Za-z0-9]{15}|[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9=_-]{43}",
            ),
            // Short-lived access token.
            Token(r"sl\.[A-Za-z0-9=_-]{130,}"),
        ],
        keep: &["sl."],
        gitleaks: &[
            "dropbox-api-token",
            "dropbox-long-lived-api-token",
            "dropbox-short-lived-api-token",
        ],
        ..P
    },
    Provider {
        id: "duffel-api-token",
        keywords: &["duffel_"],
        shapes: &[Token("duffel_(?:test|live)_[A-Za-z0-9_=-]{43}")],
        keep: &["duffel_test_", "duffel_live_"],
        gitleaks: &["duffel-api-token"],
        ..P
    },
    Provider {
        id: "dynatrace-api-token",
        keywords: &["dt0c01."],
        shapes: &[Token(r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}")],
        keep: &["dt0c01."],
        gitleaks: &["dynatrace-api-token"],
        ..P
    },
    Provider {
        id: "easypost-api-token",
        keywords: &["ezak", "eztk"],
        shapes: &[Token("EZ[AT]K[A-Za-z0-9]{54}")],
        keep: &["EZAK", "EZTK"],
        gitleaks: &["easypost-api-token", "easypost-test-api-token"],
        ..P
    },
    Provider {
        id: "etsy-access-token",
        keywords: &["etsy"],
        shapes: &[Keyed("etsy", "[A-Za-z0-9]{24}")],
        gitleaks: &["etsy-access-token"],
        ..P
    },
    Provider {
        id: "facebook-token",
        keywords: &["facebook", "eaam", "eaac"],
        shapes: &[
            Keyed("facebook", "[0-9a-f]{32}"),
            // Page / user access tokens.
            Token("EAA[MC][A-Za-z0-9]{100,}"),
            // An app access token: app id | app secret.
            Pattern(
                r"(?i:facebook)[^\n]{0,80}?(?-u:\b)([0-9]{15,16}(?:\||%7[Cc])[A-Za-z0-9_-]{27,40})(?:[^A-Za-z0-9_-]|$)",
            ),
        ],
        keep: &["EAAM", "EAAC"],
        gitleaks: &[
            "facebook-access-token",
            "facebook-page-access-token",
            "facebook-secret",
        ],
        ..P
    },
    Provider {
        id: "fastly-api-token",
        keywords: &["fastly"],
        shapes: &[Keyed("fastly", "[A-Za-z0-9_=-]{32}")],
        gitleaks: &["fastly-api-token"],
        ..P
    },
    Provider {
        id: "finicity-api-token",
        keywords: &["finicity"],
        shapes: &[Keyed("finicity", "[0-9a-f]{32}|[A-Za-z0-9]{20}")],
        gitleaks: &["finicity-api-token", "finicity-client-secret"],
        ..P
    },
    Provider {
        id: "finnhub-access-token",
        keywords: &["finnhub"],
        shapes: &[Keyed("finnhub", "[A-Za-z0-9]{20}")],
        gitleaks: &["finnhub-access-token"],
        ..P
    },
    Provider {
        id: "flickr-access-token",
        keywords: &["flickr"],
        shapes: &[Keyed("flickr", "[A-Za-z0-9]{32}")],
        gitleaks: &["flickr-access-token"],
        ..P
    },
    Provider {
        id: "flutterwave-key",
        keywords: &["flwseck", "flwpubk"],
        shapes: &[
            Token("FLW(?:SECK|PUBK)(?:_TEST)?-[0-9A-Ha-h]{32}-X"),
            // Encryption key.
            Token("FLWSECK_TEST-?[0-9A-Ha-h]{12}"),
        ],
        keep: &[
            "FLWSECK_TEST-",
            "FLWPUBK_TEST-",
            "FLWSECK-",
            "FLWPUBK-",
            "FLWSECK_TEST",
        ],
        gitleaks: &[
            "flutterwave-encryption-key",
            "flutterwave-public-key",
            "flutterwave-secret-key",
        ],
        ..P
    },
    Provider {
        id: "flyio-access-token",
        keywords: &["fo1_", "fm1a_", "fm1r_", "fm2_"],
        shapes: &[
            Token("fo1_[A-Za-z0-9_-]{43}"),
            Token("fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3}"),
        ],
        keep: &["fo1_", "fm1a_", "fm1r_", "fm2_"],
        gitleaks: &["flyio-access-token"],
        ..P
    },
    Provider {
        id: "frameio-api-token",
        keywords: &["fio-u-"],
        shapes: &[Token("fio-u-[A-Za-z0-9_=-]{64}")],
        keep: &["fio-u-"],
        gitleaks: &["frameio-api-token"],
        ..P
    },
    Provider {
        id: "freshbooks-access-token",
        keywords: &["freshbooks"],
        shapes: &[Keyed("freshbooks", "[A-Za-z0-9]{64}")],
        gitleaks: &["freshbooks-access-token"],
        ..P
    },
    Provider {
        id: "gitlab-token",
        keywords: &[
            "glpat-",
            "gldt-",
            "glffct-",
            "glft-",
            "glrt-",
            "glsoat-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glcbt-",
            "glptt-",
            "gr1348941",
            "_gitlab_session=",
        ],
        shapes: &[
            // Personal, deploy, feature-flag, feed, runner, SCIM, incoming-mail, agent and
            // OAuth-app tokens; routable ones end in `.` + 9 characters.
            Token(
                r"gl(?:pat|dt|ffct|ft|rt|soat|imt|agent|oas)-[A-Za-z0-9_-]{20,300}(?:\.[0-9a-z]{9})?",
            ),
            // CI/CD job token.
            Token("glcbt-[0-9A-Za-z]{1,5}_[A-Za-z0-9_-]{20,}"),
            // Pipeline trigger token.
            Token("glptt-[0-9a-f]{40}"),
            // Runner registration token.
            Token("GR1348941[A-Za-z0-9_-]{20,}"),
            Pattern("_gitlab_session=([0-9a-z]{32})"),
        ],
        keep: &[
            "glpat-", "gldt-", "glffct-", "glft-", "glrt-", "glsoat-", "glimt-", "glagent-",
            "gloas-", "glcbt-", "glptt-", "GR1348941",
        ],
        gitleaks: &[
            "gitlab-cicd-job-token",
            "gitlab-deploy-token",
            "gitlab-feature-flag-client-token",
            "gitlab-feed-token",
            "gitlab-incoming-mail-token",
            "gitlab-kubernetes-agent-token",
            "gitlab-oauth-app-secret",
            "gitlab-pat",
            "gitlab-pat-routable",
            "gitlab-ptt",
            "gitlab-rrt",
            "gitlab-runner-authentication-token",
            "gitlab-runner-authentication-token-routable",
            "gitlab-scim-token",
            "gitlab-session-cookie",
        ],
        ..P
    },
    Provider {
        id: "gitter-access-token",
        keywords: &["gitter"],
        shapes: &[Keyed("gitter", "[A-Za-z0-9_-]{40}")],
        gitleaks: &["gitter-access-token"],
        ..P
    },
    Provider {
        id: "gocardless-api-token",
        keywords: &["gocardless"],
        shapes: &[Keyed("gocardless", "live_[A-Za-z0-9_=-]{40}")],
        gitleaks: &["gocardless-api-token"],
        ..P
    },
    Provider {
        id: "grafana-token",
        keywords: &["eyjrijoi", "glc_", "glsa_"],
        shapes: &[
            // API key: base64 of {"k":"…
            Token("eyJrIjoi[A-Za-z0-9]{70,400}={0,3}"),
            // Cloud API token.
            Token("glc_[A-Za-z0-9+/]{32,400}={0,3}"),
            // Service account token.
            Token("glsa_[A-Za-z0-9]{32}_[0-9A-Fa-f]{8}"),
        ],
        keep: &["eyJ", "glc_", "glsa_"],
        gitleaks: &[
            "grafana-api-key",
            "grafana-cloud-api-token",
            "grafana-service-account-token",
        ],
        ..P
    },
    Provider {
        id: "harness-api-key",
        keywords: &["pat.", "sat."],
        shapes: &[Token(
            r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
        )],
        keep: &["pat.", "sat."],
        gitleaks: &["harness-api-key"],
        ..P
    },
    Provider {
        id: "heroku-api-key",
        keywords: &["heroku", "hrku-aa"],
        shapes: &[
            Keyed("heroku", uuid!()),
            Token("HRKU-AA[A-Za-z0-9_-]{58}"),
        ],
        keep: &["HRKU-AA"],
        gitleaks: &["heroku-api-key", "heroku-api-key-v2"],
        ..P
    },
    Provider {
        id: "hubspot-api-key",
        keywords: &["hubspot", "pat-na", "pat-eu"],
        shapes: &[
            Keyed("hubspot", uuid!()),
            // Private app access token.
            Token(concat!("pat-(?:na|eu)[0-9]-", uuid!())),
        ],
        keep: &["pat-"],
        gitleaks: &["hubspot-api-key"],
        ..P
    },
    Provider {
        id: "huggingface-token",
        keywords: &["hf_", "api_org_"],
        shapes: &[
            Token("hf_[A-Za-z]{34}"),
            Token("api_org_[A-Za-z]{34}"),
        ],
        keep: &["hf_", "api_org_"],
        gitleaks: &[
            "huggingface-access-token",
            "huggingface-organization-api-token",
        ],
        ..P
    },
    Provider {
        id: "infracost-api-token",
        keywords: &["ico-"],
        shapes: &[Token("ico-[A-Za-z0-9]{32}")],
        keep: &["ico-"],
        gitleaks: &["infracost-api-token"],
        ..P
    },
    Provider {
        id: "intercom-api-key",
        keywords: &["intercom"],
        shapes: &[Keyed("intercom", "[A-Za-z0-9_=-]{60}")],
        gitleaks: &["intercom-api-key"],
        ..P
    },
    Provider {
        id: "intra42-client-secret",
        keywords: &["s-s4t2ud-", "s-s4t2af-"],
        shapes: &[Token("s-s4t2(?:ud|af)-[0-9A-Fa-f]{64}")],
        keep: &["s-s4t2ud-", "s-s4t2af-"],
        gitleaks: &["intra42-client-secret"],
        ..P
    },
    Provider {
        id: "jfrog-token",
        keywords: &["akcp", "cmvmd", "jfrog", "artifactory", "bintray", "xray"],
        shapes: &[
            // Artifactory API key and reference token.
            Token("AKCp[A-Za-z0-9]{69}"),
            Token("cmVmd[A-Za-z0-9]{59}"),
            Keyed(
                "jfrog|artifactory|bintray|xray",
                "[A-Za-z0-9]{73}|[A-Za-z0-9]{64}",
            ),
        ],
        keep: &["AKCp", "cmVmd"],
        gitleaks: &[
            "artifactory-api-key",
            "artifactory-reference-token",
            "jfrog-api-key",
            "jfrog-identity-token",
        ],
        ..P
    },
    Provider {
        id: "jwt-base64",
        keywords: &["zxlk"],
        // A JWT encoded once more in base64: "eyJ" is "ZXlK".
        shapes: &[Token("ZXlK[A-Za-z0-9+/]{60,}={0,2}")],
        keep: &["ZXlK"],
        entropy: 4.0,
        gitleaks: &["jwt-base64"],
        ..P
    },
    Provider {
        id: "kraken-access-token",
        keywords: &["kraken"],
        shapes: &[Keyed("kraken", "[A-Za-z0-9/=_+-]{80,90}")],
        gitleaks: &["kraken-access-token"],
        ..P
    },
    Provider {
        id: "kucoin-api-key",
        keywords: &["kucoin"],
        shapes: &[Keyed("kucoin", concat!("[0-9a-f]{24}|", uuid!()))],
        gitleaks: &["kucoin-access-token", "kucoin-secret-key"],
        ..P
    },
    Provider {
        id: "launchdarkly-access-token",
        keywords: &["launchdarkly"],
        shapes: &[Keyed("launchdarkly", "[A-Za-z0-9_=-]{40}")],
        gitleaks: &["launchdarkly-access-token"],
        ..P
    },
    Provider {
        id: "linear-api-key",
        keywords: &["lin_api_", "linear"],
        shapes: &[
            Token("lin_api_[A-Za-z0-9]{40}"),
            Keyed("linear", "[0-9a-f]{32}"),
        ],
        keep: &["lin_api_"],
        gitleaks: &["linear-api-key", "linear-client-secret"],
        ..P
    },
    Provider {
        id: "linkedin-client-secret",
        keywords: &["linkedin", "linked_in", "linked-in"],
        shapes: &[Keyed(
            "linkedin|linked_in|linked-in",
            "[A-Za-z0-9]{14}|[A-Za-z0-9]{16}",
        )],
        gitleaks: &["linkedin-client-id", "linkedin-client-secret"],
        ..P
    },
    Provider {
        id: "lob-api-key",
        keywords: &["lob"],
        shapes: &[Keyed(
            "lob",
            "(?:live|test)_[0-9a-f]{35}|(?:live|test)_pub_[0-9a-f]{31}",
        )],
        gitleaks: &["lob-api-key", "lob-pub-api-key"],
        ..P
    },
    Provider {
        id: "looker-client-secret",
        keywords: &["looker"],
        shapes: &[Keyed("looker", "[A-Za-z0-9]{20}|[A-Za-z0-9]{24}")],
        gitleaks: &["looker-client-id", "looker-client-secret"],
        ..P
    },
    Provider {
        id: "mailchimp-api-key",
        keywords: &["-us"],
        // 32 hex and the data centre: unmistakable without a key naming Mailchimp.
        shapes: &[Token("[0-9a-f]{32}-us[0-9]{1,2}")],
        gitleaks: &["mailchimp-api-key"],
        ..P
    },
    Provider {
        id: "mailgun-key",
        keywords: &["key-", "pubkey-", "mailgun"],
        shapes: &[
            // Private API key and public validation key.
            Token("key-[0-9a-f]{32}"),
            Token("pubkey-[0-9a-f]{32}"),
            // Webhook signing key.
            Keyed("mailgun", "[0-9a-h]{32}-[0-9a-h]{8}-[0-9a-h]{8}"),
        ],
        keep: &["key-", "pubkey-"],
        gitleaks: &[
            "mailgun-private-api-token",
            "mailgun-pub-key",
            "mailgun-signing-key",
        ],
        ..P
    },
    Provider {
        id: "mapbox-api-token",
        keywords: &["mapbox", "sk.eyj"],
        shapes: &[
            Keyed("mapbox", r"pk\.[A-Za-z0-9]{60}\.[A-Za-z0-9]{22}"),
            // Secret token: sk. + base64 JSON . 22.
            Token(r"sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{22}"),
        ],
        keep: &["sk."],
        gitleaks: &["mapbox-api-token"],
        ..P
    },
    Provider {
        id: "mattermost-access-token",
        keywords: &["mattermost"],
        shapes: &[Keyed("mattermost", "[A-Za-z0-9]{26}")],
        gitleaks: &["mattermost-access-token"],
        ..P
    },
    Provider {
        id: "maxmind-license-key",
        keywords: &["_mmk"],
        shapes: &[Token("[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk")],
        entropy: 3.5,
        gitleaks: &["maxmind-license-key"],
        ..P
    },
    Provider {
        id: "messagebird-api-token",
        keywords: &["messagebird", "message-bird", "message_bird"],
        shapes: &[Keyed(
            "message[_-]?bird",
            concat!("[A-Za-z0-9]{25}|", uuid!()),
        )],
        gitleaks: &["messagebird-api-token", "messagebird-client-id"],
        ..P
    },
    Provider {
        id: "microsoft-teams-webhook",
        keywords: &["webhook.office.com"],
        // The path after webhookb2/ is the capability; the host stays.
        shapes: &[Pattern(concat!(
            r"https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/(",
            uuid!(),
            "@",
            uuid!(),
            "/IncomingWebhook/[A-Za-z0-9]{32}/",
            uuid!(),
            r"(?:/[A-Za-z0-9_-]+)?)",
        ))],
        gitleaks: &["microsoft-teams-webhook"],
        ..P
    },
    Provider {
        id: "netlify-access-token",
        keywords: &["netlify", "nfp_"],
        shapes: &[
            Keyed("netlify", "[A-Za-z0-9_=-]{40,46}"),
            Token("nfp_[A-Za-z0-9]{36}"),
        ],
        keep: &["nfp_"],
        gitleaks: &["netlify-access-token"],
        ..P
    },
    Provider {
        id: "new-relic-key",
        keywords: &["nrak-", "nrii-", "new-relic", "newrelic", "new_relic"],
        shapes: &[
            // User API key and insert key.
            Token("NRAK-[A-Z0-9]{27}"),
            Token("NRII-[A-Za-z0-9-]{32}"),
            // Browser key and user API id.
            Keyed("new-relic|newrelic|new_relic", "NRJS-[0-9a-f]{19}|[A-Za-z0-9]{64}"),
        ],
        keep: &["NRAK-", "NRII-", "NRJS-"],
        gitleaks: &[
            "new-relic-browser-api-token",
            "new-relic-insert-key",
            "new-relic-user-api-id",
            "new-relic-user-api-key",
        ],
        ..P
    },
    Provider {
        id: "notion-api-token",
        keywords: &["ntn_", "secret_"],
        shapes: &[
            Token("ntn_[0-9]{11}[A-Za-z0-9]{35}"),
            // Internal integration token (older form).
            Token("secret_[A-Za-z0-9]{43}"),
        ],
        keep: &["ntn_", "secret_"],
        entropy: 3.5,
        gitleaks: &["notion-api-token"],
        ..P
    },
    Provider {
        id: "npm-access-token",
        keywords: &["npm_"],
        shapes: &[Token("npm_[A-Za-z0-9]{36}")],
        keep: &["npm_"],
        gitleaks: &["npm-access-token"],
        ..P
    },
    Provider {
        id: "nuget-config-password",
        keywords: &["<add key="],
        shapes: &[Pattern(
            r#"(?i)<add key="(?:ClearText)?Password"\s*value="([^"]{8,})"\s*/>"#,
        )],
        gitleaks: &["nuget-config-password"],
        ..P
    },
    Provider {
        id: "nytimes-access-token",
        keywords: &["nytimes", "new-york-times", "newyorktimes"],
        shapes: &[Keyed(
            "nytimes|new-york-times|newyorktimes",
            "[A-Za-z0-9_=-]{32}",
        )],
        gitleaks: &["nytimes-access-token"],
        ..P
    },
    Provider {
        id: "octopus-deploy-api-key",
        keywords: &["api-"],
        shapes: &[Token("API-[A-Z0-9]{26}")],
        keep: &["API-"],
        entropy: 3.0,
        gitleaks: &["octopus-deploy-api-key"],
        ..P
    },
    Provider {
        id: "okta-access-token",
        keywords: &["okta"],
        shapes: &[Keyed("okta", "00[A-Za-z0-9_=-]{40}")],
        gitleaks: &["okta-access-token"],
        ..P
    },
    Provider {
        id: "openshift-user-token",
        keywords: &["sha256~"],
        shapes: &[Token("sha256~[A-Za-z0-9_-]{43}")],
        keep: &["sha256~"],
        gitleaks: &["openshift-user-token"],
        ..P
    },
    Provider {
        id: "perplexity-api-key",
        keywords: &["pplx-"],
        shapes: &[Token("pplx-[A-Za-z0-9]{48}")],
        keep: &["pplx-"],
        gitleaks: &["perplexity-api-key"],
        ..P
    },
    Provider {
        id: "plaid-api-token",
        keywords: &["plaid", "access-sandbox-", "access-development-", "access-production-"],
        shapes: &[
            Token(concat!(
                "access-(?:sandbox|development|production)-",
                uuid!()
            )),
            Keyed("plaid", "[A-Za-z0-9]{24}|[A-Za-z0-9]{30}"),
        ],
        keep: &["access-sandbox-", "access-development-", "access-production-"],
        gitleaks: &["plaid-api-token", "plaid-client-id", "plaid-secret-key"],
        ..P
    },
    Provider {
        id: "planetscale-token",
        keywords: &["pscale_tkn_", "pscale_oauth_", "pscale_pw_"],
        shapes: &[Token("pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}")],
        keep: &["pscale_tkn_", "pscale_oauth_", "pscale_pw_"],
        gitleaks: &[
            "planetscale-api-token",
            "planetscale-oauth-token",
            "planetscale-password",
        ],
        ..P
    },
    Provider {
        id: "postman-api-token",
        keywords: &["pmak-"],
        shapes: &[Token("PMAK-[0-9A-Fa-f]{24}-[0-9A-Fa-f]{34}")],
        keep: &["PMAK-"],
        gitleaks: &["postman-api-token"],
        ..P
    },
    Provider {
        id: "prefect-api-token",
        keywords: &["pnu_"],
        shapes: &[Token("pnu_[A-Za-z0-9]{36}")],
        keep: &["pnu_"],
        gitleaks: &["prefect-api-token"],
        ..P
    },
    Provider {
        id: "privateai-api-token",
        keywords: &["privateai", "private_ai", "private-ai"],
        shapes: &[Keyed("private[_-]?ai", "[A-Za-z0-9]{32}")],
        gitleaks: &["privateai-api-token"],
        ..P
    },
    Provider {
        id: "pulumi-api-token",
        keywords: &["pul-"],
        shapes: &[Token("pul-[0-9a-f]{40}")],
        keep: &["pul-"],
        gitleaks: &["pulumi-api-token"],
        ..P
    },
    Provider {
        id: "pypi-upload-token",
        keywords: &["pypi-age"],
        // A macaroon whose base64 starts with the index's name (pypi.org or test.pypi.org).
        shapes: &[Token("pypi-AgE[IN][A-Za-z0-9_-]{60,}")],
        keep: &["pypi-"],
        gitleaks: &["pypi-upload-token"],
        ..P
    },
    Provider {
        id: "rapidapi-access-token",
        keywords: &["rapidapi"],
        shapes: &[Keyed("rapidapi", "[A-Za-z0-9_-]{50}")],
        gitleaks: &["rapidapi-access-token"],
        ..P
    },
    Provider {
        id: "readme-api-token",
        keywords: &["rdme_"],
        shapes: &[Token("rdme_[a-z0-9]{70}")],
        keep: &["rdme_"],
        gitleaks: &["readme-api-token"],
        ..P
    },
    Provider {
        id: "rubygems-api-token",
        keywords: &["rubygems_"],
        shapes: &[Token("rubygems_[0-9a-f]{48}")],
        keep: &["rubygems_"],
        gitleaks: &["rubygems-api-token"],
        ..P
    },
    Provider {
        id: "scalingo-api-token",
        keywords: &["tk-us-"],
        shapes: &[Token("tk-us-[A-Za-z0-9_-]{48}")],
        keep: &["tk-us-"],
        gitleaks: &["scalingo-api-token"],
        ..P
    },
    Provider {
        id: "sendbird-access-token",
        keywords: &["sendbird"],
        shapes: &[Keyed("sendbird", concat!("[0-9a-f]{40}|", uuid!()))],
        gitleaks: &["sendbird-access-id", "sendbird-access-token"],
        ..P
    },
    Provider {
        id: "sendinblue-api-token",
        keywords: &["xkeysib-", "xsmtpsib-"],
        shapes: &[Token("x(?:keysib|smtpsib)-[0-9a-f]{64}-[A-Za-z0-9]{16}")],
        keep: &["xkeysib-", "xsmtpsib-"],
        gitleaks: &["sendinblue-api-token"],
        ..P
    },
    Provider {
        id: "sentry-token",
        keywords: &["sentry", "sntrys_", "sntryu_"],
        shapes: &[
            Keyed("sentry", "[0-9a-f]{64}"),
            // User auth token and organisation token.
            Token("sntryu_[0-9a-f]{64}"),
            Token("sntrys_eyJ[A-Za-z0-9+/=_]{60,}"),
        ],
        keep: &["sntryu_", "sntrys_"],
        gitleaks: &[
            "sentry-access-token",
            "sentry-org-token",
            "sentry-user-token",
        ],
        ..P
    },
    Provider {
        id: "settlemint-token",
        keywords: &["sm_aat_", "sm_pat_", "sm_sat_"],
        shapes: &[Token("sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}")],
        keep: &["sm_aat_", "sm_pat_", "sm_sat_"],
        gitleaks: &[
            "settlemint-application-access-token",
            "settlemint-personal-access-token",
            "settlemint-service-access-token",
        ],
        ..P
    },
    Provider {
        id: "shippo-api-token",
        keywords: &["shippo_"],
        shapes: &[Token("shippo_(?:live|test)_[0-9A-Fa-f]{40}")],
        keep: &["shippo_live_", "shippo_test_"],
        gitleaks: &["shippo-api-token"],
        ..P
    },
    Provider {
        id: "shopify-token",
        keywords: &["shpat_", "shpca_", "shppa_", "shpss_"],
        // Admin API, custom app and private app access tokens; app shared secret.
        shapes: &[Token("shp(?:at|ca|pa|ss)_[0-9A-Fa-f]{32}")],
        keep: &["shpat_", "shpca_", "shppa_", "shpss_"],
        gitleaks: &[
            "shopify-access-token",
            "shopify-custom-access-token",
            "shopify-private-app-access-token",
            "shopify-shared-secret",
        ],
        ..P
    },
    Provider {
        id: "sidekiq-secret",
        keywords: &["bundle_enterprise__contribsys__com", "bundle_gems__contribsys__com"],
        shapes: &[Keyed(
            "bundle_enterprise__contribsys__com|bundle_gems__contribsys__com",
            "[0-9a-f]{8}:[0-9a-f]{8}",
        )],
        gitleaks: &["sidekiq-secret"],
        ..P
    },
    Provider {
        id: "slack-token",
        keywords: &["xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xoxe.", "xapp-"],
        shapes: &[
            // Bot, user, workspace, legacy, configuration and refresh tokens: the type, then
            // a run of digits, then the rest.
            Token("(?:xoxe\\.)?xox[abeoprs]-[0-9]{1,14}-[A-Za-z0-9-]{8,}"),
            // App-level token.
            Token("xapp-[0-9]-[A-Za-z0-9-]{10,}"),
        ],
        keep: &[
            "xoxe.xoxb-", "xoxe.xoxp-", "xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-",
            "xoxs-", "xapp-",
        ],
        gitleaks: &[
            "slack-app-token",
            "slack-bot-token",
            "slack-config-access-token",
            "slack-config-refresh-token",
            "slack-legacy-bot-token",
            "slack-legacy-token",
            "slack-legacy-workspace-token",
            "slack-user-token",
        ],
        ..P
    },
    Provider {
        id: "snyk-api-token",
        keywords: &["snyk"],
        shapes: &[Keyed("snyk", uuid!())],
        gitleaks: &["snyk-api-token"],
        ..P
    },
    Provider {
        id: "sonar-api-token",
        keywords: &["sonar", "squ_", "sqp_", "sqa_"],
        shapes: &[
            Token("sq[upa]_[0-9a-f]{40}"),
            Keyed("sonar", "[A-Za-z0-9_=-]{40}"),
        ],
        keep: &["squ_", "sqp_", "sqa_"],
        gitleaks: &["sonar-api-token"],
        ..P
    },
    Provider {
        id: "sourcegraph-access-token",
        keywords: &["sgp_", "sourcegraph"],
        shapes: &[
            Token("sgp_(?:[0-9A-Fa-f]{16}_|local_)?[0-9A-Fa-f]{40}"),
            Keyed("sourcegraph", "[0-9a-f]{40}"),
        ],
        keep: &["sgp_"],
        gitleaks: &["sourcegraph-access-token"],
        ..P
    },
    Provider {
        id: "square-access-token",
        keywords: &["sq0atp-", "sq0csp-", "eaaa"],
        shapes: &[
            Token("(?:EAAA|sq0atp-)[A-Za-z0-9_-]{22,60}"),
            // OAuth application secret.
            Token("sq0csp-[A-Za-z0-9_-]{43}"),
        ],
        keep: &["EAAA", "sq0atp-", "sq0csp-"],
        entropy: 3.0,
        gitleaks: &["square-access-token"],
        ..P
    },
    Provider {
        id: "squarespace-access-token",
        keywords: &["squarespace"],
        shapes: &[Keyed("squarespace", uuid!())],
        gitleaks: &["squarespace-access-token"],
        ..P
    },
    Provider {
        id: "sumologic-access-key",
        keywords: &["sumo"],
        shapes: &[Keyed("sumo", "su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}")],
        gitleaks: &["sumologic-access-id", "sumologic-access-token"],
        ..P
    },
    Provider {
        id: "telegram-bot-api-token",
        keywords: &["telegr", ":aa"],
        shapes: &[
            Keyed("telegr", "[0-9]{5,16}:A[A-Za-z0-9_-]{34}"),
            // bot id : AA + 33: unmistakable on its own.
            Token("[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"),
        ],
        gitleaks: &["telegram-bot-api-token"],
        ..P
    },
    Provider {
        id: "terraform-cloud-token",
        keywords: &["atlasv1"],
        shapes: &[Token(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}")],
        gitleaks: &["hashicorp-tf-api-token"],
        ..P
    },
    Provider {
        id: "travisci-access-token",
        keywords: &["travis"],
        shapes: &[Keyed("travis", "[A-Za-z0-9]{22}")],
        gitleaks: &["travisci-access-token"],
        ..P
    },
    Provider {
        id: "twilio-auth-token",
        keywords: &["twilio"],
        // 32 hex are an object id anywhere else; on a line about Twilio they are the auth
        // token (the account SID is AC + 32 hex, glued, so it has no word boundary).
        shapes: &[Pattern(
            r"(?i:twilio)[^\n]{0,100}?(?-u:\b)([0-9a-f]{32})(?-u:\b)",
        )],
        gitleaks: &[],
        ..P
    },
    Provider {
        id: "twitch-api-token",
        keywords: &["twitch"],
        shapes: &[Keyed("twitch", "[A-Za-z0-9]{30}")],
        gitleaks: &["twitch-api-token"],
        ..P
    },
    Provider {
        id: "twitter-token",
        keywords: &["twitter"],
        shapes: &[Keyed(
            "twitter",
            "[A-Za-z0-9]{45}|[0-9]{15,25}-[A-Za-z0-9]{20,40}|[A-Za-z0-9]{25}|[A-Za-z0-9]{50}|A{22}[A-Za-z0-9%]{80,100}",
        )],
        gitleaks: &[
            "twitter-access-secret",
            "twitter-access-token",
            "twitter-api-key",
            "twitter-api-secret",
            "twitter-bearer-token",
        ],
        ..P
    },
    Provider {
        id: "typeform-api-token",
        keywords: &["tfp_"],
        shapes: &[Token("tfp_[A-Za-z0-9_.=-]{59}")],
        keep: &["tfp_"],
        gitleaks: &["typeform-api-token"],
        ..P
    },
    Provider {
        id: "vault-token",
        keywords: &["hvs.", "hvb.", "vault"],
        shapes: &[
            // Service and batch tokens.
            Token(r"hvs\.[A-Za-z0-9_-]{90,120}"),
            Token(r"hvb\.[A-Za-z0-9_-]{138,300}"),
            // Legacy service token: s. + 24, only on a line about Vault.
            Pattern(r"(?i:vault)[^\n]{0,60}?(?-u:\b)(s\.[A-Za-z0-9]{24})(?-u:\b)"),
        ],
        keep: &["hvs.", "hvb.", "s."],
        // Letters only is a dotted name (s.someConfigurationKeyName), not a token.
        allow: &[r"^s\.[A-Za-z]{24}$"],
        gitleaks: &["vault-batch-token", "vault-service-token"],
        ..P
    },
    Provider {
        id: "yandex-token",
        keywords: &["yandex"],
        shapes: &[Keyed(
            "yandex",
            r"t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}|AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38}",
        )],
        gitleaks: &[
            "yandex-access-token",
            "yandex-api-key",
            "yandex-aws-access-token",
        ],
        ..P
    },
    Provider {
        id: "zendesk-secret-key",
        keywords: &["zendesk"],
        shapes: &[Keyed("zendesk", "[A-Za-z0-9]{40}")],
        gitleaks: &["zendesk-secret-key"],
        ..P
    },
];

/// gitleaks default-config rules covered by the hand-written rules (`rules.rs`), which do
/// better than a regex: byte-class scanners for the common vendor tokens, key/value parsing
/// for assignments, PEM parsing for private keys, the shell words of a curl command.
#[cfg(test)]
pub(super) static HANDWRITTEN: &[(&str, &[&str])] = &[
    ("aws-access-key", &["aws-access-token"]),
    (
        "github-token",
        &[
            "github-app-token",
            "github-fine-grained-pat",
            "github-oauth",
            "github-pat",
            "github-refresh-token",
        ],
    ),
    ("slack-webhook", &["slack-webhook-url"]),
    ("stripe-key", &["stripe-access-token"]),
    ("sendgrid-key", &["sendgrid-api-token"]),
    ("twilio-api-key", &["twilio-api-key"]),
    ("google-api-key", &["gcp-api-key"]),
    ("openai-key", &["openai-api-key"]),
    (
        "anthropic-key",
        &["anthropic-api-key", "anthropic-admin-api-key"],
    ),
    ("private-key", &["private-key"]),
    ("jwt", &["jwt"]),
    ("password-assignment", &["hashicorp-tf-password"]),
    ("secret-assignment", &["freemius-secret-key"]),
    ("url-credentials", &["sidekiq-sensitive-url"]),
    ("curl-auth-user", &["curl-auth-user"]),
    ("curl-auth-header", &["curl-auth-header"]),
    ("api-key-assignment", &["generic-api-key"]),
];

/// gitleaks default-config rules with no counterpart here, and why.
#[cfg(test)]
pub(super) static NOT_COVERED: &[(&str, &str)] = &[
    (
        "pkcs12-file",
        "matches file names (.p12, .pfx); git-rune scans text, never file names",
    ),
    (
        "kubernetes-secret-yaml",
        "needs a whole YAML document (kind: Secret with data:); long base64 values in it are \
         still high-entropy-string findings",
    ),
];

/// The provider rule named `id`.
pub(super) fn provider(id: &str) -> Option<&'static Provider> {
    PROVIDERS.iter().find(|p| p.id == id)
}
