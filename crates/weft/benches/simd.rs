//! SIMD against scalar wasm: the same kernels written both ways, timed with
//! `std::time::Instant` (the median of repeated runs).
//!
//! `cargo bench -p weft --bench simd`
//!
//! Kernels, over arrays that stay in the L2 cache:
//! - `saturating_add_u8`: `out[i] = min(a[i] + b[i], 255)` over 64 KiB of
//!   bytes (brightening an image): `i8x16.add_sat_u` against byte loads,
//!   an add, a `select` and byte stores.
//! - `dot_f32`: the dot product of two arrays of 16 Ki `f32`s: four lanes
//!   of `f32x4.mul`/`f32x4.add` against one scalar multiply-add per element.
//!
//! Both versions of a kernel are checked to compute the same result before
//! they are timed. Speed is reported, never asserted.

use std::time::{Duration, Instant};
use weft::{Engine, Instance, Module, Store, TypedFunc};

/// Bytes per byte array (three arrays: a, b, out).
const BYTES: i32 = 64 * 1024;
/// `f32`s per float array (two arrays, at `FLOATS_AT`).
const FLOATS: i32 = 16 * 1024;
const FLOATS_AT: i32 = 3 * BYTES;

const WAT: &str = r#"(module
  (memory (export "memory") 8)

  ;; out[i] = min(a[i] + b[i], 255); a at 0, b at $n, out at 2 * $n.
  (func (export "add_u8_scalar") (param $n i32) (param $reps i32)
    (local $i i32) (local $sum i32)
    (loop $rep
      (local.set $i (i32.const 0))
      (loop $l
        (i32.store8 (i32.add (local.get $i) (i32.shl (local.get $n) (i32.const 1)))
          (select (i32.const 255)
            (local.tee $sum (i32.add
              (i32.load8_u (local.get $i))
              (i32.load8_u (i32.add (local.get $i) (local.get $n)))))
            (i32.gt_u (local.get $sum) (i32.const 255))))
        (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
      (br_if $rep (local.tee $reps (i32.sub (local.get $reps) (i32.const 1))))))

  (func (export "add_u8_simd") (param $n i32) (param $reps i32)
    (local $i i32)
    (loop $rep
      (local.set $i (i32.const 0))
      (loop $l
        (v128.store (i32.add (local.get $i) (i32.shl (local.get $n) (i32.const 1)))
          (i8x16.add_sat_u
            (v128.load (local.get $i))
            (v128.load (i32.add (local.get $i) (local.get $n)))))
        (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $n))))
      (br_if $rep (local.tee $reps (i32.sub (local.get $reps) (i32.const 1))))))

  ;; sum of a[i] * b[i] over $n floats; a at $at, b at $at + 4 * $n.
  (func (export "dot_f32_scalar") (param $at i32) (param $n i32) (param $reps i32) (result f32)
    (local $i i32) (local $end i32) (local $acc f32)
    (loop $rep
      (local.set $acc (f32.const 0))
      (local.set $i (local.get $at))
      (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
      (loop $l
        (local.set $acc (f32.add (local.get $acc)
          (f32.mul (f32.load (local.get $i))
                   (f32.load (i32.add (local.get $i) (i32.shl (local.get $n) (i32.const 2)))))))
        (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 4))) (local.get $end))))
      (br_if $rep (local.tee $reps (i32.sub (local.get $reps) (i32.const 1)))))
    (local.get $acc))

  (func (export "dot_f32_simd") (param $at i32) (param $n i32) (param $reps i32) (result f32)
    (local $i i32) (local $end i32) (local $acc v128)
    (loop $rep
      (local.set $acc (v128.const f32x4 0 0 0 0))
      (local.set $i (local.get $at))
      (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
      (loop $l
        (local.set $acc (f32x4.add (local.get $acc)
          (f32x4.mul (v128.load (local.get $i))
                     (v128.load (i32.add (local.get $i) (i32.shl (local.get $n) (i32.const 2)))))))
        (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 16))) (local.get $end))))
      (br_if $rep (local.tee $reps (i32.sub (local.get $reps) (i32.const 1)))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
      (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc))))))
"#;

/// How many timed runs each measurement takes the median of.
const RUNS: usize = 15;

fn median(mut f: impl FnMut()) -> Duration {
    f(); // warm up
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn report(name: &str, elements: u64, scalar: Duration, simd: Duration) {
    let per = |d: Duration| d.as_nanos() as f64 / elements as f64;
    println!(
        "{name:<18} scalar {:>8.3} ms ({:.3} ns/element)   simd {:>8.3} ms ({:.3} ns/element)   speedup {:.1}x",
        scalar.as_secs_f64() * 1e3,
        per(scalar),
        simd.as_secs_f64() * 1e3,
        per(simd),
        scalar.as_secs_f64() / simd.as_secs_f64()
    );
}

fn main() -> weft::Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, WAT)?;
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[])?;
    let memory = instance
        .get_memory(&mut store, "memory")
        .ok_or_else(|| weft::format_err!("no memory"))?;

    // Inputs: pseudo-random bytes and floats.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let data = memory.data_mut(&mut store);
    for byte in &mut data[..2 * BYTES as usize] {
        *byte = next() as u8;
    }
    for i in 0..2 * FLOATS as usize {
        let x = (next() % 2000) as f32 / 1000.0 - 1.0;
        let at = FLOATS_AT as usize + 4 * i;
        data[at..at + 4].copy_from_slice(&x.to_le_bytes());
    }

    let add_scalar: TypedFunc<(i32, i32), ()> = instance.get_typed_func(&mut store, "add_u8_scalar")?;
    let add_simd: TypedFunc<(i32, i32), ()> = instance.get_typed_func(&mut store, "add_u8_simd")?;
    let dot_scalar: TypedFunc<(i32, i32, i32), f32> = instance.get_typed_func(&mut store, "dot_f32_scalar")?;
    let dot_simd: TypedFunc<(i32, i32, i32), f32> = instance.get_typed_func(&mut store, "dot_f32_simd")?;

    // Same results first.
    let out = 2 * BYTES as usize..3 * BYTES as usize;
    add_scalar.call(&mut store, (BYTES, 1))?;
    let expected = memory.data(&store)[out.clone()].to_vec();
    memory.data_mut(&mut store)[out.clone()].fill(0);
    add_simd.call(&mut store, (BYTES, 1))?;
    assert_eq!(memory.data(&store)[out].to_vec(), expected, "saturating_add_u8 differs");
    let a = dot_scalar.call(&mut store, (FLOATS_AT, FLOATS, 1))?;
    let b = dot_simd.call(&mut store, (FLOATS_AT, FLOATS, 1))?;
    assert!((a - b).abs() <= 1e-3 * a.abs().max(1.0), "dot_f32 differs: {a} vs {b}");

    println!("median of {RUNS} runs; each run repeats the kernel over the same arrays");
    let reps = 200;
    let scalar = median(|| add_scalar.call(&mut store, (BYTES, reps)).map(drop).unwrap_or(()));
    let simd = median(|| add_simd.call(&mut store, (BYTES, reps)).map(drop).unwrap_or(()));
    report("saturating_add_u8", BYTES as u64 * reps as u64, scalar, simd);

    let reps = 400;
    let scalar = median(|| {
        dot_scalar
            .call(&mut store, (FLOATS_AT, FLOATS, reps))
            .map(drop)
            .unwrap_or(())
    });
    let simd = median(|| {
        dot_simd
            .call(&mut store, (FLOATS_AT, FLOATS, reps))
            .map(drop)
            .unwrap_or(())
    });
    report("dot_f32", FLOATS as u64 * reps as u64, scalar, simd);
    Ok(())
}
