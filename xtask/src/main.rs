//! Project tasks, run as `cargo xtask TASK`.
//!
//! `cargo xtask bench [--quick] [--rounds N] [--only SUBSTRING]
//! [--compare REPORT.json]` builds the
//! benchmark harness (benches/harness: Weft and Wasmtime, release mode) and
//! runs every benchmark in a fresh process per engine, alternating Weft and
//! Wasmtime round after round. It prints a table of medians with their
//! spread and the Weft/Wasmtime ratio, writes `target/bench/report.json` and
//! `target/bench/report.svg`, and ends with the geometric mean ratio of each
//! group and the rows where Weft is slower (`report::slower_rows`); with
//! `--compare`, also each row's change against an earlier report.
//!
//! `cargo xtask c-api install --prefix DIR [--release]` installs the C API
//! (headers, `libweft.so` and `libweft.a`, `weft.pc`, the CMake package).
//!
//! `cargo xtask import-cycles [--all]` fails when files of one crate import
//! each other in a loop without a comment at the import saying why.

mod capi;
mod compare;
mod cycles;
mod report;
mod stats;

use report::Row;
use stats::Summary;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask bench [--quick] [--rounds N] [--only SUBSTRING] [--compare REPORT.json]

  --quick        a reduced set (a few sightglass programs, every call figure
                 including the component rows (cm-*),
                 small scaling inputs) with fewer rounds: under two minutes
                 once the harness is built
  --rounds N     processes per engine and benchmark (default 5, quick 2)
  --only S       only the benchmarks whose name contains S
  --compare R    also print each row's change against the report R of an
                 earlier run (a target/bench/report.json, copied aside)

The sightglass programs are read from ../shared/sightglass (or $WEFT_SIGHTGLASS).";

const ENGINES: [&str; 2] = ["weft", "wasmtime"];

/// The sightglass programs also run with the GC proposal on (rows
/// `... (wasm_gc on)`), to compare with their rows with it off.
const GC_ON_PROGRAMS: [&str; 3] = [
    "shootout/shootout-ackermann.wasm",
    "quicksort/benchmark.wasm",
    "blake3-scalar/benchmark.wasm",
];

/// One benchmark: the harness arguments and how its metrics become rows.
struct Bench {
    name: String,
    args: Vec<String>,
    /// Samples per process.
    reps: usize,
    /// `(metric printed by the harness, group of the row)`.
    metrics: Vec<(&'static str, &'static str)>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bench") => bench(&args[1..]),
        Some("c-api") => capi::run(&root(), &args[1..]),
        Some("import-cycles") => cycles::run(&root(), &args[1..]),
        _ => Err(format!("{USAGE}\n\n{}\n\n{}", capi::USAGE, cycles::USAGE)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn sightglass_dir(root: &Path) -> PathBuf {
    std::env::var_os("WEFT_SIGHTGLASS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/sightglass"))
}

/// Every `*.wasm` one level below `dir`, sorted.
fn sightglass_programs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        for file in std::fs::read_dir(entry.path()).into_iter().flatten().flatten() {
            if file.path().extension().is_some_and(|e| e == "wasm") {
                out.push(file.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

fn benches(sightglass: &[PathBuf], quick: bool) -> Vec<Bench> {
    const QUICK_PROGRAMS: &[&str] = &[
        "noop/benchmark",
        "quicksort/benchmark",
        "shootout/shootout-ackermann",
        "shootout/shootout-xchacha20",
        "blake3-scalar/benchmark",
        "bz2/benchmark",
        "shootout/shootout-keccak",
        "shootout/shootout-sieve",
    ];
    let mut out = Vec::new();
    for path in sightglass {
        let folder = path
            .parent()
            .and_then(|p| p.file_name())
            .unwrap_or_default()
            .to_string_lossy();
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let id = format!("{folder}/{stem}");
        if quick && !QUICK_PROGRAMS.contains(&id.as_str()) {
            continue;
        }
        let name = if stem == "benchmark" {
            folder.to_string()
        } else {
            stem.to_string()
        };
        out.push(Bench {
            name,
            args: vec!["sightglass".into(), path.display().to_string()],
            reps: 2,
            metrics: vec![
                ("execute", "sightglass: execution"),
                ("compile", "sightglass: compilation"),
                ("instantiate", "sightglass: instantiation (first after compiling)"),
                ("instantiate_again", "sightglass: instantiation (again)"),
                ("deserialize", "sightglass: deserialization (precompiled module)"),
                (
                    "deserialize_file",
                    "sightglass: deserialization from a file (deserialize_file)",
                ),
            ],
        });
    }
    let calls = [
        ("call-empty", "empty host-to-wasm call (typed)", "calls"),
        ("call-empty-untyped", "empty host-to-wasm call (Func::call)", "calls"),
        ("call-args8", "host-to-wasm call, 8 args (typed)", "calls"),
        ("call-args8-untyped", "host-to-wasm call, 8 args (Func::call)", "calls"),
        ("call-host", "wasm-to-host call", "calls"),
        ("call-host-args8", "wasm-to-host call, 8 args", "calls"),
        ("async-call-empty", "empty call_async", "async calls"),
        ("async-call-host", "async host call (call_async)", "async calls"),
    ];
    for (bench, name, group) in calls {
        out.push(Bench {
            name: name.into(),
            args: vec![bench.into()],
            reps: if quick { 5 } else { 11 },
            metrics: vec![("per_call", group)],
        });
    }
    let component_calls = [
        ("cm-call", "component call (typed)", "component calls"),
        ("cm-call-untyped", "component call (Func::call)", "component calls"),
        ("cm-call-async", "component call_async (typed)", "component async calls"),
        (
            "cm-call-async-untyped",
            "component call_async (Func)",
            "component async calls",
        ),
        (
            "cm-call-concurrent",
            "component call_concurrent (typed)",
            "component async calls",
        ),
        (
            "cm-call-concurrent-untyped",
            "component call_concurrent (Func)",
            "component async calls",
        ),
    ];
    for (bench, name, group) in component_calls {
        out.push(Bench {
            name: name.into(),
            args: vec![bench.into()],
            reps: if quick { 5 } else { 11 },
            metrics: vec![("per_call", group)],
        });
    }
    for (bench, name) in [
        ("cm-stream-host", "stream host to guest, 1 MiB in 4 KiB chunks"),
        ("cm-stream-guest", "stream guest to guest, 1 MiB in 4 KiB chunks"),
    ] {
        out.push(Bench {
            name: name.into(),
            args: vec![bench.into()],
            reps: if quick { 5 } else { 11 },
            metrics: vec![("per_stream", "component streams and futures")],
        });
    }
    out.push(Bench {
        name: "1,000 concurrent tasks each waiting on a future".into(),
        args: vec!["cm-futures".into()],
        reps: if quick { 5 } else { 11 },
        metrics: vec![("per_batch", "component streams and futures")],
    });
    out.push(Bench {
        name: "WASI 0.2 command start-up (instantiate + empty wasi:cli/run)".into(),
        args: vec!["wasi-p2-start".into()],
        reps: if quick { 20 } else { 50 },
        metrics: vec![("start", "WASI 0.2")],
    });
    out.push(Bench {
        name: "wasi:http request round trip in process (store + instance + handle + body)".into(),
        args: vec!["wasi-http-round-trip".into()],
        reps: if quick { 20 } else { 50 },
        metrics: vec![("round_trip", "WASI 0.2")],
    });
    out.push(Bench {
        name: "memory.grow by one page".into(),
        args: vec!["memory-grow".into()],
        reps: if quick { 5 } else { 11 },
        metrics: vec![("per_grow", "memory")],
    });
    for (bench, name) in [
        (
            "atomics-counter",
            "atomics: i32.atomic.rmw.add on one counter, 2 threads",
        ),
        ("atomics-pingpong", "atomics: wait/notify hand-off between 2 threads"),
    ] {
        out.push(Bench {
            name: name.into(),
            args: vec![bench.into()],
            reps: if quick { 5 } else { 11 },
            metrics: vec![("per_op", "atomics")],
        });
    }
    for (bench, name) in [
        ("gc-binary-trees", "gc: binary trees, depth 16 (1.3 M structs)"),
        ("gc-list-churn", "gc: linked list churn, 20 lists of 100,000 cells"),
    ] {
        out.push(Bench {
            name: name.into(),
            args: vec![bench.into()],
            reps: if quick { 3 } else { 5 },
            metrics: vec![("run", "gc")],
        });
    }
    // Core-only code with the GC proposal on (`--gc`): the same programs as
    // rows of the groups above, to compare with them.
    for program in GC_ON_PROGRAMS {
        if let Some(path) = sightglass.iter().find(|p| p.ends_with(program)) {
            out.push(Bench {
                name: format!("{} (wasm_gc on)", program.trim_end_matches(".wasm")),
                args: vec!["sightglass".into(), path.display().to_string(), "--gc".into()],
                reps: 2,
                metrics: vec![("execute", "gc on: core execution")],
            });
        }
    }
    for (bench, name) in [
        ("call-empty", "empty host-to-wasm call (typed, wasm_gc on)"),
        ("call-host", "wasm-to-host call (wasm_gc on)"),
    ] {
        out.push(Bench {
            name: name.into(),
            args: vec![bench.into(), "--gc".into()],
            reps: if quick { 5 } else { 11 },
            metrics: vec![("per_call", "gc on: calls")],
        });
    }
    out.push(Bench {
        name: "instantiate, 1 MiB data segment".into(),
        args: vec!["instantiate-data".into(), (1 << 20).to_string()],
        reps: if quick { 10 } else { 30 },
        metrics: vec![("instantiate", "memory")],
    });
    let funcs: &[usize] = if quick { &[100, 1000] } else { &[100, 1000, 10_000] };
    for &n in funcs {
        out.push(Bench {
            name: format!("synthetic, {n} functions"),
            args: vec!["compile-synthetic".into(), n.to_string()],
            reps: if n >= 10_000 { 1 } else { 3 },
            metrics: vec![("compile", "scaling: compile time by module size")],
        });
    }
    let sizes: &[usize] = if quick {
        &[4 << 10, 16 << 20]
    } else {
        &[4 << 10, 64 << 10, 256 << 10, 4 << 20, 16 << 20]
    };
    for &size in sizes {
        out.push(Bench {
            name: format!("data segment of {}", human_size(size)),
            args: vec!["instantiate-data".into(), size.to_string()],
            reps: if quick { 5 } else { 15 },
            metrics: vec![("instantiate", "scaling: instantiation by data size")],
        });
    }
    out
}

fn human_size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

/// What one harness process printed: samples per metric and the input size.
#[derive(Default)]
struct Output {
    samples: BTreeMap<String, Vec<f64>>,
    size: Option<u64>,
}

fn parse_output(stdout: &str) -> Output {
    let mut out = Output::default();
    for line in stdout.lines() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("sample"), Some(metric), Some(v)) => {
                if let Ok(v) = v.parse::<f64>() {
                    out.samples.entry(metric.to_string()).or_default().push(v);
                }
            }
            (Some("size"), Some(v), None) => out.size = v.parse().ok(),
            _ => {}
        }
    }
    out
}

fn build_harness(root: &Path) -> Result<PathBuf, String> {
    // Beside the rest of the build when `CARGO_TARGET_DIR` says where.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| PathBuf::from(t).join("bench-harness"))
        .unwrap_or_else(|| root.join("target/bench-harness"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("building the benchmark harness (Weft and Wasmtime, release) ...");
    let status = Command::new(cargo)
        .args(["build", "--release", "--manifest-path"])
        .arg(root.join("benches/harness/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building the benchmark harness failed".into());
    }
    Ok(target.join("release/weft-bench-harness"))
}

fn bench(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut rounds = None;
    let mut only = None;
    let mut compare_with = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--rounds" => rounds = Some(it.next().and_then(|n| n.parse::<usize>().ok()).ok_or(USAGE)?),
            "--only" => only = Some(it.next().ok_or(USAGE)?.clone()),
            "--compare" => compare_with = Some(PathBuf::from(it.next().ok_or(USAGE)?)),
            _ => return Err(USAGE.into()),
        }
    }
    let rounds = rounds.unwrap_or(if quick { 2 } else { 5 }).max(1);
    // The earlier report is read first, so that a bad one fails at once.
    let earlier = match &compare_with {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let rows = compare::earlier_rows(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            Some((path.display().to_string(), rows))
        }
        None => None,
    };
    let root = root();
    let sg_dir = sightglass_dir(&root);
    let programs = sightglass_programs(&sg_dir)?;
    if programs.is_empty() {
        return Err(format!(
            "no sightglass programs in {} (set WEFT_SIGHTGLASS)",
            sg_dir.display()
        ));
    }
    let harness = build_harness(&root)?;
    let mut benches = benches(&programs, quick);
    if let Some(only) = &only {
        benches.retain(|b| b.name.contains(only.as_str()) || b.args.join(" ").contains(only.as_str()));
    }

    // samples[(bench, engine)] = metric -> samples
    let started = Instant::now();
    let mut results: Vec<[Output; 2]> = benches.iter().map(|_| Default::default()).collect();
    let mut failures = Vec::new();
    for round in 0..rounds {
        eprintln!("round {}/{rounds} ({:.0?} so far)", round + 1, started.elapsed());
        for (i, b) in benches.iter().enumerate() {
            // Alternate which engine goes first, by round and by benchmark.
            let order = if (round + i) % 2 == 0 { [0, 1] } else { [1, 0] };
            for e in order {
                let mut cmd = Command::new(&harness);
                cmd.arg(ENGINES[e]).args(&b.args).arg("--reps").arg(b.reps.to_string());
                if b.args[0] == "sightglass" {
                    if let Some(dir) = Path::new(&b.args[1]).parent() {
                        cmd.current_dir(dir);
                    }
                }
                let output = cmd.output().map_err(|e| format!("cannot run the harness: {e}"))?;
                if !output.status.success() {
                    failures.push(format!(
                        "{} on {}: {}",
                        b.name,
                        ENGINES[e],
                        String::from_utf8_lossy(&output.stderr).trim()
                    ));
                    continue;
                }
                let parsed = parse_output(&String::from_utf8_lossy(&output.stdout));
                let acc = &mut results[i][e];
                acc.size = acc.size.or(parsed.size);
                for (m, s) in parsed.samples {
                    acc.samples.entry(m).or_default().extend(s);
                }
            }
        }
    }

    let mut rows = Vec::new();
    for (b, [weft, wasmtime]) in benches.iter().zip(&results) {
        for &(metric, group) in &b.metrics {
            let summary = |o: &Output, m: &str| o.samples.get(m).and_then(|s| Summary::of(s));
            // A step measured for its peak memory too (`METRIC_peak`).
            let peak_metric = format!("{metric}_peak");
            let peak = report::Peak {
                weft: summary(weft, &peak_metric),
                wasmtime: summary(wasmtime, &peak_metric),
            };
            rows.push(Row {
                group: group.to_string(),
                name: b.name.clone(),
                size: weft.size.or(wasmtime.size),
                weft: summary(weft, metric),
                wasmtime: summary(wasmtime, metric),
                peak: (peak.weft.is_some() || peak.wasmtime.is_some()).then_some(peak),
            });
        }
    }
    // Rows grouped, groups in the order they were first listed.
    let order: Vec<String> = report::group_geomeans(&rows).into_iter().map(|g| g.0).collect();
    rows.sort_by_key(|r| order.iter().position(|g| g == &r.group));
    // Compile-time scaling: the sightglass programs by size, with the
    // synthetic modules.
    let mut scaling: Vec<Row> = rows
        .iter()
        .filter(|r| r.group == "sightglass: compilation" || r.group.starts_with("scaling: compile"))
        .cloned()
        .collect();
    scaling.sort_by_key(|r| r.size);

    let elapsed = started.elapsed();
    let mut text = report::table(&rows);
    text.push_str("\n## scaling: compile time against module size (all modules, by size)\n");
    for r in &scaling {
        let per_kib = |s: &Option<Summary>| {
            s.map(|s| format!("{:>9.1} µs/KiB", s.median / 1e3 / (r.size.unwrap_or(1) as f64 / 1024.0)))
                .unwrap_or_else(|| "failed".into())
        };
        text.push_str(&format!(
            "{:<36} {:>9} bytes   weft {}   wasmtime {}\n",
            r.name,
            r.size.unwrap_or(0),
            per_kib(&r.weft),
            per_kib(&r.wasmtime)
        ));
    }
    text.push_str(&report::slower_rows(&rows));
    if let Some((from, rows_then)) = &earlier {
        text.push_str(&compare::table(&rows, rows_then, from));
    }
    println!("{text}");
    let mode = if quick { "quick" } else { "full" };
    println!(
        "{} benchmarks, {rounds} rounds, {mode} mode, in {elapsed:.0?}",
        benches.len()
    );

    let out_dir = root.join("target/bench");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let meta = [
        ("mode", mode.to_string()),
        ("rounds", rounds.to_string()),
        ("wasmtime", "48.0.8".to_string()),
        ("elapsed_s", format!("{:.1}", elapsed.as_secs_f64())),
        ("sightglass", sg_dir.display().to_string()),
    ];
    let json = report::json(&rows, &meta);
    let svg = report::svg(&rows, &format!("Weft / Wasmtime 48.0.8 ({mode}, {rounds} rounds)"));
    for (name, body) in [("report.json", json), ("report.svg", svg)] {
        let path = out_dir.join(name);
        std::fs::write(&path, body).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("failed: {f}");
        }
        return Err(format!("{} benchmark runs failed", failures.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_harness_output() {
        let o = parse_output("size 42\nsample compile 10\nsample compile 12.5\nnoise\nsample execute x\n");
        assert_eq!(o.size, Some(42));
        assert_eq!(o.samples["compile"], vec![10.0, 12.5]);
        assert!(!o.samples.contains_key("execute"));
    }

    #[test]
    fn quick_set_is_smaller() {
        let programs: Vec<PathBuf> = ["noop/benchmark.wasm", "pulldown-cmark/benchmark.wasm"]
            .iter()
            .map(|p| Path::new("/sg").join(p))
            .collect();
        let full = benches(&programs, false);
        let quick = benches(&programs, true);
        assert!(quick.len() < full.len());
        assert!(quick.iter().any(|b| b.name == "noop"));
        assert!(!quick.iter().any(|b| b.name == "pulldown-cmark"));
    }
}
