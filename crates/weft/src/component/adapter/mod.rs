//! The runtime half of fused adapters: the host built-ins an adapter
//! module imports and its instantiation against them (`builtins.rs`). The
//! adapter modules themselves are generated from component types by
//! `weft_environ::component::adapter`, and compiled like any module by
//! `Component::new`.

mod builtins;
#[cfg(test)]
mod tests;

pub(crate) use builtins::{instantiate, AdapterCall};
pub(crate) use weft_environ::component::adapter::{adapter_module, Side, Sides};
