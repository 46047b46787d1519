//! Generated inputs: a module of many functions (compile-time scaling) and a
//! module with one large data segment (instantiation scaling). Both are
//! deterministic, so every process and both engines see the same bytes.

fn leb_u32(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn section(out: &mut Vec<u8>, id: u8, body: &[u8]) {
    out.push(id);
    leb_u32(out, body.len() as u32);
    out.extend_from_slice(body);
}

/// Byte `i` of the data segment: never zero, so no engine can skip it.
pub fn data_byte(i: usize) -> u8 {
    ((i.wrapping_mul(131) + 7) % 251) as u8 + 1
}

/// A module exporting a memory `memory` whose first `size` bytes come from
/// one active data segment.
pub fn data_module(size: usize) -> Vec<u8> {
    let pages = size.div_ceil(65536).max(1) as u32;
    let mut m = b"\0asm\x01\0\0\0".to_vec();

    let mut memory = vec![1, 0x00];
    leb_u32(&mut memory, pages);
    section(&mut m, 5, &memory);

    let mut export = vec![1, 6];
    export.extend_from_slice(b"memory");
    export.extend_from_slice(&[0x02, 0]);
    section(&mut m, 7, &export);

    let mut data = vec![1, 0x00, 0x41, 0x00, 0x0b];
    leb_u32(&mut data, size as u32);
    data.extend((0..size).map(data_byte));
    section(&mut m, 11, &data);
    m
}

/// A module of `funcs` small functions, each with a loop, arithmetic, a
/// memory access and a call to its predecessor, as compilers meet in
/// programs built from many small functions.
pub fn synthetic_module(funcs: usize) -> Vec<u8> {
    let mut wat = String::from("(module (memory 1)\n");
    for i in 0..funcs {
        wat.push_str(&format!(
            "(func $f{i} (param $x i32) (param $n i32) (result i32)
                (local $acc i32)
                (loop $l
                    (local.set $acc (i32.add (local.get $acc)
                        (i32.mul (local.get $x) (i32.const {k}))))
                    (i32.store (i32.and (local.get $acc) (i32.const 0xfffc)) (local.get $acc))
                    (local.set $x (i32.xor (local.get $x) (i32.load offset=4 (i32.const 0))))
                    (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
                {call})\n",
            k = i * 7 + 3,
            call = if i == 0 {
                "(local.get $acc)".to_string()
            } else {
                format!("(call $f{} (local.get $acc) (i32.const 1))", i - 1)
            },
        ));
    }
    wat.push_str(&format!("(export \"run\" (func $f{})))", funcs.saturating_sub(1)));
    wat::parse_str(&wat).expect("the synthetic module is valid")
}

/// The GC benchmarks' module (the GC proposal, both engines with
/// `Config::wasm_gc(true)` and their default collector):
///
/// - `binary_trees(max, min)`: the classic binary-trees program, a
///   stretch tree of depth `max + 1`, then a long-lived tree of depth `max`
///   while, for each depth `d` from `min` to `max` by 2, `2^(max - d)` trees
///   of depth `d` are built, walked and dropped (as many nodes at each
///   depth); returns the number of nodes walked.
/// - `list_churn(len, rounds)`: `rounds` times, builds a linked list of
///   `len` cells holding `0..len`, sums it and drops it; returns the sum of
///   the sums (wrapping).
pub const GC_BENCHES: &str = r#"(module
    (type $node (struct (field $left (ref null $node)) (field $right (ref null $node))))
    (type $cell (struct (field $value i32) (field $next (ref null $cell))))

    (func $tree (param $depth i32) (result (ref $node))
        (if (result (ref $node)) (i32.eqz (local.get $depth))
            (then (struct.new $node (ref.null $node) (ref.null $node)))
            (else
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (struct.new $node (call $tree (local.get $depth)) (call $tree (local.get $depth))))))

    (func $check (param $n (ref $node)) (result i32)
        (local $left (ref null $node))
        (local.set $left (struct.get $node $left (local.get $n)))
        (if (result i32) (ref.is_null (local.get $left))
            (then (i32.const 1))
            (else
                (i32.add
                    (i32.const 1)
                    (i32.add
                        (call $check (ref.as_non_null (local.get $left)))
                        (call $check (ref.as_non_null (struct.get $node $right (local.get $n)))))))))

    (func (export "binary_trees") (param $max i32) (param $min i32) (result i32)
        (local $total i32)
        (local $long (ref null $node))
        (local $d i32)
        (local $i i32)
        ;; The stretch tree, one deeper than the rest.
        (local.set $total (call $check (call $tree (i32.add (local.get $max) (i32.const 1)))))
        (local.set $long (call $tree (local.get $max)))
        (local.set $d (local.get $min))
        (block $done
            (loop $depths
                (br_if $done (i32.gt_s (local.get $d) (local.get $max)))
                (local.set $i (i32.shl (i32.const 1) (i32.sub (local.get $max) (local.get $d))))
                (loop $trees
                    (local.set $total
                        (i32.add (local.get $total) (call $check (call $tree (local.get $d)))))
                    (br_if $trees (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
                (local.set $d (i32.add (local.get $d) (i32.const 2)))
                (br $depths)))
        (i32.add (local.get $total) (call $check (ref.as_non_null (local.get $long)))))

    (func (export "list_churn") (param $len i32) (param $rounds i32) (result i32)
        (local $total i32)
        (local $list (ref null $cell))
        (local $i i32)
        (loop $round
            (local.set $list (ref.null $cell))
            (local.set $i (local.get $len))
            (loop $build
                (local.set $i (i32.sub (local.get $i) (i32.const 1)))
                (local.set $list (struct.new $cell (local.get $i) (local.get $list)))
                (br_if $build (local.get $i)))
            (block $end
                (loop $sum
                    (br_if $end (ref.is_null (local.get $list)))
                    (local.set $total
                        (i32.add (local.get $total) (struct.get $cell $value (local.get $list))))
                    (local.set $list (struct.get $cell $next (local.get $list)))
                    (br $sum)))
            (br_if $round (local.tee $rounds (i32.sub (local.get $rounds) (i32.const 1)))))
        (local.get $total)))"#;

/// Binary trees: the depth of the long-lived tree and the smallest depth.
const BINARY_TREES: (i32, i32) = (16, 4);
/// List churn: the list's length and how many lists are built.
const LIST_CHURN: (i32, i32) = (100_000, 20);

/// A GC benchmark's export, its two arguments and the result it must give.
pub fn gc_bench(bench: &str) -> anyhow::Result<(&'static str, i32, i32, i32)> {
    match bench {
        "gc-binary-trees" => {
            let (max, min) = BINARY_TREES;
            let nodes = |depth: i32| (1i32 << (depth + 1)) - 1;
            let mut total = nodes(max + 1) + nodes(max);
            let mut d = min;
            while d <= max {
                total += (1 << (max - d)) * nodes(d);
                d += 2;
            }
            Ok(("binary_trees", max, min, total))
        }
        "gc-list-churn" => {
            let (len, rounds) = LIST_CHURN;
            let per_list = (0..len).fold(0i32, |a, v| a.wrapping_add(v));
            Ok(("list_churn", len, rounds, per_list.wrapping_mul(rounds)))
        }
        _ => anyhow::bail!("unknown benchmark `{bench}`"),
    }
}
