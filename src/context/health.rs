//! Context health by tool calls, the seed's only reliable signal (token use is not exposed to
//! hooks): GREEN below 50 calls, YELLOW to 80, ORANGE to 120, RED beyond; in a session that
//! has read three files of more than 500 lines each, every threshold is multiplied by 0.8.
//! Pure: counts in, a level and advice out.

/// How full the context probably is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Green,
    Yellow,
    Orange,
    Red,
}

impl Level {
    pub fn label(self) -> &'static str {
        match self {
            Level::Green => "GREEN",
            Level::Yellow => "YELLOW",
            Level::Orange => "ORANGE",
            Level::Red => "RED",
        }
    }

    /// The seed's recommendation keyword.
    pub fn recommendation(self) -> &'static str {
        match self {
            Level::Green => "continue",
            Level::Yellow => "load-essential-only",
            Level::Orange => "compact-at-boundary",
            Level::Red => "compact-immediately",
        }
    }
}

/// Where the levels start (tool calls), and when the large-file multiplier applies.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Thresholds {
    pub yellow: u32,
    pub orange: u32,
    pub red: u32,
    /// A Read returning more lines than this is a large read.
    pub large_read_lines: u32,
    /// After this many large reads the thresholds shrink by `multiplier`.
    pub large_reads: u32,
    pub multiplier: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            yellow: 50,
            orange: 80,
            red: 120,
            large_read_lines: 500,
            large_reads: 3,
            multiplier: 0.8,
        }
    }
}

/// The git config keys of the thresholds (under `rune.context.`), in [`Thresholds`] order.
pub const SETTINGS: [&str; 6] = [
    "yellow",
    "orange",
    "red",
    "largeReadLines",
    "largeReads",
    "multiplier",
];

impl Thresholds {
    /// The thresholds with the settings `get` returns (`rune.context.<key>`) over the
    /// defaults; a value that is not a number, or levels out of order, is an error naming
    /// the setting.
    pub fn from_settings(get: impl Fn(&str) -> Option<String>) -> Result<Thresholds, String> {
        let mut t = Thresholds::default();
        for key in SETTINGS {
            let name = format!("rune.context.{key}");
            let Some(v) = get(&name) else { continue };
            let bad = || {
                format!("{name} = {v:?} is not a valid value; set a positive number (`git config {name} <n>`) or unset it")
            };
            let v = v.trim();
            if key == "multiplier" {
                let m: f64 = v.parse().map_err(|_| bad())?;
                if !(m > 0.0 && m <= 1.0) {
                    return Err(bad());
                }
                t.multiplier = m;
                continue;
            }
            let n: u32 = v.parse().ok().filter(|n| *n > 0).ok_or_else(bad)?;
            match key {
                "yellow" => t.yellow = n,
                "orange" => t.orange = n,
                "red" => t.red = n,
                "largeReadLines" => t.large_read_lines = n,
                _ => t.large_reads = n,
            }
        }
        if !(t.yellow <= t.orange && t.orange <= t.red) {
            return Err(format!(
                "rune.context.yellow/orange/red must grow ({}, {}, {}); fix them with `git config`",
                t.yellow, t.orange, t.red
            ));
        }
        Ok(t)
    }

    /// The thresholds in force: shrunk once the session has made enough large reads, rounded
    /// up to a multiple of 5 as the seed's table is (50/80/120 become 40/65/100).
    pub fn effective(&self, large_reads: u32) -> (u32, u32, u32) {
        if large_reads >= self.large_reads {
            let m = |t: u32| ((f64::from(t) * self.multiplier / 5.0).ceil() as u32) * 5;
            (m(self.yellow), m(self.orange), m(self.red))
        } else {
            (self.yellow, self.orange, self.red)
        }
    }

    /// The level after `calls` tool calls. The seed's bands: GREEN below `yellow`, YELLOW
    /// from `yellow` to `orange`, ORANGE to `red`, RED above it.
    pub fn level(&self, calls: u32, large_reads: u32) -> Level {
        let (yellow, orange, red) = self.effective(large_reads);
        if calls > red {
            Level::Red
        } else if calls >= orange {
            Level::Orange
        } else if calls >= yellow {
            Level::Yellow
        } else {
            Level::Green
        }
    }
}

/// Advice is given at most once per this many tool calls.
pub const DEBOUNCE: u32 = 5;

/// The seed's advice for a level (RED's is given after the state is saved).
pub fn advice(level: Level, calls: u32) -> Option<String> {
    match level {
        Level::Green => None,
        Level::Yellow => Some(format!(
            "{calls} tool calls. Load only essential files. Avoid reading full files when Grep will do."
        )),
        Level::Orange => Some(format!(
            "{calls} tool calls. Recommend /compact at next phase boundary (after current module completes)."
        )),
        Level::Red => Some(format!(
            "Context CRITICAL ({calls} tool calls, likely near limit). State saved to .rune/. Run /compact now."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_the_seed_bands() {
        let t = Thresholds::default();
        assert_eq!(t.level(0, 0), Level::Green);
        assert_eq!(t.level(49, 0), Level::Green);
        assert_eq!(t.level(50, 0), Level::Yellow);
        assert_eq!(t.level(79, 0), Level::Yellow);
        assert_eq!(t.level(80, 0), Level::Orange);
        assert_eq!(t.level(120, 0), Level::Orange);
        assert_eq!(t.level(121, 0), Level::Red);
    }

    #[test]
    fn settings_override_the_defaults_and_bad_ones_are_named() {
        let t =
            Thresholds::from_settings(|k| (k == "rune.context.red").then(|| "150".into())).unwrap();
        assert_eq!((t.yellow, t.orange, t.red), (50, 80, 150));
        let e = Thresholds::from_settings(|k| (k == "rune.context.orange").then(|| "lots".into()))
            .unwrap_err();
        assert!(e.contains("rune.context.orange"), "{e}");
        let e = Thresholds::from_settings(|k| (k == "rune.context.yellow").then(|| "100".into()))
            .unwrap_err();
        assert!(e.contains("must grow"), "{e}");
        assert!(
            Thresholds::from_settings(|k| (k == "rune.context.multiplier").then(|| "2".into()))
                .is_err()
        );
    }

    #[test]
    fn three_large_reads_shrink_every_threshold() {
        let t = Thresholds::default();
        assert_eq!(t.effective(2), (50, 80, 120));
        assert_eq!(t.effective(3), (40, 65, 100));
        assert_eq!(t.level(40, 3), Level::Yellow);
        assert_eq!(t.level(65, 3), Level::Orange);
        assert_eq!(t.level(100, 3), Level::Orange);
        assert_eq!(t.level(101, 3), Level::Red);
    }
}
