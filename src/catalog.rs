//! Every finding code with its metadata, in one place. Listings, `explain`, JSON and
//! (later) SARIF rules and docs are generated from this table so they cannot drift.

use crate::finding::{IssueClass, Risk, Severity};
use serde::{Serialize, Serializer};

/// How often a finding of this code is right when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precision {
    VeryHigh,
    High,
    Medium,
    Low,
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::VeryHigh => "very-high",
            Precision::High => "high",
            Precision::Medium => "medium",
            Precision::Low => "low",
        }
    }
}

/// Metadata of one code.
#[derive(Debug)]
pub struct CodeMeta {
    pub code: &'static str,
    pub title: &'static str,
    pub class: IssueClass,
    pub severity: Severity,
    /// Why it matters and how to fix it.
    pub help: &'static str,
    pub precision: Precision,
    /// Security rules: their default risk and OWASP MCP Top 10 (2025 v0.1) category, e.g. "MCP01".
    pub risk: Option<Risk>,
    pub owasp: Option<&'static str>,
}

/// Builds the code table. Each entry:
/// `Variant => "code", Class, Severity, "title", "help" [, precision = P] [, risk = R, owasp = "MCPnn"];`
macro_rules! catalog {
    ($( $variant:ident => $code:literal, $class:ident, $severity:ident, $title:literal, $help:literal
        $(, precision = $precision:ident)? $(, risk = $risk:ident, owasp = $owasp:literal)? ; )+) => {
        /// A stable finding code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $( $variant, )+ }

        /// Every code, in catalog order.
        pub const ALL: &[Code] = &[ $( Code::$variant, )+ ];

        static META: &[CodeMeta] = &[ $( CodeMeta {
            code: $code,
            title: $title,
            class: IssueClass::$class,
            severity: Severity::$severity,
            help: $help,
            precision: catalog!(@precision $($precision)?),
            risk: catalog!(@risk $($risk)?),
            owasp: catalog!(@owasp $($owasp)?),
        }, )+ ];
    };
    (@precision) => { Precision::VeryHigh };
    (@precision $p:ident) => { Precision::$p };
    (@risk) => { None };
    (@risk $r:ident) => { Some(Risk::$r) };
    (@owasp) => { None };
    (@owasp $o:literal) => { Some($o) };
}

catalog! {
    // Process and runtime.
    SpawnFailed => "spawn-failed", InstallRuntime, Error,
        "The server command could not be started",
        "The command was not found, not executable, or its working directory is wrong. Check the command and its path, install the runtime it needs (node, python, uv…), and run it by hand to see the error.";
    ServerExited => "server-exited", InstallRuntime, Error,
        "The server exited before answering initialize",
        "A client starts the server and expects it to stay up until stdin closes. Read the server's stderr (shown in the report): a missing dependency, environment variable or configuration file is the usual cause.";
    InitializeTimeout => "initialize-timeout", InstallRuntime, Error,
        "The server did not answer initialize in time",
        "The server started but never answered initialize. Make sure it reads newline-delimited JSON-RPC on stdin and writes each answer to stdout followed by a newline, flushing at once (a Python server with block-buffered stdout hangs like this: use flush=True, python -u or PYTHONUNBUFFERED=1). If start-up is slow, raise --timeout.";
    OperationTimeout => "operation-timeout", InstallRuntime, Error,
        "A request was not answered in time",
        "Every request needs an answer within the client's timeout. Answer it, or return a JSON-RPC error; if the work is slow, report progress and raise --timeout.";
    OperationMissingResponse => "operation-missing-response", InstallRuntime, Error,
        "The server stopped before answering a request",
        "The server's stdout closed (it exited or crashed) while a request was waiting. Read its stderr for the crash and handle the request without exiting.";
    OperationError => "operation-error", InstallRuntime, Warning,
        "A request was answered with an error",
        "An explicitly requested method returned a JSON-RPC error. Check the method and parameters you passed, or fix the handler.";
    ServerCrashed => "server-crashed", InstallRuntime, Error,
        "The server exited during the session",
        "The server exited after initialize while the client still needed it. A stdio server must keep running until its stdin closes. Read its stderr for the crash.";
    ShutdownSlow => "shutdown-slow", InstallRuntime, Warning,
        "The server did not exit when its stdin closed",
        "The MCP stdio shutdown is: the client closes stdin and the server exits. This server needed a signal. Exit when stdin reaches end of file.";
    StderrOutputLimitExceeded => "stderr-output-limit-exceeded", InstallRuntime, Warning,
        "The server wrote more to stderr than the limit",
        "stderr is for logs and is never a protocol error, but this much output fills clients' log files and slows them. Lower the log level by default.";

    // stdio transport.
    StdoutNonJson => "stdout-non-json", StdioTransport, Error,
        "A line on stdout is not JSON",
        "On the stdio transport stdout carries only JSON-RPC messages, one per line. Anything else (banners, logs, print/console.log) breaks clients. Send logs to stderr.";
    StdoutEmptyLine => "stdout-empty-line", StdioTransport, Warning,
        "An empty line on stdout",
        "Each line on stdout must be one JSON-RPC message. Most clients skip empty lines, some fail on them. Do not write bare newlines.";
    StdoutContentLengthFraming => "stdout-content-length-framing", StdioTransport, Error,
        "The server frames messages with Content-Length headers",
        "MCP stdio uses newline-delimited JSON, not the LSP Content-Length framing. Write each message as one line of JSON followed by \\n.";
    StdoutWithoutNewline => "stdout-without-newline", StdioTransport, Error,
        "Output on stdout was not terminated by a newline",
        "Clients read a message when its newline arrives; without it they wait forever. End every message with \\n and flush.";
    StdoutLineTooLarge => "stdout-line-too-large", StdioTransport, Error,
        "A line on stdout is larger than the limit",
        "One message was larger than the line limit (--max-stdout-line-bytes). Clients have limits too: paginate large lists and keep descriptions short.";
    StdoutOutputLimitExceeded => "stdout-output-limit-exceeded", StdioTransport, Error,
        "The server wrote more to stdout than the limit",
        "The server wrote more than --max-stdout-bytes during a short session, which is a flood. Find what writes to stdout in a loop and send it to stderr.";
    StdoutInvalidUtf8 => "stdout-invalid-utf8", StdioTransport, Error,
        "A line on stdout is not valid UTF-8",
        "JSON-RPC messages are UTF-8 text. Write stdout in UTF-8 and never write raw binary to it.";
    StdoutCarriageReturn => "stdout-carriage-return", StdioTransport, Warning,
        "A line on stdout ends in \\r\\n",
        "Messages are delimited by \\n. Most clients tolerate a trailing \\r, strict ones do not. Write \\n only (on Windows, open stdout in binary mode).";

    // JSON-RPC.
    StdoutInvalidJsonRpc => "stdout-invalid-json-rpc", McpProtocol, Error,
        "A message on stdout is not valid JSON-RPC 2.0",
        "Every message needs \"jsonrpc\": \"2.0\"; a request a string method and a string or integer id; a response exactly one of result and error; an error an integer code and a string message. Batches are not part of current MCP versions.";
    ResponseIdMismatch => "response-id-mismatch", McpProtocol, Error,
        "A response answers an id the client never sent",
        "A response must carry the id of the request it answers, once. Echo the request's id back unchanged.";
    ResponseIdTypeMismatch => "response-id-type-mismatch", McpProtocol, Error,
        "A response id has another type than the request id",
        "The id must come back with its JSON type: 1 is not \"1\". Strict clients never match such a response and time out. Echo the id unchanged.";
    NotificationResponse => "notification-response", McpProtocol, Error,
        "The server replied to a notification",
        "Notifications (such as notifications/initialized) have no id and must never be answered, not even with an error. Handle them without replying.";

    // initialize.
    InitializeError => "initialize-error", McpProtocol, Error,
        "initialize was answered with an error",
        "The server refused the handshake, so no client can use it. Accept the initialize request (see the error message) and answer with a result.";
    InitializeInvalidResult => "initialize-invalid-result", McpProtocol, Error,
        "The initialize result is not an object",
        "initialize must return an object with protocolVersion, capabilities and serverInfo.";
    InitializeMissingProtocolVersion => "initialize-missing-protocol-version", McpProtocol, Error,
        "The initialize result has no protocolVersion",
        "The server must say which protocol version it speaks: the client's version if it supports it, otherwise its own latest.";
    InitializeInvalidProtocolVersion => "initialize-invalid-protocol-version", McpProtocol, Error,
        "The negotiated protocol version is not a real MCP version",
        "protocolVersion must be a published MCP revision (such as 2025-11-25): the client's version if the server supports it, or another real version it does support.";
    InitializeMissingCapabilities => "initialize-missing-capabilities", McpProtocol, Error,
        "The initialize result has no capabilities",
        "The server must declare its capabilities (an object, possibly empty) so the client knows what to call.";
    InitializeInvalidCapabilities => "initialize-invalid-capabilities", McpProtocol, Error,
        "The initialize capabilities are malformed",
        "capabilities must be an object whose entries (tools, prompts, resources, logging, completions…) are objects.";
    InitializeMissingServerInfo => "initialize-missing-server-info", McpProtocol, Warning,
        "The initialize result has no serverInfo",
        "serverInfo (name and version) is required by the schema and shown by clients. Add it.";
    InitializeInvalidServerInfo => "initialize-invalid-server-info", McpProtocol, Warning,
        "The initialize serverInfo is malformed",
        "serverInfo must be an object with a string name and a string version.";

    // Capabilities.
    CapabilityListUnsupported => "capability-list-unsupported", McpProtocol, Error,
        "An advertised list method is not implemented",
        "The server advertises a capability but answers its list method with method-not-found. Implement the method or stop advertising the capability.";
    CapabilityListError => "capability-list-error", McpProtocol, Error,
        "An advertised list method fails",
        "The list method of an advertised capability returned an error. A client calls it right after connecting; it must succeed.";
    CapabilityListTimeout => "capability-list-timeout", McpProtocol, Error,
        "An advertised list method did not answer in time",
        "The list method of an advertised capability was not answered before the timeout. Answer it promptly (list from memory, not from a slow backend).";
    CapabilityListMissingResponse => "capability-list-missing-response", InstallRuntime, Error,
        "The server stopped before answering a list method",
        "The server's stdout closed while a list request of an advertised capability was waiting. Read its stderr for the crash.";
    CapabilityListInvalidResult => "capability-list-invalid-result", McpProtocol, Error,
        "A list result is malformed",
        "A list result must hold its items in an array (tools, prompts, resources, resourceTemplates) and, if paginated, a string nextCursor that eventually ends.";

    // Tool schemas.
    ToolNameDuplicate => "tool-name-duplicate", McpProtocol, Error,
        "Two tools share a name",
        "Clients call tools by name; duplicates make one of them unreachable. Give every tool a unique name.";
    ToolNameInvalid => "tool-name-invalid", McpProtocol, Error,
        "A tool name is missing or malformed",
        "A tool needs a non-empty string name. Names should be 1–128 characters of A–Z, a–z, 0–9, _, - and . (MCP 2025-11-25 naming guidance); other characters break some clients.";
    ToolInputSchemaInvalid => "tool-input-schema-invalid", McpProtocol, Error,
        "A tool's inputSchema is invalid",
        "inputSchema must be a JSON Schema object whose root type is \"object\" and which is valid for its dialect (2020-12 unless $schema says otherwise). Clients and models use it to build arguments.";
    ToolInputSchemaRequiredMissing => "tool-input-schema-required-missing", McpProtocol, Error,
        "A required property is not defined",
        "Every name in inputSchema.required must be a key of inputSchema.properties, or no client can know what to send.";
    ToolOutputSchemaInvalid => "tool-output-schema-invalid", McpProtocol, Error,
        "A tool's outputSchema is invalid",
        "outputSchema must be a JSON Schema object with root type \"object\" that is valid for its dialect; clients validate structuredContent against it.";
    ToolDescriptionMissing => "tool-description-missing", McpProtocol, Warning,
        "A tool has no description",
        "Models choose tools by their description. Describe what the tool does and when to use it.";

    // Source scan (src/source/).
    StaticStdoutWrite => "static-stdout-write", StaticSource, Warning,
        "Source code writes to stdout",
        "On the stdio transport stdout carries only the server's JSON-RPC messages, one per line. A print, console.log, fmt.Println or println! there corrupts the channel and the client fails or drops the session. Write logs and diagnostics to stderr (print(..., file=sys.stderr), console.error, fmt.Fprintln(os.Stderr, ...), eprintln!), which clients keep as the server's log.",
        precision = High;
    StaticStdoutLogger => "static-stdout-logger", StaticSource, Warning,
        "A logger or console is configured to write to stdout",
        "This logger writes to stdout, by default or by its configuration, so every log record lands on the stdio transport's JSON-RPC channel. Point it at stderr (pino.destination(2), StreamHandler(sys.stderr), log.SetOutput(os.Stderr), .with_writer(std::io::stderr), System.err).",
        precision = High;
}

impl Code {
    pub fn meta(self) -> &'static CodeMeta {
        &META[self as usize]
    }

    pub fn as_str(self) -> &'static str {
        self.meta().code
    }

    pub fn from_name(name: &str) -> Option<Code> {
        ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_kebab_case_and_indexed_in_order() {
        let mut seen = HashSet::new();
        for (i, code) in ALL.iter().enumerate() {
            assert_eq!(*code as usize, i);
            let name = code.as_str();
            assert!(seen.insert(name), "duplicate code {name}");
            assert!(name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            assert_eq!(Code::from_name(name), Some(*code));
            assert!(!code.meta().help.is_empty() && !code.meta().title.is_empty());
        }
    }
}
