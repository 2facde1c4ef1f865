//! Processes a test started: is a pid still alive, and did every recorded pid go away.

use std::path::Path;
use std::time::{Duration, Instant};

/// True while a pid names a live (non-zombie) process, as the process table (`ps`, on
/// Linux and macOS alike) shows it.
pub fn alive(pid: u32) -> bool {
    let out = std::process::Command::new("ps")
        .args(["-o", "stat=", "-p", &pid.to_string()])
        .output()
        .expect("run ps");
    let state = String::from_utf8_lossy(&out.stdout);
    let state = state.trim();
    !state.is_empty() && !state.starts_with('Z')
}

/// Waits up to `limit` for every pid in a pid file to be gone; returns those still alive.
pub fn survivors(pid_file: &Path, limit: Duration) -> Vec<u32> {
    let pids: Vec<u32> = std::fs::read_to_string(pid_file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert!(!pids.is_empty(), "the fixture recorded no pid");
    let deadline = Instant::now() + limit;
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|p| alive(*p)).collect();
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
