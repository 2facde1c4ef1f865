//! Servers a test runs over HTTP: started in their own process group, waited for within a
//! bound, and stopped (SIGTERM, then SIGKILL) when the handle drops.

use super::guard::{parse, GuardResult};
use super::{fixture, mcpcheck, python_command};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a server may take to start on a loaded machine.
const START_LIMIT: Duration = Duration::from_secs(60);

pub struct HttpServer {
    child: Child,
    pub port: u16,
}

/// A port nothing listens on right now (the OS picked it; a race is possible but rare).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local addr").port()
}

fn spawn(mut cmd: Command) -> Child {
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the HTTP server")
}

impl HttpServer {
    /// A stdlib fixture of tests/fixtures/servers that prints its port on stdout.
    pub fn fixture(name: &str) -> Self {
        Self::fixture_with(name, &[])
    }

    /// A stdlib fixture with arguments.
    pub fn fixture_with(name: &str, args: &[&str]) -> Self {
        let mut cmd = Command::new(python_command());
        cmd.arg(fixture(name)).args(args);
        let mut child = spawn(cmd);
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let mut server = Self { child, port: 0 };
        let line = rx
            .recv_timeout(START_LIMIT)
            .unwrap_or_else(|_| panic!("{name} printed no port"));
        server.port = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}: port {line:?}"));
        server
    }

    /// A server told its port (`port` is substituted for `{port}` in the arguments); ready
    /// once it accepts a connection.
    pub fn command(program: &str, args: &[&str], port: u16) -> Self {
        let mut cmd = Command::new(program);
        cmd.args(args.iter().map(|a| a.replace("{port}", &port.to_string())));
        cmd.env("PORT", port.to_string());
        let server = Self {
            child: spawn(cmd),
            port,
        };
        let deadline = Instant::now() + START_LIMIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "{program} never listened on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let group = Pid::from_raw(self.child.id() as i32);
        let _ = killpg(group, Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                let _ = killpg(group, Signal::SIGKILL);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = killpg(group, Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// `mcpcheck guard --json --url URL OPTIONS...`, its report parsed and schema-checked.
pub fn guard_url(url: &str, options: &[&str]) -> GuardResult {
    let out = mcpcheck()
        .args(["guard", "--json", "--url", url])
        .args(options)
        .output()
        .expect("run mcpcheck");
    parse(out)
}
