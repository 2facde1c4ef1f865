//! Which files the source scan reads: the walking rules (ignore files, dependency and build
//! directories, tests, globs, minified and generated files, binaries, size) in one place.

use super::lang::Lang;
use super::ScanError;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Serialize;
use std::path::Path;

/// Directories of dependencies, virtual environments and build output.
pub const DEFAULT_SKIP_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    "dist",
    "build",
    "target",
    ".venv",
    "venv",
    "vendor",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
];

/// Directories that hold tests or test data.
pub const TEST_DIRS: &[&str] = &["test", "tests", "__tests__", "testdata"];

/// Bytes at the top of a file searched for a "generated" marker.
const HEADER_BYTES: usize = 1024;
/// Bytes sampled to spot binaries (a NUL byte) and minified code (very long lines).
const SAMPLE_BYTES: usize = 64 * 1024;
/// Average line length above which JavaScript is treated as minified.
const MINIFIED_AVERAGE_LINE: usize = 300;

/// Why a file was not scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileSkip {
    Test,
    Minified,
    Generated,
    Binary,
    TooLarge,
    Excluded,
    Symlink,
    Unreadable,
    ParseTimeout,
    /// A configuration file that is not well-formed XML or valid YAML.
    Malformed,
}

/// Why a directory was not entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DirSkip {
    /// Dependencies, virtual environments, build output (`node_modules`, `target`...).
    Dependency,
    Test,
    Excluded,
    Symlink,
}

impl FileSkip {
    pub fn as_str(self) -> &'static str {
        match self {
            FileSkip::Test => "test",
            FileSkip::Minified => "minified",
            FileSkip::Generated => "generated",
            FileSkip::Binary => "binary",
            FileSkip::TooLarge => "too large",
            FileSkip::Excluded => "excluded",
            FileSkip::Symlink => "symlink",
            FileSkip::Unreadable => "unreadable",
            FileSkip::ParseTimeout => "parse timeout",
            FileSkip::Malformed => "malformed",
        }
    }
}

impl DirSkip {
    pub fn as_str(self) -> &'static str {
        match self {
            DirSkip::Dependency => "dependency/build",
            DirSkip::Test => "test",
            DirSkip::Excluded => "excluded",
            DirSkip::Symlink => "symlink",
        }
    }
}

/// `--include`/`--exclude` globs. A glob without `/` matches a file or directory name at any
/// depth (like .gitignore); one with `/` matches the path relative to the scan root.
#[derive(Debug, Default)]
pub struct Globs {
    names: Option<GlobSet>,
    paths: Option<GlobSet>,
}

impl Globs {
    pub fn new(patterns: &[String], flag: &str) -> Result<Self, ScanError> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let (mut any_name, mut any_path) = (false, false);
        for pattern in patterns {
            let trimmed = pattern.trim_start_matches("./").trim_end_matches('/');
            let glob: Glob = GlobBuilder::new(trimmed)
                .literal_separator(true)
                .build()
                .map_err(|e| ScanError::BadGlob(format!("{flag} {pattern:?}: invalid glob ({}); use a pattern such as '*.py' or 'src/**/*.ts'", e.kind())))?;
            if trimmed.contains('/') {
                paths.add(glob);
                any_path = true;
            } else {
                names.add(glob);
                any_name = true;
            }
        }
        let build = |b: GlobSetBuilder, any: bool| -> Result<Option<GlobSet>, ScanError> {
            if !any {
                return Ok(None);
            }
            b.build()
                .map(Some)
                .map_err(|e| ScanError::BadGlob(format!("{flag}: {e}")))
        };
        Ok(Self {
            names: build(names, any_name)?,
            paths: build(paths, any_path)?,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_none() && self.paths.is_none()
    }

    /// `relative` uses forward slashes and is relative to the scan root.
    pub fn matches(&self, relative: &str) -> bool {
        let name = relative.rsplit('/').next().unwrap_or(relative);
        self.names.as_ref().is_some_and(|g| g.is_match(name))
            || self.paths.as_ref().is_some_and(|g| g.is_match(relative))
    }
}

/// The rules, built once from the options.
#[derive(Debug)]
pub struct Rules {
    pub include: Globs,
    pub exclude: Globs,
    pub include_tests: bool,
    pub default_excludes: bool,
    pub max_file_bytes: u64,
}

impl Rules {
    /// Whether to enter a directory below the root.
    pub fn directory(&self, name: &str, relative: &str) -> Option<DirSkip> {
        if self.exclude.matches(relative) {
            Some(DirSkip::Excluded)
        } else if self.default_excludes && DEFAULT_SKIP_DIRS.contains(&name) {
            Some(DirSkip::Dependency)
        } else if !self.include_tests && TEST_DIRS.contains(&name) {
            Some(DirSkip::Test)
        } else {
            None
        }
    }

    /// The checks on a file's path, before it is read. Files named as roots skip the name rules.
    pub fn file_path(&self, relative: &str, explicit: bool) -> Option<FileSkip> {
        if explicit {
            return None;
        }
        let name = relative.rsplit('/').next().unwrap_or(relative);
        if self.exclude.matches(relative)
            || (!self.include.is_empty() && !self.include.matches(relative))
        {
            Some(FileSkip::Excluded)
        } else if !self.include_tests && is_test_file(name) {
            Some(FileSkip::Test)
        } else if is_minified_name(name) {
            Some(FileSkip::Minified)
        } else {
            None
        }
    }

    /// The checks on a file's content (`lang` None: a configuration file).
    pub fn file_content(
        &self,
        lang: Option<Lang>,
        bytes: &[u8],
        explicit: bool,
    ) -> Option<FileSkip> {
        let sample = &bytes[..bytes.len().min(SAMPLE_BYTES)];
        if memchr::memchr(0, sample).is_some() {
            return Some(FileSkip::Binary);
        }
        if explicit {
            return None;
        }
        if is_generated(&bytes[..bytes.len().min(HEADER_BYTES)]) {
            return Some(FileSkip::Generated);
        }
        let is_js = matches!(lang, Some(Lang::JavaScript | Lang::TypeScript | Lang::Tsx));
        let lines = memchr::memchr_iter(b'\n', sample).count() + 1;
        if is_js && sample.len() / lines > MINIFIED_AVERAGE_LINE {
            return Some(FileSkip::Minified);
        }
        None
    }
}

pub fn is_test_file(name: &str) -> bool {
    let stem_ext = |suffix: &str| name.contains(suffix) && name.rsplit_once('.').is_some();
    stem_ext(".test.")
        || stem_ext(".spec.")
        || name.ends_with("_test.go")
        || (name.starts_with("test_") && name.ends_with(".py"))
        || name.ends_with("_test.py")
        || name == "conftest.py"
        || [
            "Test.java",
            "Tests.java",
            "Test.kt",
            "Tests.kt",
            "Test.cs",
            "Tests.cs",
        ]
        .iter()
        .any(|s| name.ends_with(s) && name.len() > s.len())
}

fn is_minified_name(name: &str) -> bool {
    [
        ".min.js",
        ".min.mjs",
        ".min.cjs",
        "-min.js",
        ".bundle.min.js",
    ]
    .iter()
    .any(|s| name.ends_with(s))
}

/// The markers code generators put at the top of what they write, the last four in any
/// case. (ASCII case is Unicode's here: a character outside ASCII whose lower case is an
/// ASCII letter is the Kelvin sign, `k`, which no marker holds, or `İ`, whose `i` a
/// combining dot follows.)
fn is_generated(header: &[u8]) -> bool {
    let header = &header[..header.len().min(HEADER_BYTES)];
    let mut lower = [0u8; HEADER_BYTES];
    let lower = &mut lower[..header.len()];
    lower.copy_from_slice(header);
    lower.make_ascii_lowercase();
    GENERATED_MARKERS.iter().any(|(marker, any_case)| {
        marker
            .find(if *any_case { lower } else { header })
            .is_some()
    })
}

/// `is_generated`'s markers, each searcher built once (for every file read it would cost more
/// than the search of a header), with whether it is matched in any case.
static GENERATED_MARKERS: std::sync::LazyLock<Vec<(memchr::memmem::Finder<'static>, bool)>> =
    std::sync::LazyLock::new(|| {
        [
            ("@generated", false),
            ("DO NOT EDIT", false),
            ("<auto-generated", true),
            ("auto-generated file", true),
            ("autogenerated file", true),
            ("automatically generated", true),
        ]
        .into_iter()
        .map(|(marker, any_case)| (memchr::memmem::Finder::new(marker), any_case))
        .collect()
    });

/// Whether an ignore file (`.gitignore`, `.ignore`) in a directory above `root` leaves
/// `root` itself out, as uv's cache does with a `.gitignore` of `*`.
pub fn ignored_from_above(root: &Path) -> bool {
    let Ok(root) = root.canonicalize() else {
        return false;
    };
    let is_dir = root.is_dir();
    root.ancestors().skip(1).any(|dir| {
        [".gitignore", ".ignore"].iter().any(|name| {
            let file = dir.join(name);
            if !file.is_file() {
                return false;
            }
            let mut builder = ignore::gitignore::GitignoreBuilder::new(dir);
            let _ = builder.add(&file);
            builder.build().is_ok_and(|ignores| {
                ignores
                    .matched_path_or_any_parents(&root, is_dir)
                    .is_ignore()
            })
        })
    })
}

/// A path with forward slashes.
pub fn slashed(path: &Path) -> String {
    let text = path.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_are_recognised_by_name() {
        for name in [
            "a.test.ts",
            "a.spec.js",
            "x_test.go",
            "test_x.py",
            "x_test.py",
            "conftest.py",
            "FooTest.java",
        ] {
            assert!(is_test_file(name), "{name}");
        }
        for name in [
            "server.py",
            "contest.py",
            "latest.go",
            "Test.java",
            "testing.py",
            "attest.ts",
        ] {
            assert!(!is_test_file(name), "{name}");
        }
    }

    #[test]
    fn generated_markers_match_in_any_case_where_they_may() {
        for header in [
            "// @generated by protoc\n",
            "# DO NOT EDIT\n",
            "// <Auto-Generated>\n",
            "/* AUTO-GENERATED FILE. */\n",
            "# Autogenerated File\n",
            "// This file was Automatically Generated by a tool (é)\n",
        ] {
            assert!(is_generated(header.as_bytes()), "{header}");
        }
        for header in [
            "# do not edit\n",
            "// @Generated\n",
            "# generated by hand\n",
            "# automatically\ngenerated\n",
        ] {
            assert!(!is_generated(header.as_bytes()), "{header}");
        }
        // Cut mid-character at the header's end, or not UTF-8 at all.
        assert!(is_generated(b"\xff// autogenerated file \xc3"));
        // As a Unicode lower case of the text finds them.
        let unicode = |header: &[u8]| {
            let text = String::from_utf8_lossy(header);
            let lower = text.to_lowercase();
            text.contains("@generated")
                || text.contains("DO NOT EDIT")
                || [
                    "<auto-generated",
                    "auto-generated file",
                    "autogenerated file",
                    "automatically generated",
                ]
                .iter()
                .any(|m| lower.contains(m))
        };
        for header in [
            "// AUTOMAT\u{130}CALLY GENERATED\n",
            "// Automatically Generated \u{212a}\n",
            "// AUTO-GENERATED FİLE\n",
            "// auto-\u{212a}generated file\n",
            "// <AUTO-GENERATED>\n",
        ] {
            assert_eq!(
                is_generated(header.as_bytes()),
                unicode(header.as_bytes()),
                "{header}"
            );
        }
        let long = format!(
            "{}// autogenerated file\n",
            "é".repeat(HEADER_BYTES / 2 - 4)
        );
        for cut in [HEADER_BYTES - 1, HEADER_BYTES] {
            let header = &long.as_bytes()[..cut.min(long.len())];
            assert_eq!(is_generated(header), unicode(header), "{cut}");
        }
    }

    #[test]
    fn globs_without_a_slash_match_names_and_with_one_paths() {
        let globs =
            Globs::new(&["*.gen.py".into(), "src/legacy/**".into()], "--exclude").expect("globs");
        assert!(globs.matches("a/b/x.gen.py"));
        assert!(globs.matches("src/legacy/old.py"));
        assert!(!globs.matches("lib/src/legacy/old.py"));
        assert!(!globs.matches("src/new.py"));
        assert!(Globs::new(&["a[".into()], "--include").is_err());
    }
}
