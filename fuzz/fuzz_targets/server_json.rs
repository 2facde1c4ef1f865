#![no_main]
// The body lives in the main crate, so tests/it/fuzz_replay.rs replays this target's corpus.
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpcheck::fuzzing::server_json(data));
