//! `cargo xtask bench --compare REPORT.json`: each row's change against an
//! earlier report (the `report.json` of another run), so that a change
//! shows what it did to speed. The report is the JSON `report::json`
//! writes, read back by the small JSON reader below (the xtask has no
//! dependencies).

use crate::report::{fmt_time, Row};
use std::collections::HashMap;
use std::fmt::Write as _;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn num(&self) -> Option<f64> {
        match self {
            Json::Num(n) => Some(*n),
            _ => None,
        }
    }

    fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Parses `text` as one JSON value; the error says where it stopped.
pub fn parse(text: &str) -> Result<Json, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text after the JSON value at byte {}", p.i));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }

    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            self.err(&format!("expected `{}`", c as char))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(fields));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.eat(b':')?;
                    fields.push((key, self.value()?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(fields));
                        }
                        _ => return self.err("expected `,` or `}`"),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return self.err("expected `,` or `]`"),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'n') => self.word("null", Json::Null),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                text.parse().map(Json::Num).or_else(|_| self.err("invalid number"))
            }
            _ => self.err("expected a JSON value"),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            self.err("expected a JSON value")
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return String::from_utf8(out).or_else(|_| self.err("invalid UTF-8 in a string"));
                }
                Some(b'\\') => {
                    let c = self.s.get(self.i + 1).copied();
                    self.i += 2;
                    match c {
                        Some(b'u') => {
                            let hex = self.s.get(self.i..self.i + 4).and_then(|h| std::str::from_utf8(h).ok());
                            let code = hex.and_then(|h| u32::from_str_radix(h, 16).ok());
                            let Some(ch) = code.and_then(char::from_u32) else {
                                return self.err("invalid \\u escape");
                            };
                            self.i += 4;
                            let mut buf = [0; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        Some(b'n') => out.push(b'\n'),
                        Some(b't') => out.push(b'\t'),
                        Some(b'r') => out.push(b'\r'),
                        Some(c @ (b'"' | b'\\' | b'/')) => out.push(c),
                        _ => return self.err("invalid escape"),
                    }
                }
                Some(c) => {
                    out.push(*c);
                    self.i += 1;
                }
            }
        }
    }
}

/// A row of an earlier report: Weft's and Wasmtime's medians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Earlier {
    pub weft: Option<f64>,
    pub wasmtime: Option<f64>,
}

/// The rows of the report `json`, by `(group, name)`.
pub fn earlier_rows(json: &str) -> Result<HashMap<(String, String), Earlier>, String> {
    let report = parse(json)?;
    let Some(Json::Arr(rows)) = report.get("rows") else {
        return Err("the report has no `rows` array".into());
    };
    let median = |row: &Json, engine: &str| row.get(engine).and_then(|e| e.get("median_ns")).and_then(Json::num);
    let mut out = HashMap::new();
    for row in rows {
        let (Some(group), Some(name)) = (
            row.get("group").and_then(Json::str),
            row.get("name").and_then(Json::str),
        ) else {
            return Err("a row of the report has no `group` or `name`".into());
        };
        out.insert(
            (group.to_string(), name.to_string()),
            Earlier {
                weft: median(row, "weft"),
                wasmtime: median(row, "wasmtime"),
            },
        );
    }
    Ok(out)
}

/// The change of each of `rows` against `earlier`: Weft's median then and
/// now, its change, and the Weft/Wasmtime ratio then and now (a ratio
/// moves less with the machine's load than a time does).
pub fn table(rows: &[Row], earlier: &HashMap<(String, String), Earlier>, from: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## change against {from} (weft then → now; ratio to wasmtime then → now)"
    );
    let w = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(10).max(10);
    let mut compared = 0;
    for r in rows {
        let Some(e) = earlier.get(&(r.group.clone(), r.name.clone())) else {
            let _ = writeln!(out, "{:<w$}  (new row)", r.name);
            continue;
        };
        let now = r.weft.map(|s| s.median);
        let change = match (e.weft, now) {
            (Some(a), Some(b)) if a > 0.0 => format!("{:+.1}%", (b / a - 1.0) * 100.0),
            _ => "-".into(),
        };
        let ratio_then = match (e.weft, e.wasmtime) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
            _ => "-".into(),
        };
        let ratio_now = r.ratio().map(|x| format!("{x:.2}x")).unwrap_or_else(|| "-".into());
        let time = |t: Option<f64>| t.map(fmt_time).unwrap_or_else(|| "failed".into());
        let _ = writeln!(
            out,
            "{:<w$}  {:>11} → {:>11}  {:>8}   {:>6} → {:>6}",
            r.name,
            time(e.weft),
            time(now),
            change,
            ratio_then,
            ratio_now
        );
        compared += 1;
    }
    let _ = writeln!(out, "{compared} rows compared with {from}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Summary;

    #[test]
    fn reads_back_what_the_report_writes() {
        let s = Summary::of(&[100.0, 100.0, 100.0]).unwrap();
        let row = |w: f64| Row {
            group: "calls".into(),
            name: "call \"x\"".into(),
            size: None,
            weft: Summary::of(&[w, w, w]),
            wasmtime: Some(s),
            peak: None,
        };
        let json = crate::report::json(&[row(50.0)], &[("mode", "quick".into())]);
        let earlier = earlier_rows(&json).unwrap();
        let e = earlier[&("calls".to_string(), "call \"x\"".to_string())];
        assert_eq!((e.weft, e.wasmtime), (Some(50.0), Some(100.0)));
        let text = table(&[row(40.0)], &earlier, "old.json");
        assert!(text.contains("-20.0%"), "{text}");
        assert!(text.contains("0.50x →  0.40x"), "{text}");
        assert!(text.contains("1 rows compared"), "{text}");
    }

    #[test]
    fn bad_reports_are_named_errors() {
        assert!(parse("{\"rows\": [1,]").unwrap_err().contains("byte"));
        assert!(earlier_rows("{}").unwrap_err().contains("rows"));
        assert_eq!(parse(" [\"a\\u00e9\", null, -1.5e3] ").unwrap(), {
            Json::Arr(vec![Json::Str("aé".into()), Json::Null, Json::Num(-1500.0)])
        });
    }
}
