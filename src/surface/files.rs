//! `mcpcheck surface`'s engine: every rule over saved listing files, checked together so
//! cross-server rules compare them.

use super::{check_with_initialize, listing, ServerSurface, SurfaceOptions};
use crate::error::Error;
use crate::finding::Finding;
use std::path::PathBuf;

/// Which listing files to check, and how.
#[derive(Debug, Clone, Default)]
pub struct SurfaceRequest {
    /// Listing files; `-` reads stdin.
    pub files: Vec<PathBuf>,
    pub options: SurfaceOptions,
}

/// What one run inspected and found.
#[derive(Debug)]
pub struct SurfaceRun {
    pub files: Vec<String>,
    pub surfaces: Vec<ServerSurface>,
    pub options: SurfaceOptions,
    pub findings: Vec<Finding>,
}

pub fn check_files(request: &SurfaceRequest) -> Result<SurfaceRun, Error> {
    let mut servers = Vec::new();
    for file in &request.files {
        servers.extend(listing::read(file)?);
    }
    let surfaces: Vec<_> = servers.iter().map(|s| s.surface.clone()).collect();
    let initialize: Vec<_> = servers.iter().map(|s| s.initialize.clone()).collect();
    let findings = check_with_initialize(&surfaces, &initialize, &request.options);
    Ok(SurfaceRun {
        files: request
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect(),
        surfaces,
        options: request.options,
        findings,
    })
}
