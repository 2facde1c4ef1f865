//! Every finding code with its metadata, in one place. `rules`, `explain`, the JSON
//! reports, SARIF rules, docs/rules and the README's code table are generated from this
//! table, so they cannot drift.

use crate::finding::{IssueClass, Risk, Severity};

pub mod clients;
mod meta;
pub use meta::{CodeMeta, Precision};

/// Builds the code table. Each entry:
/// `Variant => "code", Class, Severity, "title", "help" [, precision = P] [, risk = R, owasp = "MCPnn"]
/// [, rationale = "why the rule is as it is"];`
macro_rules! catalog {
    ($( $variant:ident => $code:literal, $class:ident, $severity:ident, $title:literal, $help:literal
        $(, precision = $precision:ident)? $(, risk = $risk:ident, owasp = $owasp:literal)?
        $(, rationale = $rationale:literal)? ; )+) => {
        /// A stable finding code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $( $variant, )+ }

        /// Every code, in catalog order.
        pub const ALL: &[Code] = &[ $( Code::$variant, )+ ];

        static META: &[CodeMeta] = &[ $( CodeMeta {
            code: $code,
            title: $title,
            class: IssueClass::$class,
            declared_severity: Severity::$severity,
            help: $help,
            precision: catalog!(@precision $($precision)?),
            risk: catalog!(@risk $($risk)?),
            owasp: catalog!(@owasp $($owasp)?),
            rationale: catalog!(@rationale $($rationale)?),
        }, )+ ];
    };
    (@precision) => { Precision::VeryHigh };
    (@precision $p:ident) => { Precision::$p };
    (@risk) => { None };
    (@risk $r:ident) => { Some(Risk::$r) };
    (@owasp) => { None };
    (@owasp $o:literal) => { Some($o) };
    (@rationale) => { None };
    (@rationale $r:literal) => { Some($r) };
}

catalog! {
    // Process and runtime.
    SpawnFailed => "spawn-failed", InstallRuntime, Error,
        "The server command could not be started",
        "The command was not found, not executable, or its working directory is wrong. Check the command and its path, install the runtime it needs (node, python, uv…), and run it by hand to see the error.";
    InstallPackageMissing => "install-package-missing", InstallRuntime, Error,
        "The package or version is not on its registry",
        "A sweep installs a registry entry's package exactly as a client's runtime would (npm for npx, uv for uvx) before it starts the server, and the guard reads what npx, npm exec or uvx said when the server it fetches never started; the registry answered that this package, or this version of it, does not exist (npm E404 or ETARGET, PyPI no matching distribution). No client can install it either. Publish the version the entry names, or correct the identifier or version in server.json or the command. When what the registry lacks is one of the package's dependencies (detail code dependency: the package is there, its pinned requirement is not), the finding names that requirement and is class environment, not the package's fault as far as can be told here.";
    InstallNoExecutable => "install-no-executable", InstallRuntime, Error,
        "The package provides no executable to start",
        "The package installed, but has no executable a client's runtime would run: an npm package without \"bin\" (or with several and none named as the package: npx says it could not determine the executable to run), a PyPI package without a console script named as the package (what uvx runs). Add the entry point, or name the executable in the entry's runtime arguments or the command (npx --package NAME BIN, uvx --from NAME BIN).";
    InstallRuntimeTooOld => "install-runtime-too-old", InstallRuntime, Error,
        "The package needs a newer runtime than the one here",
        "The package declares a runtime newer than the one the sweep or the guard ran with (PyPI requires-python, npm engines): clients with that runtime cannot install it. Either widen the requirement, or run the check with the newer runtime on PATH and say which runtime the server needs in its documentation.";
    InstallTimeout => "install-timeout", InstallRuntime, Error,
        "Installing the package took longer than --install-timeout",
        "The install phase has its own deadline so that a slow install is never reported as a server that does not answer. Raise --install-timeout for a cold cache or a package that builds native code, or check the registry's reachability from where the sweep runs.";
    InstallFailed => "install-failed", InstallRuntime, Error,
        "The package could not be installed",
        "The installer failed for another reason than a missing package, executable or runtime: the decisive line of its output is the evidence. A missing installer (npm, uv) is reported here too: install it where the sweep runs.";
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
        "The server exited after initialize with a non-zero status or a signal: it crashed. A server may end the session itself by closing stdout and exiting cleanly (code 0, reported as server-ended-session), but a crash loses the client's work. Read its stderr for the cause.";
    ServerEndedSession => "server-ended-session", InstallRuntime, Error,
        "The server ended the session early",
        "The server exited cleanly (code 0) after initialize, before the client closed its stdin. The spec lets a server end the session by closing stdout and exiting, so this is not a crash; but no client survives it: the host's next request finds the session closed, and the server must be started again. Requests it left unanswered are reported on their own. Keep serving until stdin closes.";
    ShutdownSlow => "shutdown-slow", InstallRuntime, Warning,
        "The server did not exit when its stdin closed",
        "The MCP stdio shutdown is: the client closes stdin and the server exits. This server needed a signal. Exit when stdin reaches end of file.";
    ProcessEscapedGroup => "process-escaped-group", InstallRuntime, Warning,
        "A process the server started escaped its process group with a stream",
        "A child of the server called setsid() (or setpgid()) and so left the server's process group, but kept the server's stdin, stdout or stderr. Clients stop a server by signalling its process group, so such a process survives them: it keeps the pipe open (a client reading stdout never sees the end), can write onto the JSON-RPC channel of a session that is over, and is a process nobody tracks. The guard finds it through /proc, names it (pid and command line, secrets masked) and kills it. Keep helpers in the server's group, or close the inherited streams in a daemon (redirect them to /dev/null) before it detaches.";
    ProcessLeftRunning => "process-left-running", InstallRuntime, Warning,
        "A process the server started was still running after the server exited",
        "A child of the server detached (a double fork and setsid(), or setpgid()) and was still running after the server exited on stdin close. Clients stop a server by closing its stdin and signalling its process group, which this process left, so under a real client it keeps running after every session: one more per session, until the machine restarts. The guard finds it (as a child subreaper on Linux; through a variable its processes inherit on the portable backend, which says not checked where it cannot be sure), names it (pid and command line, secrets masked) and says how long it outlived the server, then kills it. Stop such helpers when stdin closes, or keep them in the server's group so that they end with it.";
    StderrOutputLimitExceeded => "stderr-output-limit-exceeded", InstallRuntime, Note,
        "The report keeps only the tail of a large stderr",
        "The server wrote more to stderr than --max-stderr-bytes (default 1 MiB). That is not a fault: stderr is the channel the spec gives logs, and chatty start-up logging is normal. The guard drained and counted all of it, and the report keeps the last 16 KiB; this note says the rest was left out. A sustained flood far past this is stderr-flood.";
    StderrFlood => "stderr-flood", InstallRuntime, Warning,
        "The server flooded stderr",
        "The server wrote more than --stderr-flood-bytes (default 64 MiB) to stderr in one short session. Logging to stderr is right, but at this volume (hundreds of thousands of log lines before the first tool call) a client must drain it for as long as the session lasts, and clients that keep or render server logs slow down or fill the disk. The threshold is 64 times the note's so that ordinary chatty start-up logging (a few MB) never trips it. Lower the default log level, or log to a file.";

    // stdio transport.
    StdoutNonJson => "stdout-non-json", StdioTransport, Error,
        "A line on stdout is not JSON",
        "On the stdio transport stdout carries only JSON-RPC messages, one per line. Anything else (banners, logs, print/console.log) is not a message: clients report such a line and drop it, and a message written across lines or behind other bytes is lost with it, so the client waits for an answer that never comes. Send logs to stderr.",
        rationale = "An error although the official clients drop a stray log line and go on: the same fault loses messages (a reply pretty-printed across lines, a byte-order mark before one), and then every client waits at connect until it gives up, and a server that writes to stdout cannot tell which of its writes will land next to a message.";
    StdoutJsonBeyondParserLimits => "stdout-json-beyond-parser-limits", StdioTransport, Warning,
        "A line on stdout is JSON that parsers refuse",
        "The line is JSON syntax, but past a limit JSON parsers keep: arrays or objects nested deeper than 127 levels (serde_json, which Rust clients use, reads at most 127, Python's json about 1,000), or a number outside what a 64-bit float holds (1e400), which strict parsers refuse and JavaScript and Python read as Infinity. A client that refuses the line drops the message. Keep messages shallow and numbers within range (ids within 64 bits, or strings).";
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
        "A line on stdout is larger than the hard cap",
        "One line grew past the hard cap (--max-stdout-line-bytes, default 16 MiB) without a newline, so the guard stopped reading (the cap also bounds its memory). The official TypeScript and Python SDK clients read newline-delimited messages with no line limit, but a message this size is a list that should be paginated or a runaway write. Paginate large lists and keep descriptions and schemas short.";
    StdoutLineLarge => "stdout-line-large", StdioTransport, Warning,
        "A line on stdout is larger than some clients accept",
        "A message was longer than 256 KiB. The guard parsed and judged it like any other (up to the 16 MiB hard cap, --max-stdout-line-bytes), and the official TypeScript and Python SDK clients read it; but clients that read lines into a fixed buffer refuse it (Go's bufio.Scanner stops at 64 KiB unless raised; other line readers cap at 256 KiB or 1 MiB). Servers with hundreds of tools or large schemas produce such lines: paginate tools/list (nextCursor) and keep schemas small.";
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
    ResponseIdMismatch => "response-id-mismatch", McpProtocol, Warning,
        "A response answers an id the client never sent",
        "A response must carry the id of the request it answers, once. Echo the request's id back unchanged.";
    ResponseIdTypeMismatch => "response-id-type-mismatch", McpProtocol, Error,
        "A response id has another type than the request id",
        "The id must come back with its JSON type: 1 is not \"1\". Strict clients never match such a response and time out. Echo the id unchanged.";
    RequestInsteadOfResponse => "request-instead-of-response", McpProtocol, Error,
        "The server sent a request with the id of the client's request instead of answering it",
        "While the client waited for the answer to its request, the server sent a request of its own with that id and a method only servers serve (its own initialize, tools/list…): it took the client's request for its own, or mirrored it back, and never answers it. The guard stops waiting there, as the answer cannot come. Answer each request with a response carrying its id (result or error); send your own requests only with methods a client serves (ping, sampling/createMessage, roots/list, elicitation/create).";
    NotificationResponse => "notification-response", McpProtocol, Warning,
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
    InitializeMissingServerInfo => "initialize-missing-server-info", McpProtocol, Error,
        "The initialize result has no serverInfo",
        "serverInfo (name and version) is required by the schema; the official SDK clients validate the initialize result and refuse to connect without it. Add it.";
    InitializeInvalidServerInfo => "initialize-invalid-server-info", McpProtocol, Error,
        "The initialize serverInfo is malformed",
        "serverInfo must be an object with a string name and a string version; the official SDK clients validate the initialize result and refuse to connect otherwise.";
    ServerRequestBeforeInitialized => "server-request-before-initialized", McpProtocol, Warning,
        "The server sent a request before the session was initialized",
        "The lifecycle lets a server send only pings (and log notifications) before the client's notifications/initialized. A request such as sampling/createMessage or roots/list sent earlier reaches a client that has not finished negotiating capabilities, and many refuse it. Wait for notifications/initialized before asking the client anything.";

    ServerRequestUndeclaredCapability => "server-request-undeclared-capability", McpProtocol, Warning,
        "The server asked for a client capability the client never declared",
        "sampling/createMessage needs the client's sampling capability, roots/list its roots, elicitation/create its elicitation, tasks/* its tasks. The lifecycle lets each side use only what was negotiated (a MUST from 2025-03-26 on, a SHOULD under 2024-11-05). A client without the capability answers -32601, and the server's feature silently does nothing. Check the client's capabilities from initialize before sending such a request. The guard declares no client capabilities, so it reports every such request; the proxy judges against what the real client declared. The finding names the method and how often it was sent.";
    ServerMessageFlood => "server-message-flood", McpProtocol, Warning,
        "The server flooded the client with notifications or requests",
        "The server sent more than 1,000 notifications or requests of one method within one second. A client shows or acts on a few progress, log or list_changed messages a second; it must still read, parse and dispatch every one, which delays the answers it waits for, and clients that keep or render them slow down or run out of memory. Real servers stay far below this (busy ones send tens a second). The finding names the method, how many were sent in all and the most within one second. Throttle progress and log notifications, coalesce list_changed, and never send requests in a loop.";
    DiscoverError => "discover-error", McpProtocol, Error,
        "server/discover failed under 2026-07-28",
        "The 2026-07-28 revision has no initialize: clients call server/discover and send the version in every request's _meta. A server that speaks it must implement server/discover; one that does not support the version must answer -32022 with data.supported.";
    DiscoverInvalidResult => "discover-invalid-result", McpProtocol, Error,
        "The server/discover result is unusable",
        "server/discover must return supportedVersions (listing the version it just served) and a capabilities object, so clients can choose a version and know what to call.";

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
    ToolDescriptionMissing => "tool-description-missing", McpProtocol, Note,
        "A tool has no description",
        "Models choose tools by their description. Describe what the tool does and when to use it. A note, not a warning: `description` is optional in every revision of the schema (`Tool.description?: string`), and clients list and call such a tool without complaint.";

    // Guard depth: repeat runs, Python buffering, tool calls.
    RepeatProtocolDrift => "repeat-protocol-drift", McpProtocol, Warning,
        "Another run negotiated another protocol version",
        "Runs of the same server with the same client must negotiate the same version. Make version negotiation deterministic.";
    RepeatCapabilityDrift => "repeat-capability-drift", McpProtocol, Warning,
        "Another run advertised other capabilities",
        "Clients cache what a server advertises. Advertise the same capabilities on every start, or announce changes with list_changed notifications.";
    RepeatToolDrift => "repeat-tool-drift", McpProtocol, Warning,
        "Another run listed other tools",
        "Tools that appear, vanish or change between starts confuse clients and can hide a rug pull. Keep the tool list stable, and pin what users approved.";
    RepeatListShapeDrift => "repeat-list-shape-drift", McpProtocol, Warning,
        "Another run listed a different number of prompts or resources",
        "The prompts, resources or templates a server lists should not change between identical starts. Check for start-up races or state leaking between runs.";
    PythonBufferedStdio => "python-buffered-stdio", StdioTransport, Error,
        "Python block-buffered stdout: answers are never flushed",
        "When stdout is a pipe, Python buffers it in blocks, so answers sit in the buffer and the client times out. An error when the guard proved it: initialize timed out, a rerun with PYTHONUNBUFFERED=1 answered and a control run with buffering on hung again. A note when it is only suspected: the command runs a Python interpreter without -u and without PYTHONUNBUFFERED, a request after initialize timed out and none after initialize was answered (a server that answered one flushed, and gets nothing). Flush after every message (print(..., flush=True)), or run with python -u or PYTHONUNBUFFERED=1.";
    ToolCallError => "tool-call-error", McpProtocol, Warning,
        "A declared-safe tool call returned isError",
        "A tool call from safeToolCalls returned a result with isError: true. That is a tool-level failure, not a crash; check the recipe's arguments or the tool.";
    ToolStructuredContentInvalid => "tool-structured-content-invalid", McpProtocol, Error,
        "A tool result does not match the tool's outputSchema",
        "A tool that declares an outputSchema must return structuredContent that validates against it. Clients validate it and reject the result otherwise.";

    // Protocol version matrix.
    ProtocolVersionMismatch => "protocol-version-mismatch", McpProtocol, Error,
        "A supported version was answered with another one",
        "When a client asks for a version the server supports, the server must answer with that same version. Answering another one forces clients onto a version they did not choose.";
    ProtocolBogusVersion => "protocol-bogus-version", McpProtocol, Warning,
        "An unknown version was not negotiated properly",
        "Asked for a version it does not know, a server answers initialize with a version it supports (legacy) or -32022 with data.supported (2026-07-28). A structured error is a warning; echoing the unknown version back, crashing or hanging is an error.";
    ProtocolVersionNotHonoured => "protocol-version-not-honoured", McpProtocol, Error,
        "The server does not follow the version it negotiated",
        "A server that negotiates a version must send messages that match that version's schema. Emit the shapes of the version you agreed on.";

    // Adversarial probes (opt-in).
    AdversarialInvalidMethodResult => "adversarial-invalid-method-result", McpProtocol, Warning,
        "An unknown method did not get error -32601",
        "A request for a method the server does not have must be answered with a JSON-RPC error -32601 (method not found), so clients can tell a missing feature from a failure.";
    AdversarialInvalidParamsResult => "adversarial-invalid-params-result", McpProtocol, Warning,
        "Params of the wrong shape were accepted",
        "A request whose params have the wrong types must get an error (-32602, invalid params, preferred), not a successful result. Validate params against what the method expects.";
    AdversarialNotificationResult => "adversarial-notification-result", McpProtocol, Error,
        "An unknown notification was answered",
        "Notifications never get a reply, even ones the server does not know. Ignore unknown notifications.";
    AdversarialMalformedJsonResult => "adversarial-malformed-json-result", McpProtocol, Warning,
        "A malformed line was answered with a result",
        "A line that is not valid JSON gets a -32700 parse error (with a null id) or is ignored; never a result.";
    AdversarialUnknownCancelResult => "adversarial-unknown-cancel-result", McpProtocol, Error,
        "A cancellation for an unknown request was answered",
        "notifications/cancelled naming an id the server does not know must be ignored: it may refer to a request that already finished.";
    AdversarialPingBeforeInitializeResult => "adversarial-ping-before-initialize-result", McpProtocol, Note,
        "What the server does with a ping before initialize",
        "Reported only. The specification allows ping at any time; servers differ in whether they answer before initialize.";
    AdversarialBogusVersionResult => "adversarial-bogus-version-result", McpProtocol, Warning,
        "A request for an unknown protocol version was refused",
        "When a client asks for a version the server does not support, the server answers initialize with a version it does support and lets the client decide. A structured error is a warning; a crash or hang is an error.";
    AdversarialDuplicateIdResult => "adversarial-duplicate-id-result", McpProtocol, Note,
        "What the server does with two requests sharing an id",
        "Reported only. Clients must not reuse an id while a request is in flight; how a server copes says something about its robustness.";
    AdversarialToolCallResult => "adversarial-tool-call-result", McpProtocol, Warning,
        "A tool accepted arguments that do not match its schema",
        "A tool called with arguments that break its inputSchema must return a tool error (isError: true) or -32602, never succeed silently.";
    AdversarialProbeCrash => "adversarial-probe-crash", McpProtocol, Error,
        "Bad input crashed the server",
        "A server must survive malformed or unexpected input and answer with an error. Catch exceptions per message.";
    AdversarialProbeTimeout => "adversarial-probe-timeout", McpProtocol, Error,
        "Bad input left a request unanswered",
        "After unexpected input the server stopped answering (or never answered the probe). Every request needs an answer, an error at least.";
    AdversarialProbeInvalidStdout => "adversarial-probe-invalid-stdout", McpProtocol, Error,
        "Bad input made the server write garbage to stdout",
        "Error handling printed something that is not JSON-RPC to stdout (a stack trace, a log line). Send diagnostics to stderr.";

    // Proxy.
    SessionSurfaceDrift => "session-surface-drift", Security, Warning,
        "A listing changed during the session",
        "The server's tools, prompts or resources changed since the first listing of the session. A legitimate update announces itself with list_changed, but a tool whose description or schema changes after the user approved it is a rug pull. Review what changed; pin approved definitions.", precision = Medium, risk = Medium, owasp = "MCP03";
    ProxyChecksIncomplete => "proxy-checks-incomplete", StdioTransport, Warning,
        "Part of the session was forwarded unchecked",
        "The proxy never makes the client wait for its checks: when traffic arrives faster than it can be checked and more than the backlog (--check-backlog, 16 MiB by default) is waiting, the rest is forwarded untouched and unchecked until the checks catch up. Findings about those messages may be missing, and a server can hide a change in such a flood. The finding gives how many bytes went unchecked in each direction. Raise --check-backlog, or check the server with `mcpcheck guard`, which reads everything.";

    // Streamable HTTP (guard --url).
    HttpUnreachable => "http-unreachable", InstallRuntime, Error,
        "The remote server gave no HTTP answer",
        "The guard could not connect to the URL, or the server sent no answer within --timeout (connection refused, unknown host, reset, timeout). Check the URL, that the server is listening, and any proxy or firewall between; run it by hand with curl to see the error.";
    HttpTlsInvalid => "http-tls-invalid", InstallRuntime, Error,
        "The server's TLS certificate could not be verified",
        "The HTTPS handshake failed: the certificate is expired, self-signed, for another name, or signed by a CA the system does not trust. Clients refuse such a server, and a client that does not is open to interception. Serve a valid certificate for the host; behind a corporate CA, set SSL_CERT_FILE to its bundle.";
    HttpErrorStatus => "http-error-status", McpProtocol, Error,
        "A request was answered with an HTTP error and no JSON-RPC answer",
        "The server answered a JSON-RPC request with a status outside 2xx and no JSON-RPC error in the body, so a client learns nothing it can act on. Answer requests with 200 (a JSON body or an event stream); when refusing one, send a JSON-RPC error object in the body.";
    HttpContentType => "http-content-type", McpProtocol, Error,
        "An answer is neither application/json nor text/event-stream",
        "Streamable HTTP answers a request with Content-Type application/json (one JSON-RPC response) or text/event-stream (events carrying JSON-RPC messages). Another or a missing Content-Type makes SDK clients reject the answer. Set the header to match the body.";
    HttpBodyInvalid => "http-body-invalid", McpProtocol, Error,
        "A JSON answer is not exactly one JSON-RPC response",
        "An application/json answer to a request must hold one JSON-RPC response object. The body was not JSON (detail not-json) or held something else: a batch, a request or a notification (detail not-one-response). Send exactly the response, or use an event stream when other messages must come first.";
    HttpSseMalformed => "http-sse-malformed", McpProtocol, Error,
        "An event stream breaks the SSE format or carries something that is not JSON",
        "A text/event-stream answer is a sequence of `field: value` lines (data, event, id, retry, or a `:` comment) with blank lines between events, and each data payload is one JSON-RPC message. The detail says what broke: malformed-line, data-not-json, too-large (an event past --max-stdout-line-bytes) or too-many-events (more than 1000). Use the SDK's SSE writer rather than hand-written framing.";
    HttpResponseMissing => "http-response-missing", McpProtocol, Error,
        "An HTTP answer ended without the JSON-RPC response",
        "The server answered a request's POST, but the body (a JSON document or an event stream) ended without the response to that request's id: a client waits on it forever. Keep the stream open until the response is sent, and send it with the request's id.";
    HttpResponseWrongId => "http-response-wrong-id", McpProtocol, Error,
        "A request's answer carried a response with another id",
        "The answer to a request's POST (a JSON body or the request's event stream) held a response whose id is not the request's: a client matches responses by id, drops this one and waits for its own forever. Answer each request on its own POST with its own id.";
    HttpNotificationNotAccepted => "http-notification-not-accepted", McpProtocol, Error,
        "A client notification or response was not answered 202 with no body",
        "When the client POSTs a notification or a response, the server must answer 202 Accepted with an empty body (or a 4xx with a JSON-RPC error). A 200, a body, or a 5xx makes clients treat the message as failed or read a body no one expects. Answer 202 and nothing else. An error, as the transport's MUST (\"the server MUST return HTTP status code 202 Accepted with no body\") and as answering a notification is over stdio (notification-response).";
    HttpSessionId => "http-session-id", McpProtocol, Error,
        "The server mishandled its Mcp-Session-Id",
        "A server that gives an Mcp-Session-Id on initialize must keep it for the session, and answer a request without it with 400 Bad Request. The detail says what happened: rotated (a later answer carried another id) or missing-session-status-N (a request without the id got status N instead of 400 or an answer). Keep one id per session and check it on every request.";
    HttpSessionTermination => "http-session-termination", McpProtocol, Warning,
        "DELETE or an ended session was answered wrongly",
        "A client ends a session with DELETE and its Mcp-Session-Id; the server answers 2xx (or 405 when clients may not end sessions), and afterwards answers requests with that id with 404 Not Found so the client starts a new session. The detail says which answer was wrong (delete-status-N, ended-session-status-N).";
    HttpProtocolVersionHeader => "http-protocol-version-header", McpProtocol, Warning,
        "A bogus MCP-Protocol-Version header was accepted",
        "From revision 2025-06-18 on, every request after initialize carries MCP-Protocol-Version, and a server must answer an invalid or unsupported value with 400 Bad Request. The guard sent 1999-01-01 and the server answered otherwise (the detail gives the status). Validate the header against the versions you support.";
    HttpGetStream => "http-get-stream", McpProtocol, Warning,
        "GET on the endpoint was answered wrongly",
        "A GET with Accept: text/event-stream must open an event stream for server messages (200, text/event-stream) or be refused with 405 Method Not Allowed. A 200 that is not an event stream, or another status, confuses clients that open the stream (detail not-event-stream, unexpected-status). The guard holds the stream open during the session and checks its messages as any other; a JSON-RPC response on it is forbidden unless the client resumes a request's stream with Last-Event-ID (detail response-on-get-stream).";
    HttpLegacySse => "http-legacy-sse", McpProtocol, Warning,
        "The server speaks the legacy HTTP+SSE transport",
        "GET on the URL opened an event stream whose first event is `endpoint`: the HTTP+SSE transport of 2024-11-05, replaced by Streamable HTTP in 2025-03-26. Current clients try Streamable HTTP first and fall back only if they still support the old transport; the guard falls back the same way and checks the session over it (the http-legacy-* codes). Move the server to Streamable HTTP (the SDKs provide it) and keep the old endpoint only for old clients.";
    HttpLegacyEndpoint => "http-legacy-endpoint", McpProtocol, Error,
        "The legacy event stream gave no usable endpoint",
        "A 2024-11-05 HTTP+SSE server's first event on the GET stream must be `endpoint`, whose data is a URI reference on the same origin as the URL; the client POSTs every message there. The detail says what broke: no-endpoint (no stream, or another first event), not-a-uri, cross-origin (never followed, so no credential goes there). Send `event: endpoint` with a path on your own origin first.";
    HttpLegacyPostRejected => "http-legacy-post-rejected", McpProtocol, Error,
        "A POST to the legacy endpoint was not answered 2xx",
        "Over HTTP+SSE the client POSTs each message to the endpoint the stream named, and the answer comes on the stream; the POST itself should be accepted (the SDKs answer 202). A 4xx or 5xx loses the message. The detail gives the status. Accept every message of a live session at its endpoint.";
    HttpLegacyResponseMissing => "http-legacy-response-missing", McpProtocol, Error,
        "A request's response never came on the legacy event stream",
        "The endpoint accepted a request's POST, but no `message` event with its id came on the stream before --timeout (detail timeout) or before the stream ended (detail stream-ended): a client waits on it forever. Send every response as a `message` event on the session's stream.";
    HttpOriginNotValidated => "http-origin-not-validated", Security, Warning,
        "A local server accepted a request with a foreign Origin",
        "The server listens on a loopback or private address and answered a request whose Origin header names another site. A web page the user visits can then reach it through DNS rebinding and call its tools. The spec requires servers to validate Origin: answer 403 to origins you do not expect.", risk = Medium, owasp = "MCP07";
    HttpUnauthorized => "http-unauthorized", InstallRuntime, Error,
        "The server requires authorization",
        "The server answered 401 Unauthorized, so nothing else could be checked; the guard never starts an interactive authorization flow. Give a token with --header Authorization=\"Bearer ...\" (from a secret, never in a committed file).";
    HttpResourceMetadata => "http-resource-metadata", McpProtocol, Warning,
        "The 401 does not lead to usable protected resource metadata",
        "A 401 from an MCP server carries WWW-Authenticate with resource_metadata, the URL of its RFC 9728 protected resource metadata. Its `resource` must be the server's URL (or cover it) and `authorization_servers` must name at least one https:// authorization server. One finding per problem; the detail says which: no-resource-metadata, not-fetched (another origin the connect policy refuses), fetch-failed, not-json, no-resource, resource-mismatch, no-authorization-servers, insecure-authorization-server. Documents on other origins are fetched without any --header value. Clients cannot discover how to authorize without it.";
    HttpAuthorizationServerMetadata => "http-authorization-server-metadata", McpProtocol, Warning,
        "An authorization server's metadata is missing or unusable for MCP clients",
        "For each authorization server the protected resource metadata names, clients fetch its RFC 8414 metadata (path inserted after /.well-known/oauth-authorization-server for an issuer with a path), then OpenID discovery. It must give `issuer` equal to the server's URL, `authorization_endpoint` and `token_endpoint` (https://), `response_types_supported` with `code`, and `code_challenge_methods_supported` with `S256`: MCP clients must use PKCE with S256, and must refuse to proceed when the metadata has no `code_challenge_methods_supported`. The detail says what is wrong: missing-document, not-fetched, issuer-mismatch, no-authorization-endpoint, no-token-endpoint, insecure-endpoint, no-code-response-type, no-pkce (the field is absent), no-pkce-s256 (it does not list S256). The guard never starts an authorization flow.";

    // Wire schema.
    WireSchemaInvalid => "wire-schema-invalid", McpProtocol, Warning,
        "A message does not match the official MCP schema",
        "Every message is checked against the official JSON schema of the negotiated protocol version. The finding names the JSON pointer of the offending value and the schema definition it breaks; fix the server to send what the schema requires. Clients built on the official SDKs validate the same shapes and reject or mis-handle what does not match.";
    // Surface rules (src/surface): what a server advertises in tools/list, prompts/list,
    // resources/list and resources/templates/list.
    ToolPoisoningInstructions => "tool-poisoning-instructions", Security, Error,
        "Advertised text gives the model hidden instructions",
        "A tool, prompt or resource description (or a parameter description deep in its schema, or the server's instructions) addresses the model instead of describing the item: it tells it to ignore earlier instructions, wraps orders in <IMPORTANT>-style tags, asks it to hide something from the user, or to read SSH keys, .env files or credentials. Clients show the model every word of it, and the user rarely sees it. Describe what the item does and nothing else; if this text is not yours, treat the server as compromised. Critical: text that steers the model is an attack in progress, not a weakness that waits for one; the first client that lists the server hands it to the model.",
        precision = High, risk = Critical, owasp = "MCP03";
    InvisibleCharacters => "invisible-characters", Security, Error,
        "Advertised text contains invisible characters",
        "Zero-width characters, bidirectional controls, Unicode Tags (U+E0000–E007F), soft hyphens, control characters or HTML comments in a name, description or schema hide text from the person reviewing the server while the model still reads it. Remove them; legitimate descriptions never need them.",
        precision = VeryHigh, risk = High, owasp = "MCP03";
    ToolShadowing => "tool-shadowing", Security, Error,
        "A description tries to change how another tool behaves",
        "The text of one tool speaks about another tool (often another server's): it redirects calls away from it, overrides what it does, or says it must behave differently while this tool is present. A tool's description should only describe that tool. Remove the cross-tool instructions; if this text is not yours, treat the server as compromised.",
        precision = Medium, risk = High, owasp = "MCP03";
    CrossServerToolCollision => "cross-server-tool-collision", Security, Warning,
        "Two servers advertise a tool with the same name",
        "When two connected servers expose the same tool name, clients disambiguate differently (prefixes, first wins, last wins), so the model may call the wrong server's tool, and a malicious server can capture calls meant for a trusted one. Rename one of the tools or do not connect both servers.",
        precision = VeryHigh, risk = Medium, owasp = "MCP03";
    ConfusableToolName => "confusable-tool-name", Security, Error,
        "A tool name looks like another name but is different",
        "The name uses characters that render like others (Cyrillic а for Latin a, fullwidth letters, I for l), per the Unicode confusables of UTS #39, so it impersonates a tool a person would trust. Tool names should be plain ASCII (A–Z, a–z, 0–9, _, -, .) and distinct at a glance.",
        precision = High, risk = High, owasp = "MCP03";
    ExfiltrationParameter => "exfiltration-parameter", Security, Error,
        "A tool asks the model for context or secrets it does not need",
        "A parameter asks the model to pass the conversation, the system prompt, other tools' output, file contents or credentials. Whatever the model puts there leaves the client. Ask only for the inputs the tool needs; take credentials from the server's own configuration, never from the model.",
        precision = Medium, risk = High, owasp = "MCP10";
    UnrestrictedExecInput => "unrestricted-exec-input", Security, Error,
        "A tool runs arbitrary commands or code from its input",
        "The tool executes a shell command, code or SQL taken verbatim from a free-form string parameter, so anything that can steer the model (a web page, a file, another tool's output) can run commands on the host. Offer specific operations instead, or restrict the input with an enum or pattern, and mark the tool destructiveHint so clients ask first.",
        precision = Medium, risk = High, owasp = "MCP05";
    UnconfirmedDestructiveTool => "unconfirmed-destructive-tool", Security, Warning,
        "A destructive-sounding tool is not marked destructive",
        "The tool's name or description says it deletes, overwrites, resets or kills, but its annotations do not say destructiveHint: true (or they claim readOnlyHint: true). Clients use these hints to ask the user before a call. Set readOnlyHint: false and destructiveHint: true on tools that destroy data.",
        precision = Medium, risk = Medium, owasp = "MCP02";
    MisleadingToolTitle => "misleading-tool-title", Security, Warning,
        "A tool's title hides what the tool does",
        "The title a client shows the user promises a harmless action (read, list, view) while the tool's name or description says it deletes, writes or executes. Users approve tools by their title. Make the title say what the tool does.",
        precision = Medium, risk = Medium, owasp = "MCP03";
    SecretInToolMetadata => "secret-in-tool-metadata", Security, Error,
        "A credential is embedded in advertised metadata",
        "A provider token or private key (GitHub, OpenAI, Anthropic, AWS, Slack, Google, Stripe, GitLab, npm, Hugging Face, a JWT, a PEM private key) appears in a name, description, schema default or example, so every client and model that lists the server receives it. Revoke the credential now, then remove it from the server's metadata.",
        precision = High, risk = Critical, owasp = "MCP01";
    SensitiveResourceUri => "sensitive-resource-uri", Security, Error,
        "A resource exposes a credential store or system secret",
        "A listed resource or resource template points at a place that holds secrets (~/.ssh, .env, cloud credentials, .netrc, /etc/shadow, /proc/self/environ, a cloud metadata endpoint). Any client may read it and hand it to the model. Do not expose these locations as resources.",
        precision = High, risk = High, owasp = "MCP01";
    OpenResourceTemplate => "open-resource-template", Security, Warning,
        "A resource template lets the client read any path or host",
        "The template's variable can stand for a whole path (reserved {+var} or {/var*} expansion, file:///{+path}) or for the scheme or host, so a model can be steered into reading any file or fetching any address. Use simple {var} expansion inside a fixed path, and validate the value on the server.",
        precision = Medium, risk = Medium, owasp = "MCP10";
    MutatingToolsWithoutLogging => "mutating-tools-without-logging", Security, Warning,
        "A server with mutating tools offers no logging",
        "The server advertises tools that change state but not the logging capability, so a client has no audit trail of what those tools did. A tool changes state when its annotations say so (destructiveHint, or readOnlyHint false), or when its name does: a write verb (write_file, create_issue, git_commit), where a verb that is ambiguous alone (add, set, run, merge) counts only with an object (add_user). A readOnlyHint of true always wins. Advertise logging and send notifications/message for every mutation.",
        precision = Low, risk = Low, owasp = "MCP08";
    SurfaceScanIncomplete => "surface-scan-incomplete", Security, Note,
        "Part of a server's surface was too large to inspect",
        "The surface rules stop at fixed bounds (items per list, bytes per text field, fields per item, nesting depth) so hostile input cannot exhaust them. What lies past a bound was not inspected; a legitimate server stays far below them. Shrink the listed items.";
    // Security scan of MCP client configs (src/scan).
    HardcodedSecret => "hardcoded-secret", Security, Error,
        "A provider token is written into an MCP config",
        "A credential in a config file is read by every tool and person with access to the file, and ends up in backups and repositories. Revoke the token, then reference it instead of writing it: an environment variable (${GITHUB_TOKEN}, ${env:GITHUB_TOKEN}) or a prompted input (${input:github-token} in VS Code). Critical when the token has its provider's exact documented shape (ghp_ and 36 characters, github_pat_ with its 22 and 59, AKIA and 16): such a value is a working credential until revoked, and anyone who reads the file can use it. High when only a looser shape matches (a truncated key, a longer variant), which may be a test value.",
        precision = High, risk = Critical, owasp = "MCP01";
    HighEntropySecret => "high-entropy-secret", Security, Error,
        "A credential-named setting holds a random-looking literal",
        "A key named like a credential (API_KEY, TOKEN, SECRET, PASSWORD, Authorization) holds a long random literal, which is almost always a real secret. Revoke it and reference it from the environment (${API_KEY}) or a prompted input instead.",
        precision = Medium, risk = High, owasp = "MCP01";
    CredentialInUrl => "credential-in-url", Security, Error,
        "A URL carries a password or token",
        "Credentials in a URL (user:password@host, ?token=, ?api_key=) leak into logs, proxies, process listings and shell history. Send them in a header or from the environment, and rotate the exposed one.",
        precision = High, risk = High, owasp = "MCP01";
    ShellCommandWrapper => "shell-command-wrapper", Security, Warning,
        "The server is started through a shell command string",
        "`sh -c`, `cmd /c` or `powershell -Command` hand a whole string to a shell: expansion, pipes and chained commands run with the client's privileges, and reviewers see a string instead of a command. Run the server's executable directly with its arguments as an array. Reported at the string the shell runs (the arguments after -c, /c or -Command), since that is what a reviewer has to read; command only names the shell.",
        precision = High, risk = Medium, owasp = "MCP05";
    RemoteScriptExecution => "remote-script-execution", Security, Error,
        "The server's launch downloads a script and runs it",
        "A download piped into a shell (curl … | sh, iwr … | iex, bash <(curl …)) runs whatever the remote host serves at that moment, every time the client starts. Install a reviewed, pinned release instead and run it directly. Critical: whoever controls the host, the DNS or the path runs code with the user's privileges on every start, and nothing local records what ran.",
        precision = High, risk = Critical, owasp = "MCP04";
    UnpinnedPackage => "unpinned-package", Security, Warning,
        "The server is launched from a package without an exact version",
        "npx, bunx, pnpm dlx, yarn dlx, uvx, pipx run and docker run fetch the newest matching release on each start, so a compromised or hijacked release runs without review. Pin an exact version (name@1.2.3, name==1.2.3, --from name==1.2.3, image@sha256:…) and update it deliberately.",
        precision = High, risk = Medium, owasp = "MCP04";
    DeprecatedPackage => "deprecated-package", Security, Warning,
        "The server's package is deprecated or yanked in its registry",
        "The registry marks this package or version as deprecated or yanked: it no longer gets fixes and may be abandoned or taken over. Move to the maintained replacement named in the notice. Checked only with --registry.",
        precision = High, risk = Medium, owasp = "MCP04";
    VulnerablePackage => "vulnerable-package", Security, Error,
        "The server's package version has published vulnerabilities",
        "The package version the server is launched from (or, when it is not pinned, the latest version its runner fetches today) is named in published advisories: OSV's database, which carries the GitHub Advisory Database (GHSA ids with their CVE aliases) and PyPA's. The message names each advisory, its severity and the version that fixes it; the risk is that of the most severe advisory (medium when none states one). Upgrade to the fixed version and pin it. Checked only with --advisories, which sends each package name and version to the advisory service (MCPCHECK_OSV_URL, default https://api.osv.dev/); container images are not covered.",
        precision = High, risk = High, owasp = "MCP04";
    AdvisoryLookupFailed => "advisory-lookup-failed", Security, Note,
        "A package could not be checked for known vulnerabilities",
        "With --advisories, the advisory service or the package's registry (for the latest version of an unpinned package) could not be reached, refused the request, rate-limited it, or did not know the package, so this package was not checked. It is reported so that an outage never reads as a clean result. Scan again with network access, point MCPCHECK_OSV_URL at a reachable mirror, or check the package by hand.",
        risk = Info, owasp = "MCP04";
    FilesystemRootAccess => "filesystem-root-access", Security, Error,
        "The server is given the whole filesystem or home directory",
        "Granting /, a drive root or the home directory exposes SSH keys, cloud credentials and browser data to every tool the server offers and to any prompt injection that reaches it. Grant only the project directories it needs.",
        precision = High, risk = High, owasp = "MCP02";
    InsecureTransport => "insecure-transport", Security, Warning,
        "A server is reached over cleartext http:// off this machine",
        "Plain http:// to another host lets anyone on the path read and change the MCP traffic, including tokens and tool results. Use https://; plain http is fine only for loopback (localhost, 127.0.0.1, ::1).",
        precision = High, risk = Medium, owasp = "MCP07";
    SsrfReachableTarget => "ssrf-reachable-target", Security, Warning,
        "A URL points at a cloud metadata, private or link-local address",
        "Cloud metadata endpoints hand out credentials, and private, link-local, CGNAT and *.internal addresses reach systems that trust their network. Any IPv4 host written in decimal, octal, hex or mixed notation (2130706433, 0x7f000001, 0177.0.0.1, 127.1) is reported whatever it encodes, loopback and public addresses included: no legitimate config needs the disguise, and it is how address filters are evaded. Plain 127.0.0.1, ::1 and localhost are not reported. Point the server at a public, named endpoint, or document why this internal target is intended.",
        precision = High, risk = Medium, owasp = "MCP07";
    TlsVerificationDisabled => "tls-verification-disabled", Security, Error,
        "TLS certificate verification is turned off",
        "NODE_TLS_REJECT_UNAUTHORIZED=0, --insecure and similar settings accept any certificate, so anyone on the path can impersonate the server and read its tokens. Remove the setting; for a private CA, trust it explicitly (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE). Critical: the setting turns off the one check that keeps the server's tokens and tool results private, for every connection the process makes, and nothing in the session shows it.",
        precision = High, risk = Critical, owasp = "MCP07";
    UnauthenticatedRemoteEndpoint => "unauthenticated-remote-endpoint", Security, Warning,
        "A remote server is configured with no credentials and no OAuth",
        "The config sends no Authorization header, API key or OAuth settings to this remote endpoint. Either it relies on OAuth discovery (fine), or anyone who finds the URL can use it. Confirm that the server requires authentication; if it takes a token, pass it in a header from the environment or a prompted input (\"Authorization\": \"Bearer ${MCP_TOKEN}\").",
        precision = Low, risk = Low, owasp = "MCP07",
        rationale = "Low, not medium: the MCP authorization spec has clients discover OAuth from the server itself, so most legitimate remote entries carry no credentials at all, and a medium would fail --fail-on medium on every one of them; the precision is low for the same reason. Reported at the server entry, not at its url: the finding is about what the entry lacks, and the headers or OAuth settings go there.";
    ListensOnAllInterfaces => "listens-on-all-interfaces", Security, Warning,
        "The server is told to listen on every network interface",
        "Binding to 0.0.0.0 or :: (or publishing a docker port without an address) exposes the server to the whole network, usually without authentication. Bind to 127.0.0.1 (docker: -p 127.0.0.1:PORT:PORT).",
        precision = High, risk = Medium, owasp = "MCP07";
    InvalidServerEntry => "invalid-server-entry", Security, Error,
        "An MCP server entry no client can load",
        "A field clients know has the wrong type (args as a string, command or url as a number, env or headers as an array, an argument or environment value that is an object), the command is empty, or the entry has neither a command (stdio) nor a url (remote): clients reject the entry (some the whole file), so the server never runs while the config looks in use. Fix it at the value reported: args is an array of strings; command, url and cwd are strings; env and headers are objects of strings. The rest of the file is still scanned. A value that is not an object where the file, its server list or a server belongs ({\"mcpServers\": 5}, a server given as a string) is an input error (exit 2) naming the file, line and column instead.",
        precision = VeryHigh, risk = High, owasp = "MCP09";
    UnknownServerEntry => "unknown-server-entry", Security, Note,
        "An MCP server entry the scanner does not understand",
        "The entry is an object of a shape the scanner does not know (a transport type other than stdio, http, sse or streamable-http), so it was not checked in full. Some client may load it. Fix the entry, or tell us about the format. An entry no known client can load is invalid-server-entry instead.",
        precision = High, risk = Info, owasp = "MCP09";
    ConfigFileExposure => "config-file-exposure", Security, Error,
        "A config with credentials is readable by others, or anyone can rewrite it",
        "A config that holds a literal credential is a second copy of that credential: when the file's mode lets the group or other users read it (and every directory above it lets them through), or git tracks it (so it is in the repository, its clones and its history), the credential is exposed however well the client guards it. A config in a directory anyone may write to (no sticky bit) can be replaced by any user, who then chooses the commands the client runs. Reported once per file, at its first credential, not once per server, and only for files a client loads by their name (.mcp.json, .claude.json, .vscode/mcp.json…): another JSON file holding a token is an example, a template or a fixture, and hardcoded-secret reports its token already. Move the credentials into the environment or a prompted input and revoke them; until then chmod 600 the file; git rm --cached a tracked one; keep configs in directories only you can write to. Mode bits are checked on Unix only; the git index is read directly (versions 2 to 4).",
        precision = High, risk = High, owasp = "MCP01";
    ToxicFlow => "toxic-flow", Security, Warning,
        "One config lets the model read private data and send it out",
        "One server's tool reads private data (files, mail, a database, secrets, a private repository) and another server's tool can send data out (a web request, email, chat, an issue comment, a pull request): a prompt injection that reaches the model can chain them into an exfiltration, even though each server alone is fine. With a tool that also brings in untrusted content (web pages, inbound mail, issues) it is the lethal trifecta: the attacker's text arrives, reads the data and ships it in one conversation. One server with tools on both sides is the same flow (detail codes source-and-sink-in-one-server and lethal-trifecta-in-one-server): GitHub's server reads an issue in a public repository, reads a private one and opens a pull request in a public one. Tools are classified from the live listing (scan --live) or, for a server not listed, from the tools its lock file entry pinned (names, parameter names and boolean annotations survive in its field hashes): a verb and an object together in the name (read_file, send_email, create_comment, fetch with a url parameter), read after folding look-alike characters (read_file with a Cyrillic a is still read_file), with readOnlyHint and openWorldHint overriding. Medium for a source and a sink, high for the trifecta; without a listing the servers' names are only a guess, reported as a notice of the scan, not a finding. Reported once per config at the first sink's entry. Split such servers into separate configs or profiles, disable the sending tools you do not need (inside one server: or give it a token that reaches only what it must), or require confirmation for each call to them.",
        precision = Medium, risk = Medium, owasp = "MCP06";
    ServerDefinitionDrift => "server-definition-drift", Security, Error,
        "A server's launch definition changed since it was pinned",
        "The launcher, command, arguments, environment or header names, or URL differ from .mcpcheck-lock.json. Review the change; if it is intended, run `mcpcheck pin --force` to record it.",
        precision = VeryHigh, risk = High, owasp = "MCP04";
    ToolSurfaceDrift => "tool-surface-drift", Security, Error,
        "A server's tools, prompts or resources changed since they were pinned",
        "What the server advertises (names, descriptions, schemas, annotations) differs from the surface recorded by `mcpcheck pin --live`. A silent change is how a rug pull works: review the changed items before trusting them, then re-pin with `mcpcheck pin --live --force`. Critical: the surface was reviewed and pinned, and it changed without the config changing, which is what a compromised or hijacked server looks like; a client would hand the new text to the model unreviewed.",
        precision = VeryHigh, risk = Critical, owasp = "MCP03";
    ServerAddedSincePin => "server-added-since-pin", Security, Warning,
        "A server was added to a config after the lock was written",
        "This server is not in .mcpcheck-lock.json, so nobody has pinned and reviewed it. Review it, then run `mcpcheck pin --force` to add it.",
        precision = VeryHigh, risk = Medium, owasp = "MCP09";
    // Source scan (src/source/).
    StaticStdoutWrite => "static-stdout-write", StaticSource, Warning,
        "Source code writes to stdout",
        "On the stdio transport stdout carries only the server's JSON-RPC messages, one per line. A print, console.log, fmt.Println or println! there corrupts the channel and the client fails or drops the session. Write logs and diagnostics to stderr (print(..., file=sys.stderr), console.error, fmt.Fprintln(os.Stderr, ...), eprintln!), which clients keep as the server's log. A write that never reaches a stdio client is a note, with a detail code that says why: http-only-module (in a JavaScript, TypeScript or Python module that creates an HTTP or SSE server transport or listens on a port, creates no stdio transport, and is not loaded by the package's stdio entry, package.json bin or main or pyproject.toml [project.scripts], except in a branch that picks another transport), exits-before-session (printed just before a failing exit, process.exit or sys.exit with a non-zero code, in a module that creates no stdio transport and connects no server, such as a launcher's usage text), transport-branch (in a branch that runs only under another transport: a comparison of the transport with 'http', 'sse' or 'streamable-http', or with 'stdio' on the other side, an environment variable the module tests to pick an HTTP transport, HTTP request headers, or a name set from one of those), exits-before-serving (on a path that exits with success before any server starts: --help, --version, --list-tools, a setup wizard's sys.exit), script-only (in an if __name__ == \"__main__\": block that starts no server, which never runs when the package's entry imports the module), or other-entry (in a module only another entry point of the package loads, one that starts no stdio server, such as a second bin that is a terminal CLI). --all-transports reports them as warnings.",
        precision = High;
    StaticStdoutLogger => "static-stdout-logger", StaticSource, Warning,
        "A logger or console is configured to write to stdout",
        "This logger writes to stdout, by default or by its configuration, so every log record lands on the stdio transport's JSON-RPC channel. Point it at stderr (pino.destination(2), StreamHandler(sys.stderr), log.SetOutput(os.Stderr), .with_writer(std::io::stderr), System.err). In a module that only serves HTTP (detail http-only-module, as for static-stdout-write) it is a note.",
        precision = High;
    StaticStdoutLoggingConfig => "static-stdout-logging-config", StaticSource, Warning,
        "A logging or Spring Boot configuration file sends output to stdout",
        "Java and Kotlin servers mostly reach stdout through configuration, not code: a logback ConsoleAppender without `<target>System.err</target>`, or a log4j2 Console appender without `target=\"SYSTEM_ERR\"`, that an active logger writes through; or a Spring Boot application that enables the MCP stdio transport (`spring.ai.mcp.server.stdio=true`) but still prints its banner or logs to the console, both on stdout. Every such line corrupts the JSON-RPC channel. Send the appender to stderr; for Spring AI set `spring.main.banner-mode=off` and `logging.pattern.console=` (empty). Settings made outside these files (command line, environment, `SpringApplication.setBannerMode` in code) are not seen: if one covers it, suppress the finding with a `mcpcheck: ignore` comment next to it.",
        precision = Medium;
}

#[cfg(test)]
mod tests;
