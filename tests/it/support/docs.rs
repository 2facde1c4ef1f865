//! The project's Markdown: README.md, CONTRIBUTING.md and every page under docs/.

use super::repo;
use std::path::{Path, PathBuf};

/// Every Markdown document of the project, sorted.
pub fn documents() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md"), repo().join("CONTRIBUTING.md")];
    let mut stack = vec![repo().join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read docs") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.retain(|f| f.is_file());
    files.sort();
    files
}

/// A document's path as the repository names it.
pub fn shown(path: &Path) -> String {
    path.strip_prefix(repo())
        .unwrap_or(path)
        .display()
        .to_string()
}
