//! The macro behind the kind table in `kinds/mod.rs`: from one line per kind it generates the
//! `Body` and `Kind` enums and every dispatch over them, so no other code matches on all kinds.

/// One line per kind: `Variant in module = "tag", scope => fold_list;` (`_` for a kind that
/// folds into no list of its own: resolutions and tombstones act on other records).
macro_rules! kinds {
    (@list_ref $state:ident _) => { &[] };
    (@list_ref $state:ident $list:ident) => { &$state.$list };
    (@list_mut $state:ident _) => { return None };
    (@list_mut $state:ident $list:ident) => { &mut $state.$list };
    (@fold $variant:ident $buckets:ident $state:ident _) => { let _ = &$buckets; };
    (@fold $variant:ident $buckets:ident $state:ident $list:ident) => {
        let live = std::mem::take(&mut $buckets[Kind::$variant as usize]);
        let list = <$variant as KindRules>::fold(live, $state);
        $state.$list = list;
    };
    (@lists $state:ident $out:ident _) => {};
    (@lists $state:ident $out:ident $list:ident) => { $out.push(&$state.$list[..]); };

    ($( $(#[$attr:meta])* $variant:ident in $module:ident = $tag:literal, $scope:expr => $list:tt; )*) => {
        $( $(#[$attr])* pub mod $module; $(#[$attr])* pub use $module::$variant; )*

        /// The typed content of a record: one variant per kind, each holding its kind's
        /// struct. The `kind` tag names the variant on disk; stored lines are read back by
        /// the one decoder in `wire.rs`.
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        #[serde(tag = "kind")]
        pub enum Body {
            $( $(#[$attr])* #[serde(rename = $tag)] $variant($variant), )*
            /// A record of a kind this build does not know, or one it cannot read as its
            /// kind: written by a newer git-rune, kept byte for byte (`Record::raw`).
            #[serde(skip)]
            Future(Future),
        }

        /// Record kinds, one per variant of [`Body`], with their on-disk directory names.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $( $(#[$attr])* $variant, )*
            /// Any kind this build does not know (a record from a newer git-rune); never in
            /// [`Kind::ALL`], never parsed from a name.
            Future,
        }

        impl Kind {
            /// Every kind, in the table's order.
            pub const ALL: &'static [Kind] = &[ $( $(#[$attr])* Kind::$variant, )* ];

            /// The `kind` tag and tree directory name.
            pub fn as_str(self) -> &'static str {
                match self { $( $(#[$attr])* Kind::$variant => $tag, )* Kind::Future => "future" }
            }

            pub fn parse(s: &str) -> Option<Kind> {
                match s { $( $(#[$attr])* $tag => Some(Kind::$variant), )* _ => None }
            }

            /// The ref a record of this kind is stored under; `None` for tombstones, which
            /// follow their targets.
            pub fn scope(self) -> Option<Scope> {
                match self { $( $(#[$attr])* Kind::$variant => $scope, )* Kind::Future => None }
            }
        }

        $( $(#[$attr])* impl From<$variant> for Body {
            fn from(k: $variant) -> Body {
                Body::$variant(k)
            }
        } )*

        impl Body {
            pub fn kind(&self) -> Kind {
                match self { $( $(#[$attr])* Body::$variant(_) => Kind::$variant, )* Body::Future(_) => Kind::Future }
            }

            /// See [`KindRules::title`].
            pub fn title(&self) -> &str {
                match self { $( $(#[$attr])* Body::$variant(k) => k.title(), )* Body::Future(k) => k.title() }
            }

            /// See [`KindRules::extra`].
            pub fn extra(&self) -> &[Extra] {
                match self { $( $(#[$attr])* Body::$variant(k) => k.extra(), )* Body::Future(k) => k.extra() }
            }

            /// See [`KindRules::extra_mut`].
            pub fn extra_mut(&mut self) -> Option<&mut Vec<Extra>> {
                match self { $( $(#[$attr])* Body::$variant(k) => k.extra_mut(), )* Body::Future(k) => k.extra_mut() }
            }

            /// See [`KindRules::targets`].
            pub fn targets(&self) -> &[String] {
                match self { $( $(#[$attr])* Body::$variant(k) => k.targets(), )* Body::Future(k) => k.targets() }
            }

            /// See [`KindRules::fields_mut`].
            pub fn fields_mut(&mut self, f: &mut dyn FnMut(&'static str, Shape, Field<'_>)) {
                match self { $( $(#[$attr])* Body::$variant(k) => k.fields_mut(f), )* Body::Future(k) => k.fields_mut(f) }
            }

            /// See [`KindRules::validate`].
            pub fn validate(&self) -> Result<(), ValidationError> {
                match self { $( $(#[$attr])* Body::$variant(k) => k.validate(), )* Body::Future(k) => k.validate() }
            }

            /// See [`KindRules::json`].
            pub fn json_fields(&self, full: bool, out: &mut Map<String, Value>) {
                match self { $( $(#[$attr])* Body::$variant(k) => k.json(full, out), )* Body::Future(k) => k.json(full, out) }
            }
        }

        /// Decodes the fields of a record whose `kind` tag is `tag`; `None` for a tag this
        /// build does not know.
        pub(crate) fn decode_body<'de, D: serde::Deserializer<'de>>(
            tag: &str,
            fields: D,
        ) -> Result<Option<Body>, D::Error> {
            use serde::Deserialize as _;
            Ok(Some(match tag {
                $( $(#[$attr])* $tag => Body::$variant($variant::deserialize(fields)?), )*
                _ => return Ok(None),
            }))
        }

        impl State {
            /// The live records of one kind, chronological (empty for kinds that fold into
            /// others: resolutions, tombstones).
            pub fn of_kind(&self, kind: Kind) -> &[Record] {
                match kind { $( $(#[$attr])* Kind::$variant => kinds!(@list_ref self $list), )* Kind::Future => &[] }
            }

            /// The live records of one kind, to narrow down (a filtered view of memory);
            /// `None` for kinds without a list of their own.
            pub fn of_kind_mut(&mut self, kind: Kind) -> Option<&mut Vec<Record>> {
                Some(match kind { $( $(#[$attr])* Kind::$variant => kinds!(@list_mut self $list), )* Kind::Future => return None })
            }

            /// Every kind's list.
            pub(crate) fn lists(&self) -> Vec<&[Record]> {
                let mut out: Vec<&[Record]> = Vec::new();
                $( $(#[$attr])* { kinds!(@lists self out $list); } )*
                out
            }
        }

        /// Fills each kind's list in `state` from the live records (any order in, each
        /// kind's own rule out).
        pub(crate) fn fold_lists(live: &[&Record], state: &mut State) {
            // One more bucket than `Kind::ALL`: `Kind::Future`, declared last, folds into no list.
            let mut buckets: Vec<Vec<&Record>> = vec![Vec::new(); Kind::ALL.len() + 1];
            for r in live {
                buckets[r.kind() as usize].push(r);
            }
            $( $(#[$attr])* { kinds!(@fold $variant buckets state $list); } )*
        }
    };
}
