//! Panics as findings: a property body that panics is a harness failure to
//! report with its input, not a crash of the run. While a [`Quiet`] guard
//! lives, a panic inside [`catching`] is recorded (message and location) for
//! its thread instead of printed over the progress bar; any other panic is
//! printed as usual.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

thread_local! {
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
    /// This thread is inside [`catching`].
    static CATCHING: Cell<bool> = const { Cell::new(false) };
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
            if CATCHING.with(Cell::get) {
                let msg = info.to_string();
                LAST.with(|l| *l.borrow_mut() = Some(msg));
            } else {
                eprintln!("{info}");
            }
        }));
        Quiet { previous: Some(previous) }
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        // A panicking thread may not set the hook (std panics, which would
        // abort): the guard is then left in place, and it still prints.
        if let Some(p) = self.previous.take().filter(|_| !std::thread::panicking()) {
            panic::set_hook(p);
        }
    }
}

/// Runs `f`; a panic becomes `Err(message)`.
// A String: the panic's message is all there is, and it is a report's failure text.
pub fn catching<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    let outer = CATCHING.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(outer));
    result.map_err(|payload| {
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
        let r = catching::<()>(|| panic!("boom {}", 7));
        let e = r.expect_err("panic caught");
        assert!(e.starts_with("panic: ") && e.contains("boom 7") && e.contains("panics.rs"), "{e}");
        assert_eq!(catching(|| 5), Ok(5));
    }

    /// A panic outside `catching` while the guard lives unwinds as usual: the
    /// guard's drop does not abort the process, and the message is not lost.
    #[test]
    fn a_panic_outside_catching_unwinds_through_the_guard() {
        let child = std::thread::spawn(|| {
            let _q = Quiet::install();
            panic!("outside");
        });
        let payload = child.join().expect_err("the thread panicked");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"outside"));
        // Nested: the inner catch records, the outer still catches afterwards.
        let _q = Quiet::install();
        let r = catching::<()>(|| {
            let inner = catching::<()>(|| panic!("inner"));
            assert!(inner.is_err_and(|e| e.contains("inner")));
            panic!("outer")
        });
        let e = r.expect_err("the outer panic is caught");
        assert!(e.contains("outer"), "{e}");
    }
}
