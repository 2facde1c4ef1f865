//! The source scanner on each grammar, and the JVM logging config readers.

use crate::source::config::{self, ConfigKind};
use crate::source::lang::{Hit, Lang};
use tree_sitter::{Parser, Range};

/// The first byte picks the grammar. Invariants: every hit and every fix lies inside the
/// file and starts before it ends; the text prefilter never skips a file the full scan
/// finds something in; a parse of the windowed parts stays inside the file.
pub fn source_scan(data: &[u8]) {
    let (control, src) = super::split_first(data);
    let lang = Lang::ALL[usize::from(control) % Lang::ALL.len()];
    let mut parser = Parser::new();
    parser
        .set_language(&lang.grammar())
        .expect("every grammar loads");
    let Some(tree) = parser.parse(src, None) else {
        return;
    };
    let hits = lang.scan(&tree, src);
    hits.iter().for_each(|h| check_hit(lang, h, src.len()));
    if !hits.is_empty() {
        assert!(
            lang.may_hold_finding(src),
            "{}: the prefilter skips a file with {}",
            lang.name(),
            crate::finding::plural(hits.len(), "finding")
        );
    }

    let Some(window) = lang.parse_ranges(&lang.text(src)).filter(|r| !r.is_empty()) else {
        return;
    };
    window.iter().for_each(|r| check_range(lang, r, src.len()));
    if parser.set_included_ranges(&window).is_err() {
        return;
    }
    let Some(part) = parser.parse(src, None) else {
        return;
    };
    lang.scan(&part, src)
        .iter()
        .for_each(|h| check_hit(lang, h, src.len()));
    if let Some(wider) = lang.widen_ranges(&part, src, &window) {
        wider.iter().for_each(|r| check_range(lang, r, src.len()));
    }
}

fn check_hit(lang: Lang, hit: &Hit, len: usize) {
    check_range(lang, &hit.range, len);
    assert!(
        !hit.message.is_empty(),
        "{}: a hit without a message",
        lang.name()
    );
    if let Some(edit) = &hit.edit {
        check_range(lang, &edit.range, len);
    }
}

fn check_range(lang: Lang, r: &Range, len: usize) {
    assert!(
        r.start_byte <= r.end_byte && r.end_byte <= len,
        "{}: range {}..{} outside a {len}-byte file",
        lang.name(),
        r.start_byte,
        r.end_byte
    );
}

const KINDS: [ConfigKind; 5] = [
    ConfigKind::Logback,
    ConfigKind::Log4j2Xml,
    ConfigKind::Log4j2Properties,
    ConfigKind::SpringProperties,
    ConfigKind::SpringYaml,
];

/// The first byte picks the reader (logback, log4j2 XML or properties, Spring properties or
/// YAML). Invariants: hits lie inside the file, comments' rows are in order and in the file.
pub fn jvm_config(data: &[u8]) {
    let (control, rest) = super::split_first(data);
    let kind = KINDS[usize::from(control) % KINDS.len()];
    let text = String::from_utf8_lossy(rest);
    let Some(scan) = config::scan(kind, &text) else {
        return;
    };
    // `\n`, `\r\n` and a lone `\r` each end a row, as the readers count them.
    let rows = text.replace("\r\n", "\n").split(['\n', '\r']).count();
    for hit in &scan.hits {
        let r = &hit.range;
        assert!(
            r.start_byte <= r.end_byte && r.end_byte <= text.len(),
            "{}: hit {}..{} outside a {}-byte file",
            kind.format(),
            r.start_byte,
            r.end_byte,
            text.len()
        );
        assert!(r.start_point.row < rows, "a hit past the last row");
    }
    for c in &scan.comments {
        assert!(
            c.first_row <= c.last_row && c.last_row < rows,
            "comment rows {}..{} of {rows}",
            c.first_row,
            c.last_row
        );
    }
}
