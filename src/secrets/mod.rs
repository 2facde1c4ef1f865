//! Credentials: the one table of provider token shapes and the one test of credential
//! names, used by every engine that finds a secret and every output that hides one.
//!
//! Two strictnesses, because the inputs differ. In free text (advertised descriptions,
//! server names) only a credential's exact documented shape counts, so prose about a
//! format is not a leak ([`find`], [`redact`]). In a value (a config entry, an argument,
//! a log field) the whole value may be the token, so looser shapes count too
//! ([`find_tokens`], [`mask_tokens`]).

mod argv;
pub mod known;
mod names;
mod plausible;
mod prose;
mod screen;
mod shapes;
mod userinfo;
mod values;

pub use argv::{argv_secrets, redact_argv, redact_argv_as, ArgSecret};
pub use known::KnownSecrets;
pub use names::{is_credential_param, might_name_credential, names_credential};
pub use plausible::is_placeholder;
pub use prose::{find, mask, redact, SecretMatch};
pub use screen::{json_might_hold_credential, json_might_hold_credentials};
pub use userinfo::{mask_url_passwords, url_passwords};
pub use values::{
    find_tokens, looks_like_token, mask_spans, mask_tokens, redacted, secret_spans, TokenMatch,
};
