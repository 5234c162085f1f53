//! The `skip_serializing_if` tests the kinds share: an empty optional field is left out of a
//! record's canonical JSON, so adding one never changes the ids of records without it.

use std::collections::BTreeMap;

pub(crate) fn is_empty_vec<T>(v: &[T]) -> bool {
    v.is_empty()
}

pub(crate) fn is_empty_map<K, V>(m: &BTreeMap<K, V>) -> bool {
    m.is_empty()
}

pub(crate) fn is_empty_str(s: &str) -> bool {
    s.is_empty()
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}
