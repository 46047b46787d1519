//! What the script test files share: finding a suite beside the repository
//! and running one of its files through `weft_wast::WastContext` on a
//! thread with a big stack, failing with the list of failed directives.

use std::path::PathBuf;

use weft::{Engine, Store};
use weft_wast::{WastContext, WastFailures};

/// Stack size of the thread each script runs on: the script parser and
/// deeply nested test modules need more than a test thread's default.
const SCRIPT_THREAD_STACK: usize = 32 << 20;

/// A suite of `.wast` files: read from the directory in the environment
/// variable `env` if set, else from `../shared/<default>` beside the
/// repository.
pub struct Suite {
    /// The environment variable that overrides the directory.
    pub env: &'static str,
    /// The directory below `../shared`.
    pub default: &'static str,
    /// What the suite is called in messages.
    pub what: &'static str,
}

impl Suite {
    fn dir(&self) -> PathBuf {
        match std::env::var_os(self.env) {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("shared")
                .join(self.default),
        }
    }

    /// Runs `file` of the suite with a fresh store, panicking with the list
    /// of failed directives if any failed. A missing file fails the test
    /// under CI (the `CI` environment variable is set) and is skipped with a
    /// note otherwise.
    pub fn run(&self, file: &str) {
        let Some(outcome) = self.outcome(file) else { return };
        match outcome {
            Ok(()) => {}
            Err(Failed::Directives(failures)) => {
                let lines: Vec<String> = failures.failures.iter().map(|f| format!("  {f}")).collect();
                panic!(
                    "{file}: {} of {} directives failed:\n{}",
                    failures.failures.len(),
                    failures.directives,
                    lines.join("\n")
                );
            }
            Err(Failed::Other(message)) => panic!("{file}: {message}"),
        }
    }

    /// Runs `file` of the suite, which is expected to fail for a known
    /// reason outside Weft: panics unless some directives fail and every
    /// failure's message contains `reason`, so that the test notices both a
    /// regression in the other directives and the day the file passes. A
    /// missing file is handled as in [`Suite::run`].
    #[allow(dead_code, reason = "only the spec testsuite has files expected to fail")]
    pub fn run_expecting_failures(&self, file: &str, reason: &str) {
        let Some(outcome) = self.outcome(file) else { return };
        match outcome {
            Ok(()) => panic!("{file} passes now: list it with the files that pass"),
            Err(Failed::Directives(failures)) => {
                let other: Vec<String> = failures
                    .failures
                    .iter()
                    .filter(|f| !f.message.contains(reason))
                    .map(|f| format!("  {f}"))
                    .collect();
                assert!(
                    other.is_empty(),
                    "{file}: {} directives failed for another reason than `{reason}`:\n{}",
                    other.len(),
                    other.join("\n")
                );
            }
            Err(Failed::Other(message)) => panic!("{file}: {message}"),
        }
    }

    /// Runs `file` of the suite with a fresh store: `None` when the file is
    /// missing outside CI (skipped with a note; under CI, when the `CI`
    /// environment variable is set, a missing file panics).
    fn outcome(&self, file: &str) -> Option<Result<(), Failed>> {
        let path = self.dir().join(file);
        if !path.is_file() {
            let message = format!(
                "{} file `{}` not found (set {} to the suite directory)",
                self.what,
                path.display(),
                self.env
            );
            if std::env::var_os("CI").is_some() {
                panic!("{message}");
            }
            eprintln!("note: skipping {file}: {message}");
            return None;
        }

        let script = path.clone();
        let outcome = std::thread::Builder::new()
            .name(file.to_string())
            .stack_size(SCRIPT_THREAD_STACK)
            .spawn(move || -> anyhow::Result<()> {
                let engine = Engine::new(&weft_wast::spec_config_for(&script))?;
                let store = Store::new(&engine, ());
                let mut context = WastContext::new(store);
                context.register_spectest()?;
                context.register_wasmtime_host()?;
                context.run_file(&script)
            })
            .map_err(|e| format!("failed to start the script thread: {e}"))
            .and_then(|handle| handle.join().map_err(|_| "the script runner panicked".to_string()));

        Some(match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => match err.downcast::<WastFailures>() {
                Ok(failures) => Err(Failed::Directives(failures)),
                Err(err) => Err(Failed::Other(format!("{err:#}"))),
            },
            Err(message) => Err(Failed::Other(message)),
        })
    }
}

/// How a script failed.
enum Failed {
    /// Some directives did not behave as the script expects.
    Directives(WastFailures),
    /// The script could not run.
    Other(String),
}
