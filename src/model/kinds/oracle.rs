//! The `oracle` record kind.

use super::skip::is_empty_str;
use serde::Serialize;

/// An oracle dispatch of seed 000's detach mode: a slow model asked in the background,
/// its answer picked up later (`git rune oracle`). Every status change is a new record
/// superseding the previous one; one live state per `session_id` (docs/storage.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Oracle {
    /// `oracle-<digits>-<lowercase alphanumerics>`, the caller's id.
    pub session_id: String,
    /// When it was dispatched (RFC 3339 UTC); kept by every status change.
    pub dispatched_at: String,
    /// `agent.stuck` or `manual`.
    pub trigger_signal: String,
    /// `debug`, `fix` or `manual`.
    pub source_skill: String,
    pub target_model: String,
    /// `sha256:<8 to 64 hex digits>` of the bundled context: the idempotency key.
    pub bundle_hash: String,
    /// `pending`, `complete`, `consumed`, `failed` or `orphaned`.
    pub status: String,
    /// When a pending dispatch times out (RFC 3339 UTC).
    pub timeout_at: String,
    /// The answer's id; empty until complete.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub response_id: String,
    /// The answer, at most 500 characters; empty until complete.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub response_excerpt: String,
    /// Why it failed or was orphaned (`timeout`, `orphaned`); empty otherwise.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: String,
}
