//! Which process backend runs servers. Linux's (`subreaper`): this process is the child
//! subreaper, so every descendant a server leaves, in its group or not, comes back to it to
//! be found (through /proc), killed and reaped. The portable one (any Unix; the only one
//! off Linux): the server's process group, SIGTERM then SIGKILL to it, and its descendants
//! found through the process table; a daemon that left the group and was re-parented to
//! init (launchd) can be missed, so what depends on finding those is reported not checked.

/// The hidden switch (docs/development.md): `portable` runs the portable backend on Linux.
pub const ENV: &str = "MCPCHECK_PROCESS_BACKEND";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Linux: child subreaper, /proc.
    Subreaper,
    /// Any Unix: process groups and the process table.
    Portable,
}

impl Backend {
    /// The backend of this process, chosen once (the command layer refused an unknown
    /// setting before anything ran: see [`check_setting`]).
    pub fn current() -> Backend {
        static CHOSEN: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            Backend::choose(std::env::var(ENV).ok().as_deref()).unwrap_or(Backend::best())
        })
    }

    /// The best backend this build has.
    fn best() -> Backend {
        if cfg!(subreaper) {
            Backend::Subreaper
        } else {
            Backend::Portable
        }
    }

    /// `portable` picks the portable backend, `subreaper` (or nothing) the best this build
    /// has; any other value is refused, naming the known ones.
    pub fn choose(setting: Option<&str>) -> Result<Backend, UnknownBackend> {
        match setting.map(str::trim) {
            None | Some("") | Some("subreaper") => Ok(Backend::best()),
            Some("portable") => Ok(Backend::Portable),
            Some(other) => Err(UnknownBackend(crate::text::bounded(other, 40))),
        }
    }

    /// Whether every process a server leaves behind is found, even one that left its group
    /// and outlived its parent (only a subreaper gets those back).
    pub fn finds_every_leftover(self) -> bool {
        self == Backend::Subreaper
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Subreaper => "subreaper",
            Backend::Portable => "portable",
        }
    }
}

/// A value of [`ENV`] that names no backend.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{ENV} is {0:?}, which names no process backend; the known ones are subreaper (Linux's, the default there) and portable (any Unix); unset it for the default")]
pub struct UnknownBackend(pub String);

/// Refuses an unknown [`ENV`] before anything runs, rather than silently running another
/// backend than the one asked for.
pub fn check_setting() -> Result<(), UnknownBackend> {
    Backend::choose(std::env::var(ENV).ok().as_deref()).map(|_| ())
}

/// What the portable backend cannot check, for every report that says "not checked".
pub const LEFTOVERS_NOT_CHECKED: &str = "not checked on this OS: the portable process backend kills the server's process group and the descendants it finds in the process table, but cannot find for certain a process that left the group and was re-parented to init (launchd), nor tell which process holds the server's pipes; Linux checks both";

/// Whether every leftover process is found on this run's backend (see [`Backend`]).
pub fn finds_every_leftover() -> bool {
    Backend::current().finds_every_leftover()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_is_chosen_by_the_switch_and_is_the_only_choice_without_linux() {
        assert_eq!(Backend::choose(Some("portable")), Ok(Backend::Portable));
        let default = if cfg!(subreaper) {
            Backend::Subreaper
        } else {
            Backend::Portable
        };
        assert_eq!(Backend::choose(None), Ok(default));
        assert_eq!(Backend::choose(Some("subreaper")), Ok(default));
        // Issue 44 item 13: an unknown value fell back silently.
        let e = Backend::choose(Some("protable")).expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "MCPCHECK_PROCESS_BACKEND is \"protable\", which names no process backend; the known ones are subreaper (Linux's, the default there) and portable (any Unix); unset it for the default"
        );
        assert!(!Backend::Portable.finds_every_leftover());
        assert!(Backend::Subreaper.finds_every_leftover());
    }
}
