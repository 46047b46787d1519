//! `wasi:cli`: environment, exit, standard streams and terminals.

use super::bindings::wasi::cli::{
    environment, exit, stderr, stdin, stdout, terminal_input, terminal_output, terminal_stderr, terminal_stdin,
    terminal_stdout,
};
use super::io::{DynInputStream, DynOutputStream};
use crate::cli::WasiCliCtxView;
use crate::stdio::{lock, IsTerminal, StdinStream, StdoutStream};
use crate::I32Exit;
use weft::component::Resource;

/// Whether a standard stream is a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsATTY {
    /// It is a terminal.
    Yes,
    /// It is not.
    No,
}

/// The host value of `wasi:cli/terminal-input.terminal-input`.
#[derive(Debug)]
pub struct TerminalInput;

/// The host value of `wasi:cli/terminal-output.terminal-output`.
#[derive(Debug)]
pub struct TerminalOutput;

impl environment::Host for WasiCliCtxView<'_> {
    fn get_environment(&mut self) -> anyhow::Result<Vec<(String, String)>> {
        Ok(self.ctx.env.clone())
    }
    fn get_arguments(&mut self) -> anyhow::Result<Vec<String>> {
        Ok(self.ctx.args.clone())
    }
    fn initial_cwd(&mut self) -> anyhow::Result<Option<String>> {
        Ok(self.ctx.initial_cwd.clone())
    }
}

impl exit::Host for WasiCliCtxView<'_> {
    fn exit(&mut self, status: Result<(), ()>) -> anyhow::Result<()> {
        Err(I32Exit(if status.is_ok() { 0 } else { 1 }).into())
    }
    fn exit_with_code(&mut self, status_code: u8) -> anyhow::Result<()> {
        Err(I32Exit(status_code.into()).into())
    }
}

impl stdin::Host for WasiCliCtxView<'_> {
    fn get_stdin(&mut self) -> anyhow::Result<Resource<DynInputStream>> {
        let s: DynInputStream = lock(&self.ctx.stdin).p2_stream();
        Ok(self.table.push(s)?)
    }
}

impl stdout::Host for WasiCliCtxView<'_> {
    fn get_stdout(&mut self) -> anyhow::Result<Resource<DynOutputStream>> {
        let s: DynOutputStream = lock(&self.ctx.stdout).p2_stream();
        Ok(self.table.push(s)?)
    }
}

impl stderr::Host for WasiCliCtxView<'_> {
    fn get_stderr(&mut self) -> anyhow::Result<Resource<DynOutputStream>> {
        let s: DynOutputStream = lock(&self.ctx.stderr).p2_stream();
        Ok(self.table.push(s)?)
    }
}

impl terminal_input::Host for WasiCliCtxView<'_> {}
impl terminal_input::HostTerminalInput for WasiCliCtxView<'_> {
    fn drop(&mut self, rep: Resource<TerminalInput>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}
impl terminal_output::Host for WasiCliCtxView<'_> {}
impl terminal_output::HostTerminalOutput for WasiCliCtxView<'_> {
    fn drop(&mut self, rep: Resource<TerminalOutput>) -> anyhow::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

impl terminal_stdin::Host for WasiCliCtxView<'_> {
    fn get_terminal_stdin(&mut self) -> anyhow::Result<Option<Resource<TerminalInput>>> {
        if lock(&self.ctx.stdin).is_terminal() {
            Ok(Some(self.table.push(TerminalInput)?))
        } else {
            Ok(None)
        }
    }
}

impl terminal_stdout::Host for WasiCliCtxView<'_> {
    fn get_terminal_stdout(&mut self) -> anyhow::Result<Option<Resource<TerminalOutput>>> {
        if lock(&self.ctx.stdout).is_terminal() {
            Ok(Some(self.table.push(TerminalOutput)?))
        } else {
            Ok(None)
        }
    }
}

impl terminal_stderr::Host for WasiCliCtxView<'_> {
    fn get_terminal_stderr(&mut self) -> anyhow::Result<Option<Resource<TerminalOutput>>> {
        if lock(&self.ctx.stderr).is_terminal() {
            Ok(Some(self.table.push(TerminalOutput)?))
        } else {
            Ok(None)
        }
    }
}
