//! The report of `cargo xtask bench`: a table on stdout, JSON and an SVG bar
//! chart of the Weft/Wasmtime ratios, all written by hand.

use crate::stats::{geomean, Summary};
use std::fmt::Write as _;

/// One figure measured on both engines.
#[derive(Debug, Clone)]
pub struct Row {
    /// The group whose geometric mean the row counts in.
    pub group: String,
    pub name: String,
    /// The size of the input in bytes, for the scaling figures.
    pub size: Option<u64>,
    pub weft: Option<Summary>,
    pub wasmtime: Option<Summary>,
    /// The peak memory of the step in bytes (compilation and
    /// instantiation rows), on each engine.
    pub peak: Option<Peak>,
}

/// The resident memory a step added at its peak, in bytes, on each engine.
#[derive(Clone, Copy, Debug)]
pub struct Peak {
    pub weft: Option<Summary>,
    pub wasmtime: Option<Summary>,
}

impl Peak {
    /// Weft's median peak over Wasmtime's.
    pub fn ratio(&self) -> Option<f64> {
        match (&self.weft, &self.wasmtime) {
            (Some(a), Some(b)) if b.median > 0.0 => Some(a.median / b.median),
            _ => None,
        }
    }
}

impl Row {
    /// Weft's median over Wasmtime's: below 1 Weft is faster.
    pub fn ratio(&self) -> Option<f64> {
        match (&self.weft, &self.wasmtime) {
            (Some(a), Some(b)) if b.median > 0.0 => Some(a.median / b.median),
            _ => None,
        }
    }
}

/// The groups with peak memory figures, each with the geometric mean of
/// its rows' peak ratios.
pub fn peak_geomeans(rows: &[Row]) -> Vec<(String, Option<f64>, usize)> {
    let mut groups: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.peak.is_some()) {
        if !groups.contains(&r.group) {
            groups.push(r.group.clone());
        }
    }
    groups
        .into_iter()
        .map(|g| {
            let ratios: Vec<f64> = rows
                .iter()
                .filter(|r| r.group == g)
                .filter_map(|r| r.peak.and_then(|p| p.ratio()))
                .collect();
            let n = ratios.len();
            (g, geomean(&ratios), n)
        })
        .collect()
}

/// The groups in order of first appearance, each with the geometric mean of
/// its rows' ratios.
pub fn group_geomeans(rows: &[Row]) -> Vec<(String, Option<f64>, usize)> {
    let mut groups: Vec<String> = Vec::new();
    for r in rows {
        if !groups.contains(&r.group) {
            groups.push(r.group.clone());
        }
    }
    groups
        .into_iter()
        .map(|g| {
            let ratios: Vec<f64> = rows.iter().filter(|r| r.group == g).filter_map(Row::ratio).collect();
            let n = ratios.len();
            (g, geomean(&ratios), n)
        })
        .collect()
}

/// Nanoseconds in a readable unit.
pub fn fmt_time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// A median with its spread (`±x%`, [`Summary::spread_percent`]), the
/// median written by `unit`; `missing` when there are no samples.
fn fmt_summary(s: &Option<Summary>, unit: fn(f64) -> String, missing: &str) -> String {
    match s {
        Some(s) => format!("{} ±{:.0}%", unit(s.median), s.spread_percent()),
        None => missing.to_string(),
    }
}

fn fmt_cell(s: &Option<Summary>) -> String {
    fmt_summary(s, fmt_time, "failed")
}

/// Bytes in a readable unit.
pub fn fmt_bytes(b: f64) -> String {
    if b >= (1u64 << 30) as f64 {
        format!("{:.2} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1 << 20) as f64 {
        format!("{:.1} MiB", b / (1 << 20) as f64)
    } else {
        format!("{:.0} KiB", b / 1024.0)
    }
}

/// A median peak with its spread, as the time cells have it, so that a
/// memory ratio can be weighed against the noise too.
fn fmt_peak(s: &Option<Summary>) -> String {
    fmt_summary(s, fmt_bytes, "-")
}

fn fmt_ratio(r: Option<f64>) -> String {
    r.map(|r| format!("{r:.2}x")).unwrap_or_else(|| "-".to_string())
}

fn fmt_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 {
        format!("{:.0} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

/// The table: one block per group, then the geometric means.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let w = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(10).max(10);
    let mut group = None;
    for r in rows {
        if group != Some(&r.group) {
            group = Some(&r.group);
            let _ = writeln!(out, "\n## {}", r.group);
            let _ = write!(
                out,
                "{:<w$}  {:>10}  {:>20}  {:>20}  {:>7}",
                "benchmark", "size", "weft", "wasmtime", "ratio"
            );
            // Steps with peak memory figures get three more columns.
            if rows.iter().any(|x| x.group == r.group && x.peak.is_some()) {
                let _ = write!(
                    out,
                    "  {:>16}  {:>16}  {:>9}",
                    "weft peak", "wasmtime peak", "mem ratio"
                );
            }
            out.push('\n');
        }
        let size = r.size.map(fmt_size).unwrap_or_default();
        let _ = write!(
            out,
            "{:<w$}  {:>10}  {:>20}  {:>20}  {:>7}",
            r.name,
            size,
            fmt_cell(&r.weft),
            fmt_cell(&r.wasmtime),
            fmt_ratio(r.ratio())
        );
        if let Some(p) = &r.peak {
            let _ = write!(
                out,
                "  {:>16}  {:>16}  {:>9}",
                fmt_peak(&p.weft),
                fmt_peak(&p.wasmtime),
                fmt_ratio(p.ratio())
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\n## geometric mean of Weft/Wasmtime per group (below 1.00x: Weft is faster)"
    );
    for (g, m, n) in group_geomeans(rows) {
        let _ = writeln!(out, "{g:<32} {:>7}   ({n} rows)", fmt_ratio(m));
    }
    let peaks = peak_geomeans(rows);
    if !peaks.is_empty() {
        let _ = writeln!(
            out,
            "\n## geometric mean of Weft/Wasmtime peak memory per group (below 1.00x: Weft uses less)"
        );
        for (g, m, n) in peaks {
            let _ = writeln!(out, "{g:<32} {:>7}   ({n} rows)", fmt_ratio(m));
        }
    }
    out
}

/// The rows where Weft is slower (ratio above 1.00), each with both
/// spreads and whether the difference is within the noise: within when
/// each engine's spread ([`Summary::spread_percent`]) is larger than the
/// difference in percent. The list a change is checked against.
pub fn slower_rows(rows: &[Row]) -> String {
    let mut out = String::from("\n## rows where Weft is slower (ratio above 1.00x)\n");
    let mut beyond = 0;
    let mut count = 0;
    for r in rows {
        let (Some(ratio), Some(weft), Some(wasmtime)) = (r.ratio(), &r.weft, &r.wasmtime) else {
            continue;
        };
        if ratio <= 1.0 {
            continue;
        }
        count += 1;
        let difference = (ratio - 1.0) * 100.0;
        let (a, b) = (weft.spread_percent(), wasmtime.spread_percent());
        let within = a > difference && b > difference;
        if !within {
            beyond += 1;
        }
        let _ = writeln!(
            out,
            "{}: {}  {ratio:.3}x  {} / {}  spreads ±{a:.1}% / ±{b:.1}%  {}",
            r.group,
            r.name,
            fmt_time(weft.median),
            fmt_time(wasmtime.median),
            if within { "within the noise" } else { "beyond the noise" }
        );
    }
    let _ = writeln!(out, "rows above 1.00x: {count}; beyond the noise: {beyond}");
    out
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".to_string()
    }
}

fn json_summary(s: &Option<Summary>) -> String {
    match s {
        None => "null".to_string(),
        Some(s) => format!(
            "{{\"median_ns\": {}, \"min_ns\": {}, \"max_ns\": {}, \"p25_ns\": {}, \"p75_ns\": {}, \"samples\": {}}}",
            json_num(s.median),
            json_num(s.min),
            json_num(s.max),
            json_num(s.p25),
            json_num(s.p75),
            s.count
        ),
    }
}

/// The report as JSON: `meta` (key-value strings), `rows` and `geomeans`.
pub fn json(rows: &[Row], meta: &[(&str, String)]) -> String {
    let mut out = String::from("{\n  \"meta\": {");
    let meta: Vec<String> = meta
        .iter()
        .map(|(k, v)| format!("{}: {}", json_str(k), json_str(v)))
        .collect();
    out.push_str(&meta.join(", "));
    out.push_str("},\n  \"rows\": [\n");
    let rows_json: Vec<String> = rows
        .iter()
        .map(|r| {
            let peak = match &r.peak {
                None => String::new(),
                Some(p) => {
                    let median = |s: &Option<Summary>| s.map(|s| json_num(s.median)).unwrap_or_else(|| "null".into());
                    format!(
                        ", \"weft_peak_bytes\": {}, \"wasmtime_peak_bytes\": {}, \"peak_ratio\": {}",
                        median(&p.weft),
                        median(&p.wasmtime),
                        p.ratio().map(json_num).unwrap_or_else(|| "null".into())
                    )
                }
            };
            format!(
                "    {{\"group\": {}, \"name\": {}, \"size_bytes\": {}, \"weft\": {}, \"wasmtime\": {}, \"ratio\": {}{peak}}}",
                json_str(&r.group),
                json_str(&r.name),
                r.size.map(|s| s.to_string()).unwrap_or_else(|| "null".into()),
                json_summary(&r.weft),
                json_summary(&r.wasmtime),
                r.ratio().map(json_num).unwrap_or_else(|| "null".into())
            )
        })
        .collect();
    out.push_str(&rows_json.join(",\n"));
    out.push_str("\n  ],\n  \"geomeans\": [\n");
    let g: Vec<String> = group_geomeans(rows)
        .iter()
        .map(|(g, m, n)| {
            format!(
                "    {{\"group\": {}, \"ratio\": {}, \"rows\": {n}}}",
                json_str(g),
                m.map(json_num).unwrap_or_else(|| "null".into())
            )
        })
        .collect();
    out.push_str(&g.join(",\n"));
    out.push_str("\n  ]\n}\n");
    out
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A horizontal bar chart of the ratios on a log scale centred on 1.0:
/// bars to the left (green) are rows where Weft is faster, to the right
/// (red) where it is slower. Groups end with their geometric mean.
pub fn svg(rows: &[Row], title: &str) -> String {
    let (label_w, plot_w, bar_h, gap) = (300.0, 520.0, 14.0, 4.0);
    let (lo, hi) = (0.125f64.log2(), 8f64.log2()); // the axis: 1/8x .. 8x
    let x_of = |r: f64| label_w + (r.log2().clamp(lo, hi) - lo) / (hi - lo) * plot_w;
    let mut body = String::new();
    let mut y = 50.0;
    let geos = group_geomeans(rows);
    let bar = |body: &mut String, y: f64, label: &str, ratio: Option<f64>, bold: bool| {
        let weight = if bold { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\"{weight}>{}</text>",
            label_w - 6.0,
            y + bar_h - 3.0,
            xml(label)
        );
        if let Some(r) = ratio {
            let (x0, x1) = (x_of(1.0), x_of(r));
            let (x, w) = if x1 < x0 { (x1, x0 - x1) } else { (x0, x1 - x0) };
            let color = if r <= 1.0 { "#3a9a4a" } else { "#c8423b" };
            let _ = writeln!(
                body,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bar_h}\" fill=\"{color}\"{}/>",
                w.max(1.0),
                if bold { " stroke=\"#000\"" } else { "" }
            );
            let tx = if r <= 1.0 { x0 + 4.0 } else { x0 - 4.0 };
            let anchor = if r <= 1.0 { "start" } else { "end" };
            let _ = writeln!(
                body,
                "<text x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" font-size=\"10\">{r:.2}x</text>",
                y + bar_h - 3.0
            );
        }
    };
    for (g, m, _) in &geos {
        let _ = writeln!(
            body,
            "<text x=\"10\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\">{}</text>",
            y + 12.0,
            xml(g)
        );
        y += 18.0;
        for r in rows.iter().filter(|r| &r.group == g) {
            bar(&mut body, y, &r.name, r.ratio(), false);
            y += bar_h + gap;
        }
        bar(&mut body, y, "geometric mean", *m, true);
        y += bar_h + gap + 10.0;
    }
    let height = y + 30.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{height:.0}\" font-family=\"sans-serif\">",
        label_w + plot_w + 40.0
    );
    let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>");
    let _ = writeln!(
        out,
        "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>",
        xml(title)
    );
    for tick in [0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0] {
        let x = x_of(tick);
        let stroke = if tick == 1.0 { "#000" } else { "#ccc" };
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"40\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{stroke}\"/>",
            height - 25.0
        );
        let _ = writeln!(
            out,
            "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\">{tick}x</text>",
            height - 12.0
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"38\" font-size=\"10\" text-anchor=\"middle\">Weft time / Wasmtime time (log scale; left of 1x: Weft faster)</text>",
        x_of(1.0)
    );
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(m: f64) -> Option<Summary> {
        Summary::of(&[m])
    }

    fn rows() -> Vec<Row> {
        vec![
            Row {
                group: "calls".into(),
                name: "a<b".into(),
                size: None,
                weft: summary(2.0),
                wasmtime: summary(4.0),
                peak: None,
            },
            Row {
                group: "calls".into(),
                name: "c".into(),
                size: Some(1 << 20),
                weft: summary(8.0),
                wasmtime: summary(4.0),
                peak: Some(Peak {
                    weft: summary(3.0 * 1048576.0),
                    wasmtime: summary(4.0 * 1048576.0),
                }),
            },
            Row {
                group: "other".into(),
                name: "d".into(),
                size: None,
                weft: None,
                wasmtime: summary(4.0),
                peak: None,
            },
        ]
    }

    #[test]
    fn ratios_and_geomeans() {
        let rows = rows();
        assert_eq!(rows[0].ratio(), Some(0.5));
        assert_eq!(rows[2].ratio(), None);
        let g = group_geomeans(&rows);
        assert_eq!(g.len(), 2);
        assert!((g[0].1.unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(g[1].1, None);
    }

    #[test]
    fn outputs_are_well_formed() {
        let rows = rows();
        let t = table(&rows);
        assert!(t.contains("0.50x") && t.contains("2.00x") && t.contains("failed") && t.contains("1 MiB"));
        let j = json(&rows, &[("mode", "quick \"x\"".into())]);
        assert!(j.contains("\"ratio\": 0.5") && j.contains("\"weft\": null") && j.contains("quick \\\"x\\\""));
        // The peak memory columns, their JSON fields and their geometric mean.
        assert!(
            t.contains("weft peak") && t.contains("3.0 MiB ±0%") && t.contains("4.0 MiB ±0%") && t.contains("0.75x")
        );
        assert!(t.contains("peak memory per group"));
        assert!(j.contains("\"weft_peak_bytes\": 3145728") && j.contains("\"peak_ratio\": 0.75"));
        // Row "c" is 2x slower with no spread: beyond the noise.
        let slower = slower_rows(&rows);
        assert!(slower.contains("calls: c  2.000x  8.0 ns / 4.0 ns  spreads ±0.0% / ±0.0%  beyond the noise"));
        assert!(slower.contains("rows above 1.00x: 1; beyond the noise: 1"));
        let noisy = Row {
            weft: Summary::of(&[9.0, 10.0, 11.0, 12.0, 13.0]),
            wasmtime: Summary::of(&[9.0, 9.5, 10.0, 10.5, 11.0]),
            ..rows[1].clone()
        };
        // 1.10x, with spreads of 9.1% and 5.0%: beyond the noise.
        assert!(slower_rows(std::slice::from_ref(&noisy)).contains("beyond the noise"));
        let close = Row {
            wasmtime: Summary::of(&[9.784, 10.284, 10.784, 11.284, 11.784]),
            ..noisy
        };
        let close = slower_rows(&[close]);
        assert!(
            close.contains("1.020x  11.0 ns / 10.8 ns  spreads ±9.1% / ±4.6%  within the noise"),
            "{close}"
        );
        assert!(close.contains("rows above 1.00x: 1; beyond the noise: 0"));
        let s = svg(&rows, "t");
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains("a&lt;b") && !s.contains("a<b"));
    }
}
