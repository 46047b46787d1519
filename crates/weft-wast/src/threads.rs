//! The threads proposal's `thread` and `wait` directives: a `thread` runs
//! its directives on a new OS thread, with a store and linker of its own
//! (and `spectest`); `(shared (module $m))` gives it the exports of the
//! script's instance `$m` (in its linker as `m`, and to `register`), whose
//! shared memories it then shares with the script. `wait` joins the thread.

// Import loop kept on purpose: this file is the `thread` half of the
// runner's directive loop (lib.rs), which runs a thread's directives with it.
use crate::{DirectiveFailure, WastContext};
use anyhow::{anyhow, Result};
use std::thread::{Scope, ScopedJoinHandle};
use wast::WastThread;
use weft::{Extern, Store};

/// The stack of a script thread: as deep as the main script's.
const THREAD_STACK: usize = 64 << 20;

/// A running `thread`: its join handle, which gives the failures of its
/// directives.
pub(crate) struct Child<'scope> {
    handle: ScopedJoinHandle<'scope, Result<Vec<DirectiveFailure>>>,
}

impl Child<'_> {
    /// Waits for the thread to finish and adds the failures of its
    /// directives (each with its own line) to `failures`. `Err` when the
    /// thread could not run its directives at all.
    pub(crate) fn join(self, failures: &mut Vec<DirectiveFailure>) -> Result<()> {
        match self.handle.join() {
            Ok(Ok(theirs)) => {
                failures.extend(theirs);
                Ok(())
            }
            Ok(Err(err)) => Err(err),
            Err(_) => Err(anyhow!("the thread panicked")),
        }
    }
}

impl<T: 'static> WastContext<T> {
    /// Starts the directives of `thread` on a new thread of `scope`.
    pub(crate) fn spawn_thread<'scope, 'env>(
        &mut self,
        scope: &'scope Scope<'scope, 'env>,
        thread: WastThread<'env>,
        filename: &'env str,
        text: &'env str,
    ) -> Result<Child<'scope>> {
        let mut shared: Vec<(String, Vec<(String, Extern)>)> = Vec::new();
        if let Some(id) = thread.shared_module {
            let instance = self.instance_named(Some(id))?;
            let exports = instance
                .exports(&mut self.store)
                .map(|e| (e.name().to_string(), e.into_extern()))
                .collect();
            shared.push((id.name().to_string(), exports));
        }
        let engine = self.store.engine().clone();
        let directives = thread.directives;
        let handle = std::thread::Builder::new()
            .name(format!("wast thread ${}", thread.name.name()))
            .stack_size(THREAD_STACK)
            .spawn_scoped(scope, move || -> Result<Vec<DirectiveFailure>> {
                let mut child = WastContext::new(Store::new(&engine, ()));
                child.register_spectest()?;
                // As in the script, a named instance is also in the linker
                // under its name without the `$`.
                for (module, exports) in &shared {
                    for (field, item) in exports {
                        child.linker.define(&child.store, module, field, item.clone())?;
                    }
                }
                child.shared_modules.extend(shared);
                let mut failures = Vec::new();
                child.run_directives(directives, filename, text, &mut failures);
                Ok(failures)
            })
            .map_err(|e| anyhow!("failed to start a thread: {e}"))?;
        Ok(Child { handle })
    }
}

#[cfg(test)]
mod tests {
    use crate::{spec_config, WastContext, WastFailures};
    use weft::{Engine, Store};

    /// Message passing between two script threads through the script's
    /// shared memory: `$reader` sleeps in `memory.atomic.wait32` until
    /// `$writer` publishes, so run one after the other on one OS thread the
    /// script would never end. `$reader` registers the memory, `$writer`
    /// imports it by the instance's name. Afterwards the script sees both
    /// writes.
    const MESSAGE_PASSING: &str = r#"
(module $Mem (memory (export "shared") 1 1 shared))

(thread $reader (shared (module $Mem))
  (register "mem" $Mem)
  (module
    (memory (import "mem" "shared") 1 1 shared)
    (func (export "run") (result i32)
      (loop $l
        (if (i32.eqz (i32.atomic.load (i32.const 4)))
          (then
            (drop (memory.atomic.wait32 (i32.const 4) (i32.const 0) (i64.const -1)))
            (br $l))))
      (i32.atomic.load (i32.const 0))))
  (assert_return (invoke "run") (i32.const 42)))

(thread $writer (shared (module $Mem))
  (module
    (memory (import "Mem" "shared") 1 1 shared)
    (func (export "run")
      (i32.store (i32.const 0) (i32.const 42))
      (i32.atomic.store (i32.const 4) (i32.const 1))
      (drop (memory.atomic.notify (i32.const 4) (i32.const 1)))))
  (invoke "run"))

(wait $writer)
(wait $reader)

(register "mem" $Mem)
(module
  (memory (import "mem" "shared") 1 1 shared)
  (func (export "get") (param i32) (result i32) (i32.atomic.load (local.get 0))))
(assert_return (invoke "get" (i32.const 0)) (i32.const 42))
(assert_return (invoke "get" (i32.const 4)) (i32.const 1))
"#;

    fn run(script: &str) -> anyhow::Result<()> {
        let engine = Engine::new(&spec_config())?;
        let mut cx = WastContext::new(Store::new(&engine, ()));
        cx.register_spectest()?;
        cx.run_buffer("threads.wast", script.as_bytes())
    }

    #[test]
    fn threads_pass_messages_through_shared_memory() {
        run(MESSAGE_PASSING).unwrap();
    }

    /// A failure inside a thread is reported at its own line; waiting for a
    /// thread that does not exist (or twice) fails; a thread never waited
    /// for is still joined and its failures reported.
    #[test]
    fn failures_in_threads_are_reported() {
        let script = r#"(module $M (memory (export "m") 1 1 shared))
(thread $t (shared (module $M))
  (module (func (export "f") (result i32) (i32.const 1)))
  (assert_return (invoke "f") (i32.const 2)))
(wait $t)
(wait $t)
(wait $nobody)
(thread $late
  (assert_return (invoke "missing")))
"#;
        let err = run(script).unwrap_err();
        let failures = err.downcast_ref::<WastFailures>().unwrap();
        let lines: Vec<(usize, &str)> = failures.failures.iter().map(|f| (f.line, f.directive)).collect();
        assert_eq!(
            lines,
            [(4, "assert_return"), (6, "wait"), (7, "wait"), (9, "assert_return")],
            "{err}"
        );
    }
}
