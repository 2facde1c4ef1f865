//! Unit tests of `transport_branches`: which parts of a module are off the stdio path.
use super::*;

/// The 0-based rows a part off stdio starts on, with why (a Python block starts at its
/// first statement).
fn off(lang: Lang, src: &str) -> Vec<(usize, OffStdio)> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar()).expect("grammar");
    let tree = parser.parse(src, None).expect("parse");
    off_stdio(lang, tree.root_node(), src.as_bytes())
        .into_iter()
        .map(|(r, why)| (r.start_point.row, why))
        .collect()
}

use OffStdio::{ExitingPath, ScriptOnly, TransportBranch};

#[test]
fn a_comparison_with_another_transport_marks_its_branch() {
    let js =
        "if (transport === 'stdio') {\n  a();\n} else if (transport === 'http') {\n  b();\n}\n";
    // The `else` of the stdio test, and the HTTP test's own branch inside it.
    assert_eq!(
        off(Lang::TypeScript, js),
        vec![(2, TransportBranch), (2, TransportBranch)]
    );
    assert_eq!(
        off(Lang::JavaScript, "if (mode !== 'stdio') {\n  a();\n}\n"),
        vec![(0, TransportBranch)]
    );
    assert_eq!(
        off(Lang::JavaScript, "if (opts.mode === 'sse') {\n  a();\n}\n"),
        vec![(0, TransportBranch)]
    );
    // A bare 'http' is a transport only when the other side names one.
    assert!(off(
        Lang::JavaScript,
        "if (url.scheme === 'http') {\n  a();\n}\n"
    )
    .is_empty());
    // Either side of `||` may hold under stdio; one side of `&&` is enough.
    assert!(off(
        Lang::JavaScript,
        "if (transport === 'http' || debug) {\n  a();\n}\n"
    )
    .is_empty());
    assert_eq!(
        off(
            Lang::JavaScript,
            "if (transport === 'http' && debug) {\n  a();\n}\n"
        ),
        vec![(0, TransportBranch)]
    );
    let switch =
        "switch (transport) {\n  case 'sse':\n    a();\n    break;\n  case 'stdio':\n    b();\n}\n";
    assert_eq!(off(Lang::JavaScript, switch), vec![(1, TransportBranch)]);
    let py = "if args.transport in ('sse', 'streamable-http'):\n    a()\nelif args.transport != 'stdio':\n    b()\nif transport == 'stdio':\n    c()\nelse:\n    d()\n";
    assert_eq!(
        off(Lang::Python, py),
        vec![
            (1, TransportBranch),
            (3, TransportBranch),
            (6, TransportBranch)
        ]
    );
}

#[test]
fn an_environment_variable_that_picks_http_marks_its_other_tests_and_their_names() {
    let js = "let args;\n\
              if (process.env.CLOUD === 'true' || process.env.SSE === 'true') {\n  args = { transportType: 'httpStream' };\n} else {\n  args = { transportType: 'stdio' };\n}\n\
              class Logger {\n  shouldLog = process.env.SSE === 'true';\n  info(m) {\n    if (this.shouldLog) {\n      console.log(m);\n    }\n  }\n}\n\
              function telemetry() {\n  if (process.env.CLOUD !== 'true') return;\n  console.log('t');\n}\n\
              if (process.env.DEBUG === 'true') {\n  console.log('d');\n}\n";
    let found = off(Lang::JavaScript, js);
    // The selecting branch itself, the logger's test, the rest after the early return; DEBUG
    // picks no transport.
    assert_eq!(
        found,
        vec![
            (1, TransportBranch),
            (9, TransportBranch),
            (15, TransportBranch)
        ]
    );
    let headers = "function isHttp(req) {\n  return req?.headers?.['x-mode'] === 'path';\n}\nfunction f(req) {\n  if (!isHttp(req)) return;\n  console.log(1);\n}\n";
    assert_eq!(off(Lang::JavaScript, headers), vec![(4, TransportBranch)]);
    let py = "if os.getenv('HTTP') == 'true':\n    mcp.run(transport='sse')\nelse:\n    mcp.run(transport='stdio')\nif os.getenv('HTTP') == 'true':\n    print('request')\n";
    assert_eq!(
        off(Lang::Python, py),
        vec![(1, TransportBranch), (5, TransportBranch)]
    );
}

#[test]
fn a_branch_that_exits_before_serving_is_off_and_one_that_serves_is_not() {
    let js = "if (arg === '--help') {\n  console.log(usage);\n  process.exit(0);\n}\nif (arg === '--serve') {\n  await server.connect(t);\n  process.exit(0);\n}\n";
    assert_eq!(off(Lang::JavaScript, js), vec![(0, ExitingPath)]);
    let py = "if args.setup:\n    try:\n        from .wizard import run_setup\n        sys.exit(run_setup())\n    except ImportError:\n        sys.exit(1)\nif __name__ == '__main__':\n    sys.exit(main())\n";
    assert_eq!(off(Lang::Python, py), vec![(1, ExitingPath)]);
    // Not ending in an exit: the branch may go on to serve.
    assert!(off(Lang::Python, "if args.verbose:\n    print('v')\n").is_empty());
}

#[test]
fn a_function_that_prints_and_exits_with_success_and_a_script_only_block_are_off() {
    let js = "function listTools() {\n  console.log('tools');\n  process.exit(0);\n}\nfunction fatal(m) {\n  console.log(m);\n  process.exit(1);\n}\nprocess.on('SIGTERM', () => {\n  console.log('bye');\n  process.exit(0);\n});\n";
    // A failing exit is left to the exit-writes rule; a callback runs while serving.
    assert_eq!(off(Lang::JavaScript, js), vec![(0, ExitingPath)]);
    let py = "if __name__ == '__main__':\n    print(demo())\nif __name__ == '__main__':\n    mcp.run()\n";
    assert_eq!(off(Lang::Python, py), vec![(1, ScriptOnly)]);
}

#[test]
fn a_truthy_variable_whose_branch_starts_an_http_server_picks_http() {
    let js = "if (process.env.ENABLE_SSE) {\n  startSSEServer(server);\n  console.log('sse');\n} else {\n  server.connect(new StdioServerTransport());\n}\nif (process.env.ENABLE_SSE) {\n  console.log('x');\n}\n";
    assert_eq!(
        off(Lang::JavaScript, js),
        vec![(0, TransportBranch), (6, TransportBranch)]
    );
}

/// The walks visit only the kinds in `VISIT` (`off_stdio`'s own, and the facts' walk in
/// `transports`, which visits its kinds too): over every JavaScript, TypeScript and Python
/// file of the fixtures, the parts they find are those of a walk handing over every node.
#[test]
fn the_walk_by_kind_finds_what_a_walk_over_every_node_finds() {
    let mut sources = super::super::fixture_sources(&[
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Python,
    ]);
    assert!(sources.len() > 100, "{} files", sources.len());
    // A part of each kind the walk reads: flags set by a declaration, an assignment, a class
    // field and a function returning one; an exiting function and method; `__main__`.
    for (lang, src) in [
        (Lang::JavaScript, "const sse = process.env.MODE === 'sse';\nlet quiet;\nquiet = sse;\nif (quiet) {\n  console.log(1);\n}\n"),
        (Lang::TypeScript, "class S {\n  http = this.mode === 'sse';\n  run() {\n    if (this.http) {\n      console.log(1);\n    }\n  }\n}\n"),
        (Lang::JavaScript, "function isSse() {\n  return transport === 'sse';\n}\nif (isSse()) {\n  console.log(1);\n}\n"),
        (Lang::JavaScript, "class C {\n  list() {\n    console.log(tools);\n    process.exit(0);\n  }\n}\nfunction version() {\n  console.log(v);\n  process.exit(0);\n}\n"),
        (Lang::Python, "sse = os.environ.get('MODE') == 'sse'\nquiet = sse\nif quiet:\n    print(1)\ndef version():\n    print(v)\n    sys.exit(0)\nif __name__ == '__main__':\n    print(demo())\n"),
    ] {
        sources.push((lang, format!("{src:?}"), src.as_bytes().to_vec()));
    }
    let mut with_parts = 0;
    for (lang, path, src) in sources {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        let tree = parser.parse(&src, None).expect("parse");
        let root = tree.root_node();
        let mut found = Found::default();
        super::super::syntax::preorder(root, |node| found.visit(node, &src));
        let every = found.parts(lang, &src).0;
        let by_kind = off_stdio(lang, root, &src);

        let key = |parts: &[(Range, OffStdio)]| -> Vec<(usize, usize, OffStdio)> {
            parts
                .iter()
                .map(|(r, why)| (r.start_byte, r.end_byte, *why))
                .collect()
        };
        assert_eq!(key(&by_kind), key(&every), "{path}");
        // The facts' walk, which visits these kinds and its own, finds the same.
        let shared = super::super::transports::facts(lang, root, &src)
            .expect("facts")
            .off_stdio;
        assert_eq!(key(&shared), key(&every), "{path}");
        with_parts += usize::from(!every.is_empty());
    }
    assert!(with_parts >= 5, "{with_parts} files with parts off stdio");
}
