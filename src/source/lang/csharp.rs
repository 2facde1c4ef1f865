//! C#: `Console.Write*` and `Console.Out.Write*` (also through `using static System.Console`),
//! Microsoft.Extensions.Logging's `AddConsole()` (stdout unless `LogToStandardErrorThreshold`
//! is `Trace`) and Serilog's `WriteTo.Console()` (stdout unless `standardErrorFromLevel`).

use super::java::CHANNEL;
use super::prefilter::Prefilter;
use super::syntax::Fields;
use super::syntax::{self, args, text};
use super::{quoted, Hit, Lang};
use tree_sitter::Node;

/// What a file must mention for a rule to match (see `prefilter`): `Console` (its writes,
/// `using static System.Console`, an alias, Serilog's `WriteTo.Console`) or `AddConsole`.
pub(super) static PREFILTER: Prefilter =
    Prefilter::new(|| vec![vec![vec!["Console"]], vec![vec!["AddConsole"]]]);

const JSON_METHODS: &[&str] = &["Serialize", "SerializeObject"];

const VISIT: &[&str] = &[
    "invocation_expression",
    "class_declaration",
    "struct_declaration",
    "interface_declaration",
    "variable_declarator",
    "parameter",
    "using_directive",
];

struct Cs<'t> {
    src: &'t [u8],
    /// A `Console` other than System.Console is declared or aliased in this file.
    shadows_console: bool,
    static_console: bool,
}

pub fn scan(lang: Lang, root: Node<'_>, src: &[u8], out: &mut Vec<Hit>) {
    let mut cs = Cs {
        src,
        shadows_console: false,
        static_console: false,
    };
    let mut calls = Vec::new();
    syntax::walk(root, syntax::kinds(lang, VISIT), |node, _| {
        match node.kind() {
            "invocation_expression" => calls.push(node),
            "class_declaration"
            | "struct_declaration"
            | "interface_declaration"
            | "variable_declarator"
            | "parameter"
                if node
                    .field("name")
                    .is_some_and(|n| text(n, src) == "Console") =>
            {
                cs.shadows_console = true;
            }
            "using_directive" => {
                let written: String = text(node, src)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                if matches!(
                    written.as_str(),
                    "using static System.Console;" | "using static global::System.Console;"
                ) {
                    cs.static_console = true;
                } else if node
                    .field("name")
                    .is_some_and(|n| text(n, src) == "Console")
                    && !written.ends_with("= System.Console;")
                {
                    cs.shadows_console = true;
                }
            }
            _ => {}
        }
    });
    for call in calls {
        cs.check_call(call, out);
    }
}

impl<'t> Cs<'t> {
    fn is_console(&self, node: Node<'t>) -> bool {
        !self.shadows_console
            && matches!(
                text(node, self.src),
                "Console" | "System.Console" | "global::System.Console"
            )
    }

    fn check_call(&self, call: Node<'t>, out: &mut Vec<Hit>) {
        let (Some(function), Some(arguments)) = (call.field("function"), call.field("arguments"))
        else {
            return;
        };
        let values = args(arguments);
        let (receiver, method) = match function.kind() {
            "member_access_expression" => (
                function.field("expression"),
                function.field("name").map_or("", |n| text(n, self.src)),
            ),
            "identifier" if self.static_console => (None, text(function, self.src)),
            _ => return,
        };
        match method {
            "Write" | "WriteLine" => {
                self.console_write(call, function, receiver, method, &values, out)
            }
            "AddConsole" => self.add_console(call, &values, out),
            "Console" if receiver.is_some_and(|r| text(r, self.src).ends_with("WriteTo")) => {
                let to_stderr = values.iter().any(|v| {
                    v.field("name")
                        .is_some_and(|n| text(n, self.src) == "standardErrorFromLevel")
                        && text(*v, self.src).ends_with("Verbose")
                });
                if !to_stderr {
                    out.push(Hit::logger(
                        call,
                        format!("Serilog's console sink writes events below standardErrorFromLevel to {CHANNEL}."),
                        "Use .WriteTo.Console(standardErrorFromLevel: LogEventLevel.Verbose).",
                    ));
                }
            }
            _ => {}
        }
    }

    fn console_write(
        &self,
        call: Node<'t>,
        function: Node<'t>,
        receiver: Option<Node<'t>>,
        method: &str,
        values: &[Node<'t>],
        out: &mut Vec<Hit>,
    ) {
        // `Console.WriteLine(...)`, `Console.Out.WriteLine(...)` or a static-imported `WriteLine(...)`.
        let edit = match receiver {
            None => None,
            Some(r) if self.is_console(r) => Some((r, format!("{}.Error", text(r, self.src)))),
            Some(r)
                if r.kind() == "member_access_expression"
                    && r.field("name").is_some_and(|n| text(n, self.src) == "Out")
                    && r.field("expression").is_some_and(|e| self.is_console(e)) =>
            {
                r.field("name").map(|n| (n, "Error".to_string()))
            }
            Some(_) => return,
        };
        // One JSON message per line is the protocol itself.
        if let ("WriteLine", [only]) = (method, values) {
            let json = only
                .named_child(0)
                .filter(|e| e.kind() == "invocation_expression")
                .and_then(|e| {
                    let f = e.field("function")?;
                    let name = f.field("name").unwrap_or(f);
                    let count = e.field("arguments").map_or(0, |a| args(a).len());
                    Some(JSON_METHODS.contains(&text(name, self.src)) && count == 1)
                });
            if json == Some(true) {
                return;
            }
        }
        let mut hit = Hit::write(
            call,
            format!(
                "{} writes to {CHANNEL}; a client reading this output fails to parse it.",
                quoted(function, self.src)
            ),
            "Write to stderr instead: Console.Error.WriteLine(...).",
        );
        if let Some((node, replacement)) = edit {
            hit = hit.edit(node, replacement, "Write to Console.Error");
        }
        out.push(hit.prints(super::c_family_prints::call(method, values, self.src)));
    }

    /// `AddConsole()` logs to stdout below `LogToStandardErrorThreshold` (default: everything).
    fn add_console(&self, call: Node<'t>, values: &[Node<'t>], out: &mut Vec<Hit>) {
        let configure = values.first().and_then(|v| v.named_child(0));
        let threshold = match configure {
            None => None,
            Some(lambda) if lambda.kind() == "lambda_expression" => {
                let mut found = None;
                syntax::preorder(lambda, |n| {
                    if n.kind() == "assignment_expression"
                        && n.field("left").is_some_and(|l| {
                            text(l, self.src).ends_with("LogToStandardErrorThreshold")
                        })
                    {
                        found = n.field("right").map(|r| text(r, self.src));
                    }
                });
                found
            }
            // Options built elsewhere: not visible here.
            Some(_) => return,
        };
        if threshold.is_some_and(|t| t.ends_with("Trace")) {
            return;
        }
        out.push(Hit::logger(
            call,
            format!("{} logs to {CHANNEL} for every level below LogToStandardErrorThreshold.", quoted(call, self.src)),
            "Send every level to stderr: AddConsole(o => o.LogToStandardErrorThreshold = LogLevel.Trace).",
        ));
    }
}
