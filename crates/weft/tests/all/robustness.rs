//! Broken input never panics: mutated and truncated modules go through
//! validation, compilation and instantiation and come back as `Ok` or `Err`.

use weft::*;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SEEDS: &[&str] = &[
    r#"(module (memory 1) (data (i32.const 0) "abc") (table 2 funcref) (elem (i32.const 0) $f)
        (global (mut i32) (i32.const 1))
        (func $f (export "f") (param i32 i64) (result i32) local.get 0 i32.const 1 i32.add
          block (result i32) i32.const 2 br 0 end i32.mul))"#,
    r#"(module (func (export "g") (param f32 f64) (result f64) local.get 1 local.get 0 f64.promote_f32 f64.add)
        (func (export "h") (result i32) i32.const 0 i32.load8_u) (memory 0 1))"#,
    r#"(module (type $t (func (param i32) (result i32)))
        (func (export "k") (param i32) (result i32) local.get 0 local.get 0 call_indirect (type $t))
        (table 1 funcref))"#,
];

#[test]
fn mutated_modules_never_panic() {
    let engine = Engine::default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut outcomes = [0usize; 2];
    for seed in SEEDS {
        let original = wat::parse_str(seed).expect("seed module is valid");
        for _ in 0..400 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(4) {
                match rng.below(3) {
                    0 => {
                        let i = rng.below(bytes.len());
                        bytes[i] = rng.next() as u8;
                    }
                    1 => {
                        let i = rng.below(bytes.len());
                        bytes.truncate(i.max(8));
                    }
                    _ => {
                        let i = rng.below(bytes.len());
                        bytes.insert(i, rng.next() as u8);
                    }
                }
            }
            let _ = Module::validate(&engine, &bytes);
            match Module::from_binary(&engine, &bytes) {
                Ok(module) => {
                    outcomes[0] += 1;
                    let mut store = Store::new(&engine, ());
                    if module.imports().len() == 0 {
                        let _ = Instance::new(&mut store, &module, &[]);
                    }
                }
                Err(e) => {
                    outcomes[1] += 1;
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
    // Both outcomes must occur, or the mutations test nothing.
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}

#[test]
fn text_garbage_is_an_error() {
    let engine = Engine::default();
    for text in [
        "",
        "(",
        "(module (func (result i32) i32.const))",
        "\u{0}\u{1}asm",
        "(module (memory 70000))",
    ] {
        assert!(Module::new(&engine, text.as_bytes()).is_err(), "{text:?}");
    }
}

/// Components with core modules, lifts, lowers, strings and resources: the
/// seeds of the component mutations.
#[cfg(feature = "component-model")]
const COMPONENT_SEEDS: &[&str] = &[
    r#"(component
        (import "f" (func $f (param "s" string) (result u32)))
        (core module $libc (memory (export "mem") 1)
            (func (export "realloc") (param i32 i32 i32 i32) (result i32) (i32.const 64)))
        (core instance $libc (instantiate $libc))
        (core func $f (canon lower (func $f) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
        (core module $m (import "" "f" (func $f (param i32 i32) (result i32)))
            (func (export "run") (param i32 i32) (result i32) (call $f (local.get 0) (local.get 1))))
        (core instance $i (instantiate $m (with "" (instance (export "f" (func $f))))))
        (func (export "run") (param "s" string) (result u32)
            (canon lift (core func $i "run") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc")))))"#,
    r#"(component
        (type $r (resource (rep i32)))
        (core func $new (canon resource.new $r))
        (core func $drop (canon resource.drop $r))
        (core module $m (import "" "new" (func $new (param i32) (result i32)))
            (import "" "drop" (func $drop (param i32)))
            (func (export "make") (param i32) (result i32) (call $new (local.get 0)))
            (func (export "rep") (param i32) (result i32) (local.get 0)))
        (core instance $i (instantiate $m (with "" (instance (export "new" (func $new)) (export "drop" (func $drop))))))
        (export $e "r" (type $r))
        (func (export "make") (param "x" u32) (result (own $e)) (canon lift (core func $i "make")))
        (func (export "rep") (param "x" (borrow $e)) (result u32) (canon lift (core func $i "rep"))))"#,
];

#[test]
#[cfg(feature = "component-model")]
fn mutated_components_never_panic() {
    use weft::component::{Component, Linker, Val};
    let engine = Engine::default();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut outcomes = [0usize; 2];
    for seed in COMPONENT_SEEDS {
        let original = wat::parse_str(seed).expect("seed component is valid");
        for _ in 0..300 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(bytes.len());
                match rng.below(3) {
                    0 => bytes[i] = rng.next() as u8,
                    1 => bytes.truncate(i.max(8)),
                    _ => bytes.insert(i, rng.next() as u8),
                }
            }
            match Component::from_binary(&engine, &bytes) {
                Ok(component) => {
                    outcomes[0] += 1;
                    let mut store = Store::new(&engine, ());
                    let mut linker = Linker::<()>::new(&engine);
                    if linker.define_unknown_imports_as_traps(&component).is_err() {
                        continue;
                    }
                    let Ok(instance) = linker.instantiate(&mut store, &component) else {
                        continue;
                    };
                    // Call every export with arguments of the wrong shape and
                    // of plausible shapes: errors, never panics.
                    for name in component.export_names().map(str::to_string).collect::<Vec<_>>() {
                        if let Some(f) = instance.get_func(&mut store, name.as_str()) {
                            for args in [vec![], vec![Val::U32(1)], vec![Val::String("ab".into())]] {
                                let mut results = [Val::Bool(false)];
                                let _ = f.call(&mut store, &args, &mut results);
                                let _ = f.call(&mut store, &args, &mut []);
                            }
                        }
                    }
                }
                Err(e) => {
                    outcomes[1] += 1;
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}
