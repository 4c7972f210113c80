//! Progress on stderr: a bar on a terminal, a line every ten percent otherwise (CI logs) when
//! the run is long enough to need one.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

pub struct Progress {
    bar: Option<ProgressBar>,
    label: String,
    total: u64,
    done: AtomicU64,
}

impl Progress {
    pub fn new(total: u64, label: &str) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            if let Ok(style) =
                ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(label.to_owned());
            bar
        });
        Progress {
            bar,
            label: label.to_owned(),
            total,
            done: AtomicU64::new(0),
        }
    }

    pub fn inc(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        match &self.bar {
            Some(bar) => bar.inc(1),
            // Short runs need no progress lines in a log.
            None if self.total < 1000 => {}
            None => {
                let step = (self.total / 10).max(1);
                if done.is_multiple_of(step) || done == self.total {
                    eprintln!("{}: {done}/{}", self.label, self.total);
                }
            }
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
