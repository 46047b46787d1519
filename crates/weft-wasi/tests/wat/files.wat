;; A C-like WASI program that works with files in its preopened directory
;; (fd 3, "."): create, write, seek, read, pwrite, pread, stat, truncate,
;; tell, close, append, and the errors of a closed descriptor, a missing
;; file and writing to stdin. Each result is printed on its own line; an
;; unexpected errno prints "step N: errno E" and exits with status 1.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pwrite" (func $fd_pwrite (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pread" (func $fd_pread (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func $fd_seek (param i32 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_tell" (func $fd_tell (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_get" (func $fd_filestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_size" (func $fd_filestat_set_size (param i32 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $fd_prestat_dir_name (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_allocate" (func $fd_allocate (param i32 i64 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_sync" (func $fd_sync (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_datasync" (func $fd_datasync (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_advise" (func $fd_advise (param i32 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_renumber" (func $fd_renumber (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)

  (data (i32.const 128) "\n")
  (data (i32.const 132) "step ")
  (data (i32.const 140) ": errno ")
  (data (i32.const 160) "out.txt")            ;; 7
  (data (i32.const 176) "hello, file\n")       ;; 12
  (data (i32.const 192) "WASI")                ;; 4
  (data (i32.const 200) "missing.txt")         ;; 11
  (data (i32.const 216) "++")                  ;; 2

  ;; --- helpers -----------------------------------------------------------
  (func $print (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func $print_u64 (param $n i64)
    (local $p i32)
    (local.set $p (i32.const 64))
    (loop $digits
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i64.store8 (local.get $p) (i64.add (i64.const 48) (i64.rem_u (local.get $n) (i64.const 10))))
      (local.set $n (i64.div_u (local.get $n) (i64.const 10)))
      (br_if $digits (i64.ne (local.get $n) (i64.const 0))))
    (call $print (local.get $p) (i32.sub (i32.const 64) (local.get $p))))
  (func $line (param $n i64) (call $print_u64 (local.get $n)) (call $print (i32.const 128) (i32.const 1)))
  (func $expect (param $errno i32) (param $want i32) (param $step i32)
    (if (i32.ne (local.get $errno) (local.get $want)) (then
      (call $print (i32.const 132) (i32.const 5))
      (call $print_u64 (i64.extend_i32_u (local.get $step)))
      (call $print (i32.const 140) (i32.const 8))
      (call $line (i64.extend_i32_u (local.get $errno)))
      (call $proc_exit (i32.const 1)))))
  (func $ok (param $errno i32) (param $step i32) (call $expect (local.get $errno) (i32.const 0) (local.get $step)))
  ;; The iovec at 1024 for `len` bytes at `ptr`.
  (func $iov (param $ptr i32) (param $len i32) (result i32)
    (i32.store (i32.const 1024) (local.get $ptr))
    (i32.store (i32.const 1028) (local.get $len))
    (i32.const 1024))
  (func $open (param $path i32) (param $len i32) (param $oflags i32) (param $fdflags i32) (result i32)
    (call $path_open (i32.const 3) (i32.const 1) (local.get $path) (local.get $len) (local.get $oflags)
      (i64.const 0x3fffffff) (i64.const 0x3fffffff) (local.get $fdflags) (i32.const 64)))
  ;; Reads into 2048.. and prints what was read.
  (func $read_print (param $fd i32) (param $step i32)
    (call $ok (call $fd_read (local.get $fd) (call $iov (i32.const 2048) (i32.const 1000)) (i32.const 1) (i32.const 80))
      (local.get $step))
    (call $print (i32.const 2048) (i32.load (i32.const 80))))

  (func (export "_start")
    (local $fd i32)
    ;; 1: create and truncate out.txt
    (call $ok (call $open (i32.const 160) (i32.const 7) (i32.const 9) (i32.const 0)) (i32.const 1))
    (local.set $fd (i32.load (i32.const 64)))
    ;; 2: write
    (call $ok (call $fd_write (local.get $fd) (call $iov (i32.const 176) (i32.const 12)) (i32.const 1) (i32.const 80))
      (i32.const 2))
    ;; 3: seek to the start, 4: read back -> "hello, file"
    (call $ok (call $fd_seek (local.get $fd) (i64.const 0) (i32.const 0) (i32.const 72)) (i32.const 3))
    (call $read_print (local.get $fd) (i32.const 4))
    ;; 5: pwrite "WASI" at 7, 6: pread from 0 -> "hello, WASI"
    (call $ok (call $fd_pwrite (local.get $fd) (call $iov (i32.const 192) (i32.const 4)) (i32.const 1) (i64.const 7)
      (i32.const 80)) (i32.const 5))
    (call $ok (call $fd_pread (local.get $fd) (call $iov (i32.const 2048) (i32.const 1000)) (i32.const 1) (i64.const 0)
      (i32.const 80)) (i32.const 6))
    (call $print (i32.const 2048) (i32.load (i32.const 80)))
    ;; 7: size -> 12
    (call $ok (call $fd_filestat_get (local.get $fd) (i32.const 512)) (i32.const 7))
    (call $line (i64.load (i32.const 544)))
    ;; 8: truncate to 5, size -> 5
    (call $ok (call $fd_filestat_set_size (local.get $fd) (i64.const 5)) (i32.const 8))
    (call $ok (call $fd_filestat_get (local.get $fd) (i32.const 512)) (i32.const 8))
    (call $line (i64.load (i32.const 544)))
    ;; 9: tell -> 12 (truncation does not move the position)
    (call $ok (call $fd_tell (local.get $fd) (i32.const 72)) (i32.const 9))
    (call $line (i64.load (i32.const 72)))
    ;; 10: seek relative to the end -> 3
    (call $ok (call $fd_seek (local.get $fd) (i64.const -2) (i32.const 2) (i32.const 72)) (i32.const 10))
    (call $line (i64.load (i32.const 72)))
    ;; 11: a bad whence -> inval (28); a negative position -> inval
    (call $line (i64.extend_i32_u (call $fd_seek (local.get $fd) (i64.const 0) (i32.const 7) (i32.const 72))))
    (call $line (i64.extend_i32_u (call $fd_seek (local.get $fd) (i64.const -100) (i32.const 1) (i32.const 72))))
    ;; 12: sync, datasync, advise, allocate (grows to 10)
    (call $ok (call $fd_sync (local.get $fd)) (i32.const 12))
    (call $ok (call $fd_datasync (local.get $fd)) (i32.const 12))
    (call $ok (call $fd_advise (local.get $fd) (i64.const 0) (i64.const 5) (i32.const 1)) (i32.const 12))
    (call $ok (call $fd_allocate (local.get $fd) (i64.const 0) (i64.const 10)) (i32.const 12))
    (call $ok (call $fd_filestat_get (local.get $fd) (i32.const 512)) (i32.const 12))
    (call $line (i64.load (i32.const 544)))
    (call $ok (call $fd_filestat_set_size (local.get $fd) (i64.const 5)) (i32.const 12))
    ;; 13: the file's type -> regular file (4)
    (call $ok (call $fd_fdstat_get (local.get $fd) (i32.const 512)) (i32.const 13))
    (call $line (i64.load8_u (i32.const 512)))
    ;; 14: renumber to 10, close, close again -> badf (8)
    (drop (call $open (i32.const 160) (i32.const 7) (i32.const 0) (i32.const 0)))
    (call $ok (call $fd_renumber (local.get $fd) (i32.load (i32.const 64))) (i32.const 14))
    (call $ok (call $fd_close (i32.load (i32.const 64))) (i32.const 14))
    (call $line (i64.extend_i32_u (call $fd_close (i32.load (i32.const 64)))))
    ;; 15: a missing file -> noent (44)
    (call $line (i64.extend_i32_u (call $open (i32.const 200) (i32.const 11) (i32.const 0) (i32.const 0))))
    ;; 16: writing to stdin -> badf (8)
    (call $line (i64.extend_i32_u
      (call $fd_write (i32.const 0) (call $iov (i32.const 176) (i32.const 1)) (i32.const 1) (i32.const 80))))
    ;; 17: the preopen is a directory (3) named "."
    (call $ok (call $fd_fdstat_get (i32.const 3) (i32.const 512)) (i32.const 17))
    (call $line (i64.load8_u (i32.const 512)))
    (call $ok (call $fd_prestat_get (i32.const 3) (i32.const 512)) (i32.const 17))
    (call $ok (call $fd_prestat_dir_name (i32.const 3) (i32.const 2048) (i32.load (i32.const 516))) (i32.const 17))
    (call $print (i32.const 2048) (i32.load (i32.const 516)))
    (call $print (i32.const 128) (i32.const 1))
    ;; 18: not a preopen -> badf (8)
    (call $line (i64.extend_i32_u (call $fd_prestat_get (i32.const 1) (i32.const 512))))
    ;; 19: append "++" -> "hello++"
    (call $ok (call $open (i32.const 160) (i32.const 7) (i32.const 0) (i32.const 1)) (i32.const 19))
    (local.set $fd (i32.load (i32.const 64)))
    (call $ok (call $fd_write (local.get $fd) (call $iov (i32.const 216) (i32.const 2)) (i32.const 1) (i32.const 80))
      (i32.const 19))
    (call $ok (call $fd_close (local.get $fd)) (i32.const 19))
    (call $ok (call $open (i32.const 160) (i32.const 7) (i32.const 0) (i32.const 0)) (i32.const 20))
    (call $read_print (i32.load (i32.const 64)) (i32.const 20))
    (call $print (i32.const 128) (i32.const 1)))
)
