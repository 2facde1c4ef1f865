//! Tests of `transports_window`: the windows' facts are the whole file's.
use super::super::transports::{facts, facts_in, ModuleFacts, OffStdio};
use super::super::{js_lex, python_lex};
use super::*;

/// The mentions take the spans of the prefilter's lexer: the language's own.
#[test]
fn the_mentions_read_the_spans_of_the_languages_lexer() {
    let src = b"# c\n// c\n/* c */ x = 'a' + \"b\" + `t${u}`; print(f'{y}')\n";
    for lang in Lang::ALL {
        let expected = match lang {
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js_lex::spans(src),
            Lang::Python => python_lex::spans(src),
            _ => None,
        };
        assert_eq!(lang.text(src).spans(), expected.as_deref(), "{lang:?}");
    }
}

fn holds_facts(lang: Lang, src: &[u8], ranges: &[Range]) -> bool {
    FactMentions::of(lang, &lang.text(src)).held_by(ranges, src.len())
}

fn parse(lang: Lang, src: &str, ranges: &[Range]) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar()).expect("grammar");
    parser.set_included_ranges(ranges).expect("ranges");
    parser.parse(src, None).expect("parse")
}

fn summary(f: &ModuleFacts) -> String {
    let exits: Vec<usize> = f.exit_writes.iter().map(|r| r.start_point.row).collect();
    format!(
        "http {} stdio {} connects {} loads {:?} exits {:?}",
        f.serves_http, f.serves_stdio, f.connects, f.loads, exits
    )
}

/// The facts of the window and of the whole file, and the share of bytes the window left out.
fn windowed_and_whole(lang: Lang, src: &str) -> (String, String, usize) {
    let ranges = ranges(lang, src.as_bytes()).expect("windowed");
    let part = parse(lang, src, &ranges);
    assert!(!part.root_node().has_error(), "{src}");
    let whole = parse(lang, src, &[]);
    let kept: usize = ranges.iter().map(|r| r.end_byte - r.start_byte).sum();
    (
        summary(&facts_in(lang, part.root_node(), src.as_bytes(), &ranges).expect("facts")),
        summary(&facts(lang, whole.root_node(), src.as_bytes()).expect("facts")),
        100 - kept * 100 / src.len(),
    )
}

#[test]
fn a_python_window_has_the_whole_files_facts() {
    let (body, filler) = quiet_parts(Lang::Python);
    // A left-out definition between a write and the exit: not an exit write.
    let src = format!(
        "import sys\n{filler}def main():\n    import http_app\n{body}    if bad:\n        print('usage')\n        sys.exit(2)\n\n\
         print('a')\ndef between(x):\n{body}    return x\nsys.exit(1)\n\
         print('b')\nsys.exit(3)\n{filler}if __name__ == '__main__':\n    mcp.run(transport='sse')\n"
    );
    let (part, whole, left_out) = windowed_and_whole(Lang::Python, &src);
    assert_eq!(part, whole);
    assert!(left_out > 50, "{left_out}% left out");
    assert!(
        whole.contains("exits [") && !whole.contains("exits []"),
        "{whole}"
    );
}

/// A window of the parts around a Python module's writes (`transports::demoting_parts`,
/// `local_ranges`) leaves most of the module out, yet says of each write what the whole
/// file's facts say: the part off stdio that holds it and why, and whether an exit follows
/// it. Each case: the module, and whether its whole facts make a write a note.
#[test]
fn a_window_of_the_parts_around_the_writes_has_the_whole_files_facts_at_them() {
    let (body, filler) = quiet_parts(Lang::Python);
    let deeper = body.replace("    ", "        ");
    let cases = [
        // An `if __name__ == "__main__":` block that serves nothing.
        (format!("import sys\n{filler}def helper(x):\n{body}    sys.exit(0)\n{filler}if __name__ == '__main__':\n    print(helper(1))\n"), true),
        // A function that ends in a successful exit; another's write is no part of it.
        (format!("import sys\n{filler}def version():\n    print('1.0')\n{body}    sys.exit(0)\n{filler}def main():\n    print('serving')\n"), true),
        // A method of a class: the class's other methods are left out.
        (format!("import sys\n{filler}class Cli:\n    def quiet(self, x):\n{deeper}        return x\n\n    def usage(self):\n        print('usage')\n        sys.exit(0)\n\n    def loud(self, x):\n{deeper}        return x\n{filler}"), true),
        // Writes before a failing exit, in a function and in the module itself.
        (format!("import sys\n{filler}def main(argv):\n    if not argv:\n        print('usage: m FILE')\n        sys.exit(2)\n{body}    print('done')\n{filler}print('bad')\nprint('again')\nsys.exit(3)\n{filler}"), true),
        // An `except SystemExit:` and a `ctx.exit()` hold no exit: the text test says so
        // (an exit word counts only as an exit's call), and no window is read.
        (format!("import sys\n{filler}def run_it(f):\n    try:\n        f()\n    except SystemExit:\n        print('exited')\n{filler}"), false),
        (format!("import sys\n{filler}def run_it(ctx):\n    print('bye')\n    ctx.exit()\n{filler}"), false),
    ];
    for (src, decides) in cases {
        let bytes = src.as_bytes();
        let text = Lang::Python.text(bytes);
        let writes: Vec<usize> = src.match_indices("print(").map(|(at, _)| at).collect();
        let parts = super::super::transports::demoting_parts(Lang::Python, &text, &writes);
        let whole = facts(
            Lang::Python,
            parse(Lang::Python, &src, &[]).root_node(),
            bytes,
        )
        .expect("facts");
        let Some(parts) = parts else {
            // No facts read: the whole file's make no write a note.
            assert!(
                !decides,
                "the text test passes by a write the facts make a note: {src}"
            );
            for &write in &writes {
                let row = src[..write].matches('\n').count();
                let holds = |r: &Range| r.start_point.row <= row && row <= r.end_point.row;
                assert!(
                    !whole.off_stdio.iter().any(|(r, _)| holds(r)),
                    "row {row}: {src}"
                );
                assert!(!whole.exit_writes.iter().any(holds), "row {row}: {src}");
            }
            continue;
        };
        assert!(!parts.is_empty(), "only words near the writes: {src}");
        let ranges = local_ranges(&text, &parts).expect("windowed");
        let kept: usize = ranges.iter().map(|r| r.end_byte - r.start_byte).sum();
        assert!(
            kept * 3 < src.len(),
            "most of the module is left out: {src}"
        );
        let part = parse(Lang::Python, &src, &ranges);
        assert!(!part.root_node().has_error(), "{src}");
        let local = facts_in(Lang::Python, part.root_node(), bytes, &ranges).expect("facts");
        let at = |f: &ModuleFacts, row: usize| {
            let holds = |r: &Range| r.start_point.row <= row && row <= r.end_point.row;
            let off = f
                .off_stdio
                .iter()
                .find(|(r, _)| holds(r))
                .map(|(_, why)| *why);
            (off, f.exit_writes.iter().any(holds))
        };
        let mut noted = false;
        for &write in &writes {
            let row = src[..write].matches('\n').count();
            assert_eq!(at(&local, row), at(&whole, row), "row {row}: {src}");
            noted |= at(&whole, row) != (None, false);
        }
        assert_eq!(noted, decides, "{src}");
    }
}

#[test]
fn a_javascript_window_has_the_whole_files_facts() {
    let (body, filler) = quiet_parts(Lang::JavaScript);
    let src = format!(
        "import {{ a }} from './a.js';\n{filler}function main() {{\n  if (bad) {{\n    console.log('usage');\n    process.exit(2);\n  }}\n{body}}}\n\
         async function http() {{\n  const m = await import('./http.js');\n{body}}}\n\
         {filler}app.listen(3000);\nprocess.stdin.on('data', f);\n"
    );
    let (part, whole, left_out) = windowed_and_whole(Lang::JavaScript, &src);
    assert_eq!(part, whole);
    assert!(left_out > 50, "{left_out}% left out");
}

/// A branch on a request's header read within a longer name (`headersList`,
/// `request_headers`) is off stdio, as the whole file's facts say, in a window too.
#[test]
fn a_window_keeps_a_branch_on_a_header_read_within_a_longer_name() {
    for lang in [Lang::JavaScript, Lang::Python] {
        let (body, filler) = quiet_parts(lang);
        let src = if lang == Lang::Python {
            format!(
                "import sys\n{filler}def handle(request_headers):\n{body}    if request_headers['x-mode'] == 'web':\n        print('x')\n{filler}"
            )
        } else {
            format!(
                "{filler}function handle(headersList) {{\n{body}  if (headersList['x-mode'] === 'web') {{\n    console.log('x');\n  }}\n}}\n{filler}"
            )
        };
        let (part, whole, left_out) = windowed_and_whole(lang, &src);
        assert_eq!(part, whole, "{lang:?}");
        assert!(left_out > 50, "{lang:?}: {left_out}% left out");
        let ranges = ranges(lang, src.as_bytes()).expect("windowed");
        let windowed = parse(lang, &src, &ranges);
        let windowed = facts_in(lang, windowed.root_node(), src.as_bytes(), &ranges);
        let whole = facts(lang, parse(lang, &src, &[]).root_node(), src.as_bytes());
        let off = |f: Option<ModuleFacts>| -> Vec<(usize, OffStdio)> {
            let f = f.expect("facts");
            f.off_stdio
                .iter()
                .map(|(r, why)| (r.start_byte, *why))
                .collect()
        };
        let whole = off(whole);
        assert_eq!(whole.len(), 1, "{lang:?}: {whole:?}");
        assert_eq!(whole[0].1, OffStdio::TransportBranch, "{lang:?}");
        assert_eq!(off(windowed), whole, "{lang:?}");
    }
}

/// A launcher that loads `./sse.js` for the names it binds and calls `call` in its branch
/// for SSE, with quiet parts around: as `index.js` of the package in
/// `tests/it/source/stdio_path.rs`.
fn launcher(names: &str, helper: &str, call: &str) -> String {
    let (_, filler) = quiet_parts(Lang::JavaScript);
    format!(
        "import {{ StdioServerTransport }} from '@modelcontextprotocol/sdk/server/stdio.js';\n\
         import {{ {names} }} from './sse.js';\n{filler}{filler}{helper}\
         if (process.env.TRANSPORT === 'sse') {{\n  {call};\n}} else {{\n  \
         const t = new StdioServerTransport();\n  helper(1, 2);\n}}\n"
    )
}

/// A part left out that names what an import binds, or an import's names cut out, is put
/// back (or the file parsed whole): the facts are the whole file's. The window alone has
/// other facts: the names of `import {...}` left out, or a use of them left out.
#[test]
fn a_part_left_out_that_names_an_imports_bindings_is_taken_back() {
    let helper = "function helper(a, b) {\n  const x = a + b;\n  s(x);\n  return x;\n}\n";
    let cases = [
        // The names are a block of their own, left out: used only in the branch for SSE.
        (
            launcher("startSSEServer", "", "startSSEServer(1)"),
            "Some(TransportBranch)",
        ),
        // A name kept, used only in the branch for SSE, whose body holds no fact word.
        (
            launcher("s", "", "s(1, 2, 3, 4, 5)"),
            "Some(TransportBranch)",
        ),
        // Also used by a helper the stdio branch calls, whose body is left out: on the
        // stdio path.
        (launcher("s", helper, "s(1)"), "None"),
    ];
    for (src, off) in cases {
        let bytes = src.as_bytes();
        let lang = Lang::JavaScript;
        let window = ranges(lang, bytes).expect("windowed");
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        let of = |ranges: Vec<Range>, parser: &mut tree_sitter::Parser| {
            let facts =
                crate::source::trees::facts_in_part(parser, lang, bytes, ranges, None, None)
                    .expect("parsed")
                    .expect("facts");
            summary(&facts)
        };
        let part = of(window.clone(), &mut parser);
        let whole = of(Vec::new(), &mut parser);
        assert_eq!(part, whole, "{src}");
        let sse = whole
            .split("\"./sse.js\"")
            .nth(1)
            .expect("the load of ./sse.js");
        assert!(sse.contains(&format!("off_stdio: {off}")), "{whole}");
        // The window alone: the names, or a use of them, left out.
        let alone = parse(lang, &src, &window);
        let alone = facts_in(lang, alone.root_node(), bytes, &window).expect("facts");
        assert_ne!(summary(&alone), whole, "{src}");
        assert!(taken_back(&alone, bytes, &window).is_some());
    }
}

/// A transport's name is a mention in any case and form a condition compares
/// (`transport_branches::HTTP_NAMES`), so a branch on it is kept in the window.
#[test]
fn transport_names_are_mentions_in_any_case() {
    for lang in [Lang::JavaScript, Lang::Python] {
        for name in ["SSE", "Streamable_HTTP", "HTTP_Stream", "streamablehttp"] {
            let src = format!("x = mode == '{name}'\n");
            let mentions = FactMentions::of(lang, &lang.text(src.as_bytes()));
            let at = src.find(name).expect("in src");
            assert!(mentions.within(at, at + name.len()), "{lang:?} {src}");
            if lang == Lang::Python {
                assert!(within(&mentions.around, at, at + name.len()), "{src}");
            }
        }
    }
}

/// The braces of an import's names are found after `import`, `import type` and a default
/// binding, so the facts' window keeps them.
#[test]
fn an_imports_braces_are_found_after_its_keyword() {
    for (src, brace) in [
        ("import { a } from 'a'", Some(7)),
        ("import  type {a} from 'a'", Some(13)),
        ("import d, { a } from 'a'", Some(10)),
        ("import d,{a} from 'a'", Some(9)),
        ("import * as ns from 'a'", None),
        ("import d from 'a'", None),
        ("import('a')", None),
    ] {
        assert_eq!(js_window::import_braces(src.as_bytes(), 6), brace, "{src}");
    }
    let src = "import { aLongName, anotherLongName } from './a.js';\n";
    let mentions = FactMentions::of(Lang::JavaScript, &Lang::JavaScript.text(src.as_bytes()));
    assert_eq!(mentions.braces, [8]);
}

#[test]
fn a_scan_window_holds_the_facts_only_if_its_left_out_parts_mention_none() {
    let src = b"a();\nfunction f() { x(); }\nfunction g() { process.exit(1); }\n";
    let range = |start: usize, end: usize| Range {
        start_byte: start,
        end_byte: end,
        start_point: tree_sitter::Point::default(),
        end_point: tree_sitter::Point::default(),
    };
    let inside = |block: &str| {
        let at = memchr::memmem::find(src, block.as_bytes()).expect("in src");
        [range(0, at), range(at + block.len(), src.len())]
    };
    // `x();` left out: no fact word in it.
    assert!(holds_facts(Lang::JavaScript, src, &inside(" x(); ")));
    assert!(!holds_facts(
        Lang::JavaScript,
        src,
        &inside(" process.exit(1); ")
    ));
    assert!(holds_facts(Lang::JavaScript, src, &[]));
}

/// The text of the parts a window keeps.
fn kept(lang: Lang, src: &str) -> String {
    let ranges = ranges(lang, src.as_bytes()).expect("windowed");
    ranges
        .iter()
        .map(|r| &src[r.start_byte..r.end_byte])
        .collect()
}

/// A word of code in a docstring, a comment or a longer string keeps no part; in code, as
/// a whole string literal, or a name in a string (a branch word) keeps its part. The facts
/// of each window are the whole file's.
#[test]
fn a_word_of_code_keeps_a_part_only_in_code_or_as_a_whole_string() {
    let (body, filler) = quiet_parts(Lang::Python);
    let python = format!(
        "import sys\n{filler}def documented(x):\n    '''Use it so:\n    >>> import thing\n    >>> print(documented(1))\n    Then sys.exit.'''\n    # print(x) here would write to stdout\n    s = 'print it, write it, then exit'\n{body}    return x\n\n\
         def by_name(x):\n    w = getattr(sys, 'stdout')\n{body}    return w\n\n\
         def branch(x):\n    mode = 'sse'\n{body}    return mode\n\n{filler}"
    );
    let text = kept(Lang::Python, &python);
    assert!(!text.contains("def documented"), "{text}");
    assert!(
        text.contains("def by_name") && text.contains("def branch"),
        "{text}"
    );
    assert!(!text.contains("def quiet"), "{text}");
    let (part, whole, _) = windowed_and_whole(Lang::Python, &python);
    assert_eq!(part, whole);

    let (body, filler) = quiet_parts(Lang::JavaScript);
    let javascript = format!(
        "import {{ a }} from './a.js';\n{filler}function documented(x) {{\n  // console.log(x) would write to stdout, then process.exit\n  const s = 'require it, import it, write it';\n{body}  return s;\n}}\n\
         function byName(x) {{\n  const out = process['stdout'];\n{body}  return out;\n}}\n\
         function branch(x) {{\n  const mode = `sse`;\n{body}  return mode;\n}}\n{filler}"
    );
    let text = kept(Lang::JavaScript, &javascript);
    assert!(!text.contains("would write"), "{text}");
    assert!(
        text.contains("process['stdout']") && text.contains("`sse`"),
        "{text}"
    );
    let (part, whole, _) = windowed_and_whole(Lang::JavaScript, &javascript);
    assert_eq!(part, whole);

    // A scan window whose left-out part mentions words of code only in a docstring holds
    // the facts; one whose left-out part writes does not.
    let src = "def a():\n    '''>>> print(1); import x'''\n    return 1\ndef b():\n    print(1)\n";
    let gap = |part: &str| {
        let at = src.find(part).expect("in src");
        let range = |start: usize, end: usize| Range {
            start_byte: start,
            end_byte: end,
            start_point: tree_sitter::Point::default(),
            end_point: tree_sitter::Point::default(),
        };
        [range(0, at), range(at + part.len(), src.len())]
    };
    let docstring = "'''>>> print(1); import x'''";
    assert!(holds_facts(Lang::Python, src.as_bytes(), &gap(docstring)));
    assert!(!holds_facts(
        Lang::Python,
        src.as_bytes(),
        &gap("print(1)\n")
    ));
}

/// What makes a module serve, read from its window (`FactMentions::serving`, walked with its
/// marks), is the whole file's: over every JavaScript and TypeScript file of the fixtures and
/// large modules written here, `serves_http` and `serves_stdio` agree, and the window leaves
/// out most of a large module.
#[test]
fn a_serving_window_has_the_whole_files_serving_facts() {
    let (body, filler) = quiet_parts(Lang::JavaScript);
    let written = [
        format!("import express from 'express';\n{filler}function start(app) {{\n{body}  app.listen(3000);\n}}\nif (process.env.X === 'sse') {{\n  console.log(1);\n}}\n{filler}"),
        format!("{filler}const t = new StreamableHTTPServerTransport({{}});\n{filler}process.stdin.on('data', f);\n"),
        format!("{filler}const s = new sdk.SSEServerTransport('/m', res);\n// app.listen(1)\nconst x = 'StdioServerTransport';\n{filler}"),
        format!("{filler}server.connect(new StdioServerTransport());\n{filler}"),
        format!("{filler}function web(app) {{\n{body}  http.createServer(app).listen(port);\n}}\n{filler}function cli() {{\n  process.stdin.on('data', f);\n}}\n"),
    ];
    let mut sources =
        super::super::fixture_sources(&[Lang::JavaScript, Lang::TypeScript, Lang::Tsx]);
    sources.extend(
        written
            .iter()
            .map(|s| (Lang::JavaScript, s.clone(), s.as_bytes().to_vec())),
    );
    let (mut http_only, mut windowed, mut none) = (0, 0, 0);
    for (lang, path, src) in &sources {
        let text = lang.text(src);
        let Some(mentions) = FactMentions::serving(*lang, &text) else {
            // Nothing that serves HTTP is named: the whole file does not serve it.
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).expect("grammar");
            let whole = parser.parse(src, None).expect("parse");
            let facts = facts(*lang, whole.root_node(), src).expect("facts");
            assert!(!facts.serves_http, "{path}");
            none += 1;
            continue;
        };
        let ranges = mentions.ranges(*lang, &text).unwrap_or_default();
        let marks = mentions.marks(*lang, src);
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        parser.set_included_ranges(&ranges).expect("ranges");
        let part = parser.parse(src, None).expect("parse");
        let whole = {
            parser.set_included_ranges(&[]).expect("ranges");
            parser.parse(src, None).expect("parse")
        };
        if whole.root_node().has_error() || part.root_node().has_error() {
            continue;
        }
        let from_part = super::super::transports::facts_where(
            *lang,
            part.root_node(),
            src,
            &ranges,
            Some(&marks),
        )
        .expect("facts");
        let from_whole = facts(*lang, whole.root_node(), src).expect("facts");
        assert_eq!(
            (from_part.serves_http, from_part.serves_stdio),
            (from_whole.serves_http, from_whole.serves_stdio),
            "{path}"
        );
        http_only += usize::from(from_whole.http_only());
        windowed += usize::from(!ranges.is_empty());
    }
    assert!(
        http_only >= 4 && windowed >= 4,
        "{http_only} HTTP-only, {windowed} windowed"
    );
    assert!(none > 10, "{none} modules that name nothing serving HTTP");
    let kept = |src: &str| {
        let text = Lang::JavaScript.text(src.as_bytes());
        let ranges = FactMentions::serving(Lang::JavaScript, &text)
            .expect("JavaScript")
            .ranges(Lang::JavaScript, &text)
            .expect("windowed");
        ranges
            .iter()
            .map(|r| r.end_byte - r.start_byte)
            .sum::<usize>()
            * 100
            / src.len()
    };
    assert!(kept(&written[0]) < 30, "{}% kept", kept(&written[0]));
    assert!(FactMentions::serving(Lang::Python, &Lang::Python.text(b"x = 1\n")).is_none());
}
