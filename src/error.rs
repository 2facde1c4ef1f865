//! The one error type of every command: whatever its kind, it ends the run with exit code 2
//! and one line that says what is wrong and how to fix it.

/// Why a command stopped before (or while) doing its work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The command line asks for something that cannot be done (a bad or conflicting flag).
    #[error("{0}")]
    Usage(String),
    /// A file or input the user named cannot be read, or is not what it should be.
    #[error("{0}")]
    Input(String),
    /// A report, file or stream could not be written.
    #[error("{0}")]
    Output(String),
    /// Something the machine refused (a thread, a runtime, a signal handler).
    #[error("{0}")]
    System(String),
    /// The connect policy refuses to dial the URL a request names: `message` names the
    /// setting (`--url: refused to dial …`), `why` is the refusal alone (a sweep's reason).
    #[error("{message}")]
    Refused { message: String, why: String },
}

impl Error {
    /// The one line shown to the user.
    pub fn message(&self) -> &str {
        match self {
            Error::Usage(m) | Error::Input(m) | Error::Output(m) | Error::System(m) => m,
            Error::Refused { message, .. } => message,
        }
    }

    /// Every kind ends the run the same way: the work was not done.
    pub const EXIT_CODE: u8 = 2;
}
