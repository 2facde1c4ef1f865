//! Unit tests of `transports`: facts read from code, and the text test before parsing.
use super::*;

/// The facts of `src`, from a walk of every node; the walk that passes by the nodes no mark
/// is in (`facts_where` with marks) must find the same, in every test here.
fn of(lang: Lang, src: &str) -> ModuleFacts {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar()).expect("grammar");
    let tree = parser.parse(src, None).expect("parse");
    let all = facts(lang, tree.root_node(), src.as_bytes()).expect("facts");
    assert_eq!(
        format!("{:?}", marked(lang, &tree, src)),
        format!("{all:?}"),
        "{src}"
    );
    all
}

fn marks(lang: Lang, src: &str) -> Marks {
    let mentions =
        super::super::transports_window::FactMentions::of(lang, &lang.text(src.as_bytes()));
    mentions.marks(lang, src.as_bytes())
}

fn marked(lang: Lang, tree: &tree_sitter::Tree, src: &str) -> ModuleFacts {
    let marks = marks(lang, src);
    facts_where(lang, tree.root_node(), src.as_bytes(), &[], Some(&marks)).expect("facts")
}

/// Flags set from flags, read where no fact word is: the marked walk finds them only once the
/// flags it found are marked, in rounds, and then finds what the walk of every node finds.
#[test]
fn the_marked_walk_finds_flags_read_where_no_fact_word_is() {
    let js = "const useSse = process.env.MCP_TRANSPORT === 'sse';\n\
              function quiet() {\n  return useSse;\n}\n\
              const loud = quiet() && verbose;\n\
              if (loud) {\n  console.log('a');\n}\n\
              class S {\n  run() {\n    if (loud) {\n      console.log('b');\n    }\n  }\n}\n";
    let py = "use_sse = os.environ.get('MCP_TRANSPORT') == 'sse'\n\
              def quiet():\n    return use_sse\n\
              loud = quiet() and verbose\n\
              if loud:\n    print('a')\n";
    for (lang, src, flags) in [
        (Lang::JavaScript, js, vec!["loud", "quiet", "useSse"]),
        (Lang::Python, py, vec!["loud", "quiet", "use_sse"]),
    ] {
        let all = of(lang, src);
        assert_eq!(all.flags, flags, "{lang:?}");
        assert!(!all.off_stdio.is_empty(), "{lang:?}");
        // One walk with the fact words' marks alone misses the flags set from flags.
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        let tree = parser.parse(src, None).expect("parse");
        let (root, marks) = (tree.root_node(), marks(lang, src));
        let once = match lang {
            Lang::Python => python(lang, root, src.as_bytes(), &[], Some(&marks)),
            _ => javascript(lang, root, src.as_bytes(), Some(&marks)),
        };
        assert!(
            once.flags.len() < all.flags.len(),
            "{lang:?}: {:?}",
            once.flags
        );
    }
}

#[test]
fn only_writes_right_before_a_failing_exit_are_exit_writes() {
    let src = "if (bad) {\n  console.log('a');\n  console.error('b');\n  process.exit(2);\n}\n\
               if (v) {\n  console.log('v');\n  process.exit(0);\n}\n\
               if (w) {\n  console.log('w');\n  cleanup();\n  process.exit(1);\n}\n";
    let rows: Vec<usize> = of(Lang::JavaScript, src)
        .exit_writes
        .iter()
        .map(|r| r.start_point.row)
        .collect();
    assert_eq!(rows, vec![2, 1]);
}

#[test]
fn transports_and_loads_are_read_from_code_not_comments() {
    let js = of(
        Lang::TypeScript,
        "// new StdioServerTransport()\nimport './a.js';\nif (x) { await import('./http.js'); }\nconst t = new StreamableHTTPServerTransport({});\n",
    );
    assert!(js.http_only());
    let loads: Vec<(&str, bool)> = js
        .loads
        .iter()
        .map(|l| (l.specifier.as_str(), l.in_branch))
        .collect();
    assert_eq!(loads, vec![("./a.js", false), ("./http.js", true)]);
    let stdin = of(
        Lang::JavaScript,
        "app.listen(3000);\nprocess.stdin.on('data', f);\n",
    );
    assert!(stdin.serves_http && stdin.serves_stdio && !stdin.http_only());
    let py = of(
        Lang::Python,
        "from . import tools\nif http:\n    mcp.run(transport='sse')\nelse:\n    mcp.run(transport=args.transport)\n",
    );
    assert!(py.serves_http && py.serves_stdio);
    assert_eq!(py.loads[0].specifier, ".tools");
    assert!(of(Lang::Python, "uvicorn.run(app)\n").http_only());
    let exits = of(
        Lang::Python,
        "if bad:\n    print('usage')\n    sys.exit(2)\nif ok:\n    print('bye')\n    sys.exit(0)\nif err:\n    print('e')\n    raise SystemExit('failed')\n",
    );
    let rows: Vec<usize> = exits
        .exit_writes
        .iter()
        .map(|r| r.start_point.row)
        .collect();
    assert_eq!(rows, vec![1, 7]);
    assert!(!of(Lang::Python, "mcp.run()\nuvicorn.run(app)\n").http_only());
}

/// A module whose facts demote a write (HTTP-only, or writes before a failing exit).
fn demotes(lang: Lang, src: &str) -> bool {
    let facts = of(lang, src);
    facts.http_only() || !facts.exit_writes.is_empty() || !facts.off_stdio.is_empty()
}

#[test]
fn every_module_whose_facts_demote_passes_the_text_test() {
    let mut cases: Vec<(Lang, String)> = vec![
        (Lang::JavaScript, "app.listen(3000);\n".into()),
        (
            Lang::JavaScript,
            "if (e) {\n  console.log('x');\n  process.exit(1);\n}\n".into(),
        ),
        (Lang::Python, "uvicorn.run(app)\n".into()),
        // Parts off the stdio path (`transport_branches`).
        (
            Lang::TypeScript,
            "if (transport === 'http') {\n  console.log(1);\n}\n".into(),
        ),
        (
            Lang::JavaScript,
            "if (process.env.X === 'true') { t = 'httpStream'; } else { t = 'stdio'; }\n".into(),
        ),
        (
            Lang::JavaScript,
            "if (a === '--help') {\n  console.log(u);\n  process.exit(0);\n}\n".into(),
        ),
        (
            Lang::Python,
            "if args.transport == 'sse':\n    print(1)\n".into(),
        ),
        (
            Lang::Python,
            "if os.getenv('X') == '1':\n    mcp.run(transport='sse')\nelse:\n    mcp.run(transport='stdio')\n".into(),
        ),
        (
            Lang::Python,
            "if args.version:\n    print(v)\n    sys.exit(0)\n".into(),
        ),
        (Lang::Python, "mcp.run(transport='sse')\n".into()),
        (
            Lang::Python,
            "if e:\n    print('x')\n    sys.exit(1)\n".into(),
        ),
        (Lang::Python, "if e:\n    print('x')\n    exit(1)\n".into()),
        (
            Lang::Python,
            "if e:\n    print('x')\n    raise SystemExit('no')\n".into(),
        ),
    ];
    for name in JS_HTTP_TRANSPORTS {
        cases.push((Lang::TypeScript, format!("const t = new {name}({{}});\n")));
        cases.push((
            Lang::TypeScript,
            format!("const t = new sdk.{name}({{}});\n"),
        ));
    }
    for name in PY_HTTP_METHODS.iter().chain(PY_HTTP_CLASSES) {
        cases.push((Lang::Python, format!("x = mcp.{name}()\n")));
    }
    // Transport names compare in any case (`transport_branches::HTTP_NAMES`), in each form.
    for name in [
        "SSE",
        "Streamable_HTTP",
        "streamableHttp",
        "HTTP-Stream",
        "http_stream",
    ] {
        cases.push((
            Lang::JavaScript,
            format!("if (mode === '{name}') {{\n  console.log(1);\n}}\n"),
        ));
        cases.push((
            Lang::Python,
            format!("if MODE == \"{name}\":\n    print(1)\n"),
        ));
    }
    cases.push((
        Lang::TypeScript,
        "switch (kind) {\n  case 'SSE':\n    console.log(1);\n}\n".into(),
    ));
    // An environment variable whose test picks an HTTP transport (a selector), where the
    // only words of the text test are the parts of the call that starts it.
    cases.push((
        Lang::JavaScript,
        "if (process.env.WEB) {\n  startSSEServer(server);\n}\nif (process.env.WEB) {\n  console.log(1);\n}\n".into(),
    ));
    cases.push((
        Lang::Python,
        "import os\nif os.environ.get('WEB'):\n    HTTPServer(a, H).serve_forever()\nif os.getenv('WEB'):\n    print('x')\n".into(),
    ));
    // `http` compared with a side that names a transport within a longer name, and request
    // headers read within a longer name.
    cases.push((
        Lang::Python,
        "if MCP_TRANSPORT == 'http':\n    print(1)\n".into(),
    ));
    cases.push((
        Lang::JavaScript,
        "if (cfg.transportMode === 'http') {\n  console.log(1);\n}\n".into(),
    ));
    cases.push((
        Lang::JavaScript,
        "if (headersList['x-mode'] === 'web') {\n  console.log(1);\n}\n".into(),
    ));
    cases.push((
        Lang::Python,
        "def handle(request):\n    if request.headers.get('x-mode') == 'web':\n        print(1)\n"
            .into(),
    ));
    // A function that prints and ends the process with success is off the stdio path.
    cases.push((
        Lang::Python,
        "def version():\n    print(v)\n    os._exit(0)\n".into(),
    ));
    for (lang, src) in &cases {
        assert!(demotes(*lang, src), "{src}");
        assert!(may_demote(*lang, src.as_bytes()), "{src}");
    }
    // Look-alikes that are other words: no fact, and the text test says so.
    for src in [
        "el.addListener('x', f);\nconsole.log(1);\n",
        "onExit(() => console.log(1));\n",
    ] {
        assert!(!demotes(Lang::JavaScript, src) && !may_demote(Lang::JavaScript, src.as_bytes()));
    }
    // An environment variable read in a module that picks no HTTP transport selects
    // nothing, and `http` names no transport unless a transport is named: no fact, and the
    // text test says so.
    for (lang, src) in [
        (
            Lang::JavaScript,
            "if (process.env.DEBUG) {\n  console.log(1);\n}\n",
        ),
        (
            Lang::Python,
            "import os\nif os.environ.get('DEBUG') or os.getenv('V'):\n    print('x')\n",
        ),
        // `http` where no transport is named: a module, a scheme.
        (
            Lang::Python,
            "import http.client\nif scheme == 'http':\n    print('x')\n",
        ),
        (
            Lang::JavaScript,
            "const http = require('http');\nif (u.protocol === 'http') {\n  console.log(1);\n}\n",
        ),
    ] {
        assert!(
            !demotes(lang, src) && !may_demote(lang, src.as_bytes()),
            "{src}"
        );
    }
    // Neither a transport nor an exit: the scan keeps no facts for such a module.
    let plain = "import sys\nprint('hi')\nsys.stdout.write('x')\n";
    assert!(!demotes(Lang::Python, plain) && !may_demote(Lang::Python, plain.as_bytes()));
    let plain = "import { x } from './x.js';\nconsole.log(x);\n";
    assert!(!demotes(Lang::JavaScript, plain) && !may_demote(Lang::JavaScript, plain.as_bytes()));
}

#[test]
fn an_import_used_only_off_the_stdio_path_is_a_load_off_it() {
    let js = "import { startSSEServer } from './sse.js';\nimport { tools } from './tools.js';\n\
              if (process.env.ENABLE_SSE) {\n  startSSEServer(server, tools);\n} else {\n  server.connect(new StdioServerTransport());\n}\nregister(tools);\n";
    let facts = of(Lang::JavaScript, js);
    let off: Vec<(&str, Option<OffStdio>)> = facts
        .loads
        .iter()
        .map(|l| (l.specifier.as_str(), l.off_stdio))
        .collect();
    assert_eq!(
        off,
        vec![
            ("./sse.js", Some(OffStdio::TransportBranch)),
            ("./tools.js", None)
        ]
    );
}

/// A branch that creates a server transport picks an HTTP transport: each of
/// `JS_HTTP_TRANSPORTS`, in lower case, is among `transport_branches::PICKS_HTTP`, which the
/// text test looks for.
#[test]
fn the_server_transports_pick_http() {
    for name in JS_HTTP_TRANSPORTS {
        let lower = name.to_ascii_lowercase();
        assert!(
            transport_branches::PICKS_HTTP.contains(&lower.as_str()),
            "{name}"
        );
    }
}

/// Python's exits and `__main__` count only around a write, and request headers only in a
/// line that compares them (`may_demote_at`): over every Python file of the fixtures and a
/// few written here, a write placed at the start of any line the test passes by is in no
/// part off stdio and no exit write of the whole file's facts, in a module that does not
/// serve HTTP only.
#[test]
fn a_write_the_text_test_passes_by_is_in_no_part_off_stdio() {
    let written = [
        // An exiting function, a `__main__` block and a write in neither.
        "import sys\n@cli.command()\ndef usage():\n    print('usage')\n    sys.exit(0)\n\ndef tool(x):\n    print(x)\n    return x\n\nclass T:\n    def fail(self):\n        print('bad')\n        raise SystemExit('failed')\n\n    def ok(self):\n        return 1\n\nif __name__ == \"__main__\":\n    usage()\nelse:\n    print('imported')\n",
        // Request headers compared: in a flag function read elsewhere, across lines, and
        // with `in`.
        "def is_web(request):\n    return request.headers.get(\n        'x-mode'\n    ) == 'web'\n\ndef handle(request):\n    if is_web(request):\n        print('web')\n    if 'web' in request.headers.get('x-mode', ''):\n        print('also')\n    print('always')\n",
        // Classes: a method that exits, a write in the class body before its exit, a method
        // in a branch of the class body that exits.
        "import sys\nclass Tool:\n    def quiet(self):\n        return 1\n\n    def fail(self):\n        print('bad')\n        sys.exit(0)\n\n    print('loaded')\n    raise SystemExit(2)\n    if DEBUG:\n        def dump(self):\n            print('dump')\n        sys.exit(0)\n\n    def loud(self):\n        print('loud')\n",
        // The write inside the exit's own call, and an `else` clause that exits.
        "import os\ndef bye():\n    sys.exit(print('bye'))\nif len(sys.argv) > 1:\n    print('x')\nelse:\n    print('y')\n    os._exit(0)\nprint('top')\n",
    ];
    let mut sources = super::super::fixture_sources(&[Lang::Python]);
    sources.extend(
        written
            .iter()
            .map(|s| (Lang::Python, format!("{s:?}"), s.as_bytes().to_vec())),
    );
    let (mut skipped, mut kept) = (0, 0);
    for (lang, path, src) in &sources {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        let tree = parser.parse(src, None).expect("parse");
        if tree.root_node().has_error() {
            continue;
        }
        let facts = facts(*lang, tree.root_node(), src).expect("facts");
        let text = lang.text(src);
        let lines = std::iter::once(0).chain(memchr::memchr_iter(b'\n', src).map(|i| i + 1));
        for (row, start) in lines.enumerate().filter(|(_, s)| *s < src.len()) {
            let covers = |r: &Range| r.start_point.row <= row && row <= r.end_point.row;
            let demoted = facts.http_only()
                || facts.exit_writes.iter().any(covers)
                || facts.off_stdio.iter().any(|(r, _)| covers(r));
            if may_demote_at(*lang, &text, &[start]) {
                kept += usize::from(demoted);
            } else {
                assert!(!demoted, "{path}: a write on line {} is a note", row + 1);
                skipped += usize::from(may_demote(*lang, src));
            }
        }
    }
    // Lines the whole-file test sent to the facts and this one does not, and lines a part
    // covers: neither side is empty.
    assert!(skipped > 50 && kept > 20, "skipped {skipped}, kept {kept}");
}

/// The parts around writes where an exit may make them notes: the outermost statement around
/// a write that is not a class, with a definition's decorators and an `if`'s clauses, and the
/// statements after a write of a module or a class body up to the first that is not one;
/// None when the lexer is unsure.
#[test]
fn the_part_around_a_write_holds_its_statement_and_the_writes_after_it() {
    let src = "import sys\n@a\n@b(\n  1)\ndef f():\n    x = '''\nsys.exit(0)\n'''\n    print(x)\nif a:\n    pass\nelif b:\n    print(2)\nelse:\n    sys.exit(0)\nprint(3)\nsys.stderr.write ('4')\nsys.exit(1)\nx = 5\nprint(6)\n";
    let at = |needle: &str| src.find(needle).expect(needle);
    let writes = [
        at("print(x)"),
        at("print(2)"),
        at("print(3)"),
        at("print(6)"),
    ];
    assert_eq!(
        parts_around(src, &writes),
        vec![
            "@a\n@b(\n  1)\ndef f():\n    x = '''\nsys.exit(0)\n'''\n    print(x)\n",
            "if a:\n    pass\nelif b:\n    print(2)\nelse:\n    sys.exit(0)\n",
            "print(3)\nsys.stderr.write ('4')\nsys.exit(1)\n",
            "print(6)\n",
        ]
    );
    // In a class: the method, with its decorator, and not the class; a write in the class
    // body with the exit after it; a method in a branch of the class body: the branch.
    let src = "class A:\n    x = 1\n\n    @staticmethod\n    def f():\n        print(1)\n\n    def g(self):\n        sys.exit(0)\n\n    class B:\n        def h(self):\n            print(2)\n\n    print(3)\n    raise SystemExit(1)\n    y = 2\n    if X:\n        def k(self):\n            print(4)\n        sys.exit(0)\n";
    let writes = [
        at_in(src, "print(1)"),
        at_in(src, "print(2)"),
        at_in(src, "print(3)"),
        at_in(src, "print(4)"),
    ];
    assert_eq!(
        parts_around(src, &writes),
        vec![
            "    @staticmethod\n    def f():\n        print(1)\n\n",
            "        def h(self):\n            print(2)\n\n",
            "    print(3)\n    raise SystemExit(1)\n",
            "    if X:\n        def k(self):\n            print(4)\n        sys.exit(0)\n",
        ]
    );
    let text = Lang::Python.text(b"x = '\nprint(1)\n");
    assert_eq!(python::local_parts(&text, &[7]), None);
}

/// A Python condition on request headers is a comparison with `headers` in one side, in
/// one logical line; a module that names headers in no such line has no part off stdio
/// from them.
#[test]
fn headers_make_notes_only_where_a_line_compares_them() {
    let compares = |src: &str| python::compares_headers(&Lang::Python.text(src.as_bytes()));
    for src in [
        "if request.headers.get('x') == 'web':\n    print(1)\n",
        "web = (request.headers[\n    'x'\n] != 'cli')\n",
        "if h not in request_headers:\n    pass\n",
        "x = '\n",
    ] {
        assert!(compares(src), "{src}");
    }
    for src in [
        "SCHEME = {\n    'headers': '$base/include',\n}\nself.install_headers = None\n",
        "if self.headers is None:\n    print(1)\n",
        "headers = 1\nif a == b:\n    print(headers)\n",
    ] {
        assert!(!compares(src), "{src}");
    }
}

fn at_in(src: &str, needle: &str) -> usize {
    src.find(needle).expect(needle)
}

/// The text of each part `python::local_parts` gives around the writes at `at`.
fn parts_around<'s>(src: &'s str, at: &[usize]) -> Vec<&'s str> {
    let text = Lang::Python.text(src.as_bytes());
    let parts = python::local_parts(&text, at).expect("statements");
    parts.iter().map(|&(s, e)| &src[s..e]).collect()
}

/// `python::local_parts` walks arrays made once per file; the walk it replaced went back and
/// forth over the statements for each write (quadratic in a file of many writes). Both give
/// the same part for a write at the start of every line of every Python fixture and of the
/// cases above.
#[test]
fn the_parts_around_writes_are_those_of_a_walk_for_each_write() {
    let mut sources = super::super::fixture_sources(&[Lang::Python]);
    let written = "import sys\n@a\ndef f():\n    print(1)\nif a:\n    pass\nelif b:\n    print(2)\nelse:\n    sys.exit(0)\nprint(3)\nprint(4)\nsys.exit(1)\nclass A:\n    @s\n    def g():\n        print(5)\n    print(6)\n    raise SystemExit(1)\n    if X:\n        def k(self):\n            print(7)\n        sys.exit(0)\n";
    sources.push((Lang::Python, "written".into(), written.as_bytes().to_vec()));
    let mut compared = 0;
    for (_, path, src) in &sources {
        let text = Lang::Python.text(src);
        let Some(statements) = super::super::python_window::line_statements(&text) else {
            continue;
        };
        let at: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', src).map(|i| i + 1))
            .filter(|&i| i < src.len())
            .collect();
        let fast = python::local_parts(&text, &at).expect("statements");
        let slow: Vec<(usize, usize)> = at
            .iter()
            .map(|&a| walked_part(statements, src, a))
            .collect();
        assert_eq!(fast, slow, "{path}");
        compared += at.len();
    }
    assert!(compared > 4_000, "{compared} lines");
}

/// The part around a write at `at`, walking the statements for it alone (the first way
/// `local_parts` was written).
fn walked_part(
    statements: &[super::super::python_window::Statement],
    src: &[u8],
    at: usize,
) -> (usize, usize) {
    let n = statements.len();
    let line = |i: usize| statements.get(i).map_or(src.len(), |s| s.line);
    let indent = |i: usize| statements[i].indent;
    let after = |i: usize| {
        let mut j = i + 1;
        while j < n
            && (indent(j) > indent(i)
                || indent(j) == indent(i) && (statements[j].clause || statements[j - 1].decorator))
        {
            j += 1;
        }
        j
    };
    let write = |i: usize| {
        python::WRITES.iter().any(|w| {
            src[line(i) + indent(i)..]
                .strip_prefix(w.as_bytes())
                .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"("))
        })
    };
    let part = || {
        let Some(inner) = statements.partition_point(|s| s.line <= at).checked_sub(1) else {
            return Some((0, line(0)));
        };
        let mut around = vec![inner];
        for j in (0..inner).rev() {
            if indent(j) < indent(around[around.len() - 1]) {
                around.push(j);
            }
        }
        let mut outer = around.into_iter().rev().find(|&j| !statements[j].class)?;
        while outer > 0 && (statements[outer].clause || statements[outer - 1].decorator) {
            outer = (0..outer).rev().find(|&j| indent(j) <= indent(outer))?;
        }
        let mut end = after(outer);
        if write(outer) {
            while end < n && indent(end) == indent(outer) && write(end) {
                end = after(end);
            }
            if end < n && indent(end) == indent(outer) {
                end = after(end);
            }
        }
        Some((line(outer), line(end)))
    };
    part().unwrap_or((0, src.len()))
}
