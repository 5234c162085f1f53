//! One test per provider rule of the table: realistic fake secrets of every shape are found
//! whole, under that rule alone, and redacted; a near miss or an allow-listed value is clean.
//! Fake tokens are assembled at run time from deterministic noise, so the source holds no
//! string a push-protection scanner would take for a live credential. Long because it is one
//! entry per rule of `data/providers.txt` (133), as the table is one block per rule.

use super::tests::{
    cat, mixed, noise, rules_in, ALNUM_CHARS, BASE64, HEX_CHARS, RULES, UPPER_DIGITS, URLSAFE,
};
use super::*;

const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const LOWER_DIGITS: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const DIGITS: &str = "0123456789";
/// Bech32's alphabet, upper case.
const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

fn hex(seed: u64, n: usize) -> String {
    noise(seed, n, HEX_CHARS)
}
fn up(seed: u64, n: usize) -> String {
    format!("Q7{}", noise(seed, n - 2, UPPER_DIGITS))
}
/// Upper case, lower case and digits, all three sure to occur.
fn an(seed: u64, n: usize) -> String {
    mixed(seed, n, ALNUM_CHARS)
}
fn lo(seed: u64, n: usize) -> String {
    format!("q7{}", noise(seed, n - 2, LOWER_DIGITS))
}
fn url(seed: u64, n: usize) -> String {
    mixed(seed, n, URLSAFE)
}
fn b64(seed: u64, n: usize) -> String {
    mixed(seed, n, BASE64)
}
fn digits(seed: u64, n: usize) -> String {
    format!("1{}", noise(seed, n - 1, DIGITS))
}
fn letters(seed: u64, n: usize) -> String {
    format!("Qq{}", noise(seed, n - 2, LETTERS))
}
fn uuid(seed: u64) -> String {
    let h = hex(seed, 32);
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// A line holding `secret` between `before` and `after`.
fn at(before: &str, secret: String, after: &str) -> (String, String) {
    (cat(&[before, &secret, after]), secret)
}
/// A line that is nothing but the secret.
fn alone(secret: String) -> (String, String) {
    at("", secret, "")
}

fn check_positive(rule: &str, (line, secret): &(String, String)) {
    let found = scan(line);
    assert_eq!(
        found.iter().map(|f| f.rule).collect::<Vec<_>>(),
        vec![rule],
        "{line}"
    );
    let at = line.find(secret.as_str()).expect("secret in its line");
    let f = &found[0];
    assert!(
        f.start <= at && at + secret.len() <= f.end,
        "{rule}: finding {:?} does not cover the secret in {line}",
        &line[f.start..f.end]
    );
    let red = redact(line);
    assert!(!red.contains(secret.as_str()), "{rule}: {red}");
    assert!(scan(&red).is_empty(), "{rule}: rescan of {red}");
}

macro_rules! provider_tests {
    ($($name:ident: $rule:literal, pos: [$($pos:expr),+ $(,)?], neg: $neg:expr;)*) => {
        $(mod $name {
            use super::*;
            #[test]
            fn positive() {
                for sample in [$($pos),+] {
                    check_positive($rule, &sample);
                }
            }
            #[test]
            fn negative() {
                let text: String = $neg.into();
                assert_eq!(rules_in(&text), Vec::<&str>::new(), "{text}");
            }
        })*

        #[test]
        fn every_provider_rule_has_tests() {
            let tested = [$($rule),*];
            for id in table::ids() {
                assert!(tested.contains(&id), "{id} has no tests");
            }
        }

        /// Every positive sample, for the tests that look at all of them.
        pub(super) fn provider_samples() -> Vec<(&'static str, String, String)> {
            let mut v = Vec::new();
            $($( let (line, secret) = $pos; v.push(($rule, line, secret)); )+)*
            v
        }
    };
}

provider_tests! {
    onepassword_token: "1password-token",
        pos: [
            at("1Password secret key: ", cat(&["A3-", &up(1, 6), "-", &up(2, 11), "-", &up(3, 5), "-", &up(4, 5), "-", &up(5, 5)]), ""),
            at("OP_SERVICE_ACCOUNT_TOKEN=", cat(&["ops_", "eyJ", &b64(6, 260)]), ""),
        ],
        neg: cat(&["A3-", &up(7, 6), "-", &up(8, 10), "-", &up(9, 5), "-", &up(10, 5), "-", &up(11, 5)]);
    adafruit_api_key: "adafruit-api-key",
        pos: [at("ADAFRUIT_IO_KEY=", url(12, 32), "")],
        neg: cat(&["adafruit_key: ", &url(13, 31)]);
    adobe_client_secret: "adobe-client-secret",
        pos: [
            at("adobe_client_id = \"", hex(14, 32), "\""),
            alone(cat(&["p8e-", &an(15, 32)])),
        ],
        neg: cat(&["adobe release ", &hex(16, 32)]);
    age_secret_key: "age-secret-key",
        pos: [at("# age identity\n", cat(&["AGE-SECRET-KEY-1", &noise(17, 58, BECH32)]), "")],
        neg: cat(&["AGE-SECRET-KEY-1", &noise(18, 57, BECH32)]);
    airtable_token: "airtable-token",
        pos: [
            at("AIRTABLE_API_KEY=", an(19, 17), ""),
            alone(cat(&["pat", &an(20, 14), ".", &hex(21, 64)])),
        ],
        neg: cat(&["pat", &an(22, 14), ".", &hex(23, 63)]);
    algolia_api_key: "algolia-api-key",
        pos: [at("ALGOLIA_ADMIN_KEY: \"", an(24, 32), "\"")],
        neg: cat(&["ALGOLIA_APP_ID=", &up(25, 10)]);
    alibaba_access_key: "alibaba-access-key",
        pos: [
            alone(cat(&["LTAI", &an(26, 20)])),
            at("alibaba_secret = ", an(27, 30), ""),
        ],
        neg: cat(&["LTAI", &an(28, 19)]);
    asana_client_secret: "asana-client-secret",
        pos: [
            at("ASANA_CLIENT_ID=", digits(29, 16), ""),
            at("asana_client_secret: '", an(30, 32), "'"),
        ],
        neg: cat(&["asana task ", &digits(31, 16), " is done"]);
    atlassian_api_token: "atlassian-api-token",
        pos: [
            at("JIRA_API_TOKEN=", cat(&[&an(32, 20), &hex(33, 4)]), ""),
            alone(cat(&["ATATT3", &url(34, 186)])),
        ],
        neg: "JIRA_URL=https://acme.atlassian.net/browse/OPS-1234";
    authress_access_key: "authress-access-key",
        pos: [alone(cat(&["authress_", &an(35, 10), ".", &an(36, 5), ".acc_", &lo(37, 20), ".", &url(38, 40)]))],
        neg: "sc_config.load(path) and ext_modules";
    aws_bedrock_api_key: "aws-bedrock-api-key",
        pos: [
            at("AWS_BEARER_TOKEN_BEDROCK=", cat(&["ABSK", &b64(39, 120)]), ""),
            alone(cat(&["bedrock-api-key-", "YmVkcm9jay5hbWF6b25hd3MuY29t", &url(40, 80)])),
        ],
        neg: "bedrock-api-key-abc is how the prefix looks";
    azure_ad_client_secret: "azure-ad-client-secret",
        pos: [at("AZURE_CLIENT_SECRET=", cat(&[&an(41, 3), "8Q~", &url(42, 34)]), "")],
        neg: "run az login; the Q~ sequence is harmless";
    beamer_api_token: "beamer-api-token",
        pos: [at("BEAMER_API_KEY=", cat(&["b_", &url(43, 44)]), "")],
        neg: "beamer_enabled = true";
    bitbucket_client_secret: "bitbucket-client-secret",
        pos: [
            at("BITBUCKET_CLIENT_ID=", an(44, 32), ""),
            at("bitbucket_secret: ", url(45, 64), ""),
        ],
        neg: "bitbucket_workspace = acme-platform";
    bittrex_api_key: "bittrex-api-key",
        pos: [at("bittrex_api_key = '", an(46, 32), "'")],
        neg: "bittrex shut down in 2023";
    cisco_meraki_api_key: "cisco-meraki-api-key",
        pos: [at("MERAKI_DASHBOARD_API_KEY=", hex(47, 40), "")],
        neg: cat(&["meraki commit ", &hex(48, 40)]);
    clickhouse_cloud_api_secret_key: "clickhouse-cloud-api-secret-key",
        pos: [alone(cat(&["4b1d", &an(49, 38)]))],
        neg: "color #4b1d2e is the brand purple";
    clojars_api_token: "clojars-api-token",
        pos: [alone(cat(&["CLOJARS_", &lo(50, 60)]))],
        neg: "CLOJARS_USERNAME=acme";
    cloudflare_api_key: "cloudflare-api-key",
        pos: [
            at("CLOUDFLARE_API_TOKEN=", url(51, 40), ""),
            at("cloudflare_global_key: ", hex(52, 37), ""),
            alone(cat(&["v1.0-", &hex(53, 24), "-", &hex(54, 146)])),
        ],
        neg: cat(&["cloudflare zone id ", &hex(55, 32)]);
    codecov_access_token: "codecov-access-token",
        pos: [at("CODECOV_TOKEN=", uuid(56), "")],
        neg: "codecov.yml sets target: 80%";
    cohere_api_token: "cohere-api-token",
        pos: [at("COHERE_API_KEY=", an(57, 40), "")],
        neg: "cohere reranker v3 is enabled";
    coinbase_access_token: "coinbase-access-token",
        pos: [at("coinbase_secret = \"", url(58, 64), "\"")],
        neg: "coinbase commerce webhooks are signed";
    confluent_api_key: "confluent-api-key",
        pos: [
            at("CONFLUENT_API_KEY=", up(59, 16), ""),
            at("confluent_api_secret: ", an(60, 64), ""),
        ],
        neg: "confluent cloud cluster lkc-12345";
    contentful_delivery_api_token: "contentful-delivery-api-token",
        pos: [at("CONTENTFUL_DELIVERY_TOKEN=", url(61, 43), "")],
        neg: "contentful space is acme-marketing";
    databricks_api_token: "databricks-api-token",
        pos: [
            at("DATABRICKS_TOKEN=", cat(&["dapi", &hex(62, 32)]), ""),
            at("host and ", cat(&["dapi", &hex(63, 32), "-2"]), " for CI"),
        ],
        neg: cat(&["dapi", &hex(64, 31), "x"]);
    datadog_api_key: "datadog-api-key",
        pos: [
            at("DD_API_KEY=", hex(65, 32), ""),
            at("datadog_app_key: ", an(66, 40), ""),
        ],
        neg: cat(&["datadog trace id ", &hex(67, 32)]);
    defined_networking_api_token: "defined-networking-api-token",
        pos: [alone(cat(&["dnkey-", &url(68, 26), "-", &url(69, 52)]))],
        neg: "dnkey-short";
    digitalocean_token: "digitalocean-token",
        pos: [
            at("DIGITALOCEAN_TOKEN=", cat(&["dop_v1_", &hex(70, 64)]), ""),
            alone(cat(&["doo_v1_", &hex(71, 64)])),
            alone(cat(&["dor_v1_", &hex(72, 64)])),
        ],
        neg: cat(&["dop_v1_", &hex(73, 63)]);
    discord_token: "discord-token",
        pos: [
            at("DISCORD_CLIENT_ID=", digits(74, 18), ""),
            at("discord_client_secret = \"", url(75, 32), "\""),
            at("discord_public_key=", hex(76, 64), ""),
            at("discord bot: ", cat(&["M", &an(77, 23), ".", &an(78, 6), ".", &url(79, 30)]), ""),
        ],
        neg: cat(&["discord channel ", &digits(80, 18)]);
    doppler_token: "doppler-token",
        pos: [
            alone(cat(&["dp.pt.", &an(81, 43)])),
            at("DOPPLER_TOKEN=", cat(&["dp.st.prd.", &an(82, 40)]), ""),
            alone(cat(&["dp.st.", &an(83, 44)])),
        ],
        neg: cat(&["dp.st.", &an(84, 30)]);
    droneci_access_token: "droneci-access-token",
        pos: [at("DRONECI_TOKEN=", an(85, 32), "")],
        neg: "droneci pipeline runs on push";
    dropbox_api_token: "dropbox-api-token",
        pos: [
            at("DROPBOX_APP_KEY=", an(86, 15), ""),
            at("dropbox_token: ", cat(&[&an(87, 11), "AAAAAAAAAA", &url(88, 43)]), ""),
            alone(cat(&["sl.", &url(89, 140)])),
        ],
        neg: "dropbox folder /Apps/acme synced";
    duffel_api_token: "duffel-api-token",
        pos: [alone(cat(&["duffel_test_", &url(90, 43)]))],
        neg: "duffel_test_short";
    dynatrace_api_token: "dynatrace-api-token",
        pos: [alone(cat(&["dt0c01.", &up(91, 24), ".", &an(92, 64)]))],
        neg: "dt0c01.abc.def";
    easypost_api_token: "easypost-api-token",
        pos: [alone(cat(&["EZAK", &an(93, 54)])), alone(cat(&["EZTK", &an(94, 54)]))],
        neg: cat(&["EZAK", &hex(95, 20)]);
    etsy_access_token: "etsy-access-token",
        pos: [at("ETSY_API_KEY=", an(96, 24), "")],
        neg: "etsy shop acme-prints";
    facebook_token: "facebook-token",
        pos: [
            at("FACEBOOK_APP_SECRET=", hex(97, 32), ""),
            alone(cat(&["EAAC", &an(98, 120)])),
            at("facebook app token ", cat(&[&digits(99, 15), "|", &url(100, 30)]), ""),
        ],
        neg: cat(&["facebook pixel id ", &digits(101, 16)]);
    fastly_api_token: "fastly-api-token",
        pos: [at("FASTLY_API_TOKEN=", url(102, 32), "")],
        neg: "fastly service acme-cdn purged";
    finicity_api_token: "finicity-api-token",
        pos: [
            at("finicity_app_key = ", hex(103, 32), ""),
            at("FINICITY_SECRET=", an(104, 20), ""),
        ],
        neg: "finicity sandbox is used in tests";
    finnhub_access_token: "finnhub-access-token",
        pos: [at("FINNHUB_API_KEY=", an(105, 20), "")],
        neg: "finnhub quotes are delayed";
    flickr_access_token: "flickr-access-token",
        pos: [at("flickr_key: '", an(106, 32), "'")],
        neg: "flickr album 72157";
    flutterwave_key: "flutterwave-key",
        pos: [
            alone(cat(&["FLWSECK_TEST-", &hex(107, 32), "-X"])),
            alone(cat(&["FLWPUBK-", &hex(108, 32), "-X"])),
            alone(cat(&["FLWSECK_TEST", &hex(109, 12)])),
        ],
        neg: "FLWSECK_TEST-short";
    flyio_access_token: "flyio-access-token",
        pos: [
            alone(cat(&["fo1_", &url(110, 43)])),
            at("FLY_API_TOKEN=", cat(&["fm2_", &b64(111, 120)]), ""),
        ],
        neg: "fo1_short";
    frameio_api_token: "frameio-api-token",
        pos: [alone(cat(&["fio-u-", &url(112, 64)]))],
        neg: "fio-u-short";
    freshbooks_access_token: "freshbooks-access-token",
        pos: [at("FRESHBOOKS_TOKEN=", an(113, 64), "")],
        neg: "freshbooks invoices sync nightly";
    gitlab_token: "gitlab-token",
        pos: [
            at("GITLAB ", cat(&["glpat-", &url(114, 20)]), ""),
            alone(cat(&["glpat-", &an(115, 40), ".01", &lo(116, 7)])),
            alone(cat(&["gldt-", &url(117, 20)])),
            alone(cat(&["glrt-", &url(118, 20)])),
            alone(cat(&["glcbt-", &an(119, 3), "_", &url(120, 20)])),
            alone(cat(&["glptt-", &hex(121, 40)])),
            alone(cat(&["GR1348941", &url(122, 20)])),
            at("cookie _gitlab_session=", lo(123, 32), ""),
            alone(cat(&["glimt-", &url(124, 25)])),
            alone(cat(&["glagent-", &url(125, 50)])),
            alone(cat(&["gloas-", &url(126, 64)])),
            alone(cat(&["glsoat-", &url(127, 20)])),
            alone(cat(&["glft-", &url(128, 20)])),
            alone(cat(&["glffct-", &url(129, 20)])),
        ],
        neg: "glpat-short is not long enough";
    gitter_access_token: "gitter-access-token",
        pos: [at("GITTER_TOKEN=", url(130, 40), "")],
        neg: "gitter rooms moved to matrix";
    gocardless_api_token: "gocardless-api-token",
        pos: [at("GOCARDLESS_ACCESS_TOKEN=", cat(&["live_", &url(131, 40)]), "")],
        neg: "gocardless mandates are created in sandbox";
    grafana_token: "grafana-token",
        pos: [
            alone(cat(&["eyJrIjoi", &an(132, 80)])),
            alone(cat(&["glc_", &b64(133, 60)])),
            alone(cat(&["glsa_", &an(134, 32), "_", &hex(135, 8)])),
        ],
        neg: "glsa_short_token";
    harness_api_key: "harness-api-key",
        pos: [alone(cat(&["pat.", &url(136, 22), ".", &an(137, 24), ".", &an(138, 20)]))],
        neg: "pat.name";
    heroku_api_key: "heroku-api-key",
        pos: [
            at("HEROKU_API_KEY=", uuid(139), ""),
            alone(cat(&["HRKU-AA", &url(140, 58)])),
        ],
        neg: cat(&["heroku release v42 ", &uuid(141)]);
    hubspot_api_key: "hubspot-api-key",
        pos: [
            at("hubspot_api_key: ", uuid(142).to_ascii_uppercase(), ""),
            alone(cat(&["pat-na1-", &uuid(143)])),
        ],
        neg: "hubspot portal 123456";
    huggingface_token: "huggingface-token",
        pos: [
            at("HF_TOKEN=", cat(&["hf_", &letters(144, 34)]), ""),
            alone(cat(&["api_org_", &letters(145, 34)])),
        ],
        neg: cat(&["hf_", &letters(146, 33)]);
    infracost_api_token: "infracost-api-token",
        pos: [alone(cat(&["ico-", &an(147, 32)]))],
        neg: cat(&["ico-", &hex(148, 16)]);
    intercom_api_key: "intercom-api-key",
        pos: [at("INTERCOM_ACCESS_TOKEN=", url(149, 60), "")],
        neg: "intercom messenger is off on staging";
    intra42_client_secret: "intra42-client-secret",
        pos: [alone(cat(&["s-s4t2ud-", &hex(150, 64)]))],
        neg: "s-s4t2ud-abc";
    jfrog_token: "jfrog-token",
        pos: [
            alone(cat(&["AKCp", &an(151, 69)])),
            alone(cat(&["cmVmd", &an(152, 59)])),
            at("ARTIFACTORY_IDENTITY_TOKEN=", an(153, 64), ""),
        ],
        neg: "artifactory url https://acme.jfrog.io/artifactory/api/npm";
    jwt_base64: "jwt-base64",
        pos: [alone(cat(&["ZXlK", &b64(154, 80)]))],
        neg: "ZXlKhello";
    kraken_access_token: "kraken-access-token",
        pos: [at("KRAKEN_PRIVATE_KEY=", b64(155, 88), "")],
        neg: "kraken exchange";
    kucoin_api_key: "kucoin-api-key",
        pos: [
            at("kucoin_api_key=", hex(156, 24), ""),
            at("KUCOIN_SECRET=", uuid(157), ""),
        ],
        neg: cat(&["kucoin order id ", &hex(158, 24)]);
    launchdarkly_access_token: "launchdarkly-access-token",
        pos: [at("LAUNCHDARKLY_SDK_KEY=", url(159, 40), "")],
        neg: "launchdarkly flags default off";
    linear_api_key: "linear-api-key",
        pos: [
            alone(cat(&["lin_api_", &an(160, 40)])),
            at("linear_client_secret = ", hex(161, 32), ""),
        ],
        neg: cat(&["linear issue ", &hex(162, 32)]);
    linkedin_client_secret: "linkedin-client-secret",
        pos: [
            at("LINKEDIN_CLIENT_ID=", an(163, 14), ""),
            at("linked_in_secret: ", an(164, 16), ""),
        ],
        neg: "linkedin.com/in/jane-doe";
    lob_api_key: "lob-api-key",
        pos: [
            at("LOB_API_KEY=", cat(&["live_", &hex(165, 35)]), ""),
            at("lob_publishable = ", cat(&["test_pub_", &hex(166, 31)]), ""),
        ],
        neg: "global_timeout = 30";
    looker_client_secret: "looker-client-secret",
        pos: [
            at("LOOKERSDK_CLIENT_ID=", an(167, 20), ""),
            at("looker_client_secret: ", an(168, 24), ""),
        ],
        neg: "looker dashboards refresh hourly";
    mailchimp_api_key: "mailchimp-api-key",
        pos: [at("MAILCHIMP_API_KEY=", cat(&[&hex(169, 32), "-us21"]), "")],
        neg: cat(&[&hex(170, 32), "-users"]);
    mailgun_key: "mailgun-key",
        pos: [
            at("MAILGUN_API_KEY=", cat(&["key-", &hex(171, 32)]), ""),
            alone(cat(&["pubkey-", &hex(172, 32)])),
            at("mailgun_signing_key: ", cat(&[&noise(173, 32, "0123456789abcdefgh"), "-", &noise(174, 8, "0123456789abcdefgh"), "-", &noise(175, 8, "0123456789abcdefgh")]), ""),
        ],
        neg: cat(&["key-", &hex(176, 31), " and the api-key-header"]);
    mapbox_api_token: "mapbox-api-token",
        pos: [
            at("MAPBOX_TOKEN=", cat(&["pk.", &an(177, 60), ".", &an(178, 22)]), ""),
            alone(cat(&["sk.", "eyJ", &url(179, 60), ".", &url(180, 22)])),
        ],
        neg: "mapbox style mapbox://styles/acme/basic";
    mattermost_access_token: "mattermost-access-token",
        pos: [at("MATTERMOST_TOKEN=", an(181, 26), "")],
        neg: "mattermost channel town-square";
    maxmind_license_key: "maxmind-license-key",
        pos: [alone(cat(&[&an(182, 6), "_", &an(183, 29), "_mmk"]))],
        neg: "my_mmk";
    messagebird_api_token: "messagebird-api-token",
        pos: [
            at("MESSAGEBIRD_API_KEY=", an(184, 25), ""),
            at("message_bird_client_id: ", uuid(185), ""),
        ],
        neg: "messagebird is now called bird";
    microsoft_teams_webhook: "microsoft-teams-webhook",
        pos: [at("https://acme.webhook.office.com/webhookb2/", cat(&[&uuid(186), "@", &uuid(187), "/IncomingWebhook/", &an(188, 32), "/", &uuid(189)]), "")],
        neg: "https://acme.webhook.office.com/webhookb2/";
    netlify_access_token: "netlify-access-token",
        pos: [
            at("NETLIFY_AUTH_TOKEN=", url(190, 43), ""),
            alone(cat(&["nfp_", &an(191, 36)])),
        ],
        neg: "netlify.toml redirects /api to functions";
    new_relic_key: "new-relic-key",
        pos: [
            alone(cat(&["NRAK-", &up(192, 27)])),
            alone(cat(&["NRII-", &an(193, 32)])),
            at("NEW_RELIC_BROWSER_KEY=", cat(&["NRJS-", &hex(194, 19)]), ""),
            at("newrelic_user_id: ", an(195, 64), ""),
        ],
        neg: "NRAK-short";
    notion_api_token: "notion-api-token",
        pos: [
            alone(cat(&["ntn_", &digits(196, 11), &an(197, 35)])),
            at("NOTION_TOKEN=", cat(&["secret_", &an(198, 43)]), ""),
        ],
        neg: "secret_key_base comes from credentials.yml.enc";
    npm_access_token: "npm-access-token",
        pos: [at("//registry.npmjs.org/:_authToken=", cat(&["npm_", &an(199, 36)]), "")],
        neg: "npm_config_cache=/tmp/npm";
    nuget_config_password: "nuget-config-password",
        pos: [at("<add key=\"ClearTextPassword\" value=\"", an(200, 12), "\" />")],
        neg: "<add key=\"Username\" value=\"acme-ci\" />";
    nytimes_access_token: "nytimes-access-token",
        pos: [at("NYTIMES_API_KEY=", url(201, 32), "")],
        neg: "nytimes articles api";
    octopus_deploy_api_key: "octopus-deploy-api-key",
        pos: [alone(cat(&["API-", &up(202, 26)]))],
        neg: "API-GATEWAY-V2";
    okta_access_token: "okta-access-token",
        pos: [at("OKTA_API_TOKEN=", cat(&["00", &url(203, 40)]), "")],
        neg: "okta org acme.okta.com";
    openshift_user_token: "openshift-user-token",
        pos: [alone(cat(&["sha256~", &url(204, 43)]))],
        neg: "sha256~short";
    perplexity_api_key: "perplexity-api-key",
        pos: [alone(cat(&["pplx-", &an(205, 48)]))],
        neg: "pplx-short";
    plaid_api_token: "plaid-api-token",
        pos: [
            at("PLAID_ACCESS_TOKEN=", cat(&["access-sandbox-", &uuid(206)]), ""),
            at("plaid_client_id: ", an(207, 24), ""),
            at("PLAID_SECRET=", an(208, 30), ""),
        ],
        neg: "plaid link token flow";
    planetscale_token: "planetscale-token",
        pos: [
            alone(cat(&["pscale_tkn_", &url(209, 43)])),
            alone(cat(&["pscale_pw_", &url(210, 43)])),
        ],
        neg: "pscale_tkn_short";
    postman_api_token: "postman-api-token",
        pos: [alone(cat(&["PMAK-", &hex(211, 24), "-", &hex(212, 34)]))],
        neg: cat(&["PMAK-", &hex(213, 24)]);
    prefect_api_token: "prefect-api-token",
        pos: [alone(cat(&["pnu_", &an(214, 36)]))],
        neg: "pnu_short";
    privateai_api_token: "privateai-api-token",
        pos: [at("PRIVATE_AI_API_KEY=", an(215, 32), "")],
        neg: "private_ai is disabled";
    pulumi_api_token: "pulumi-api-token",
        pos: [alone(cat(&["pul-", &hex(216, 40)]))],
        neg: cat(&["pul-", &hex(217, 39), "z"]);
    pypi_upload_token: "pypi-upload-token",
        pos: [alone(cat(&["pypi-", "AgEIcHlwaS5vcmc", &url(218, 80)]))],
        neg: "pypi-AgEI";
    rapidapi_access_token: "rapidapi-access-token",
        pos: [at("X_RAPIDAPI_KEY=", url(219, 50), "")],
        neg: "rapidapi hub";
    readme_api_token: "readme-api-token",
        pos: [alone(cat(&["rdme_", &lo(220, 70)]))],
        neg: "rdme_short";
    rubygems_api_token: "rubygems-api-token",
        pos: [alone(cat(&["rubygems_", &hex(221, 48)]))],
        neg: "rubygems_host";
    scalingo_api_token: "scalingo-api-token",
        pos: [alone(cat(&["tk-us-", &url(222, 48)]))],
        neg: "tk-us-east";
    sendbird_access_token: "sendbird-access-token",
        pos: [
            at("SENDBIRD_API_TOKEN=", hex(223, 40), ""),
            at("sendbird_app_id: ", uuid(224), ""),
        ],
        neg: "sendbird chat sdk";
    sendinblue_api_token: "sendinblue-api-token",
        pos: [alone(cat(&["xkeysib-", &hex(225, 64), "-", &an(226, 16)]))],
        neg: "xkeysib-short";
    sentry_token: "sentry-token",
        pos: [
            at("SENTRY_AUTH_TOKEN=", hex(227, 64), ""),
            alone(cat(&["sntryu_", &hex(228, 64)])),
            alone(cat(&["sntrys_", "eyJ", &b64(229, 100)])),
        ],
        neg: cat(&["sentry release ", &hex(230, 40)]);
    settlemint_token: "settlemint-token",
        pos: [alone(cat(&["sm_pat_", &an(231, 16)]))],
        neg: "sm_pat_short";
    shippo_api_token: "shippo-api-token",
        pos: [alone(cat(&["shippo_live_", &hex(232, 40)]))],
        neg: "shippo_live_mode = false";
    shopify_token: "shopify-token",
        pos: [
            at("SHOPIFY_ACCESS_TOKEN=", cat(&["shpat_", &hex(233, 32)]), ""),
            alone(cat(&["shpss_", &hex(234, 32)])),
        ],
        neg: cat(&["shpat_", &hex(235, 31)]);
    sidekiq_secret: "sidekiq-secret",
        pos: [at("BUNDLE_ENTERPRISE__CONTRIBSYS__COM=", cat(&[&hex(236, 8), ":", &hex(237, 8)]), "")],
        neg: "BUNDLE_GEMS__CONTRIBSYS__COM=${SIDEKIQ_CREDS}";
    slack_token: "slack-token",
        pos: [
            alone(cat(&["xoxb-", &digits(238, 13), "-", &digits(239, 13), "-", &an(240, 24)])),
            alone(cat(&["xoxp-", &digits(241, 12), "-", &digits(242, 12), "-", &an(243, 32)])),
            at("SLACK_APP_TOKEN=", cat(&["xapp-1-A0", &up(244, 9), "-", &digits(245, 13), "-", &hex(246, 64)]), ""),
            alone(cat(&["xoxe.xoxp-1-", &an(247, 166)])),
            alone(cat(&["xoxe-1-", &an(248, 146)])),
            alone(cat(&["xoxa-2-", &an(249, 30)])),
            alone(cat(&["xoxs-", &digits(250, 10), "-", &digits(251, 10), "-", &digits(252, 10), "-", &hex(253, 64)])),
        ],
        neg: "xoxb-tokens-are-bot-tokens";
    snyk_api_token: "snyk-api-token",
        pos: [at("SNYK_TOKEN=", uuid(254), "")],
        neg: "snyk test --all-projects";
    sonar_api_token: "sonar-api-token",
        pos: [
            alone(cat(&["squ_", &hex(255, 40)])),
            at("SONAR_TOKEN=", url(256, 40), ""),
        ],
        neg: "sonar.projectKey=acme_api";
    sourcegraph_access_token: "sourcegraph-access-token",
        pos: [
            alone(cat(&["sgp_", &hex(257, 16), "_", &hex(258, 40)])),
            alone(cat(&["sgp_local_", &hex(259, 40)])),
            at("SOURCEGRAPH_ACCESS_TOKEN=", hex(260, 40), ""),
        ],
        neg: cat(&["sourcegraph commit ", &hex(261, 40)]);
    square_access_token: "square-access-token",
        pos: [
            alone(cat(&["EAAA", &url(262, 60)])),
            alone(cat(&["sq0atp-", &url(263, 22)])),
            alone(cat(&["sq0csp-", &url(264, 43)])),
        ],
        neg: "EAAAA";
    squarespace_access_token: "squarespace-access-token",
        pos: [at("SQUARESPACE_API_KEY=", uuid(265), "")],
        neg: "squarespace site acme";
    sumologic_access_key: "sumologic-access-key",
        pos: [
            at("SUMO_ACCESS_ID=", cat(&["su", &an(266, 12)]), ""),
            at("sumologic_access_key: ", an(267, 64), ""),
        ],
        neg: "sumo logic collector restarted";
    telegram_bot_api_token: "telegram-bot-api-token",
        pos: [
            at("TELEGRAM_BOT_TOKEN=", cat(&[&digits(268, 10), ":A", &url(269, 34)]), ""),
            at("bot ", cat(&[&digits(270, 10), ":AA", &url(271, 33)]), " polls"),
        ],
        neg: "10:AA short";
    terraform_cloud_token: "terraform-cloud-token",
        pos: [alone(cat(&[&an(272, 14), ".atlasv1.", &url(273, 65)]))],
        neg: "atlasv1 docs";
    travisci_access_token: "travisci-access-token",
        pos: [at("TRAVIS_API_TOKEN=", an(274, 22), "")],
        neg: "travis builds were replaced by actions";
    twilio_auth_token: "twilio-auth-token",
        pos: [
            at("Twilio auth token ", hex(275, 32), " (rotated monthly)"),
            at("TWILIO_AUTH_TOKEN=", hex(276, 32), ""),
        ],
        neg: cat(&["Twilio account sid AC", &hex(277, 32), "; commit ", &hex(278, 40)]);
    twitch_api_token: "twitch-api-token",
        pos: [at("TWITCH_CLIENT_SECRET=", an(279, 30), "")],
        neg: "twitch stream at 5pm";
    twitter_token: "twitter-token",
        pos: [
            at("TWITTER_API_KEY=", an(280, 25), ""),
            at("twitter_api_secret = \"", an(281, 50), "\""),
            at("TWITTER_ACCESS_TOKEN=", cat(&[&digits(282, 19), "-", &an(283, 30)]), ""),
            at("twitter_bearer: ", cat(&[&"A".repeat(22), &an(284, 90)]), ""),
            at("TWITTER_ACCESS_SECRET=", an(285, 45), ""),
        ],
        neg: "twitter handle @acme_dev";
    typeform_api_token: "typeform-api-token",
        pos: [alone(cat(&["tfp_", &url(286, 59)]))],
        neg: "tfp_short";
    vault_token: "vault-token",
        pos: [
            alone(cat(&["hvs.", &url(287, 95)])),
            alone(cat(&["hvb.", &url(288, 140)])),
            at("VAULT_TOKEN=", cat(&["s.", &an(289, 24)]), ""),
        ],
        neg: cat(&["vault path s.", &letters(290, 24)]);
    yandex_token: "yandex-token",
        pos: [
            at("YANDEX_API_KEY=", cat(&["AQVN", &url(291, 36)]), ""),
            at("yandex_key_id: ", cat(&["YC", &url(292, 38)]), ""),
            at("yandex_token = ", cat(&["t1.", &url(293, 20), ".", &url(294, 86)]), ""),
        ],
        neg: "yandex cloud folder b1g";
    zendesk_secret_key: "zendesk-secret-key",
        pos: [at("ZENDESK_API_TOKEN=", an(295, 40), "")],
        neg: "zendesk tickets are triaged daily";
    // Payment providers (issue 29).
    adyen_api_key: "adyen-api-key",
        pos: [
            alone(cat(&["AQE", &b64(901, 60), "=-", &b64(902, 40), "=-", "i1i<Y#b.n4!2Tvw"])),
            at("ADYEN_API_KEY=", cat(&["AQE", &an(903, 80)]), ""),
            at("ADYEN_HMAC_KEY=", hex(904, 64).to_uppercase(), ""),
        ],
        neg: "Adyen's API keys start with AQE and webhooks carry an HMAC";
    authorize_net_key: "authorize-net-key",
        pos: [at("AUTHORIZE_NET_TRANSACTION_KEY=", an(905, 16), "")],
        neg: "authorize.net transaction keys are 16 characters long";
    braintree_access_token: "braintree-access-token",
        pos: [
            alone(cat(&["access_token$production$", &lo(906, 16), "$", &hex(907, 32)])),
            at("gateway = Gateway(access_token=\"", cat(&["access_token$sandbox$", &lo(908, 16), "$", &hex(909, 32)]), "\")"),
            at("BRAINTREE_PRIVATE_KEY=", hex(910, 32), ""),
        ],
        neg: "access_token$production$<merchant id>$<key> is the shape";
    chargebee_api_key: "chargebee-api-key",
        pos: [at("CHARGEBEE_API_KEY=", cat(&["live_", &an(911, 32)]), "")],
        neg: "chargebee site: acme-test";
    checkout_secret_key: "checkout-secret-key",
        pos: [
            alone(cat(&["sk_sbox_", &noise(912, 24, "abcdefghijklmnopqrstuvwxyz234567"), "q7"])),
            alone(cat(&["sk_test_", &uuid(913)])),
        ],
        neg: "sk_sbox_ keys are sandbox keys; sk_abcdefghijklmnopqrstuvwxyz is a name";
    klarna_api_key: "klarna-api-key",
        pos: [alone(cat(&["klarna_live_api_", &url(914, 40)]))],
        neg: "klarna_test_api_ is the test prefix";
    mercadopago_access_token: "mercadopago-access-token",
        pos: [alone(cat(&["APP_USR-", &digits(915, 16), "-", &digits(916, 6), "-", &hex(917, 32), "-", &digits(918, 9)]))],
        neg: "APP_USR-1234 is the prefix";
    midtrans_server_key: "midtrans-server-key",
        pos: [alone(cat(&["SB-Mid-server-", &an(919, 24)]))],
        neg: "SB-Mid-client-abc is the client key";
    mollie_api_key: "mollie-api-key",
        pos: [at("MOLLIE_API_KEY=", cat(&["live_", &an(920, 30)]), "")],
        neg: "mollie live_ keys take payments";
    paddle_api_key: "paddle-api-key",
        pos: [alone(cat(&["pdl_live_apikey_", &noise(921, 24, LOWER_DIGITS), "q7", "_", &an(922, 22), "_", "a1B"]))],
        neg: "pdl_sdbx_apikey_ is the sandbox prefix";
    paypal_token: "paypal-token",
        pos: [
            alone(cat(&["A21AA", &url(923, 90)])),
            at("PAYPAL_CLIENT_SECRET=", cat(&["E", &an(924, 79)]), ""),
        ],
        neg: "A21AA starts a PayPal access token";
    razorpay_key: "razorpay-key",
        pos: [
            alone(cat(&["rzp_live_", &an(925, 14)])),
            at("RAZORPAY_KEY_SECRET=", an(926, 24), ""),
        ],
        neg: "rzp_test_1DP5mmOlF5G5ag is the documentation's test key id";
    recurly_api_key: "recurly-api-key",
        pos: [at("RECURLY_API_KEY=", hex(927, 32), "")],
        neg: "recurly subscriptions renew monthly";
    stripe_webhook_secret: "stripe-webhook-secret",
        pos: [alone(cat(&["whsec_", &an(928, 32)]))],
        neg: "whsec_ prefixes a webhook secret";
    wechat_pay_key: "wechat-pay-key",
        pos: [at("WECHAT_PAY_MCH_KEY=", an(929, 32), "")],
        neg: "wechat pay settles daily";
    xendit_secret_key: "xendit-secret-key",
        pos: [alone(cat(&["xnd_production_", &an(930, 50)]))],
        neg: "xnd_public_production_abc is a public key";
}

#[test]
fn keyed_names_are_keywords() {
    for p in &data::providers().providers {
        for s in &p.shapes {
            if let data::Shape::Keyed(names, _) = s {
                for name in names.split('|').filter(|n| {
                    n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                }) {
                    assert!(
                        p.keywords
                            .iter()
                            .any(|k| name.to_ascii_lowercase().contains(k)),
                        "{}: key name {name} has no keyword",
                        p.id
                    );
                }
            }
        }
        assert!(
            p.keywords.iter().all(|k| *k == k.to_ascii_lowercase()),
            "{}",
            p.id
        );
    }
}

#[test]
fn ids_are_unique_kebab_case_and_apart_from_the_hand_written_ones() {
    let mut seen = std::collections::BTreeSet::new();
    for id in table::ids().chain(RULES.iter().copied()) {
        assert!(seen.insert(id), "{id} twice");
        assert!(
            id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{id}"
        );
    }
}

/// gitleaks' default configuration (v8, `config/gitleaks.toml`): the id of every rule.
const GITLEAKS_DEFAULT_RULES: &str = "1password-secret-key 1password-service-account-token adafruit-api-key adobe-client-id adobe-client-secret age-secret-key airtable-api-key airtable-personnal-access-token algolia-api-key alibaba-access-key-id alibaba-secret-key anthropic-admin-api-key anthropic-api-key artifactory-api-key artifactory-reference-token asana-client-id asana-client-secret atlassian-api-token authress-service-client-access-key aws-access-token aws-amazon-bedrock-api-key-long-lived aws-amazon-bedrock-api-key-short-lived azure-ad-client-secret beamer-api-token bitbucket-client-id bitbucket-client-secret bittrex-access-key bittrex-secret-key cisco-meraki-api-key clickhouse-cloud-api-secret-key clojars-api-token cloudflare-api-key cloudflare-global-api-key cloudflare-origin-ca-key codecov-access-token cohere-api-token coinbase-access-token confluent-access-token confluent-secret-key contentful-delivery-api-token curl-auth-header curl-auth-user databricks-api-token datadog-access-token defined-networking-api-token digitalocean-access-token digitalocean-pat digitalocean-refresh-token discord-api-token discord-client-id discord-client-secret doppler-api-token droneci-access-token dropbox-api-token dropbox-long-lived-api-token dropbox-short-lived-api-token duffel-api-token dynatrace-api-token easypost-api-token easypost-test-api-token etsy-access-token facebook-access-token facebook-page-access-token facebook-secret fastly-api-token finicity-api-token finicity-client-secret finnhub-access-token flickr-access-token flutterwave-encryption-key flutterwave-public-key flutterwave-secret-key flyio-access-token frameio-api-token freemius-secret-key freshbooks-access-token gcp-api-key generic-api-key github-app-token github-fine-grained-pat github-oauth github-pat github-refresh-token gitlab-cicd-job-token gitlab-deploy-token gitlab-feature-flag-client-token gitlab-feed-token gitlab-incoming-mail-token gitlab-kubernetes-agent-token gitlab-oauth-app-secret gitlab-pat gitlab-pat-routable gitlab-ptt gitlab-rrt gitlab-runner-authentication-token gitlab-runner-authentication-token-routable gitlab-scim-token gitlab-session-cookie gitter-access-token gocardless-api-token grafana-api-key grafana-cloud-api-token grafana-service-account-token harness-api-key hashicorp-tf-api-token hashicorp-tf-password heroku-api-key heroku-api-key-v2 hubspot-api-key huggingface-access-token huggingface-organization-api-token infracost-api-token intercom-api-key intra42-client-secret jfrog-api-key jfrog-identity-token jwt jwt-base64 kraken-access-token kubernetes-secret-yaml kucoin-access-token kucoin-secret-key launchdarkly-access-token linear-api-key linear-client-secret linkedin-client-id linkedin-client-secret lob-api-key lob-pub-api-key looker-client-id looker-client-secret mailchimp-api-key mailgun-private-api-token mailgun-pub-key mailgun-signing-key mapbox-api-token mattermost-access-token maxmind-license-key messagebird-api-token messagebird-client-id microsoft-teams-webhook netlify-access-token new-relic-browser-api-token new-relic-insert-key new-relic-user-api-id new-relic-user-api-key notion-api-token npm-access-token nuget-config-password nytimes-access-token octopus-deploy-api-key okta-access-token openai-api-key openshift-user-token perplexity-api-key pkcs12-file plaid-api-token plaid-client-id plaid-secret-key planetscale-api-token planetscale-oauth-token planetscale-password postman-api-token prefect-api-token private-key privateai-api-token pulumi-api-token pypi-upload-token rapidapi-access-token readme-api-token rubygems-api-token scalingo-api-token sendbird-access-id sendbird-access-token sendgrid-api-token sendinblue-api-token sentry-access-token sentry-org-token sentry-user-token settlemint-application-access-token settlemint-personal-access-token settlemint-service-access-token shippo-api-token shopify-access-token shopify-custom-access-token shopify-private-app-access-token shopify-shared-secret sidekiq-secret sidekiq-sensitive-url slack-app-token slack-bot-token slack-config-access-token slack-config-refresh-token slack-legacy-bot-token slack-legacy-token slack-legacy-workspace-token slack-user-token slack-webhook-url snyk-api-token sonar-api-token sourcegraph-access-token square-access-token squarespace-access-token stripe-access-token sumologic-access-id sumologic-access-token telegram-bot-api-token travisci-access-token twilio-api-key twitch-api-token twitter-access-secret twitter-access-token twitter-api-key twitter-api-secret twitter-bearer-token typeform-api-token vault-batch-token vault-service-token yandex-access-token yandex-api-key yandex-aws-access-token zendesk-secret-key";

#[test]
fn every_gitleaks_default_rule_is_covered_once() {
    let all: Vec<&str> = GITLEAKS_DEFAULT_RULES.split(' ').collect();
    assert_eq!(all.len(), 222);
    let mut owner: std::collections::BTreeMap<&str, &str> = Default::default();
    let table = data::providers();
    let claims = table
        .providers
        .iter()
        .flat_map(|p| p.gitleaks.iter().map(move |g| (*g, p.id)))
        .chain(
            table
                .covered_by
                .iter()
                .flat_map(|(id, gs)| gs.iter().map(move |g| (*g, *id))),
        )
        .chain(table.not_covered.iter().map(|(g, _)| (*g, "not covered")));
    for (g, id) in claims {
        assert!(
            all.contains(&g),
            "{id} claims {g}, which gitleaks does not have"
        );
        assert!(owner.insert(g, id).is_none(), "{g} is claimed twice");
    }
    let missing: Vec<_> = all.iter().filter(|g| !owner.contains_key(*g)).collect();
    assert!(missing.is_empty(), "not covered: {missing:?}");
    let covered = owner.values().filter(|v| **v != "not covered").count();
    println!(
        "gitleaks default rules: {} covered ({} by the provider table, {} by hand-written rules), {} not covered",
        covered,
        owner.iter().filter(|(_, v)| table::ids().any(|id| id == **v)).count(),
        covered - owner.iter().filter(|(_, v)| table::ids().any(|id| id == **v)).count(),
        all.len() - covered
    );
}

#[test]
fn no_keyword_no_regex() {
    // Ordinary engineering text wakes no provider rule, so nothing is compiled for it.
    for text in [
        "Decision: store memory under refs/rune/ so it travels with git push and fetch.",
        "fix(view): keep unsaved edits when checking out (9481bba0c4ffe1e5e0f2f4a3f9c8d7e6b5a4c3b2)",
        "session 550e8400-e29b-41d4-a716-446655440000 resumed after compaction",
        "let password = read_password()?; let token = tokens.next();",
    ] {
        assert!(table::windows(text.as_bytes()).is_empty(), "{text}");
    }
    // A keyword without a token wakes (and compiles) only the rules of the keywords in it:
    // here age's, and Mailgun's for the "key-" inside.
    let text = "AGE-SECRET-KEY-1 is the prefix";
    let woken: Vec<&str> = table::windows(text.as_bytes())
        .iter()
        .map(|w| data::providers().providers[w.0].id)
        .collect();
    assert_eq!(woken, ["age-secret-key", "mailgun-key"]);
    assert!(scan(text).is_empty());
    let i = data::providers()
        .providers
        .iter()
        .position(|p| p.id == "age-secret-key")
        .unwrap();
    assert!(table::is_compiled(i));
}

#[test]
fn windows_bound_each_rules_work() {
    // 100,000 keyword hits of one rule merge into one window per stretch of text.
    let text = "dapi ".repeat(100_000);
    let w = table::windows(text.as_bytes());
    assert_eq!(w.len(), 1);
    assert_eq!((w[0].1, w[0].2), (0, text.len()));
    assert!(scan(&text).is_empty());
}
