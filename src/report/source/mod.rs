//! The source scan's renderers.

pub mod fix;
pub mod human;
pub mod json;
