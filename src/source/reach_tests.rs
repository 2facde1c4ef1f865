//! Tests of `reach`: the modules' facts as it reads them, in part, against the whole file's;
//! the facts of the parts around the writes and when they are read again whole.

use super::*;
use crate::source::lang::transports;
use crate::source::lang::transports_window::quiet_parts;

/// A module's facts as `reach` reads them (from the parts that mention a fact word) and
/// from a whole parse: loads, servers, exit writes and the parts off stdio, by row.
#[test]
fn a_module_read_in_part_has_the_whole_files_facts() {
    for lang in [Lang::Python, Lang::JavaScript] {
        let (body, filler) = quiet_parts(lang);
        let src = if lang == Lang::Python {
            format!(
                "import sys\nimport os\n{filler}def main():\n{body}    if os.getenv('HTTP') == 'true':\n        import http_app\n        print('http')\n        return\n    if '--help' in sys.argv:\n        print('usage')\n        sys.exit(0)\n    mcp.run()\n{filler}"
            )
        } else {
            format!(
                "import {{ a }} from './a.js';\n{filler}function main() {{\n{body}  if (process.env.TRANSPORT === 'sse') {{\n    console.log('http');\n    return import('./http.js');\n  }}\n  if (process.argv.includes('--help')) {{\n    console.log('usage');\n    process.exit(0);\n  }}\n  server.connect(new StdioServerTransport());\n}}\n{filler}"
            )
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir
            .path()
            .join(if lang == Lang::Python { "m.py" } else { "m.js" });
        std::fs::write(&path, &src).expect("write");
        let ranges = transports_window::ranges(lang, src.as_bytes()).expect("windowed");
        let kept: usize = ranges.iter().map(|r| r.end_byte - r.start_byte).sum();
        assert!(
            kept * 2 < src.len(),
            "{lang:?}: most of the module is left out"
        );
        let summary = |f: &ModuleFacts| {
            let off: Vec<(usize, OffStdio)> = f
                .off_stdio
                .iter()
                .map(|(r, why)| (r.start_point.row, *why))
                .collect();
            let exits: Vec<usize> = f.exit_writes.iter().map(|r| r.start_point.row).collect();
            format!(
                "http {} stdio {} connects {} loads {:?} exits {exits:?} off {off:?}",
                f.serves_http, f.serves_stdio, f.connects, f.loads
            )
        };
        let read = read_facts(&path, 1 << 20, true, &mut HashMap::new()).expect("facts");
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        let tree = parser.parse(&src, None).expect("parse");
        let whole = transports::facts(lang, tree.root_node(), src.as_bytes()).expect("facts");
        assert_eq!(summary(&read), summary(&whole), "{lang:?}");
        assert!(
            !whole.off_stdio.is_empty() && !whole.loads.is_empty(),
            "{lang:?}: {}",
            summary(&whole)
        );
    }
}

/// A Python module's facts, read in part statement by statement, are the whole file's
/// where what decides them is not a fact word of the statement that holds it: a guard on
/// a flag (a name set from a transport's test) leaves the rest of its function off stdio;
/// a class's methods are cut each on its own, one exiting after a write; a call that
/// serves before `os._exit(0)` or `sys.exit(0)` (a function that exits without serving is
/// off stdio); a function whose body is more than the `return` of a flag's test (so not
/// a flag); a branch's extent, to its last statement.
#[test]
fn a_python_module_read_statement_by_statement_has_the_whole_files_facts() {
    let (body, filler) = quiet_parts(Lang::Python);
    let deeper = body.replace("    ", "        ");
    let cases = [
        (
            "a guard on a flag",
            format!(
                "import sys\nTRANSPORT = sys.argv[1]\nuse_http = TRANSPORT == 'sse'\n{filler}def handler():\n{body}    if not use_http:\n        return\n{body}    print('x')\n{filler}"
            ),
            true,
            "def quiet0(",
        ),
        (
            "a class's methods",
            format!(
                "import sys\n{filler}class Tool:\n    def loud(self, x):\n        print('a')\n{deeper}        print('b')\n\n    def quiet(self, x):\n{deeper}        return x\n\n    def fail(self, x):\n{deeper}        print('bad')\n        sys.exit(2)\n{filler}"
            ),
            true,
            "def quiet(self",
        ),
        (
            "os._exit after a serving call",
            format!(
                "import os\n{filler}def once(x):\n    print('starting')\n{body}    start(x)\n{body}    os._exit(0)\n{filler}"
            ),
            false,
            "def quiet0(",
        ),
        (
            "sys.exit after a serving call",
            format!(
                "import sys\n{filler}def once(x):\n    print('starting')\n{body}    serve(x)\n{body}    sys.exit(0)\n{filler}"
            ),
            false,
            "def quiet0(",
        ),
        (
            "a function's body of more than its return (no flag's setter)",
            format!(
                "import sys\nuse_http = sys.argv[1] == 'sse'\n{filler}def quiet_http():\n    x = 1\n{body}    return sys.stdout.isatty() and use_http\n\n\
                 def handler():\n    if quiet_http():\n        print('x')\n{filler}"
            ),
            false,
            "def quiet0(",
        ),
        (
            "a branch's extent",
            format!(
                "import sys\n{filler}def main(x):\n    if sys.argv[1] == 'sse':\n        print('sse')\n{deeper}        x = x + 2\n    print('after')\n{filler}"
            ),
            true,
            "def quiet0(",
        ),
    ];
    let summary = |f: &ModuleFacts| {
        let off: Vec<(usize, usize, OffStdio)> = f
            .off_stdio
            .iter()
            .map(|(r, why)| (r.start_point.row, r.end_point.row, *why))
            .collect();
        let exits: Vec<usize> = f.exit_writes.iter().map(|r| r.start_point.row).collect();
        format!(
            "http {} stdio {} loads {:?} exits {exits:?} off {off:?} flags {:?}",
            f.serves_http, f.serves_stdio, f.loads, f.flags
        )
    };
    // Each case: its name, the module, whether its facts decide something (make a part
    // off stdio or a write an exit's), and a quiet part its window leaves out.
    for (case, src, decides, left_out) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("m.py");
        std::fs::write(&path, &src).expect("write");
        let ranges = transports_window::ranges(Lang::Python, src.as_bytes()).expect("windowed");
        let kept: usize = ranges.iter().map(|r| r.end_byte - r.start_byte).sum();
        assert!(
            kept * 2 < src.len(),
            "{case}: most of the module is left out"
        );
        // A class is cut method by method: its quiet method (not its first nor its last)
        // is left out, as the module's quiet functions are.
        let text: String = ranges
            .iter()
            .map(|r| &src[r.start_byte..r.end_byte])
            .collect();
        assert!(!text.contains(left_out), "{case}: {text}");
        let read = read_facts(&path, 1 << 20, true, &mut HashMap::new()).expect("facts");
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&Lang::Python.grammar())
            .expect("grammar");
        let tree = parser.parse(&src, None).expect("parse");
        let whole =
            transports::facts(Lang::Python, tree.root_node(), src.as_bytes()).expect("facts");
        assert_eq!(summary(&read), summary(&whole), "{case}");
        // Where nothing is decided, that is the point: a function that serves before its
        // exit, or one that is not a flag's setter, keeps its writes warnings.
        let decided = !whole.off_stdio.is_empty() || !whole.exit_writes.is_empty();
        assert_eq!(decided, decides, "{case}: {}", summary(&whole));
    }
}

/// The facts of the parts around a module's writes (`ModuleFacts::local`) decide its own
/// writes' notes (`Modules::own`); an entry's path reads the module again whole
/// (`Modules::get`), for its loads and what it serves, and keeps those.
#[test]
fn facts_of_the_parts_around_the_writes_are_read_again_whole_for_an_entrys_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("m.py");
    let src = "import helper\nfrom mcp.server.fastmcp import FastMCP\n\n\ndef main():\n    FastMCP('m').run()\n";
    std::fs::write(&path, src).expect("write");
    let local = ModuleFacts {
        local: true,
        ..ModuleFacts::default()
    };
    let mut modules = Modules {
        max_file_bytes: 1 << 20,
        windows: true,
        facts: HashMap::from([(path.clone(), Some(local))]),
        parsers: HashMap::new(),
    };
    let own = modules.own(&path).expect("facts");
    assert!(own.local && own.loads.is_empty() && !own.serves_stdio);
    let whole = modules.get(&path).expect("facts");
    assert!(!whole.local && whole.serves_stdio, "{whole:?}");
    assert!(
        whole.loads.iter().any(|l| l.specifier == "helper"),
        "{whole:?}"
    );
    assert!(modules.own(&path).is_some_and(|f| !f.local), "read once");
}
