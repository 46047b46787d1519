//! No code: this crate only names dependencies with the features the
//! workspace build turns on (see its `Cargo.toml`), so a build of `weft`
//! with its minimal features reuses the workspace's builds of them.
