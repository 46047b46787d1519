;; The WASI module of weft_wasi.c: prints its arguments and environment, one
;; per line, to stdout, then exits with status 3.
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (func $strlen (param $p i32) (result i32) (local $n i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $l)))
    (local.get $n))
  ;; Writes the NUL-terminated string at $p and a newline, one buffer per
  ;; fd_write (a runtime may write only the first of several buffers).
  (func $puts (param $p i32)
    (i32.store (i32.const 0) (local.get $p))
    (i32.store (i32.const 4) (call $strlen (local.get $p)))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 20)))
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 1))
    (i32.store8 (i32.const 16) (i32.const 10))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 20))))
  (func $print_list (param $count i32) (param $ptrs i32) (local $i i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (call $puts (i32.load (i32.add (local.get $ptrs) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l))))
  (func (export "_start")
    (drop (call $args_sizes_get (i32.const 32) (i32.const 36)))
    (drop (call $args_get (i32.const 1024) (i32.const 2048)))
    (call $print_list (i32.load (i32.const 32)) (i32.const 1024))
    (drop (call $environ_sizes_get (i32.const 32) (i32.const 36)))
    (drop (call $environ_get (i32.const 8192) (i32.const 12288)))
    (call $print_list (i32.load (i32.const 32)) (i32.const 8192))
    (call $proc_exit (i32.const 3))))
