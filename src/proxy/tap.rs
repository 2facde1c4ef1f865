//! The tap between the forwarding threads and the observer: forwarding never waits for a
//! check. Each direction hands a copy of what it forwarded, stamped with the time it was
//! read, to one queue that the observer thread drains in order. The queue is bounded in
//! bytes: when the observer falls behind, copies are dropped (the bytes are still forwarded)
//! and the observer is told how many bytes and lines it missed, so it can resynchronise.

use super::observer::Direction;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Instant;

/// What the observer missed in one direction between two copies it got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gap {
    pub bytes: u64,
    pub newlines: u64,
    /// Whether the last missed byte ended a line (so the next copy starts a fresh one).
    pub ends_line: bool,
}

impl Gap {
    fn add(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        self.newlines += memchr::memchr_iter(b'\n', bytes).count() as u64;
        self.ends_line = bytes.last() == Some(&b'\n');
    }
}

pub enum Event {
    /// A copy of forwarded bytes, read at `at`; `gap` is what was missed just before it.
    Chunk {
        dir: Direction,
        at: Instant,
        gap: Option<Gap>,
        bytes: Vec<u8>,
    },
    /// Time to look for requests left unanswered.
    Tick(Instant),
    /// The session is over: the observer stops here.
    End,
}

#[derive(Clone)]
pub struct Tap {
    sender: Sender<Event>,
    queued: Arc<AtomicUsize>,
    backlog: usize,
    tick_queued: Arc<AtomicBool>,
}

/// The observer's end of the tap.
pub struct Drain {
    receiver: Receiver<Event>,
    queued: Arc<AtomicUsize>,
    tick_queued: Arc<AtomicBool>,
}

/// A tap that lets at most `backlog` bytes wait for the observer.
pub fn tap(backlog: usize) -> (Tap, Drain) {
    let (sender, receiver) = channel();
    let queued = Arc::new(AtomicUsize::new(0));
    let tick_queued = Arc::new(AtomicBool::new(false));
    let tap = Tap {
        sender,
        queued: Arc::clone(&queued),
        backlog,
        tick_queued: Arc::clone(&tick_queued),
    };
    let drain = Drain {
        receiver,
        queued,
        tick_queued,
    };
    (tap, drain)
}

impl Tap {
    /// One direction's side of the tap, kept by its forwarding thread.
    pub fn side(&self, dir: Direction) -> Side {
        Side {
            tap: self.clone(),
            dir,
            gap: None,
        }
    }

    /// Asks for a timeout check, unless one is already waiting.
    pub fn tick(&self) {
        if !self.tick_queued.swap(true, Ordering::AcqRel) {
            let _ = self.sender.send(Event::Tick(Instant::now()));
        }
    }

    pub fn end(&self) {
        let _ = self.sender.send(Event::End);
    }
}

pub struct Side {
    tap: Tap,
    dir: Direction,
    gap: Option<Gap>,
}

impl Side {
    /// Hands the observer a copy of bytes read at `at`, or counts them as missed.
    pub fn offer(&mut self, at: Instant, bytes: &[u8]) {
        let queued = self.tap.queued.load(Ordering::Acquire);
        if queued + bytes.len() > self.tap.backlog {
            self.gap.get_or_insert_with(Gap::default).add(bytes);
            return;
        }
        self.tap.queued.fetch_add(bytes.len(), Ordering::AcqRel);
        let event = Event::Chunk {
            dir: self.dir,
            at,
            gap: self.gap.take(),
            bytes: bytes.to_vec(),
        };
        if self.tap.sender.send(event).is_err() {
            // The observer has stopped: nothing more to account for.
            self.tap.queued.fetch_sub(bytes.len(), Ordering::AcqRel);
        }
    }

    /// At the end of a stream, tells the observer about a gap not yet followed by a copy.
    pub fn close(mut self) {
        if let Some(gap) = self.gap.take() {
            let _ = self.tap.sender.send(Event::Chunk {
                dir: self.dir,
                at: Instant::now(),
                gap: Some(gap),
                bytes: Vec::new(),
            });
        }
    }
}

impl Drain {
    /// The next event, waiting for one; `None` once every sender is gone.
    pub fn next(&self) -> Option<Event> {
        self.receiver.recv().ok().map(|e| self.taken(e))
    }

    fn taken(&self, event: Event) -> Event {
        match &event {
            Event::Chunk { bytes, .. } => {
                self.queued.fetch_sub(bytes.len(), Ordering::AcqRel);
            }
            Event::Tick(_) => self.tick_queued.store(false, Ordering::Release),
            Event::End => {}
        }
        event
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT_BACKLOG: usize = 16 * 1024 * 1024;

    #[test]
    fn a_full_queue_drops_copies_and_reports_the_gap_with_the_next_copy() {
        let (tap, drain) = tap(DEFAULT_BACKLOG);
        let mut side = tap.side(Direction::ServerToClient);
        let big = vec![b'x'; DEFAULT_BACKLOG - 4];
        side.offer(Instant::now(), &big);
        // Does not fit: 2 lines and a partial third are missed.
        side.offer(Instant::now(), b"a\nb\nc");
        side.offer(Instant::now(), b"more\n");
        let Some(Event::Chunk {
            gap: None, bytes, ..
        }) = drain.next()
        else {
            panic!("the first copy should arrive whole")
        };
        assert_eq!(bytes.len(), DEFAULT_BACKLOG - 4);
        // Room again: the next copy carries what was missed before it.
        side.offer(Instant::now(), b"d\n");
        let Some(Event::Chunk { gap, bytes, .. }) = drain.next() else {
            panic!("the copy after the gap should arrive")
        };
        assert_eq!(
            gap,
            Some(Gap {
                bytes: 10,
                newlines: 3,
                ends_line: true
            })
        );
        assert_eq!(bytes, b"d\n");
    }

    #[test]
    fn a_gap_at_the_end_of_a_stream_is_still_reported() {
        let (tap, drain) = tap(DEFAULT_BACKLOG);
        let mut side = tap.side(Direction::ClientToServer);
        side.offer(Instant::now(), &vec![b'x'; DEFAULT_BACKLOG]);
        side.offer(Instant::now(), b"partial");
        side.close();
        assert!(matches!(drain.next(), Some(Event::Chunk { gap: None, .. })));
        let Some(Event::Chunk { gap, bytes, .. }) = drain.next() else {
            panic!("the closing gap should arrive")
        };
        assert!(bytes.is_empty());
        assert_eq!(
            gap,
            Some(Gap {
                bytes: 7,
                newlines: 0,
                ends_line: false
            })
        );
    }

    #[test]
    fn ticks_do_not_pile_up_behind_a_slow_observer() {
        let (tap, drain) = tap(DEFAULT_BACKLOG);
        tap.tick();
        tap.tick();
        tap.end();
        assert!(matches!(drain.next(), Some(Event::Tick(_))));
        assert!(matches!(drain.next(), Some(Event::End)));
        tap.tick();
        assert!(matches!(drain.next(), Some(Event::Tick(_))));
    }
}
