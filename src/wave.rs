//! WAVE, the text format of component values that `wasmtime run --invoke`
//! reads and prints (https://github.com/bytecodealliance/wasm-tools,
//! `crates/wasm-wave`): `add(1, 2)`, `greet("you")`,
//! `set({name: "a", tags: ["x"], mode: some(fast)})`.
//!
//! Written here rather than taken from the `wasm-wave` crate: that crate
//! works through its own `WasmValue`/`WasmType` traits, which neither
//! `weft::component::Val` nor `Type` implement, and the CLI cannot
//! implement a foreign trait for a foreign type; wrapping every value and
//! type to do so is as much code as this parser, which also converts by
//! the export's types directly and says where in the string a value is
//! wrong.
//!
//! A call is parsed in two steps, as in `wasm-wave`: the text into a tree
//! of untyped values with their byte ranges (syntax errors), then each
//! argument into a `Val` by its parameter's type (type errors). Printing
//! follows `wasm-wave`'s writer: floats in shortest decimal form (`nan`,
//! `inf`, `-inf`), characters escaped as Rust's `char::escape_debug` does,
//! record fields whose value is `none` left out, labels written bare.

use std::fmt::Write as _;
use std::ops::Range;

use anyhow::{bail, Result};
use weft::component::types::Type;
use weft::component::Val;

/// A parsed `--invoke` call: the function's name and its arguments, not
/// yet typed.
#[derive(Debug)]
pub(crate) struct Call {
    /// The export's name as written (`add`, `ns:pkg/iface#f`).
    pub(crate) name: String,
    /// The arguments.
    args: Vec<Node>,
    /// The range of the argument list, parentheses included.
    args_span: Range<usize>,
}

/// An untyped value and where it is in the call's text.
#[derive(Debug)]
struct Node {
    kind: Kind,
    span: Range<usize>,
}

#[derive(Debug)]
enum Kind {
    /// A number as written (`-5`, `1.5e3`, `-inf`).
    Number(String),
    /// A label: an enum case, a variant case without payload, `true`,
    /// `none`, `nan`, ...; `escaped` when written with `%` (never a
    /// keyword then).
    Label {
        name: String,
        escaped: bool,
    },
    /// A label with a payload: `case(x)`, `some(x)`, `ok(x)`, `err(x)`.
    Case {
        name: String,
        escaped: bool,
        payload: Box<Node>,
    },
    Char(char),
    Str(String),
    List(Vec<Node>),
    Tuple(Vec<Node>),
    Record(Vec<(String, Range<usize>, Node)>),
    Flags(Vec<(String, Range<usize>)>),
}

/// An error at a range of the text.
fn at<T>(span: &Range<usize>, message: impl std::fmt::Display) -> Result<T> {
    bail!("{message} at {}..{}", span.start, span.end)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn end_error<T>(&self) -> Result<T> {
        let end = self.text.len();
        at(&(end..end), "unexpected end of input")
    }

    /// Consumes `c` (after whitespace) or fails naming what was found.
    fn expect(&mut self, c: char) -> Result<()> {
        self.skip_space();
        match self.peek() {
            Some(found) if found == c => {
                self.pos += c.len_utf8();
                Ok(())
            }
            Some(found) => at(
                &(self.pos..self.pos + found.len_utf8()),
                format!("expected `{c}`, found `{found}`"),
            ),
            None => self.end_error(),
        }
    }

    fn label(&mut self) -> Result<(String, bool, Range<usize>)> {
        self.skip_space();
        let start = self.pos;
        let escaped = self.rest().starts_with('%');
        if escaped {
            self.pos += 1;
        }
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(self.rest().len());
        if len == 0 {
            return match self.peek() {
                Some(c) => at(
                    &(self.pos..self.pos + c.len_utf8()),
                    format!("expected a label, found `{c}`"),
                ),
                None => self.end_error(),
            };
        }
        let name = self.rest()[..len].to_string();
        self.pos += len;
        Ok((name, escaped, start..self.pos))
    }

    /// `item, item, ...` up to `close`, a trailing comma allowed.
    fn items<T>(&mut self, close: char, mut item: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(out);
                }
                None => return self.end_error(),
                _ => {}
            }
            out.push(item(self)?);
            self.skip_space();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(c) if c == close => {}
                Some(c) => {
                    return at(
                        &(self.pos..self.pos + c.len_utf8()),
                        format!("expected `,` or `{close}`, found `{c}`"),
                    )
                }
                None => return self.end_error(),
            }
        }
    }

    fn value(&mut self) -> Result<Node> {
        self.skip_space();
        let start = self.pos;
        let Some(c) = self.peek() else {
            return self.end_error();
        };
        let kind = match c {
            '[' => {
                self.pos += 1;
                Kind::List(self.items(']', Self::value)?)
            }
            '(' => {
                self.pos += 1;
                Kind::Tuple(self.items(')', Self::value)?)
            }
            '{' => {
                self.pos += 1;
                self.record_or_flags()?
            }
            '"' => Kind::Str(self.string()?),
            '\'' => self.char()?,
            '-' | '0'..='9' => {
                // Digits, letters (`inf`, exponents, and whatever a bad
                // number holds, reported whole), `.`, and a sign at the
                // start or after an exponent's `e`.
                let rest = self.rest();
                let len = rest
                    .char_indices()
                    .find(|&(i, c)| {
                        let after_e = i > 0 && matches!(rest.as_bytes()[i - 1], b'e' | b'E');
                        !(c.is_ascii_alphanumeric()
                            || c == '.'
                            || c == '_'
                            || ((c == '-' || c == '+') && (i == 0 || after_e)))
                    })
                    .map_or(rest.len(), |(i, _)| i);
                let text = self.rest()[..len].to_string();
                self.pos += len;
                Kind::Number(text)
            }
            _ => {
                let (name, escaped, _) = self.label()?;
                self.skip_space();
                if self.peek() == Some('(') {
                    self.pos += 1;
                    let payload = self.value()?;
                    self.expect(')')?;
                    Kind::Case {
                        name,
                        escaped,
                        payload: Box::new(payload),
                    }
                } else {
                    Kind::Label { name, escaped }
                }
            }
        };
        Ok(Node {
            kind,
            span: start..self.pos,
        })
    }

    /// After `{`: `}` (no flags), `label: value, ...}` or `label, ...}`.
    fn record_or_flags(&mut self) -> Result<Kind> {
        self.skip_space();
        if self.peek() == Some('}') {
            self.pos += 1;
            return Ok(Kind::Flags(Vec::new()));
        }
        let save = self.pos;
        self.label()?;
        self.skip_space();
        let is_record = self.peek() == Some(':');
        self.pos = save;
        if is_record {
            Ok(Kind::Record(self.items('}', |p| {
                let (name, _, span) = p.label()?;
                p.expect(':')?;
                Ok((name, span, p.value()?))
            })?))
        } else {
            Ok(Kind::Flags(self.items('}', |p| {
                let (name, _, span) = p.label()?;
                Ok((name, span))
            })?))
        }
    }

    /// One character of a string or char literal, escapes decoded; `None`
    /// at the closing `quote`.
    fn literal_char(&mut self, quote: char, start: usize) -> Result<Option<char>> {
        let Some(c) = self.peek() else {
            return at(&(start..self.text.len()), "unterminated literal");
        };
        self.pos += c.len_utf8();
        if c == quote {
            return Ok(None);
        }
        if c != '\\' {
            return Ok(Some(c));
        }
        let escape_start = self.pos - 1;
        let Some(e) = self.peek() else {
            return at(&(start..self.text.len()), "unterminated literal");
        };
        self.pos += e.len_utf8();
        Ok(Some(match e {
            '\\' => '\\',
            '"' => '"',
            '\'' => '\'',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            'u' => {
                let rest = self.rest();
                let hex = rest
                    .strip_prefix('{')
                    .and_then(|r| r.split_once('}'))
                    .map(|(hex, _)| hex);
                let Some(hex) = hex else {
                    return at(&(escape_start..self.pos), "expected `\\u{HEX}`");
                };
                self.pos += hex.len() + 2;
                let span = escape_start..self.pos;
                match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
                    Some(c) => c,
                    None => return at(&span, format!("`\\u{{{hex}}}` is not a Unicode scalar value")),
                }
            }
            other => return at(&(escape_start..self.pos), format!("unknown escape `\\{other}`")),
        }))
    }

    fn string(&mut self) -> Result<String> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        while let Some(c) = self.literal_char('"', start)? {
            out.push(c);
        }
        Ok(out)
    }

    fn char(&mut self) -> Result<Kind> {
        let start = self.pos;
        self.pos += 1;
        let Some(c) = self.literal_char('\'', start)? else {
            return at(&(start..self.pos), "an empty character literal");
        };
        match self.literal_char('\'', start)? {
            None => Ok(Kind::Char(c)),
            Some(_) => {
                let end = self.rest().find('\'').map_or(self.text.len(), |i| self.pos + i + 1);
                at(&(start..end), "a character literal holds one character")
            }
        }
    }
}

/// Parses `text`, `name(arg, ...)`, checking only its syntax.
pub(crate) fn parse_call(text: &str) -> Result<Call> {
    let Some(open) = text.find('(') else {
        let end = text.len();
        return at(
            &(end..end),
            "unexpected end of input (expected `(` after the function's name)",
        );
    };
    let name = text[..open].trim();
    if name.is_empty() {
        return at(&(0..open), "expected the name of a function before `(`");
    }
    let mut p = Parser { text, pos: open + 1 };
    let args = p.items(')', Parser::value)?;
    let args_span = open..p.pos;
    p.skip_space();
    if p.pos != text.len() {
        return at(&(p.pos..text.len()), "unexpected text after the call");
    }
    Ok(Call {
        name: name.to_string(),
        args,
        args_span,
    })
}

impl Call {
    /// The arguments as values of the parameters `params` (name and type).
    pub(crate) fn args(&self, params: &[(String, Type)]) -> Result<Vec<Val>> {
        if self.args.len() != params.len() {
            let list = params.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
            return at(
                &self.args_span,
                format!(
                    "`{}` takes {} parameter{} ({list}) but {} {} given",
                    self.name,
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    self.args.len(),
                    if self.args.len() == 1 { "was" } else { "were" },
                ),
            );
        }
        self.args
            .iter()
            .zip(params)
            .map(|(node, (_, ty))| to_val(node, ty))
            .collect()
    }
}

/// A short description of a type, for errors.
fn describe(ty: &Type) -> String {
    match ty {
        Type::Bool => "bool".into(),
        Type::S8 => "s8".into(),
        Type::U8 => "u8".into(),
        Type::S16 => "s16".into(),
        Type::U16 => "u16".into(),
        Type::S32 => "s32".into(),
        Type::U32 => "u32".into(),
        Type::S64 => "s64".into(),
        Type::U64 => "u64".into(),
        Type::Float32 => "f32".into(),
        Type::Float64 => "f64".into(),
        Type::Char => "char".into(),
        Type::String => "string".into(),
        Type::List(_) | Type::FixedLengthList(_) => "a list".into(),
        Type::Map(_) => "a map".into(),
        Type::Record(r) => format!(
            "a record {{{}}}",
            r.fields().map(|f| f.name.to_string()).collect::<Vec<_>>().join(", ")
        ),
        Type::Tuple(t) => format!("a tuple of {}", t.types().len()),
        Type::Variant(v) => format!(
            "a variant of {}",
            v.cases().map(|c| c.name.to_string()).collect::<Vec<_>>().join(", ")
        ),
        Type::Enum(e) => format!("an enum of {}", e.names().collect::<Vec<_>>().join(", ")),
        Type::Option(_) => "an option".into(),
        Type::Result(_) => "a result".into(),
        Type::Flags(f) => format!("flags of {}", f.names().collect::<Vec<_>>().join(", ")),
        Type::Own(_) | Type::Borrow(_) => "a resource".into(),
        Type::ErrorContext => "an error-context".into(),
        Type::Future(_) => "a future".into(),
        Type::Stream(_) => "a stream".into(),
    }
}

fn mismatch<T>(node: &Node, ty: &Type) -> Result<T> {
    let text = match &node.kind {
        Kind::Number(n) => format!("the number `{n}`"),
        Kind::Label { name, .. } => format!("the label `{name}`"),
        Kind::Case { name, .. } => format!("the case `{name}(..)`"),
        Kind::Char(_) => "a char".into(),
        Kind::Str(_) => "a string".into(),
        Kind::List(_) => "a list".into(),
        Kind::Tuple(_) => "a tuple".into(),
        Kind::Record(_) => "a record".into(),
        Kind::Flags(_) => "flags".into(),
    };
    at(&node.span, format!("expected {}, found {text}", describe(ty)))
}

/// Whether `node` is the unescaped label `name`.
fn is_label(node: &Node, name: &str) -> bool {
    matches!(&node.kind, Kind::Label { name: n, escaped: false } if n == name)
}

fn int<T: std::str::FromStr>(node: &Node, ty: &Type) -> Result<T> {
    match &node.kind {
        Kind::Number(n) => match n.parse() {
            Ok(v) => Ok(v),
            Err(_) => at(&node.span, format!("`{n}` is not a value of type {}", describe(ty))),
        },
        _ => mismatch(node, ty),
    }
}

fn float(node: &Node, ty: &Type) -> Result<f64> {
    match &node.kind {
        Kind::Label { name, escaped: false } if name == "nan" => Ok(f64::NAN),
        Kind::Label { name, escaped: false } if name == "inf" => Ok(f64::INFINITY),
        Kind::Number(n) if n == "-inf" => Ok(f64::NEG_INFINITY),
        Kind::Number(n) if n.chars().all(|c| c.is_ascii_digit() || "-+.eE".contains(c)) => match n.parse() {
            Ok(v) => Ok(v),
            Err(_) => at(&node.span, format!("`{n}` is not a number")),
        },
        Kind::Number(n) => at(&node.span, format!("`{n}` is not a number")),
        _ => mismatch(node, ty),
    }
}

/// The payload of a case named `name` whose type is `payload`: present
/// exactly when the type has one.
fn payload(node: &Node, name: &str, payload: Option<Type>, given: Option<&Node>) -> Result<Option<Box<Val>>> {
    match (payload, given) {
        (None, None) => Ok(None),
        (Some(ty), Some(p)) => Ok(Some(Box::new(to_val(p, &ty)?))),
        (None, Some(_)) => at(&node.span, format!("the case `{name}` has no payload")),
        (Some(_), None) => at(&node.span, format!("the case `{name}` needs a payload: `{name}(..)`")),
    }
}

fn to_val(node: &Node, ty: &Type) -> Result<Val> {
    Ok(match ty {
        Type::Bool if is_label(node, "true") => Val::Bool(true),
        Type::Bool if is_label(node, "false") => Val::Bool(false),
        Type::Bool => return mismatch(node, ty),
        Type::S8 => Val::S8(int(node, ty)?),
        Type::U8 => Val::U8(int(node, ty)?),
        Type::S16 => Val::S16(int(node, ty)?),
        Type::U16 => Val::U16(int(node, ty)?),
        Type::S32 => Val::S32(int(node, ty)?),
        Type::U32 => Val::U32(int(node, ty)?),
        Type::S64 => Val::S64(int(node, ty)?),
        Type::U64 => Val::U64(int(node, ty)?),
        Type::Float32 => Val::Float32(float(node, ty)? as f32),
        Type::Float64 => Val::Float64(float(node, ty)?),
        Type::Char => match &node.kind {
            Kind::Char(c) => Val::Char(*c),
            _ => return mismatch(node, ty),
        },
        Type::String => match &node.kind {
            Kind::Str(s) => Val::String(s.clone()),
            _ => return mismatch(node, ty),
        },
        Type::List(l) => match &node.kind {
            Kind::List(items) => Val::List(items.iter().map(|n| to_val(n, &l.ty())).collect::<Result<_>>()?),
            _ => return mismatch(node, ty),
        },
        Type::FixedLengthList(l) => match &node.kind {
            Kind::List(items) if items.len() == l.len() as usize => {
                Val::List(items.iter().map(|n| to_val(n, &l.ty())).collect::<Result<_>>()?)
            }
            Kind::List(items) => {
                return at(
                    &node.span,
                    format!("expected a list of {} elements, found {}", l.len(), items.len()),
                )
            }
            _ => return mismatch(node, ty),
        },
        Type::Tuple(t) => match &node.kind {
            Kind::Tuple(items) if items.len() == t.types().len() => Val::Tuple(
                items
                    .iter()
                    .zip(t.types())
                    .map(|(n, ty)| to_val(n, &ty))
                    .collect::<Result<_>>()?,
            ),
            Kind::Tuple(items) => {
                return at(
                    &node.span,
                    format!("expected a tuple of {}, found {} values", t.types().len(), items.len()),
                )
            }
            _ => return mismatch(node, ty),
        },
        Type::Record(r) => {
            let Kind::Record(given) = &node.kind else {
                // `{}` parses as empty flags; it is no record (records have
                // fields).
                return mismatch(node, ty);
            };
            for (name, span, _) in given {
                if !r.fields().any(|f| f.name == name) {
                    return at(span, format!("unknown field `{name}` of {}", describe(ty)));
                }
                if given.iter().filter(|(n, _, _)| n == name).count() > 1 {
                    return at(span, format!("the field `{name}` is given twice"));
                }
            }
            let mut fields = Vec::new();
            for f in r.fields() {
                let value = match given.iter().find(|(n, _, _)| n == f.name) {
                    Some((_, _, v)) => to_val(v, &f.ty)?,
                    // A missing field of an option type is `none`.
                    None if matches!(f.ty, Type::Option(_)) => Val::Option(None),
                    None => return at(&node.span, format!("missing field `{}`", f.name)),
                };
                fields.push((f.name.to_string(), value));
            }
            Val::Record(fields)
        }
        Type::Variant(v) => {
            let (name, given) = match &node.kind {
                Kind::Label { name, .. } => (name, None),
                Kind::Case { name, payload, .. } => (name, Some(&**payload)),
                _ => return mismatch(node, ty),
            };
            let Some(case) = v.cases().find(|c| c.name == name) else {
                return at(&node.span, format!("expected {}, found `{name}`", describe(ty)));
            };
            Val::Variant(name.clone(), payload(node, name, case.ty, given)?)
        }
        Type::Enum(e) => match &node.kind {
            Kind::Label { name, .. } if e.names().any(|n| n == name) => Val::Enum(name.clone()),
            Kind::Label { name, .. } => return at(&node.span, format!("expected {}, found `{name}`", describe(ty))),
            _ => return mismatch(node, ty),
        },
        Type::Option(o) => match &node.kind {
            Kind::Label { name, escaped: false } if name == "none" => Val::Option(None),
            Kind::Case {
                name,
                escaped: false,
                payload,
            } if name == "some" => Val::Option(Some(Box::new(to_val(payload, &o.ty())?))),
            // A bare value of the payload's type is `some` of it, unless
            // the payload is itself an option (then it would be ambiguous).
            _ if !matches!(o.ty(), Type::Option(_)) => Val::Option(Some(Box::new(to_val(node, &o.ty())?))),
            _ => return mismatch(node, ty),
        },
        Type::Result(r) => {
            let (name, given) = match &node.kind {
                Kind::Label { name, escaped: false } => (name.as_str(), None),
                Kind::Case {
                    name,
                    escaped: false,
                    payload,
                } => (name.as_str(), Some(&**payload)),
                _ => return mismatch(node, ty),
            };
            match name {
                "ok" => Val::Result(Ok(payload(node, "ok", r.ok(), given)?)),
                "err" => Val::Result(Err(payload(node, "err", r.err(), given)?)),
                _ => return at(&node.span, format!("expected a result (`ok` or `err`), found `{name}`")),
            }
        }
        Type::Flags(f) => match &node.kind {
            Kind::Flags(given) => {
                for (name, span) in given {
                    if !f.names().any(|n| n == name) {
                        return at(span, format!("unknown flag `{name}` of {}", describe(ty)));
                    }
                }
                // In the type's order, as lifting gives them.
                Val::Flags(
                    f.names()
                        .filter(|n| given.iter().any(|(g, _)| g == n))
                        .map(str::to_string)
                        .collect(),
                )
            }
            _ => return mismatch(node, ty),
        },
        Type::Map(_) | Type::Own(_) | Type::Borrow(_) | Type::ErrorContext | Type::Future(_) | Type::Stream(_) => {
            return at(
                &node.span,
                format!("{} cannot be written on the command line", describe(ty)),
            )
        }
    })
}

/// `value` in WAVE, as `wasmtime run --invoke` prints it.
pub(crate) fn to_string(value: &Val) -> String {
    let mut out = String::new();
    write(&mut out, value);
    out
}

fn write_char(out: &mut String, c: char) {
    if c == '\0' {
        // `escape_debug` gives `\0`, which WAVE does not have.
        out.push_str("\\u{0}");
        return;
    }
    for e in c.escape_debug() {
        out.push(e);
    }
}

fn write_list<'a>(out: &mut String, open: char, items: impl IntoIterator<Item = &'a Val>, close: char) {
    out.push(open);
    for (i, v) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write(out, v);
    }
    out.push(close);
}

fn write_float(out: &mut String, f: f64, display: impl std::fmt::Display) {
    if f.is_nan() {
        out.push_str("nan");
    } else {
        // Rust's shortest form, `inf` and `-inf` included.
        let _ = write!(out, "{display}");
    }
}

fn write_case(out: &mut String, name: &str, payload: Option<&Val>) {
    out.push_str(name);
    if let Some(p) = payload {
        out.push('(');
        write(out, p);
        out.push(')');
    }
}

fn write(out: &mut String, value: &Val) {
    match value {
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::S8(v) => out.push_str(&v.to_string()),
        Val::U8(v) => out.push_str(&v.to_string()),
        Val::S16(v) => out.push_str(&v.to_string()),
        Val::U16(v) => out.push_str(&v.to_string()),
        Val::S32(v) => out.push_str(&v.to_string()),
        Val::U32(v) => out.push_str(&v.to_string()),
        Val::S64(v) => out.push_str(&v.to_string()),
        Val::U64(v) => out.push_str(&v.to_string()),
        Val::Float32(f) => write_float(out, f64::from(*f), f),
        Val::Float64(f) => write_float(out, *f, f),
        Val::Char(c) => {
            out.push('\'');
            write_char(out, *c);
            out.push('\'');
        }
        Val::String(s) => {
            out.push('"');
            for c in s.chars() {
                write_char(out, c);
            }
            out.push('"');
        }
        Val::List(items) => write_list(out, '[', items, ']'),
        Val::Tuple(items) => write_list(out, '(', items, ')'),
        Val::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, k);
                out.push_str(": ");
                write(out, v);
            }
            out.push('}');
        }
        Val::Record(fields) => {
            out.push('{');
            let mut first = true;
            for (name, v) in fields {
                if matches!(v, Val::Option(None)) {
                    continue;
                }
                if !first {
                    out.push_str(", ");
                }
                first = false;
                out.push_str(name);
                out.push_str(": ");
                write(out, v);
            }
            out.push('}');
        }
        Val::Variant(name, payload) => write_case(out, name, payload.as_deref()),
        Val::Enum(name) => out.push_str(name),
        Val::Option(None) => out.push_str("none"),
        Val::Option(Some(v)) => write_case(out, "some", Some(v)),
        Val::Result(Ok(v)) => write_case(out, "ok", v.as_deref()),
        Val::Result(Err(v)) => write_case(out, "err", v.as_deref()),
        Val::Flags(names) => {
            out.push('{');
            out.push_str(&names.join(", "));
            out.push('}');
        }
        Val::Resource(_) => out.push_str("<resource>"),
        Val::Stream(_) => out.push_str("<stream>"),
        Val::Future(_) => out.push_str("<future>"),
        Val::ErrorContext(_) => out.push_str("<error-context>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_say_where() {
        let err = parse_call("add").unwrap_err().to_string();
        assert!(
            err.contains("unexpected end of input") && err.ends_with("at 3..3"),
            "{err}"
        );
        let err = parse_call("add(1,2").unwrap_err().to_string();
        assert!(err.contains("unexpected end of input at 7..7"), "{err}");
        let err = parse_call("f(\"abc, 1)").unwrap_err().to_string();
        assert!(err.contains("unterminated literal at 2..10"), "{err}");
        let err = parse_call("f('ab')").unwrap_err().to_string();
        assert!(err.contains("one character at 2..6"), "{err}");
        let err = parse_call("f(1 2)").unwrap_err().to_string();
        assert!(err.contains("expected `,` or `)`, found `2` at 4..5"), "{err}");
        let err = parse_call("f(\"\\q\")").unwrap_err().to_string();
        assert!(err.contains("unknown escape `\\q` at 3..5"), "{err}");
        let err = parse_call("f(1) x").unwrap_err().to_string();
        assert!(err.contains("after the call at 5..6"), "{err}");
    }

    #[test]
    fn values_print_as_wasm_wave_writes_them() {
        let s = |v: Val| to_string(&v);
        assert_eq!(s(Val::Float64(1e21)), "1000000000000000000000");
        assert_eq!(s(Val::Float64(-0.0)), "-0");
        assert_eq!(s(Val::Float32(0.1)), "0.1");
        assert_eq!(s(Val::Float32(f32::NAN)), "nan");
        assert_eq!(s(Val::Float64(f64::NEG_INFINITY)), "-inf");
        assert_eq!(s(Val::Char('"')), "'\\\"'");
        assert_eq!(s(Val::String("it's\u{7f}é\t".into())), "\"it\\'s\\u{7f}é\\t\"");
        assert_eq!(
            s(Val::Record(vec![
                ("a".into(), Val::U8(1)),
                ("b".into(), Val::Option(None)),
                ("c".into(), Val::Option(Some(Box::new(Val::Enum("x".into())))))
            ])),
            "{a: 1, c: some(x)}"
        );
        assert_eq!(s(Val::Result(Ok(None))), "ok");
        assert_eq!(s(Val::Flags(vec![])), "{}");
    }
}
