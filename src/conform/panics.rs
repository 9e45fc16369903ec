//! Panics as findings: a property body that panics is a harness failure to
//! report with its input, not a crash of the run. While a [`Quiet`] guard
//! lives, the panic hook records the message (with its location) for the
//! panicking thread instead of printing it over the progress bar.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};

thread_local! {
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

type Hook = Box<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Replaces the panic hook until dropped.
pub struct Quiet {
    previous: Option<Hook>,
}

impl Quiet {
    pub fn install() -> Quiet {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(|info| {
            let msg = info.to_string();
            LAST.with(|l| *l.borrow_mut() = Some(msg));
        }));
        Quiet { previous: Some(previous) }
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        if let Some(p) = self.previous.take() {
            panic::set_hook(p);
        }
    }
}

/// Runs `f`; a panic becomes `Err(message)`.
pub fn catching<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let recorded = LAST.with(|l| l.borrow_mut().take());
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-text panic payload".to_string());
        format!("panic: {}", recorded.unwrap_or(text))
    })
}

#[cfg(test)]
mod tests {
    use super::{catching, Quiet};

    #[test]
    fn a_panic_becomes_its_message_with_location() {
        let _q = Quiet::install();
        let r: Result<(), String> = catching(|| panic!("boom {}", 7));
        let e = r.expect_err("panic caught");
        assert!(e.starts_with("panic: ") && e.contains("boom 7") && e.contains("panics.rs"), "{e}");
        assert_eq!(catching(|| 5), Ok(5));
    }
}
