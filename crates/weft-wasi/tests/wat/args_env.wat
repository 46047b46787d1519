;; Prints its arguments, then its environment, one per line, and exits with
;; the number of arguments as its status.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 128) "\n")

  (func $print (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))
  ;; Prints the `count` NUL-terminated strings whose pointers are at `ptrs`.
  (func $print_all (param $ptrs i32) (param $count i32)
    (local $i i32) (local $s i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $s (i32.load (i32.add (local.get $ptrs) (i32.mul (local.get $i) (i32.const 4)))))
        (call $print (local.get $s) (call $strlen (local.get $s)))
        (call $print (i32.const 128) (i32.const 1))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  (func (export "_start")
    (local $argc i32)
    (if (call $args_sizes_get (i32.const 16) (i32.const 20)) (then unreachable))
    (local.set $argc (i32.load (i32.const 16)))
    (if (call $args_get (i32.const 1024) (i32.const 4096)) (then unreachable))
    (call $print_all (i32.const 1024) (local.get $argc))
    (if (call $environ_sizes_get (i32.const 16) (i32.const 20)) (then unreachable))
    (if (call $environ_get (i32.const 2048) (i32.const 8192)) (then unreachable))
    (call $print_all (i32.const 2048) (i32.load (i32.const 16)))
    (call $proc_exit (local.get $argc))
    unreachable)
)
