//! The guard's times and limits as flags, read from the one table that declares them
//! (`session::tuning`): `mcpcheck guard` and `mcpcheck sweep` take the same ones.

use crate::session::tuning::{Tuning, Writer};

/// The tuning flags given, and the warnings their values earn (`--timeout 5` is 5 ms).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TuningFlags {
    pub tuning: Tuning,
    pub warnings: Vec<String>,
}

/// The flag's id in clap's matches: the field's name.
fn id(spec: &crate::session::tuning::Spec) -> &'static str {
    spec.field
}

impl clap::FromArgMatches for TuningFlags {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = TuningFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        let given = |spec: &crate::session::tuning::Spec| {
            matches
                .try_get_one::<String>(id(spec))
                .ok()
                .flatten()
                .cloned()
        };
        let (tuning, warnings) = Tuning::read(Writer::Flags, given)
            .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e.message()))?;
        self.tuning = tuning.over(self.tuning);
        self.warnings.extend(warnings);
        Ok(())
    }
}

impl clap::Args for TuningFlags {
    fn augment_args(command: clap::Command) -> clap::Command {
        Tuning::SPECS.iter().fold(command, |command, spec| {
            let unit = spec.unit;
            command.arg(
                clap::Arg::new(id(spec))
                    .long(spec.flag.trim_start_matches("--"))
                    .value_name(unit.value_name())
                    .help(spec.help_with_default())
                    .help_heading(spec.heading)
                    .hide_short_help(!spec.short_help)
                    .action(clap::ArgAction::Set)
                    // Checked as it is read, so a bad value is clap's usual error.
                    .value_parser(move |text: &str| unit.parse(text).map(|_| text.to_string())),
            )
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}
