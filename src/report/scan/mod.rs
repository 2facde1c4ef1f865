//! The config scan's renderers.

pub mod human;
pub mod json;
pub mod server;
