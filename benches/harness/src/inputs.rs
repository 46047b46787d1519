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
