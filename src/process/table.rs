//! The process table: every process's pid, parent, group and whether it still runs, read
//! from /proc by the Linux backend and through `sysinfo` (and `getpgid`) by the portable one.

#[cfg(subreaper)]
use super::backend::Backend;

/// One process as the table shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub pid: i32,
    pub ppid: i32,
    /// Its process group; `None` when it could not be read.
    pub pgid: Option<i32>,
    /// Running (not a zombie).
    pub live: bool,
}

/// Every process now.
pub fn entries() -> Vec<Entry> {
    #[cfg(subreaper)]
    if Backend::current() == Backend::Subreaper {
        return procfs::entries();
    }
    portable::entries()
}

/// Its arguments, at most `max_args`, each at most `max_bytes`; empty once it is gone.
pub fn command_line(pid: i32, max_args: usize, max_bytes: usize) -> Vec<String> {
    #[cfg(subreaper)]
    if Backend::current() == Backend::Subreaper {
        return procfs::command_line(pid, max_args, max_bytes);
    }
    portable::command_line(pid, max_args, max_bytes)
}

/// The processes whose environment holds `marker` (`NAME=value`): what a server started,
/// wherever it was re-parented, unless it cleared its environment. Portable backend only.
pub fn carrying(marker: &str) -> Vec<i32> {
    portable::carrying(marker)
}

fn bounded(args: impl Iterator<Item = Vec<u8>>, max_args: usize, max_bytes: usize) -> Vec<String> {
    args.filter(|a| !a.is_empty())
        .take(max_args)
        .map(|a| String::from_utf8_lossy(&a[..a.len().min(max_bytes)]).into_owned())
        .collect()
}

mod portable {
    use super::Entry;
    use std::os::unix::ffi::OsStrExt;
    use sysinfo::{Pid, ProcessRefreshKind, ProcessStatus, ProcessesToUpdate, System, UpdateKind};

    /// Processes only: with tasks, sysinfo lists each thread of a process (Linux) as a
    /// process whose parent is that process, and killing one kills the whole process.
    fn table(what: ProcessRefreshKind) -> System {
        // A fresh table each time: sysinfo would otherwise keep a /proc file open per process.
        sysinfo::set_open_files_limit(0);
        let mut sys = System::new();
        sys.refresh_processes_specifics(ProcessesToUpdate::All, true, what);
        sys
    }

    fn raw(pid: &Pid) -> i32 {
        i32::try_from(pid.as_u32()).unwrap_or(i32::MAX)
    }

    pub fn entries() -> Vec<Entry> {
        table(ProcessRefreshKind::nothing().without_tasks())
            .processes()
            .iter()
            .map(|(pid, p)| {
                let pid = raw(pid);
                Entry {
                    pid,
                    ppid: p.parent().as_ref().map_or(0, raw),
                    pgid: nix::unistd::getpgid(Some(nix::unistd::Pid::from_raw(pid)))
                        .ok()
                        .map(|g| g.as_raw()),
                    live: !matches!(p.status(), ProcessStatus::Zombie | ProcessStatus::Dead),
                }
            })
            .collect()
    }

    pub fn command_line(pid: i32, max_args: usize, max_bytes: usize) -> Vec<String> {
        let Ok(id) = u32::try_from(pid) else {
            return Vec::new();
        };
        let id = Pid::from_u32(id);
        sysinfo::set_open_files_limit(0);
        let mut sys = System::new();
        sys.refresh_processes_specifics(
            ProcessesToUpdate::Some(&[id]),
            true,
            ProcessRefreshKind::nothing()
                .without_tasks()
                .with_cmd(UpdateKind::Always),
        );
        sys.process(id).map_or_else(Vec::new, |p| {
            let args = p.cmd().iter().map(|a| a.as_bytes().to_vec());
            super::bounded(args, max_args, max_bytes)
        })
    }

    pub fn carrying(marker: &str) -> Vec<i32> {
        let sys = table(
            ProcessRefreshKind::nothing()
                .without_tasks()
                .with_environ(UpdateKind::Always),
        );
        let mut pids: Vec<i32> = sys
            .processes()
            .iter()
            .filter(|(_, p)| {
                p.environ()
                    .iter()
                    .any(|v| v.as_bytes() == marker.as_bytes())
            })
            .map(|(pid, _)| raw(pid))
            .collect();
        pids.sort_unstable();
        pids
    }
}

#[cfg(subreaper)]
mod procfs {
    use super::Entry;

    /// pid, state, ppid and pgrp from /proc/PID/stat.
    fn stat(pid: i32) -> Option<Entry> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name may hold spaces and parentheses; fields resume after the last ')'.
        let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
        let state = fields.next()?;
        let ppid = fields.next()?.parse().ok()?;
        let pgid = fields.next()?.parse().ok();
        Some(Entry {
            pid,
            ppid,
            pgid,
            live: state != "Z" && state != "X",
        })
    }

    pub fn entries() -> Vec<Entry> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.filter_map(|entry| stat(entry.ok()?.file_name().to_str()?.parse().ok()?))
            .collect()
    }

    pub fn command_line(pid: i32, max_args: usize, max_bytes: usize) -> Vec<String> {
        use std::io::Read;
        let mut raw = Vec::new();
        let limit = (max_args * max_bytes) as u64;
        if let Ok(f) = std::fs::File::open(format!("/proc/{pid}/cmdline")) {
            let _ = f.take(limit).read_to_end(&mut raw);
        }
        super::bounded(
            raw.split(|b| *b == 0).map(<[u8]>::to_vec),
            max_args,
            max_bytes,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tables_show_this_process_its_parent_group_and_arguments() {
        let me = std::process::id() as i32;
        let group = nix::unistd::getpgrp().as_raw();
        let parent = std::os::unix::process::parent_id() as i32;
        #[allow(unused_mut)] // Pushed to only where /proc is compiled in.
        let mut tables = vec![("portable", portable::entries())];
        #[cfg(subreaper)]
        tables.push(("procfs", procfs::entries()));
        for (name, table) in tables {
            let entry = table.iter().find(|e| e.pid == me).copied();
            assert_eq!(
                entry,
                Some(Entry {
                    pid: me,
                    ppid: parent,
                    pgid: Some(group),
                    live: true
                }),
                "{name}"
            );
        }
        let argv0 = std::env::args().next().expect("argv[0]");
        type Reader = fn(i32, usize, usize) -> Vec<String>;
        #[allow(unused_mut)] // Pushed to only where /proc is compiled in.
        let mut readers: Vec<(&str, Reader)> = vec![("portable", portable::command_line)];
        #[cfg(subreaper)]
        readers.push(("procfs", procfs::command_line));
        for (name, read) in readers {
            assert_eq!(read(me, 1, 4096), std::slice::from_ref(&argv0), "{name}");
        }
    }

    #[test]
    fn a_marked_environment_is_found_whoever_the_parent_is() {
        let marker = format!("MCPCHECK_TABLE_TEST={}", std::process::id());
        let (name, value) = marker.split_once('=').expect("marker");
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .env(name, value)
            .spawn()
            .expect("spawn sleep");
        let pid = child.id() as i32;
        // The table reads the environment once the child has exec'd.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut found = carrying(&marker);
        while !found.contains(&pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            found = carrying(&marker);
        }
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(found, [pid]);
    }
}
