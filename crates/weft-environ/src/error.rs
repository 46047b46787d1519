//! [`TranslateError`]: why a module or component could not be translated.

use std::fmt;
use wasmparser::BinaryReaderError;

/// Why a module could not be translated: a parse or validation error at a
/// byte offset, or a construct Weft does not support yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslateError {
    /// What went wrong.
    pub message: String,
    /// The byte offset in the module's binary.
    pub offset: u64,
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset 0x{:x})", self.message, self.offset)
    }
}

impl std::error::Error for TranslateError {}

impl From<BinaryReaderError> for TranslateError {
    fn from(e: BinaryReaderError) -> Self {
        TranslateError {
            message: e.message().to_string(),
            offset: e.offset(),
        }
    }
}
