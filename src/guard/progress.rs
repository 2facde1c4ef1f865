//! Progress of a long guard run (`--repeat`, `--protocol-matrix`, probes), reported through a
//! plain callback: the engine counts sessions, the caller decides whether and how to draw.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One finished session of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// What the session was for: `run`, `protocol matrix`, `probe`.
    pub stage: &'static str,
    pub done: usize,
    pub total: usize,
}

type Draw = Arc<dyn Fn(Step) + Send + Sync>;

/// Where progress goes; the default goes nowhere.
#[derive(Clone, Default)]
pub struct ProgressSink {
    draw: Option<Draw>,
    done: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgressSink")
            .field("drawn", &self.draw.is_some())
            .finish()
    }
}

impl ProgressSink {
    pub fn new(draw: impl Fn(Step) + Send + Sync + 'static) -> Self {
        Self {
            draw: Some(Arc::new(draw)),
            ..Self::default()
        }
    }

    pub(crate) fn begin(&self, total: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }

    pub(crate) fn step(&self, stage: &'static str) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(draw) = &self.draw {
            draw(Step {
                stage,
                done,
                total: self.total.load(Ordering::Relaxed),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn counts_steps_against_the_total() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = {
            let seen = Arc::clone(&seen);
            ProgressSink::new(move |s| seen.lock().expect("lock").push(s))
        };
        sink.begin(3);
        sink.step("run");
        sink.step("probe");
        let steps = seen.lock().expect("lock").clone();
        assert_eq!(
            steps,
            [
                Step {
                    stage: "run",
                    done: 1,
                    total: 3
                },
                Step {
                    stage: "probe",
                    done: 2,
                    total: 3
                }
            ]
        );
        // The default sink draws nothing and does not fail.
        ProgressSink::default().step("run");
    }
}
