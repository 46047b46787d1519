//! A scratch directory for one test, removed when the test is done with it,
//! so that running the tests leaves nothing behind in the system's
//! temporary directory.

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// An empty directory under the system's temporary directory, named after
/// the test binary, the process and the test, and removed with everything
/// in it when dropped.
pub struct ScratchDir(PathBuf);

/// A fresh, empty [`ScratchDir`] for the test `test`.
pub fn temp_dir(test: &str) -> ScratchDir {
    let dir = std::env::temp_dir().join(format!(
        "weft-{}-{}-{test}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    // A leftover from an earlier run with the same pid is harmless to lose.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test's temporary directory");
    ScratchDir(dir)
}

impl Deref for ScratchDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // Removal can fail only if something else removed or locked the
        // directory; a leftover in the temporary directory is not worth
        // failing a test over.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
