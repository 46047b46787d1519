;; The program Wasmtime's wasip1 example runs, `fn main() { println!("Hello,
;; world!"); }`, as a WASI command written by hand: it writes one line to
;; stdout with fd_write and returns from `_start`.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "Hello, world!\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 14))
    (if (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))
      (then unreachable))))
