//! Progress on the terminal (indicatif), drawn on stderr only when stdout is
//! a terminal and `--quiet` is not given, so logs and CI output stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;

/// Makes one bar per section, or hidden bars.
pub struct Progress {
    visible: bool,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress { visible: !quiet && std::io::stdout().is_terminal() }
    }

    /// A bar of `len` steps titled `title`.
    pub fn bar(&self, title: &str, len: u64) -> ProgressBar {
        let target = if self.visible { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(Some(len), target);
        let style = ProgressStyle::with_template("{spinner} {prefix:<22} [{bar:30}] {pos}/{len} {elapsed:>4} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(title.to_string());
        bar
    }
}
