//! The one seal every new record passes, whatever path it came from (CLI, view, hook, sync,
//! import): normalize → secret filter → validate. The store only commits [`Sealed`] drafts,
//! and only [`Sealer::seal`] makes them, so no write path can skip a step.

use crate::model::{self, Body, Draft, Record, ValidationError};
use crate::secrets;
use crate::store::Stamp;
use crate::text::short;
use crate::view;

/// A draft that passed the seal: normal form, no secret (or redacted ones), valid.
#[derive(Debug, Clone, PartialEq)]
pub struct Sealed(Draft);

impl Sealed {
    pub fn draft(&self) -> &Draft {
        &self.0
    }

    pub fn body(&self) -> &Body {
        &self.0.body
    }

    /// The same sealed content, editing `ids` (which are record ids, not text: the seal
    /// holds).
    pub fn superseding(mut self, ids: Vec<String>) -> Sealed {
        self.0.supersedes = ids;
        self
    }
}

impl Stamp for Sealed {
    fn stamp(self, ts: &str, clock: u64, author: &str) -> Record {
        self.0.stamp(ts, clock, author)
    }
}

/// Why a draft could not be sealed. Nothing is written when a seal fails.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// A secret, and `--redact` was not given. Names the rule and where, never the value.
    #[error("refusing to record a secret ({rule}) in {at}")]
    Secret { rule: &'static str, at: String },
    /// A record from elsewhere whose id is not the hash of its content.
    #[error("{kind} {id}: its id is not the hash of its content (altered after it was written)")]
    Forged { kind: &'static str, id: String },
    /// The content breaks the schema.
    #[error("invalid {kind}: {error}")]
    Invalid {
        kind: &'static str,
        /// The entry's headline, for messages that name it.
        title: String,
        error: ValidationError,
    },
}

impl SealError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            SealError::Secret { .. } => Some(
                "remove it and run the command again, or pass --redact to keep the record with \
                 the secret replaced by its prefix and ***REDACTED***; nothing was recorded"
                    .into(),
            ),
            SealError::Invalid { .. } | SealError::Forged { .. } => None,
        }
    }
}

/// A secret that `--redact` replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    pub rule: &'static str,
    /// Where it was, as the caller's `place` named it.
    pub at: String,
}

/// Seals drafts under one policy, remembering what it redacted.
#[derive(Debug, Default)]
pub struct Sealer {
    redact: bool,
    redactions: Vec<Redaction>,
}

impl Sealer {
    /// `redact`: keep records holding a secret with the secret redacted, instead of refusing.
    pub fn new(redact: bool) -> Sealer {
        Sealer {
            redact,
            redactions: Vec::new(),
        }
    }

    /// Takes over what another sealer (with the same setting) redacted, once what it sealed
    /// was written.
    pub fn absorb(&mut self, other: Sealer) {
        self.redactions.extend(other.redactions);
    }

    /// Whether this sealer redacts secrets rather than refusing them.
    pub fn redacts(&self) -> bool {
        self.redact
    }

    /// [`Sealer::seal`] of a draft read from `text`, the file shown as `shown`: a secret is
    /// placed as `{shown}:{line} (field `{field}`)`, by where it first appears (else line 1).
    pub fn seal_in(&mut self, draft: Draft, shown: &str, text: &str) -> Result<Sealed, SealError> {
        self.seal(draft, &|field, secret| {
            let at = text.find(secret).unwrap_or(0);
            format!("{shown}:{} (field `{field}`)", secrets::line_of(text, at))
        })
    }

    /// Normalizes the body (the form the view renders back unchanged), filters secrets, then
    /// validates. `place(field, secret)` says where a secret sits, for the message.
    pub fn seal(
        &mut self,
        mut draft: Draft,
        place: &dyn Fn(&str, &str) -> String,
    ) -> Result<Sealed, SealError> {
        // A SUSPICIOUS mark git-rune printed is not content: the text it marks is judged
        // again wherever it is read.
        view::unmark_body(&mut draft.body);
        view::normalize(&mut draft.body);
        // The Echoes seed's rule: an e-mail address in an echo's evidence strips the evidence
        // and keeps the learning (reported with the redactions).
        if model::echo::strip_email_evidence(&mut draft.body) {
            self.redactions.push(Redaction {
                rule: "e-mail address in evidence",
                at: format!(
                    "the evidence of echo {:?} (stripped; the learning is kept)",
                    draft.body.title()
                ),
            });
        }
        let mut refused = None;
        let redact = self.redact;
        let redactions = &mut self.redactions;
        draft.body.texts_mut(&mut |field, value| {
            if refused.is_some() {
                return;
            }
            let findings = secrets::scan(value);
            let Some(first) = findings.first() else {
                return;
            };
            let at = place(field, value.get(first.start..first.end).unwrap_or_default());
            if redact {
                *value = secrets::redact(value);
                redactions.push(Redaction {
                    rule: first.rule,
                    at,
                });
            } else {
                refused = Some(SealError::Secret {
                    rule: first.rule,
                    at,
                });
            }
        });
        if let Some(err) = refused {
            return Err(err);
        }
        model::validate(&draft.body)
            .and_then(|()| draft.at.as_deref().map_or(Ok(()), model::validate_time))
            .map_err(|error| SealError::Invalid {
                kind: draft.body.kind().as_str(),
                title: draft.body.title().to_owned(),
                error,
            })?;
        Ok(Sealed(draft))
    }

    /// Seals a body with no secrets expected in it (tombstones, resolves, records carried
    /// over from other records): the same checks, located by field name.
    pub fn seal_body(&mut self, body: Body, supersedes: Vec<String>) -> Result<Sealed, SealError> {
        self.seal(
            Draft {
                body,
                supersedes,
                at: None,
            },
            &|field, _| format!("field `{field}`"),
        )
    }

    /// Admits a record written elsewhere (a remote's memory, on sync) by the seal's rules: it
    /// cannot be normalized or redacted (that would change its id), so it is checked instead —
    /// its id must be the hash of its content, no text may hold a secret, and it must be
    /// valid, its time included. Its normal form is not required: another version of git-rune
    /// may have written it.
    pub fn admit(&self, r: &Record) -> Result<(), SealError> {
        let kind = r.kind().as_str();
        if !r.id_matches() {
            return Err(SealError::Forged {
                kind,
                id: r.id.clone(),
            });
        }
        // A record from a newer git-rune: its unknown fields are read as the stored strings.
        let raw = r
            .raw_texts()
            .into_iter()
            .map(|t| ("a field this build does not know", t));
        for (field, text) in r.body.texts().into_iter().chain(raw) {
            if let Some(first) = secrets::scan(&text).first() {
                return Err(SealError::Secret {
                    rule: first.rule,
                    at: format!("{kind} {} ({field})", short(&r.id)),
                });
            }
        }
        model::validate(&r.body)
            .and_then(|()| model::validate_time(&r.meta.ts))
            .map_err(|error| SealError::Invalid {
                kind,
                title: r.body.title().to_owned(),
                error,
            })
    }

    /// The secrets redacted so far, for the caller to report.
    pub fn take_redactions(&mut self) -> Vec<Redaction> {
        std::mem::take(&mut self.redactions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kinds::Learning;

    fn learning(insight: &str) -> Draft {
        Draft::new(Body::Learning(Learning {
            skill: String::new(),
            ltype: model::LearningType::Insight,
            key: " k ".into(),
            insight: insight.into(),
            confidence: 0.7,
            files: vec![],
            file_blobs: Default::default(),
            extra: Vec::new(),
        }))
    }

    #[test]
    fn seal_normalizes_filters_and_validates_in_that_order() {
        let mut sealer = Sealer::new(false);
        let sealed = sealer.seal(learning("plain"), &|f, _| f.into()).unwrap();
        assert!(matches!(sealed.body(), Body::Learning(Learning { key, .. }) if key == "k"));
        let secret = "ghp_0123456789abcdefABCDEF0123456789abcd";
        let err = sealer
            .seal(learning(&format!("token {secret}")), &|f, _| {
                format!("--{f}")
            })
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "refusing to record a secret (github-token) in --insight"
        );
        assert!(!err.to_string().contains(secret));
        let err = sealer.seal(learning("  "), &|f, _| f.into()).unwrap_err();
        assert!(
            matches!(
                err,
                SealError::Invalid {
                    kind: "learning",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn redaction_keeps_the_record_and_reports_where() {
        let mut sealer = Sealer::new(true);
        let sealed = sealer
            .seal(
                learning("token ghp_0123456789abcdefABCDEF0123456789abcd"),
                &|f, _| format!("--{f}"),
            )
            .unwrap();
        assert!(
            matches!(sealed.body(), Body::Learning(Learning { insight, .. }) if insight == "token ghp_***REDACTED***")
        );
        assert_eq!(
            sealer.take_redactions(),
            vec![Redaction {
                rule: "github-token",
                at: "--insight".into()
            }]
        );
    }
}
