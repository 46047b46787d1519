//! Differential fuzzing and robustness checks for Weft.
//!
//! This crate owns the generators ([`generate`]: wasm-smith modules limited
//! to the features Weft supports, with NaN canonicalization and termination
//! instrumentation, and arguments biased to edge cases), the two engines
//! behind one interface ([`runtimes`]: Weft and the wasmi interpreter), the
//! differential oracle ([`mod@differential`]), the minimization and recording of
//! findings ([`findings`]), and the crash-freedom targets ([`targets`],
//! [`api_calls`]) that the `cargo fuzz` project in `fuzz/` and the stable
//! binaries `diff` and `crash` run.
//!
//! It never changes Weft's behaviour and is no dependency of any other crate:
//! wasmi is used here only. It contains no `unsafe` code.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod api_calls;
pub mod concurrent_api;
pub mod differential;
pub mod findings;
pub mod generate;
pub mod runtimes;
pub mod targets;
pub mod value;

pub use differential::{differential, DiffOptions, Mismatch, MismatchKind, Stats};
pub use generate::{generate_module, GenOptions, Rng};
pub use value::{Failure, Outcome, Value, ValueType};
