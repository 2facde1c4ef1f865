//! The SARIF file the Action hands to `github/codeql-action/upload-sarif`: where it may be
//! written (inside the workspace, or it is lost with the container) and whether Code
//! Scanning will take it (one result without a physical location rejects the whole file).

use crate::error::Error;
use crate::finding::excerpt;
use crate::report::sarif::{gzipped_len, MAX_GZIPPED_BYTES, MAX_RESULTS};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// GitHub's other per-file limits (docs: "SARIF support for code scanning").
const MAX_RUNS: usize = 20;
const MAX_LOCATIONS_PER_RESULT: usize = 1_000;

/// Where the SARIF file goes: an absolute path and the same path relative to the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub path: PathBuf,
    pub relative: String,
    /// The workspace root (canonical) the path is written under.
    root: PathBuf,
}

/// The reason a `sarif_file` input is refused, as one line naming the input and the fix.
fn refused(input: &str, why: &str, fix: &str) -> Error {
    Error::Usage(format!(
        "input `sarif_file` is {:?}: {why}; {fix}",
        excerpt(input, 200)
    ))
}

/// Resolves the `sarif_file` input against the workspace root (canonical). Refuses any
/// path that leaves it, and any symlink on the way (dangling or not, the file itself or
/// a directory): a pull request can add one, and the SARIF would be written at its target.
pub fn destination(root: &Path, input: &str) -> Result<Destination, Error> {
    let refuse = |why: &str| {
        refused(
            input,
            why,
            "give a path inside the workspace such as mcpcheck.sarif (the container's other files are lost after the step)",
        )
    };
    let given = Path::new(input);
    let relative_part = if given.is_absolute() {
        given
            .strip_prefix(root)
            .map_err(|_| refuse("it is outside the workspace"))?
    } else {
        given
    };
    let mut parts: Vec<String> = Vec::new();
    for c in relative_part.components() {
        match c {
            Component::Normal(s) => parts.push(
                s.to_str()
                    .ok_or_else(|| refuse("it is not valid UTF-8"))?
                    .to_string(),
            ),
            Component::CurDir => {}
            Component::ParentDir => {
                parts
                    .pop()
                    .ok_or_else(|| refuse("it is outside the workspace"))?;
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(refuse("it is outside the workspace"))
            }
        }
    }
    if parts.is_empty() {
        return Err(refuse("it names the workspace itself, not a file"));
    }
    // Each part that exists must be a real directory (the last, a regular file): the root
    // is canonical, so the path then cannot leave it.
    let path = parts.iter().fold(root.to_path_buf(), |p, s| p.join(s));
    let mut at = root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let last = i + 1 == parts.len();
        let shown = parts[..=i].join("/");
        let meta = match std::fs::symlink_metadata(&at) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(e) => return Err(refuse(&format!("{shown} cannot be inspected ({e})"))),
        };
        if meta.file_type().is_symlink() {
            return Err(refused(
                input,
                &format!("{shown} is a symlink, and the Action never writes through one"),
                "remove the symlink from the repository or give a path without one",
            ));
        }
        if last && meta.is_dir() {
            return Err(refuse("it is a directory"));
        }
        if last && !meta.is_file() {
            return Err(refuse("it exists and is not a regular file"));
        }
        if !last && !meta.is_dir() {
            return Err(refuse(&format!("{shown} is not a directory")));
        }
    }
    Ok(Destination {
        path,
        relative: parts.join("/"),
        root: root.to_path_buf(),
    })
}

impl Destination {
    /// Writes the file, opening each directory below the root relative to the one before
    /// and never following a symlink: the setup and the server ran since [`destination`]
    /// checked the path, and a symlink they planted is refused as one found then would be.
    pub fn write(&self, text: &str) -> Result<(), Error> {
        use nix::errno::Errno;
        use nix::fcntl::{open, openat, OFlag};
        use nix::sys::stat::{mkdirat, Mode};
        use std::io::Write;
        let fail = |what: &str, why: &str| {
            Error::Output(format!(
                "input `sarif_file`: cannot write {} ({what}: {why})",
                self.relative
            ))
        };
        // O_NOFOLLOW meets a symlink as ELOOP, or as ENOTDIR with O_DIRECTORY (Linux).
        let failed = |what: &str, e: Errno| {
            let link = std::fs::symlink_metadata(self.root.join(what))
                .is_ok_and(|m| m.file_type().is_symlink());
            match e {
                Errno::ELOOP | Errno::ENOTDIR if link => {
                    fail(what, "a symlink, and the Action never writes through one")
                }
                e => fail(what, e.desc()),
            }
        };
        let directory = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let mut dir =
            open(&self.root, directory, Mode::empty()).map_err(|e| failed("the workspace", e))?;
        let parts: Vec<&str> = self.relative.split('/').collect();
        let Some((file, dirs)) = parts.split_last() else {
            return Err(fail("the path", "empty"));
        };
        for (i, part) in dirs.iter().enumerate() {
            let shown = parts[..=i].join("/");
            match mkdirat(&dir, *part, Mode::S_IRWXU | Mode::S_IRWXG | Mode::S_IRWXO) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(failed(&shown, e)),
            }
            dir = openat(&dir, *part, directory, Mode::empty()).map_err(|e| failed(&shown, e))?;
        }
        // Non-blocking: a FIFO put there would otherwise hold the step forever.
        let fd = openat(
            &dir,
            *file,
            OFlag::O_WRONLY
                | OFlag::O_CREAT
                | OFlag::O_TRUNC
                | OFlag::O_NOFOLLOW
                | OFlag::O_NONBLOCK
                | OFlag::O_CLOEXEC,
            Mode::S_IRUSR | Mode::S_IWUSR | Mode::S_IRGRP | Mode::S_IROTH,
        )
        .map_err(|e| failed(&self.relative, e))?;
        let mut out = std::fs::File::from(fd);
        if !out.metadata().is_ok_and(|m| m.is_file()) {
            return Err(fail(&self.relative, "not a regular file"));
        }
        out.write_all(text.as_bytes())
            .map_err(|e| fail(&self.relative, &e.to_string()))
    }
}

/// What Code Scanning would reject in this SARIF text, one sentence each (empty: none).
pub fn ingestion_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let doc: Value = match serde_json::from_str(text) {
        Ok(doc) => doc,
        Err(e) => return vec![format!("the SARIF file is not JSON ({e})")],
    };
    if doc["version"] != "2.1.0" {
        problems.push("the SARIF version is not 2.1.0".to_string());
    }
    let gzipped = gzipped_len(text);
    if gzipped > MAX_GZIPPED_BYTES {
        problems.push(format!(
            "the SARIF file is {gzipped} bytes gzipped; Code Scanning takes at most {MAX_GZIPPED_BYTES}"
        ));
    }
    let runs = doc["runs"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if runs.is_empty() || runs.len() > MAX_RUNS {
        problems.push(format!(
            "the SARIF file has {} runs; Code Scanning takes 1 to {MAX_RUNS}",
            runs.len()
        ));
    }
    for (r, run) in runs.iter().enumerate() {
        let results = run["results"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        if results.len() > MAX_RESULTS {
            problems.push(format!(
                "run {r} has {} results; Code Scanning takes at most {MAX_RESULTS}",
                results.len()
            ));
        }
        for (i, result) in results.iter().enumerate() {
            if let Some(why) = result_problem(result) {
                let rule = result["ruleId"].as_str().unwrap_or("?");
                problems.push(format!("run {r} result {i} ({rule}): {why}"));
            }
        }
    }
    problems
}

/// Why Code Scanning would reject one result, if it would.
fn result_problem(result: &Value) -> Option<String> {
    if !result["ruleId"].is_string() {
        return Some("no ruleId".into());
    }
    if !result["message"]["text"].is_string() {
        return Some("no message text".into());
    }
    let locations = result["locations"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if locations.len() > MAX_LOCATIONS_PER_RESULT {
        return Some(format!(
            "{} locations; Code Scanning takes at most {MAX_LOCATIONS_PER_RESULT}",
            locations.len()
        ));
    }
    let Some(first) = locations.first() else {
        return Some("no location (Code Scanning expects a physical location)".into());
    };
    let Some(uri) = first["physicalLocation"]["artifactLocation"]["uri"].as_str() else {
        return Some("no physicalLocation.artifactLocation.uri".into());
    };
    let scheme = uri
        .split_once(':')
        .is_some_and(|(s, _)| !s.is_empty() && !s.contains('/'));
    if scheme || uri.starts_with('/') {
        return Some(format!(
            "its file {:?} is not a path relative to the repository",
            excerpt(uri, 200)
        ));
    }
    if uri.is_empty() || uri.split('/').any(|p| p == "..") {
        return Some(format!(
            "its file {:?} is outside the repository",
            excerpt(uri, 200)
        ));
    }
    let start = &first["physicalLocation"]["region"]["startLine"];
    if !start.is_null() && start.as_i64().is_none_or(|l| l < 1) {
        return Some("a region whose startLine is not a positive number".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn root() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        (dir, root)
    }

    #[test]
    fn sarif_file_stays_inside_the_workspace() {
        let (_dir, root) = root();
        let d = destination(&root, "out/./mcpcheck.sarif").expect("inside");
        assert_eq!(d.relative, "out/mcpcheck.sarif");
        assert_eq!(d.path, root.join("out/mcpcheck.sarif"));
        let d = destination(&root, "a/../x.sarif").expect("inside");
        assert_eq!(d.relative, "x.sarif");
        let inside_absolute = root.join("y.sarif");
        let d = destination(&root, inside_absolute.to_str().expect("utf-8")).expect("inside");
        assert_eq!(d.relative, "y.sarif");
        for outside in ["../x.sarif", "/tmp/x.sarif", "a/../../x.sarif", ".", ""] {
            let e = destination(&root, outside).expect_err(outside);
            assert!(
                e.message().starts_with("input `sarif_file`"),
                "{}",
                e.message()
            );
        }
    }

    #[test]
    fn a_symlink_out_of_the_workspace_is_refused() {
        let (_dir, root) = root();
        let (_other, elsewhere) = self::root();
        std::os::unix::fs::symlink(&elsewhere, root.join("link")).expect("symlink");
        let e = destination(&root, "link/x.sarif").expect_err("through a symlink");
        assert!(e.message().contains("symlink"), "{}", e.message());
    }

    #[test]
    fn a_symlink_on_the_way_is_refused_dangling_or_not() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root();
        let (_other, elsewhere) = self::root();
        symlink(elsewhere.join("planted"), root.join("dangling.sarif")).expect("symlink");
        std::fs::write(root.join("real.txt"), "keep").expect("file");
        symlink("real.txt", root.join("inside.sarif")).expect("symlink");
        std::fs::create_dir(root.join("dir")).expect("dir");
        symlink("dir", root.join("linked")).expect("symlink");
        symlink(elsewhere.join("gone"), root.join("gone")).expect("symlink");
        for (input, named) in [
            ("dangling.sarif", "dangling.sarif is a symlink"),
            ("inside.sarif", "inside.sarif is a symlink"),
            ("linked/x.sarif", "linked is a symlink"),
            ("gone/deeper/x.sarif", "gone is a symlink"),
            ("real.txt/x.sarif", "real.txt is not a directory"),
        ] {
            let e = destination(&root, input).expect_err(input);
            assert!(e.message().contains(named), "{}", e.message());
            assert!(
                e.message().starts_with("input `sarif_file`"),
                "{}",
                e.message()
            );
        }
        assert!(destination(&root, "dir/x.sarif").is_ok());
        assert!(destination(&root, "real.txt").is_ok());
    }

    #[test]
    fn the_write_never_follows_a_symlink_planted_after_the_check() {
        use std::os::unix::fs::symlink;
        let (_dir, root) = root();
        let (_other, elsewhere) = self::root();
        let d = destination(&root, "out/deep/x.sarif").expect("inside");
        d.write("one").expect("write");
        d.write("two").expect("overwrite");
        assert_eq!(std::fs::read_to_string(&d.path).expect("read"), "two");
        // The server ran in between: it swapped the file for a symlink.
        std::fs::remove_file(&d.path).expect("remove");
        symlink(elsewhere.join("planted"), &d.path).expect("symlink");
        let e = d.write("three").expect_err("a planted symlink");
        assert!(e.message().contains("symlink"), "{}", e.message());
        assert!(!elsewhere.join("planted").exists());
        // ... or a directory on the way.
        std::fs::remove_dir_all(root.join("out/deep")).expect("remove");
        symlink(&elsewhere, root.join("out/deep")).expect("symlink");
        let e = d.write("four").expect_err("a planted directory symlink");
        assert!(
            e.message().contains("out/deep: a symlink"),
            "{}",
            e.message()
        );
        assert!(!elsewhere.join("x.sarif").exists());
    }

    fn sarif(results: Value) -> String {
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": results}]})
            .to_string()
    }

    #[test]
    fn results_code_scanning_would_reject_are_named() {
        let ok = json!({"ruleId": "a", "message": {"text": "m"}, "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": "src/a.js", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 2}}}
        ]});
        assert_eq!(
            ingestion_problems(&sarif(json!([ok]))),
            Vec::<String>::new()
        );
        let logical_only = json!({"ruleId": "b", "message": {"text": "m"}, "locations": [
            {"logicalLocations": [{"fullyQualifiedName": "request:tools/list"}]}
        ]});
        let absolute = json!({"ruleId": "c", "message": {"text": "m"}, "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": "file:///etc/hostname"}}}
        ]});
        let escaping = json!({"ruleId": "d", "message": {"text": "m"}, "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": "../x.json"}}}
        ]});
        let none = json!({"ruleId": "e", "message": {"text": "m"}});
        let problems = ingestion_problems(&sarif(json!([logical_only, absolute, escaping, none])));
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("(b)") && problems[0].contains("physicalLocation"));
        assert!(problems[1].contains("(c)") && problems[1].contains("not a path relative"));
        assert!(problems[2].contains("(d)") && problems[2].contains("outside"));
        assert!(problems[3].contains("(e)") && problems[3].contains("no location"));
        assert_eq!(ingestion_problems("{").len(), 1);
    }

    #[test]
    fn more_results_than_a_run_may_hold_are_named() {
        let one = json!({"ruleId": "a", "message": {"text": "m"}, "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": "a"}}}
        ]});
        let many: Vec<Value> = std::iter::repeat_n(one, MAX_RESULTS + 1).collect();
        let problems = ingestion_problems(&sarif(Value::Array(many)));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("25000"), "{problems:?}");
    }
}
