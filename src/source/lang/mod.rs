//! The languages the source scan understands. One file per language; each walks the syntax
//! tree once, records bindings and candidate calls, then resolves each candidate's names.

mod c_family_prints;
mod csharp;
mod exit_paths;
mod fact_marks;
mod go;
mod java;
mod javascript;
mod js_bindings;
mod js_lex;
mod js_loggers;
mod js_prints;
mod js_resolve;
mod js_window;
mod kotlin;
mod prefilter;
mod python;
mod python_bindings;
mod python_binds;
mod python_calls;
mod python_lex;
mod python_prints;
mod python_redirect;
mod python_window;
mod python_words;
mod rust;
mod rust_paths;
mod scope;
mod syntax;
mod transport_branches;
pub mod transports;
pub mod transports_window;

use crate::catalog::Code;
/// A file's bytes as its language's text tests read them, each pass made once.
pub use prefilter::Text;
use std::path::Path;
use tree_sitter::{Node, Range, Tree};

/// A language with a grammar. TypeScript and TSX share the JavaScript rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    JavaScript,
    TypeScript,
    Tsx,
    Python,
    Go,
    Rust,
    Java,
    Kotlin,
    CSharp,
}

impl Lang {
    pub const ALL: [Lang; 9] = [
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Python,
        Lang::Go,
        Lang::Rust,
        Lang::Java,
        Lang::Kotlin,
        Lang::CSharp,
    ];

    /// The name used in findings and statistics.
    pub fn name(self) -> &'static str {
        match self {
            Lang::JavaScript => "javascript",
            Lang::TypeScript | Lang::Tsx => "typescript",
            Lang::Python => "python",
            Lang::Go => "go",
            Lang::Rust => "rust",
            Lang::Java => "java",
            Lang::Kotlin => "kotlin",
            Lang::CSharp => "csharp",
        }
    }

    /// The language of a file, by its name. Type declaration files (`.d.ts`) hold no code.
    pub fn of_path(path: &Path) -> Option<Lang> {
        let name = path.file_name()?.to_str()?;
        if [".d.ts", ".d.mts", ".d.cts"]
            .iter()
            .any(|s| name.ends_with(s))
        {
            return None;
        }
        let ext = name.rsplit_once('.')?.1;
        Some(match ext {
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "py" | "pyw" => Lang::Python,
            "go" => Lang::Go,
            "rs" => Lang::Rust,
            "java" => Lang::Java,
            "kt" | "kts" => Lang::Kotlin,
            "cs" => Lang::CSharp,
            _ => return None,
        })
    }

    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
            Lang::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
        }
    }

    /// A cheap text test before parsing: false only if the file cannot hold a finding,
    /// because it does not mention what any of the language's rules needs.
    pub fn may_hold_finding(self, src: &[u8]) -> bool {
        self.text(src).may_match()
    }

    /// `src` for the text tests of this language (the prefilter's, the windows', the facts'
    /// mentions), each pass over it made once.
    pub fn text(self, src: &[u8]) -> prefilter::Text<'_> {
        prefilter::Text::new(src, self.prefilter())
    }

    /// The language's needs, stated next to its rules.
    fn prefilter(self) -> &'static prefilter::Prefilter {
        match self {
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &javascript::PREFILTER,
            Lang::Python => &python_words::PREFILTER,
            Lang::Go => &go::PREFILTER,
            Lang::Rust => &rust::PREFILTER,
            Lang::Java => &java::PREFILTER,
            Lang::Kotlin => &kotlin::PREFILTER,
            Lang::CSharp => &csharp::PREFILTER,
        }
    }

    /// The parts of a large file worth parsing (see `js_window`, `python_window`), or None
    /// for all of it.
    pub fn parse_ranges(self, text: &prefilter::Text<'_>) -> Option<Vec<Range>> {
        let src = text.src;
        match self {
            Lang::JavaScript | Lang::TypeScript if src.len() >= WINDOW_MIN_BYTES => {
                javascript::parse_ranges(text)
            }
            Lang::Python if src.len() >= WINDOW_MIN_BYTES => python_words::parse_ranges(text),
            _ => None,
        }
    }

    /// After a parse of `ranges`: wider ranges if a left-out part uses a name the parsed part
    /// binds to a stdout writer (empty ranges: the whole file), or None if the parse will do.
    pub fn widen_ranges(self, tree: &Tree, src: &[u8], ranges: &[Range]) -> Option<Vec<Range>> {
        match self {
            Lang::JavaScript | Lang::TypeScript => {
                javascript::widen_ranges(self, tree.root_node(), &self.text(src), ranges)
            }
            Lang::Python => python::widen_ranges(self, tree.root_node(), &self.text(src), ranges),
            _ => None,
        }
    }

    /// After a parse of `ranges`: `Err` with wider ranges as `widen_ranges` says, else `Ok`
    /// with what `scan` finds, from one walk of the tree.
    pub fn widen_or_scan(
        self,
        tree: &Tree,
        text: &Text<'_>,
        ranges: &[Range],
    ) -> Result<Vec<Hit>, Vec<Range>> {
        let src = text.src;
        let root = tree.root_node();
        let mut out = Vec::new();
        let wider = match self {
            Lang::JavaScript | Lang::TypeScript => {
                javascript::widen_or_scan(self, root, text, ranges, &mut out)
            }
            Lang::Python => python::widen_or_scan(self, root, text, ranges, &mut out),
            _ => return Ok(self.scan(tree, src)),
        };
        match wider {
            Some(wider) => Err(wider),
            None => Ok(out),
        }
    }

    /// Every stdout write or stdout logger in one parsed file.
    pub fn scan(self, tree: &Tree, src: &[u8]) -> Vec<Hit> {
        let root = tree.root_node();
        let mut out = Vec::new();
        match self {
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
                javascript::scan(self, root, src, &mut out)
            }
            Lang::Python => python::scan(self, root, src, &mut out),
            Lang::Go => go::scan(self, root, src, &mut out),
            Lang::Rust => rust::scan(self, root, src, &mut out),
            Lang::Java => java::scan(self, root, src, &mut out),
            Lang::Kotlin => kotlin::scan(self, root, src, &mut out),
            Lang::CSharp => csharp::scan(self, root, src, &mut out),
        }
        out
    }
}

/// How messages name what a stdout write breaks, after naming the stream itself.
pub(crate) const JSON_RPC_CHANNEL: &str = "the stdio transport's JSON-RPC channel";

/// Files smaller than this are always parsed whole by the scan.
const WINDOW_MIN_BYTES: usize = 1024;
/// Files smaller than this are always parsed whole for their facts (`transports_window`).
const FACTS_WINDOW_MIN_BYTES: usize = 4 * 1024;

/// One finding in a file, before it becomes a `Finding` with a file location.
#[derive(Debug, Clone)]
pub struct Hit {
    pub code: Code,
    pub range: Range,
    pub message: String,
    pub fix: String,
    pub edit: Option<Edit>,
    /// An import the edit needs (`import sys`, Go's `"os"`), inserted elsewhere in the file.
    pub import: Option<Edit>,
    /// What the write would print, for matching the lines a live server printed.
    pub prints: Option<crate::prints::Pattern>,
}

/// A safe textual replacement of `range` by `text`.
#[derive(Debug, Clone)]
pub struct Edit {
    pub range: Range,
    pub text: String,
    pub description: String,
}

impl Hit {
    /// A direct write to stdout at `node`.
    pub fn write(node: Node<'_>, message: String, fix: impl Into<String>) -> Self {
        Self {
            code: Code::StaticStdoutWrite,
            range: node.range(),
            message,
            fix: fix.into(),
            edit: None,
            import: None,
            prints: None,
        }
    }

    /// A logger or console object configured (or defaulting) to stdout, at `node`.
    pub fn logger(node: Node<'_>, message: String, fix: impl Into<String>) -> Self {
        Self {
            code: Code::StaticStdoutLogger,
            ..Self::write(node, message, fix)
        }
    }

    /// Carries a safe replacement of `node`'s text.
    pub fn edit(
        self,
        node: Node<'_>,
        text: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.edit_range(node.range(), text, description)
    }

    pub fn edit_range(
        mut self,
        range: Range,
        text: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.edit = Some(Edit {
            range,
            text: text.into(),
            description: description.into(),
        });
        self
    }
}

impl Hit {
    /// Carries what the write would print.
    pub fn prints(mut self, pattern: crate::prints::Pattern) -> Self {
        self.prints = Some(pattern);
        self
    }

    /// Carries the insertion of `text` at `at` that the edit needs (an import).
    pub fn import_at(mut self, at: tree_sitter::Point, byte: usize, text: String) -> Self {
        self.import = Some(Edit {
            range: Range {
                start_byte: byte,
                end_byte: byte,
                start_point: at,
                end_point: at,
            },
            text,
            description: "Add the import the rewrite needs".into(),
        });
        self
    }
}

/// The line ending a file uses, to write inserted lines the same way.
pub(crate) fn line_ending(src: &[u8]) -> &'static str {
    if memchr::memmem::find(src, b"\r\n").is_some() {
        "\r\n"
    } else {
        "\n"
    }
}

/// The root of the tree `node` is in.
pub(crate) fn root_of(node: Node<'_>) -> Node<'_> {
    let mut n = node;
    while let Some(p) = n.parent() {
        n = p;
    }
    n
}

/// The range from the start of `first` to the end of `last`.
pub(crate) fn span(first: Node<'_>, last: Node<'_>) -> Range {
    Range {
        start_byte: first.start_byte(),
        end_byte: last.end_byte(),
        start_point: first.start_position(),
        end_point: last.end_position(),
    }
}

/// `snippet` as shown in a message: its first line, bounded.
pub(crate) fn quoted(node: Node<'_>, src: &[u8]) -> String {
    let text = syntax::text(node, src);
    let first = text.lines().next().unwrap_or("");
    let short = crate::finding::excerpt(first, 60);
    if first.len() < text.len() || short.ends_with('…') {
        format!("`{}…`", short.trim_end_matches('…'))
    } else {
        format!("`{short}`")
    }
}

/// Every node of a tree, parents first.
pub fn syntax_preorder<'t>(root: Node<'t>, visit: impl FnMut(Node<'t>)) {
    syntax::preorder(root, visit);
}

/// Every comment node in a tree.
pub fn syntax_comments(root: Node<'_>) -> Vec<Node<'_>> {
    let mut comments = Vec::new();
    syntax::preorder(root, |n| {
        if n.kind().ends_with("comment") {
            comments.push(n);
        }
    });
    comments
}

/// For tests: every file of `tests/fixtures` in one of `langs` (not what a fixture installs
/// in `node_modules` or `.venv`), as (language, path, bytes), in a stable order.
#[cfg(test)]
pub fn fixture_sources(langs: &[Lang]) -> Vec<(Lang, String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixtures").flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() && !matches!(name.as_str(), "node_modules" | ".venv") {
                dirs.push(path);
            } else if let Some(lang) = Lang::of_path(&path).filter(|l| langs.contains(l)) {
                let src = std::fs::read(&path).expect("read");
                files.push((lang, path.display().to_string(), src));
            }
        }
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_a_prefilter_that_compiles() {
        for lang in Lang::ALL {
            let prefilter = lang.prefilter();
            assert!(prefilter.compiles(), "{lang:?}: {:?}", prefilter.words());
            assert!(!lang.may_hold_finding(b"let x = 1;\n"), "{lang:?}");
        }
    }

    /// What each write of `src` prints, in order.
    fn prints(lang: Lang, src: &str) -> Vec<crate::prints::Pattern> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        let tree = parser.parse(src, None).expect("parse");
        lang.scan(&tree, src.as_bytes())
            .into_iter()
            .filter_map(|h| h.prints)
            .collect()
    }

    #[test]
    fn every_language_with_patterns_describes_what_its_writes_print() {
        let cases: &[(Lang, &str, &str)] = &[
            (Lang::JavaScript, "console.log(`up on ${port}!`)", "up on 80!"),
            (Lang::JavaScript, "console.log('a ' + b + ' c', d)", "a x c 1"),
            (Lang::JavaScript, "console.info('%s ready in %dms', n, 3)", "db ready in 3ms"),
            (Lang::JavaScript, "process.stdout.write('raw\\n')", "raw"),
            (Lang::Python, "print(f'up on {port!r:>5}')", "up on    80"),
            (Lang::Python, "print('a', b, sep='-')", "a-x"),
            (Lang::Python, "print('%s ready' % name)", "db ready"),
            (Lang::Python, "print('{} ready {{ok}}'.format(name))", "db ready {ok}"),
            (Lang::Python, "import sys\nsys.stdout.write('x: ' + y + '\\n')", "x: 1"),
            (Lang::Go, "package m\nimport \"fmt\"\nfunc f() { fmt.Printf(\"port %d\\n\", 8) }", "port 8"),
            (Lang::Go, "package m\nimport \"fmt\"\nfunc f() { fmt.Println(\"a\", x, fmt.Sprintf(\"%q\", y)) }", "a 1 \"b\""),
            (Lang::Rust, "fn f() { println!(\"up on {port:>5}\"); }", "up on    80"),
            (Lang::Java, "class A { void f() { System.out.println(\"up on \" + port); } }", "up on 80"),
            (Lang::Java, "class A { void f() { System.out.printf(\"up on %d%n\", port); } }", "up on 80"),
            (Lang::CSharp, "class A { void F() { Console.WriteLine($\"up on {port}!\"); } }", "up on 80!"),
            (Lang::CSharp, "class A { void F() { Console.WriteLine(\"up on {0}\", port); } }", "up on 80"),
        ];
        for (lang, src, line) in cases {
            let found = prints(*lang, src);
            assert_eq!(found.len(), 1, "{src}: {found:?}");
            let lines = found[0].lines();
            assert!(
                lines.iter().any(|p| p.matches(line)),
                "{src}: {found:?} vs {line:?}"
            );
            assert!(!lines.iter().any(|p| p.matches("something else")), "{src}");
        }
    }

    fn hits(lang: Lang, src: &str) -> usize {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        let tree = parser.parse(src, None).expect("parse");
        lang.scan(&tree, src.as_bytes()).len()
    }

    /// The prefilter keeps every file with a finding and rules out files whose words are only
    /// in comments, in strings the rules never read, or in uses no rule follows. Each case is
    /// also scanned: the prefilter's answer is whether the scan finds something.
    #[test]
    fn the_prefilter_rules_out_only_files_without_findings() {
        let cases: &[(Lang, &str, bool)] = &[
            (Lang::Python, "print('x')\n", true),
            (Lang::Python, "x = f\"{print('x')}\"\n", true),
            (Lang::Python, "import builtins\nbuiltins.print('x')\n", true),
            (Lang::Python, "import sys\nsys.stdout.write('x')\n", true),
            (Lang::Python, "import logging\nimport sys as s\nh = logging.StreamHandler(s.stdout)\n", true),
            (Lang::Python, "import sys\nsys.stdout.buffer.write(b'x')\n", true),
            (Lang::Python, "import logging.config\nC = {'h': {'stream': 'ext://sys.stdout'}}\nlogging.config.dictConfig(C)\n", true),
            (Lang::Python, "import os\nos.write(1, b'x')\n", true),
            (Lang::Python, "from os import write\nw = write\nw(1, b'x')\n", true),
            (Lang::Python, "import click\nclick.echo('x')\n", true),
            (Lang::Python, "from rich import print as rp\nrp('x')\n", true),
            (Lang::Python, "# print('x')\n'''print(1)'''\ns = 'print(2)'\n", false),
            (Lang::Python, "self.print('x')\nlog.print('y')\n", false),
            (Lang::Python, "import sys\nrun(c, stdout=PIPE)\nif sys.stdout.isatty():\n    stdout = 1\n", false),
            (Lang::Python, "class P:\n    def stdout(self):\n        return sys\n", false),
            (Lang::Python, "import os\nf.write(data)\nos.write(fd, b'x')\n", false),
            (Lang::Python, "from .utils import echo\necho('x')\n", false),
            (Lang::Python, "from pip._vendor.rich.console import Console\nConsole()\n", false),
            (Lang::Python, "import six\nb = six.moves.builtins\n", false),
            (Lang::Python, "class Console:\n    def print(self, x):\n        self.file.write(x)\n", false),
            (Lang::Python, "class C:\n    def print(self):\n        print('x')\n", true),
            // builtins matters only for its print.
            (Lang::Python, "import builtins\nf = builtins.open\n", false),
            (Lang::Python, "from builtins import frozendict\nx = frozendict()\n", false),
            (Lang::Python, "import builtins as b\nb.print('x')\n", true),
            (Lang::Python, "import builtins\nb = builtins\nb.print('x')\n", true),
            (Lang::Python, "from builtins import print as p\np('x')\n", true),
            (Lang::Python, "from builtins import (\n    print as p,\n)\np('x')\n", true),
            // A use of stdout that can be sys.stdout only through a name bound to it.
            (Lang::Python, "import sys\ndef f(stdout):\n    stdout.write('x')\n", false),
            (Lang::Python, "import os, sys\np = run()\np.stdout.write('x')\nassert process.stdout\n", false),
            (Lang::Python, "import sys\nstdout, stderr = StringIO(), StringIO()\nstdout.write('x')\n", false),
            (Lang::Python, "from sys import stdout\nstdout.write('x')\n", true),
            (Lang::Python, "from sys import (\n    stderr,\n    stdout as out,\n)\nout.write('x')\n", true),
            (Lang::Python, "from sys import *\nstdout.write('x')\n", true),
            (Lang::Python, "import sys as s\ns.stdout.write('x')\n", true),
            (Lang::Python, "import os, sys as s\ns.__stdout__.write('x')\n", true),
            (Lang::Python, "import sys\nout = sys\nout.stdout.write('x')\n", true),
            (Lang::Python, "import os, sys; s = sys\ns.stdout.write('x')\n", true),
            (Lang::Python, "import sys\nclass W:\n    def __init__(self):\n        self.out = sys.stdout\n    def w(self):\n        self.out.write('x')\n", true),
            (Lang::JavaScript, "console.log(1)\n", true),
            (Lang::JavaScript, "const { log } = require('console');\nlog(1)\n", true),
            (Lang::JavaScript, "globalThis['console'].log(1)\n", true),
            (Lang::JavaScript, "const out = process.stdout;\nout.write('x')\n", true),
            (Lang::JavaScript, "import { writeSync } from 'node:fs';\nwriteSync(1, 'x')\n", true),
            (Lang::JavaScript, "const f = require('fs');\nf.writeSync(1, 'x')\n", true),
            (Lang::JavaScript, "const t = `${console.log(1)}`\n", true),
            (Lang::JavaScript, "// console.log(1)\n/* console.log(2) */\nconst s = 'console.log(3)'\n", false),
            (Lang::JavaScript, "const rules = { 'no-console': 'off' }\nconst names = ['console', 'window']\n", false),
            (Lang::JavaScript, "console.error(1); console.time('t')\nif (process.stdout.isTTY) {}\n", false),
            (Lang::JavaScript, "const fs = require('fs');\nfs.writeSync(fd, s); stream.write(x)\n", false),
            (Lang::JavaScript, "const t = `console.log(${x})`\n", false),
            (Lang::JavaScript, "const { writeSync } = require('./fs');\nwriteSync(1, 'x')\n", false),
            (Lang::JavaScript, "if (typeof console === 'object' && !console) {}\nconst c = console ? 1 : 2\n", false),
            (Lang::JavaScript, "const c = console;\nc.log(1)\n", true),
            (Lang::JavaScript, "let a = b!\nconsole.log(1)\n", true),
            (Lang::JavaScript, "const c = (console);\nc.log(1)\n", true),
        ];
        for (lang, src, finds) in cases {
            assert_eq!(hits(*lang, src) > 0, *finds, "scan of {src:?}");
            assert_eq!(
                lang.may_hold_finding(src.as_bytes()),
                *finds,
                "prefilter on {src:?}"
            );
        }
    }

    #[test]
    fn rust_needs_are_derived_from_the_paths_the_rules_resolve() {
        let words = Lang::Rust.prefilter().words();
        for word in [
            "println",
            "print",
            "tracing_subscriber",
            "env_logger",
            "simplelog",
            "stdout",
        ] {
            assert!(words.contains(&word), "{word} in {words:?}");
        }
        assert!(!words.contains(&"std"), "{words:?}");
    }
}
