//! Where a command's report goes: the destination check before any work, the colour
//! decision, serialisation, and the write itself (a closed pipe is the reader's choice).

use super::cli::ColorChoice;
use crate::error::Error;
use crate::report::printed::Printed;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// A report's destination: stdout, or the file a flag named.
#[derive(Debug, Clone)]
pub struct Output {
    file: Option<PathBuf>,
    flag: &'static str,
    color: bool,
}

impl Output {
    /// Checks now, before anything runs, that `file` (named by `flag`) can be created.
    pub fn new(flag: &'static str, file: Option<&Path>, color: ColorChoice) -> Result<Self, Error> {
        if let Some(path) = file {
            check_destination(flag, path)?;
        }
        let to_terminal = file.is_none() && std::io::stdout().is_terminal();
        Ok(Self {
            file: file.map(Path::to_path_buf),
            flag,
            color: color.enabled(to_terminal, |name| std::env::var_os(name)),
        })
    }

    /// Stdout, never coloured: for short confirmations such as "wrote FILE".
    pub fn stdout() -> Self {
        Self {
            file: None,
            flag: "stdout",
            color: false,
        }
    }

    /// Whether human text may carry ANSI colour.
    pub fn color(&self) -> bool {
        self.color
    }

    pub fn is_file(&self) -> bool {
        self.file.is_some()
    }

    pub fn write(&self, text: &str) -> Result<(), Error> {
        self.write_parts([text])
    }

    /// A report kept in pieces (`Printed`), written one after the other.
    pub fn write_printed(&self, printed: &Printed) -> Result<(), Error> {
        self.write_parts(printed.parts())
    }

    fn write_parts<'a>(&self, parts: impl IntoIterator<Item = &'a str>) -> Result<(), Error> {
        match &self.file {
            Some(path) => write_file_parts(self.flag, path, parts),
            None => write_stdout_parts(parts),
        }
    }
}

/// Fails before any work when `path` cannot be written: its directory must exist.
pub fn check_destination(flag: &str, path: &Path) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(Error::Usage(format!(
            "{flag} {}: is a directory; give a file path",
            path.display()
        )));
    }
    if dir.is_dir() {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "{flag} {}: the directory does not exist; create it or choose another path",
            path.display()
        )))
    }
}

/// Writes a whole file, naming the flag that chose it when it fails.
pub fn write_file(flag: &str, path: &Path, text: &str) -> Result<(), Error> {
    write_file_parts(flag, path, [text])
}

/// As `write_file`, the text given in pieces.
pub fn write_file_parts<'a>(
    flag: &str,
    path: &Path,
    parts: impl IntoIterator<Item = &'a str>,
) -> Result<(), Error> {
    let written = std::fs::File::create(path).and_then(|mut file| {
        parts
            .into_iter()
            .try_for_each(|part| file.write_all(part.as_bytes()))
    });
    written.map_err(|e| {
        Error::Output(format!(
            "{flag} {}: cannot write ({e}); check the directory exists and is writable",
            path.display()
        ))
    })
}

pub fn write_stdout(text: &str) -> Result<(), Error> {
    write_stdout_parts([text])
}

fn write_stdout_parts<'a>(parts: impl IntoIterator<Item = &'a str>) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    let written = parts
        .into_iter()
        .try_for_each(|part| out.write_all(part.as_bytes()));
    match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::Output(format!("cannot write to stdout: {e}"))),
    }
}

/// One line on stderr, before the work, that the report itself does not carry.
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "mcpcheck: note: {text}");
}

/// Pretty JSON with a final newline, as every JSON report is written.
pub fn json_text(value: &impl serde::Serialize) -> Result<String, Error> {
    let mut s = serde_json::to_string_pretty(value)
        .map_err(|e| Error::System(format!("cannot serialise the report: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// The runtime every async engine runs on, one thread unless asked for more.
pub fn runtime(worker_threads: Option<usize>) -> Result<tokio::runtime::Runtime, Error> {
    let mut builder = match worker_threads {
        None => tokio::runtime::Builder::new_current_thread(),
        Some(n) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n.max(1));
            b
        }
    };
    builder
        .enable_all()
        .build()
        .map_err(|e| Error::System(format!("cannot start the async runtime: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn colour_follows_the_flag_then_the_conventions() {
        let auto = ColorChoice::Auto;
        assert!(auto.enabled(true, env(&[])));
        assert!(!auto.enabled(false, env(&[])));
        assert!(!auto.enabled(true, env(&[("NO_COLOR", "1")])));
        // An empty NO_COLOR does not count (no-color.org).
        assert!(auto.enabled(true, env(&[("NO_COLOR", "")])));
        assert!(auto.enabled(false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!auto.enabled(false, env(&[("CLICOLOR_FORCE", "0")])));
        assert!(!auto.enabled(true, env(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])));
        assert!(ColorChoice::Always.enabled(false, env(&[("NO_COLOR", "1")])));
        assert!(!ColorChoice::Never.enabled(true, env(&[("CLICOLOR_FORCE", "1")])));
    }

    #[test]
    fn a_missing_directory_or_a_directory_is_refused_before_work() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("nope/report.json");
        let e = check_destination("--output", &missing).expect_err("missing dir");
        assert!(e.message().contains("the directory does not exist"), "{e}");
        let e = check_destination("--output", dir.path()).expect_err("a directory");
        assert!(e.message().contains("is a directory"), "{e}");
        assert!(check_destination("--output", &dir.path().join("r.json")).is_ok());
    }
}
