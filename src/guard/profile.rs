//! Profiles: named depths of checking. Explicit flags and config keys narrow or deepen them.

use crate::error::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Only what the flags say.
    Custom,
    /// Initialize only (plus explicit requests); no list probes.
    Smoke,
    /// List probes and two runs, compared for drift.
    Registry,
    /// JSON output; static findings fail.
    Ci,
    /// ci + registry depth + every adversarial probe; wire-schema violations are errors.
    Strict,
}

/// What a profile sets when nothing more explicit does.
#[derive(Debug, Clone, Copy)]
pub struct ProfileDefaults {
    pub probe_lists: bool,
    pub repeat: u32,
    pub json: bool,
    pub fail_on_static: bool,
    pub all_probes: bool,
    pub wire_schema_errors: bool,
}

impl Profile {
    pub const NAMES: &'static str = "custom, smoke, registry, ci, strict";

    pub fn parse(name: &str) -> Result<Self, Error> {
        Ok(match name {
            "custom" => Profile::Custom,
            "smoke" => Profile::Smoke,
            "registry" => Profile::Registry,
            "ci" => Profile::Ci,
            "strict" => Profile::Strict,
            other => {
                return Err(Error::Usage(format!(
                    "unknown profile {:?}; use one of {}",
                    crate::finding::excerpt(other, 40),
                    Self::NAMES
                )))
            }
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Custom => "custom",
            Profile::Smoke => "smoke",
            Profile::Registry => "registry",
            Profile::Ci => "ci",
            Profile::Strict => "strict",
        }
    }

    pub fn defaults(self) -> ProfileDefaults {
        let base = ProfileDefaults {
            probe_lists: true,
            repeat: 1,
            json: false,
            fail_on_static: false,
            all_probes: false,
            wire_schema_errors: false,
        };
        match self {
            Profile::Custom => base,
            Profile::Smoke => ProfileDefaults {
                probe_lists: false,
                ..base
            },
            Profile::Registry => ProfileDefaults { repeat: 2, ..base },
            Profile::Ci => ProfileDefaults {
                json: true,
                fail_on_static: true,
                ..base
            },
            Profile::Strict => ProfileDefaults {
                repeat: 2,
                json: true,
                fail_on_static: true,
                all_probes: true,
                wire_schema_errors: true,
                ..base
            },
        }
    }
}
