//! Parsing less of a large module for its transport facts: the same windows as the scan's
//! (`js_window`, `python_window`), keeping the parts that mention a fact word
//! (`fact_words`), so a module with findings is not parsed whole a second time.
//! A part left out mentions no fact word, so it holds no import, transport, listen, stdin
//! read or exit: the facts of the window are the whole file's (`transports::facts_in` keeps
//! a Python statement left out between a write and an exit from joining them).

use super::js_window;
use super::python_window;
use super::syntax::Words;
use super::transports::{
    JS_BRANCH_WORDS, JS_HTTP_TRANSPORTS, PY_BRANCH_WORDS, PY_HTTP_CLASSES, PY_HTTP_METHODS,
};
use super::{Lang, WINDOW_MIN_BYTES};
use tree_sitter::Range;

/// Whole words without which a part of a module holds none of its facts: every name the fact
/// walks in `transports` compare with, or a word of it, the conditions of
/// `transport_branches`, and the keywords of the loads.
fn fact_words(lang: Lang) -> Vec<&'static str> {
    let (words, names): (&[&str], &[&[&str]]) = match lang {
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => (
            &[
                "import",
                "export",
                "require",
                "listen",
                "connect",
                "exit",
                "stdin",
                "StdioServerTransport",
                // Writes, so a part that holds one keeps the branch around it.
                "console",
                "stdout",
                "write",
            ],
            &[JS_HTTP_TRANSPORTS, JS_BRANCH_WORDS],
        ),
        Lang::Python => (
            &[
                "import",
                "import_module",
                "uvicorn",
                "run",
                "run_stdio_async",
                "stdio_server",
                "stdin",
                "exit",
                "SystemExit",
                // Writes, so a part that holds one keeps the branch around it.
                "print",
                "stdout",
                "write",
                "echo",
            ],
            &[PY_HTTP_METHODS, PY_HTTP_CLASSES, PY_BRANCH_WORDS],
        ),
        _ => (&[], &[]),
    };
    words
        .iter()
        .chain(names.iter().flat_map(|n| n.iter()))
        .copied()
        .collect()
}

/// The parts of `src` to parse for its facts, or None to parse it whole.
pub fn ranges(lang: Lang, src: &[u8]) -> Option<Vec<Range>> {
    if src.len() < WINDOW_MIN_BYTES {
        return None;
    }
    let words = fact_words(lang);
    match lang {
        Lang::JavaScript | Lang::TypeScript => {
            let names: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            js_window::included_ranges(src, &NO_WORDS, &names)
        }
        Lang::Python => python_window::included_ranges_by(src, |start, end| {
            words
                .iter()
                .any(|w| python_window::mentions(&src[start..end], w.as_bytes()))
        }),
        _ => None,
    }
}

/// Each word is searched on its own (`names` above), as a whole word.
static NO_WORDS: Words = Words::new(&[]);

/// True if the parts of `src` left out of `ranges` (a window of the scan's) mention no fact
/// word, so a tree parsed from `ranges` has the whole file's facts.
pub fn holds_facts(lang: Lang, src: &[u8], ranges: &[Range]) -> bool {
    if ranges.is_empty() {
        return true;
    }
    let words = fact_words(lang);
    let mut start = 0;
    let gaps = ranges
        .iter()
        .map(|r| {
            let gap = (start, r.start_byte);
            start = r.end_byte;
            gap
        })
        .collect::<Vec<_>>()
        .into_iter()
        .chain(std::iter::once((start, src.len())));
    let gaps: Vec<(usize, usize)> = gaps.filter(|(s, e)| s < e).collect();
    !gaps.iter().any(|(s, e)| {
        words
            .iter()
            .any(|w| loose_mention(&src[*s..*e], w.as_bytes()))
    })
}

/// Any occurrence not glued to a longer ASCII identifier: looser than either lexer's idea of
/// a word, so it never misses one.
fn loose_mention(text: &[u8], word: &[u8]) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    memchr::memmem::find_iter(text, word).any(|i| {
        (i == 0 || !ident(text[i - 1])) && text.get(i + word.len()).is_none_or(|b| !ident(*b))
    })
}

#[cfg(test)]
mod tests {
    use super::super::transports::{facts, facts_in, ModuleFacts};
    use super::*;

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
        let body = "    x = x + 1\n".repeat(30);
        let filler: String = (0..6)
            .map(|i| format!("def quiet{i}(x):\n{body}    return x\n\n"))
            .collect();
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

    #[test]
    fn a_javascript_window_has_the_whole_files_facts() {
        let body = "  x = x + 1;\n".repeat(30);
        let filler: String = (0..6)
            .map(|i| format!("function quiet{i}(x) {{\n{body}  return x;\n}}\n"))
            .collect();
        let src = format!(
            "import {{ a }} from './a.js';\n{filler}function main() {{\n  if (bad) {{\n    console.log('usage');\n    process.exit(2);\n  }}\n{body}}}\n\
             async function http() {{\n  const m = await import('./http.js');\n{body}}}\n\
             {filler}app.listen(3000);\nprocess.stdin.on('data', f);\n"
        );
        let (part, whole, left_out) = windowed_and_whole(Lang::JavaScript, &src);
        assert_eq!(part, whole);
        assert!(left_out > 50, "{left_out}% left out");
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
}
