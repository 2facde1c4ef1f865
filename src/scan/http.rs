//! The scan's HTTP client is the session layer's one client setup.

pub use crate::session::http::client::agent;
