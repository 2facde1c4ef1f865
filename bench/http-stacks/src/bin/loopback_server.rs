//! A loopback HTTP/1.1 server for the clients: keep-alive, one fixed JSON-RPC answer to
//! every POST. Prints its port, serves until killed (or `MAX_CONNECTIONS` connections).
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

const ANSWER: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1.0.0"}}}"#;
/// Bounded: a run never leaves a server behind for long.
const MAX_CONNECTIONS: usize = 100_000;

fn serve(stream: TcpStream) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{ANSWER}",
        ANSWER.len()
    );
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length.min(1 << 20)];
        reader.read_exact(&mut body)?;
        writer.write_all(response.as_bytes())?;
    }
}

fn main() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    println!("{}", listener.local_addr().expect("address").port());
    for stream in listener.incoming().take(MAX_CONNECTIONS) {
        let Ok(stream) = stream else { continue };
        std::thread::spawn(move || {
            let _ = serve(stream);
        });
    }
}
