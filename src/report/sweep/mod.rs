//! `sweep-report`'s renderers, over the merged summary the sweep engine computes.

pub mod html;
pub mod human;
pub mod json;
pub mod markdown;
