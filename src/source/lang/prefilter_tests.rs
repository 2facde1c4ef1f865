//! Tests of the prefilter: the anchors, the needs, the short words searched alone, the
//! windows' kept finds.

use super::*;

static TEST: Prefilter = Prefilter::new(|| {
    vec![
        vec![vec!["console"]],
        vec![vec!["fs"], vec!["write", "writeSync"]],
    ]
})
.counting(|o| !(o.word == "console" && o.after().starts_with(b".error")));

#[test]
fn files_without_an_anchor_are_ruled_out_by_the_anchors_alone() {
    // Of each need, the group whose shortest word is longest: `console`, and `write` or
    // `writeSync` (not `fs`); Python's `stdout` (not `sys`), `write` (not `os`), `click` or
    // `typer` (not `echo`, which is shorter).
    let test = TEST.compiled().expect("compiles");
    assert!(!test.anchored(b"const fs = require('fs'); fs.readFileSync(offset)"));
    assert!(test.anchored(b"fs.writeSync(1, s)"));
    assert!(test.anchored(b"x.write(1)"));
    assert!(!test.anchored(b"rewrite(x); writer.writes; consoles"));
    let python = super::super::python_words::PREFILTER
        .compiled()
        .expect("compiles");
    assert!(!python.anchored(b"import os, sys\nos.path.join(sys.argv, echo)"));
    for anchored in [
        &b"sys.stdout"[..],
        b"os.write(1, b)",
        b"click.echo(x)",
        b"x = print",
    ] {
        assert!(
            python.anchored(anchored),
            "{}",
            String::from_utf8_lossy(anchored)
        );
    }
    // An anchor is necessary, not sufficient: the whole test still decides.
    assert!(!TEST.may_match(b"stream.write(x)"));
}

#[test]
fn a_need_is_met_only_when_every_group_has_a_whole_word() {
    assert!(TEST.may_match(b"x; console.log(1)"));
    assert!(!TEST.may_match(b"myconsole.log(1); console_x"));
    assert!(!TEST.may_match(b"console.error(1)"));
    assert!(TEST.may_match(b"console.error(1); console.log(2)"));
    assert!(!TEST.may_match(b"const fs = require('fs'); fs.readFileSync(p)"));
    assert!(!TEST.may_match(b"stream.write(x)"));
    assert!(TEST.may_match(b"import { writeSync } from 'node:fs'"));
    assert!(TEST.may_match(b"write(1, x); import * as fs from 'fs'"));
    assert!(!TEST.may_match(b""));
}

#[test]
fn short_words_searched_alone_are_the_whole_words_of_one_automaton() {
    // The texts: every fixture source, and short words against each other and the long.
    let mut texts: Vec<Vec<u8>> = super::super::fixture_sources(&super::super::Lang::ALL)
        .into_iter()
        .map(|(_, _, src)| src)
        .collect();
    for text in [
        "os.write(fs); fsos os_fs $os os$ 'fs' fs\nos",
        "osos os;os(os)write writeSync fs.writeSync(1)",
        "import os, sys\nos.write(1, b); sys.stdout; echo(os)",
    ] {
        texts.push(text.as_bytes().to_vec());
    }
    let mut short_found = 0;
    for lang in super::super::Lang::ALL {
        let compiled = lang.prefilter().compiled().expect("compiles");
        let one = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&compiled.words)
            .expect("builds");
        for text in &texts {
            let expected: Vec<(usize, usize, usize)> = one
                .find_iter(&text[..])
                .filter(|m| stands_alone(text, m.start(), m.end()))
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect();
            let found = compiled.whole_words(text);
            assert_eq!(found, expected, "{lang:?}");
            short_found += found
                .iter()
                .filter(|(i, _, _)| compiled.words[*i].len() <= SHORT)
                .count();
        }
    }
    // `os` and `fs` are words of Python and JavaScript, found alone.
    assert!(short_found > 50, "{short_found}");
}

#[test]
fn words_that_cannot_be_compiled_mean_parse_everything() {
    static BAD: Prefilter = Prefilter::new(|| vec![vec![vec!["System.out"]]]);
    assert!(BAD.may_match(b"nothing here"));
}

#[test]
fn what_a_window_finds_is_found_once_and_kept_by_its_type() {
    let text = Text::new(b"a\nb\n", &TEST);
    let mut calls = 0;
    let lines = |src: &[u8]| {
        calls += 1;
        src.split(|b| *b == b'\n').count()
    };
    assert_eq!(text.kept(lines), Some(&3));
    assert_eq!(text.kept(|_| 0usize), Some(&3));
    assert_eq!(calls, 1);
    // Something of another type is not what was kept.
    assert_eq!(text.kept(|_| "other"), None);
}
