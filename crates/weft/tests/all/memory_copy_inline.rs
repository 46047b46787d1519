//! `memory.copy` with a small constant length is compiled inline (loads,
//! then stores) instead of calling the copy builtin. Every length up to one
//! past the inline limit, with overlapping and distant ranges and at the
//! end of the memory, must copy as the instruction says: as if through a
//! buffer, and not at all when either range is out of bounds.

use weft::*;

/// Lengths 0..=LAST are tested: the inline limit is 64 bytes.
const LAST: u32 = 66;

/// A module with one copy function per length: `copyN(dst, src)` copies
/// N bytes, in a 32-bit memory (`i32`) or a 64-bit one (`i64`).
fn module_text(index: &str) -> String {
    let memory = if index == "i64" { "(memory i64 1)" } else { "(memory 1)" };
    let mut text = format!("(module {memory} (export \"memory\" (memory 0))");
    for n in 0..=LAST {
        text.push_str(&format!(
            "(func (export \"copy{n}\") (param {index} {index}) \
               (memory.copy (local.get 0) (local.get 1) ({index}.const {n})))"
        ));
    }
    text.push(')');
    text
}

/// Fills the memory with a pattern that differs at every position.
fn fill(memory: &Memory, store: &mut Store<()>) -> Vec<u8> {
    let pattern: Vec<u8> = (0..memory.data_size(&*store))
        .map(|i| (i * 7 + i / 251) as u8)
        .collect();
    memory.data_mut(&mut *store).copy_from_slice(&pattern);
    pattern
}

/// Runs every length against a set of `(dst, src)` pairs in `index`'s
/// memory and checks the memory afterwards against a copy made in Rust (or
/// against no change at all when the copy must trap).
fn check(index: &str) {
    let engine = Engine::default();
    let module = Module::new(&engine, wat::parse_str(module_text(index)).unwrap()).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let memory = instance.get_memory(&mut store, "memory").unwrap();
    let size = memory.data_size(&store) as u64;
    for n in 0..=u64::from(LAST) {
        let func = instance.get_func(&mut store, &format!("copy{n}")).unwrap();
        let mut cases = vec![
            (100, 100),
            (100, 101),
            (101, 100),
            (100, 115),
            (115, 100),
            (100, 164),
            (300, 1),
        ];
        // Ranges that end exactly at the end of the memory, and one past it.
        cases.extend([(size - n, 0), (0, size - n), (size - n + 1, 0), (0, size - n + 1)]);
        cases.extend([(size, 0), (0, size), (size + 1, 0), (u32::MAX as u64, 0)]);
        if index == "i64" {
            // `index + n` wraps around the 64-bit index space.
            cases.extend([(u64::MAX, 0), (0, u64::MAX - n / 2)]);
        }
        for (dst, src) in cases {
            let mut expected = fill(&memory, &mut store);
            let in_bounds =
                dst.checked_add(n).is_some_and(|e| e <= size) && src.checked_add(n).is_some_and(|e| e <= size);
            let args = if index == "i64" {
                [Val::I64(dst as i64), Val::I64(src as i64)]
            } else {
                [Val::I32(dst as u32 as i32), Val::I32(src as u32 as i32)]
            };
            // In a 32-bit memory only indices below 2^32 can be passed.
            if index == "i32" && (dst > u64::from(u32::MAX) || src > u64::from(u32::MAX)) {
                continue;
            }
            let result = func.call(&mut store, &args, &mut []);
            match (in_bounds, result) {
                (true, Ok(())) => {
                    let (dst, src, n) = (dst as usize, src as usize, n as usize);
                    expected.copy_within(src..src + n, dst);
                }
                (false, Err(e)) => {
                    assert_eq!(
                        e.downcast_ref::<Trap>(),
                        Some(&Trap::MemoryOutOfBounds),
                        "copy{n}({dst}, {src}) in {index}: {e:?}"
                    );
                }
                (in_bounds, result) => {
                    panic!("copy{n}({dst}, {src}) in {index}: in bounds {in_bounds}, result {result:?}")
                }
            }
            assert!(
                memory.data(&store) == expected.as_slice(),
                "copy{n}({dst}, {src}) in {index} left the wrong bytes"
            );
        }
    }
}

#[test]
fn small_constant_copies_in_a_32_bit_memory() {
    check("i32");
}

#[test]
fn small_constant_copies_in_a_64_bit_memory() {
    check("i64");
}
