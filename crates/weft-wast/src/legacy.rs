//! The folded syntax of the legacy exception handling instructions,
//! `(try $l? bt (do ...) (catch $t ...)* (catch_all ...)?)` and
//! `(try $l? bt (do ...) (delegate $l))`, which the scripts of the spec
//! testsuite's `legacy/` folder use and the `wast` crate no longer parses:
//! rewritten into the flat syntax it does parse (`try ... catch $t ...
//! catch_all ... end`, `try ... delegate $l`) before the script is parsed.
//!
//! The rewrite keeps every line break where it was, so the lines of
//! messages still point into the original script. Strings and comments are
//! copied unchanged; a `catch` or `do` form is rewritten only directly
//! inside a folded `try` (a `try_table`'s `(catch ...)` clauses are not).

use std::borrow::Cow;

/// What an open parenthesis of the script stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// Anything but the forms below: its `)` stays.
    Other,
    /// A folded `try`; `delegated` once its `(delegate ...)` was seen.
    Try { delegated: bool },
    /// A `(do ...)`, `(catch ...)`, `(catch_all ...)` or `(delegate ...)`
    /// directly inside a folded `try`: its parentheses go.
    Clause,
}

/// The keyword right after an opening parenthesis at `rest` (which starts
/// just past the `(`), if it is one of `words` and ends there.
fn keyword_at<'w>(rest: &[u8], words: &[&'w str]) -> Option<&'w str> {
    words.iter().copied().find(|w| {
        rest.starts_with(w.as_bytes())
            && rest
                .get(w.len())
                .is_none_or(|c| c.is_ascii_whitespace() || *c == b'(' || *c == b')' || *c == b';')
    })
}

/// `text` with its folded legacy `try` forms made flat (borrowed unchanged
/// when it has none).
pub(crate) fn flatten_legacy_try(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let has_try = bytes
        .windows(4)
        .enumerate()
        .any(|(i, w)| w == b"(try" && keyword_at(&bytes[i + 1..], &["try"]).is_some());
    if !has_try {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => {
                // A string, escapes included, copied as it is.
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
            }
            b';' if bytes.get(i + 1) == Some(&b';') => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                out.extend_from_slice(&bytes[start..i]);
            }
            b'(' if bytes.get(i + 1) == Some(&b';') => {
                // A block comment, which may nest.
                let start = i;
                let mut depth = 0usize;
                while i < bytes.len() {
                    if bytes[i..].starts_with(b"(;") {
                        depth += 1;
                        i += 2;
                    } else if bytes[i..].starts_with(b";)") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.extend_from_slice(&bytes[start..i.min(bytes.len())]);
            }
            b'(' => {
                let rest = &bytes[i + 1..];
                let in_try = matches!(stack.last(), Some(Open::Try { .. }));
                if keyword_at(rest, &["try"]).is_some() {
                    stack.push(Open::Try { delegated: false });
                    out.push(b' ');
                    i += 1;
                } else if in_try && keyword_at(rest, &["do"]).is_some() {
                    stack.push(Open::Clause);
                    out.extend_from_slice(b"   ");
                    i += 3;
                } else if in_try && keyword_at(rest, &["catch", "catch_all", "delegate"]).is_some() {
                    if keyword_at(rest, &["delegate"]).is_some() {
                        if let Some(Open::Try { delegated }) = stack.last_mut() {
                            *delegated = true;
                        }
                    }
                    stack.push(Open::Clause);
                    out.push(b' ');
                    i += 1;
                } else {
                    stack.push(Open::Other);
                    out.push(b'(');
                    i += 1;
                }
            }
            b')' => {
                match stack.pop() {
                    Some(Open::Try { delegated: false }) => out.extend_from_slice(b" end"),
                    Some(Open::Try { delegated: true }) | Some(Open::Clause) => out.push(b' '),
                    Some(Open::Other) | None => out.push(b')'),
                }
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    // Only ASCII was replaced, by ASCII, so the text is still UTF-8.
    match String::from_utf8(out) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::flatten_legacy_try;

    #[test]
    fn folded_try_forms_become_flat() {
        let text = "(func (try (result i32) (do (i32.const 1))\n (catch $e (i32.const 2)) (catch_all (i32.const 3))))";
        let flat = flatten_legacy_try(text);
        assert_eq!(flat.lines().count(), 2, "line breaks stay");
        let words: Vec<&str> = flat.split_whitespace().collect();
        assert_eq!(
            words.join(" "),
            "(func try (result i32) (i32.const 1) catch $e (i32.const 2) catch_all (i32.const 3) end)"
        );
        let delegate = flatten_legacy_try("(try $t (do (call $f)) (delegate $t))");
        assert_eq!(
            delegate.split_whitespace().collect::<Vec<_>>().join(" "),
            "try $t (call $f) delegate $t"
        );
    }

    #[test]
    fn other_forms_strings_and_comments_are_left_alone() {
        let text = "(try_table (catch $e 0) (do)) \"(try (do))\" ;; (try (do))\n(; (try ;)";
        assert_eq!(flatten_legacy_try(text), text);
    }
}
