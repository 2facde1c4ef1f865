//! The rust-rmcp driver of scripts/client-impact: drives one session as a host does
//! (connect, tools/list, prompts/list and resources/list where advertised, call the first
//! tool, close) and prints one JSON object on stdout. Progress lines come before it.
//!
//! Usage: client-impact-rmcp --stdio PROGRAM ARGS... | --url URL

use std::sync::Mutex;

use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

/// What the client logged at warn or error while no step failed.
static REPORTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// One line of at most 200 characters, type paths shortened to their last segment
/// (`rmcp::transport::worker::WorkerTransport` to `WorkerTransport`).
fn excerpt(text: &str) -> String {
    let mut line = String::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
            continue;
        }
        line.push_str(word.rsplit("::").next().unwrap_or(&word));
        word.clear();
        line.push(if c.is_control() { ' ' } else { c });
    }
    line.trim_end().chars().take(200).collect()
}

/// The error, led by its innermost cause when there is one (the excerpt keeps 200 characters,
/// and the outer messages name rmcp's own types first).
fn chain(error: &dyn std::error::Error) -> String {
    let mut root = error.source();
    while let Some(next) = root.and_then(|e| e.source()) {
        root = Some(next);
    }
    match root {
        Some(cause) => format!("cause: {cause}; {error}"),
        None => error.to_string(),
    }
}

struct Reported;

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}{}", self.0);
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Reported {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let level = *event.metadata().level();
        if level > tracing::Level::WARN {
            return;
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        let text = format!("{level}: {}", message.0);
        eprintln!("{text}");
        if let Ok(mut reported) = REPORTED.lock() {
            reported.push(excerpt(&text));
        }
    }
}

struct Steps {
    steps: Vec<Value>,
}

impl Steps {
    fn start(&self, step: &str) {
        println!("{}", json!({ "progress": step }));
    }
    fn ok(&mut self, step: &str) {
        self.steps.push(json!({"step": step, "ok": true}));
    }
    fn failed(&mut self, step: &str, error: String) {
        self.steps
            .push(json!({"step": step, "ok": false, "error": excerpt(&error)}));
    }
}

/// A value of each required property's type, as a host filling a form would.
fn arguments(schema: &JsonObject) -> JsonObject {
    let mut args = JsonObject::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = properties
            .and_then(|p| p.get(name))
            .and_then(|p| p.get("type"));
        let kind = match kind {
            Some(Value::Array(kinds)) => kinds.first().and_then(Value::as_str),
            Some(other) => other.as_str(),
            None => None,
        };
        let value = match kind {
            Some("number") | Some("integer") => json!(1),
            Some("boolean") => json!(true),
            Some("object") => json!({}),
            Some("array") => json!([]),
            _ => json!("x"),
        };
        args.insert(name.to_string(), value);
    }
    args
}

async fn session(service: &RunningService<RoleClient, ()>, steps: &mut Steps) -> Result<(), ()> {
    let capabilities = service.peer_info().map(|info| info.capabilities.clone());
    steps.start("tools/list");
    let tools = match service.list_tools(None).await {
        Ok(result) => {
            steps.ok("tools/list");
            result.tools
        }
        Err(e) => {
            steps.failed("tools/list", format!("ServiceError: {}", chain(&e)));
            return Err(());
        }
    };
    if capabilities.as_ref().is_some_and(|c| c.prompts.is_some()) {
        steps.start("prompts/list");
        match service.list_prompts(None).await {
            Ok(_) => steps.ok("prompts/list"),
            Err(e) => {
                steps.failed("prompts/list", format!("ServiceError: {}", chain(&e)));
                return Err(());
            }
        }
    }
    if capabilities.as_ref().is_some_and(|c| c.resources.is_some()) {
        steps.start("resources/list");
        match service.list_resources(None).await {
            Ok(_) => steps.ok("resources/list"),
            Err(e) => {
                steps.failed("resources/list", format!("ServiceError: {}", chain(&e)));
                return Err(());
            }
        }
    }
    if let Some(tool) = tools.first() {
        steps.start("tools/call");
        let params = CallToolRequestParams::new(tool.name.clone())
            .with_arguments(arguments(&tool.input_schema));
        match service.call_tool(params).await {
            Ok(_) => steps.ok("tools/call"),
            Err(e) => {
                steps.failed("tools/call", format!("ServiceError: {}", chain(&e)));
                return Err(());
            }
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() {
    let subscriber = tracing_subscriber::registry().with(Reported);
    let _ = tracing::subscriber::set_global_default(subscriber);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut steps = Steps { steps: Vec::new() };
    steps.start("connect");
    let connected = match args.first().map(String::as_str) {
        Some("--stdio") if args.len() > 1 => {
            let mut command = tokio::process::Command::new(&args[1]);
            command.args(&args[2..]);
            match TokioChildProcess::builder(command)
                .stderr(std::process::Stdio::null())
                .spawn()
            {
                Ok((transport, _)) => ().serve(transport).await,
                Err(e) => {
                    steps.failed("connect", format!("io::Error: {e}"));
                    finish(steps, false);
                    return;
                }
            }
        }
        Some("--url") if args.len() == 2 => {
            ().serve(StreamableHttpClientTransport::from_uri(args[1].clone()))
                .await
        }
        _ => {
            eprintln!("usage: client-impact-rmcp --stdio PROGRAM ARGS... | --url URL");
            std::process::exit(2);
        }
    };
    let mut service = match connected {
        Ok(service) => {
            steps.ok("connect");
            service
        }
        Err(e) => {
            let closed = matches!(e, rmcp::service::ClientInitializeError::ConnectionClosed(_));
            // TransportError names no source, so its transport's error is walked here.
            let text = match &e {
                rmcp::service::ClientInitializeError::TransportError { error, context } => {
                    format!("{}, when {context}", chain(error))
                }
                other => chain(other),
            };
            steps.failed("connect", format!("ClientInitializeError: {text}"));
            finish(steps, closed);
            return;
        }
    };
    let completed = session(&service, &mut steps).await.is_ok();
    let closed = service.is_closed() || service.peer().is_transport_closed();
    if completed {
        steps.start("close");
    }
    let _ = service.close().await;
    if completed {
        steps.ok("close");
    }
    finish(steps, closed);
}

fn finish(steps: Steps, closed: bool) {
    let reported = REPORTED.lock().map(|r| r.clone()).unwrap_or_default();
    println!(
        "{}",
        json!({"steps": steps.steps, "reported": reported, "closed": closed})
    );
    // The child process is killed on drop by a spawned task; leave without waiting for it.
    std::process::exit(0);
}
