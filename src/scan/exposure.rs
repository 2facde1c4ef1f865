//! Who else can reach a config file: its mode bits and its directories' (Unix), and whether
//! git tracks it. The git index is read directly (versions 2 to 4), so no `git` process is
//! started and a machine without git is no different.

use std::path::{Path, PathBuf};

/// Largest git index read; a bigger one is not looked at (the check is skipped).
const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;
/// Most directories climbed looking for the repository.
const MAX_CLIMB: usize = 64;

/// What makes a file reachable by others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exposure {
    /// The file's permission bits (Unix), as `0644`.
    pub mode: Option<u32>,
    /// Readable by users other than the owner: group or others have the read bit, and every
    /// directory above lets them through.
    pub readable_by: Option<&'static str>,
    /// A directory above the file that anyone may write to (no sticky bit), so anyone can
    /// replace the file.
    pub world_writable_dir: Option<PathBuf>,
    /// The repository root, when git tracks the file.
    pub tracked_in: Option<PathBuf>,
}

pub fn inspect(path: &Path) -> Exposure {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut e = Exposure {
        tracked_in: tracked_by_git(&abs),
        ..Exposure::default()
    };
    unix_bits(&abs, &mut e);
    e
}

#[cfg(unix)]
fn unix_bits(abs: &Path, e: &mut Exposure) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(abs) else {
        return;
    };
    let mode = meta.permissions().mode() & 0o7777;
    e.mode = Some(mode);
    // Who can get through every directory above it: a 0644 file in a 0700 home is private.
    let (mut group_through, mut others_through) = (true, true);
    for dir in abs.ancestors().skip(1) {
        let Ok(m) = std::fs::metadata(dir) else {
            break;
        };
        let dm = m.permissions().mode();
        group_through &= dm & 0o010 != 0 || dm & 0o001 != 0;
        others_through &= dm & 0o001 != 0;
        if e.world_writable_dir.is_none() && dm & 0o002 != 0 && dm & 0o1000 == 0 {
            e.world_writable_dir = Some(dir.to_path_buf());
        }
    }
    e.readable_by = if mode & 0o004 != 0 && others_through {
        Some("other users")
    } else if mode & 0o040 != 0 && group_through {
        Some("its group")
    } else {
        None
    };
}

#[cfg(not(unix))]
fn unix_bits(_abs: &Path, _e: &mut Exposure) {}

/// The repository root when the file is in its git index (staged or committed).
fn tracked_by_git(abs: &Path) -> Option<PathBuf> {
    for root in abs.ancestors().skip(1).take(MAX_CLIMB) {
        let dot_git = root.join(".git");
        let git_dir = if dot_git.is_dir() {
            dot_git
        } else if dot_git.is_file() {
            // A worktree or submodule: `gitdir: PATH`.
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            root.join(target)
        } else {
            continue;
        };
        let rel = abs.strip_prefix(root).ok()?;
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let index = git_dir.join("index");
        let size = std::fs::metadata(&index).ok()?.len();
        if size > MAX_INDEX_BYTES {
            return None;
        }
        let bytes = std::fs::read(&index).ok()?;
        let wanted = rel.join("/");
        return index_paths(&bytes)?
            .iter()
            .any(|p| p.as_slice() == wanted.as_bytes())
            .then(|| root.to_path_buf());
    }
    None
}

/// The paths in a git index file (format versions 2, 3 and 4); `None` if it is not one.
pub fn index_paths(bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    if bytes.get(0..4)? != b"DIRC" {
        return None;
    }
    let version = u32_at(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = u32_at(8)? as usize;
    let mut paths: Vec<Vec<u8>> = Vec::with_capacity(count.min(1 << 16));
    let mut at = 12usize;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        // ctime, mtime, dev, ino, mode, uid, gid, size (40 bytes), the object id (20), flags.
        let flags = u16::from_be_bytes(bytes.get(start + 60..start + 62)?.try_into().ok()?);
        at = start + 62;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        let path = if version == 4 {
            // The number of bytes to drop from the previous path, then the rest, NUL-ended.
            let mut byte = *bytes.get(at)?;
            at += 1;
            let mut strip = u64::from(byte & 0x7f);
            while byte & 0x80 != 0 {
                byte = *bytes.get(at)?;
                at += 1;
                strip = ((strip + 1) << 7) | u64::from(byte & 0x7f);
            }
            let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let mut p = previous[..keep].to_vec();
            p.extend_from_slice(&bytes[at..end]);
            at = end + 1;
            p
        } else {
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let p = bytes[at..end].to_vec();
            // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
            at = start + ((end - start + 8) & !7);
            p
        };
        previous.clone_from(&path);
        paths.push(path);
    }
    Some(paths)
}
