;; A thin shim over WASI preview1 that tests drive from Rust: each export
;; makes one call with paths the test wrote into memory and returns the
;; errno. Results land at fixed addresses:
;;   0: a new fd (path_open)     8: a byte count (fd_read, fd_pwrite,
;;   path_readlink) or an offset (fd_seek)
;;   512: a filestat or fdstat    4096..8192: the data buffer
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pwrite" (func $fd_pwrite (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func $fd_seek (param i32 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_create_directory" (func $mkdir (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_remove_directory" (func $rmdir (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_unlink_file" (func $unlink (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_rename" (func $rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_link" (func $link (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_readlink" (func $readlink (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $stat (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_set_times"
    (func $set_times (param i32 i32 i32 i32 i64 i64 i32) (result i32)))
  (memory (export "memory") 1)

  ;; path_open with the base rights `base` and every inheriting right; the
  ;; new fd is stored at 0.
  (func (export "open") (param $fd i32) (param $path i32) (param $len i32) (param $dirflags i32)
                        (param $oflags i32) (param $base i64) (param $fdflags i32) (result i32)
    (call $path_open (local.get $fd) (local.get $dirflags) (local.get $path) (local.get $len)
      (local.get $oflags) (local.get $base) (i64.const 0x3fffffff) (local.get $fdflags) (i32.const 0)))
  ;; Writes `len` bytes at `ptr` at `offset`; the count is stored at 8.
  (func (export "pwrite") (param $fd i32) (param $ptr i32) (param $len i32) (param $offset i64) (result i32)
    (i32.store (i32.const 16) (local.get $ptr))
    (i32.store (i32.const 20) (local.get $len))
    (call $fd_pwrite (local.get $fd) (i32.const 16) (i32.const 1) (local.get $offset) (i32.const 8)))
  ;; The new offset is stored at 8 (8 bytes).
  (func (export "seek") (param $fd i32) (param $offset i64) (param $whence i32) (result i32)
    (call $fd_seek (local.get $fd) (local.get $offset) (local.get $whence) (i32.const 8)))
  ;; The fdstat is stored at 512.
  (func (export "fdstat") (param $fd i32) (result i32)
    (call $fd_fdstat_get (local.get $fd) (i32.const 512)))
  ;; Reads up to 4096 bytes into 4096..; the count is stored at 8.
  (func (export "read") (param $fd i32) (result i32)
    (i32.store (i32.const 16) (i32.const 4096))
    (i32.store (i32.const 20) (i32.const 4096))
    (call $fd_read (local.get $fd) (i32.const 16) (i32.const 1) (i32.const 8)))
  ;; Writes `len` bytes at `ptr`; the count is stored at 8.
  (func (export "write") (param $fd i32) (param $ptr i32) (param $len i32) (result i32)
    (i32.store (i32.const 16) (local.get $ptr))
    (i32.store (i32.const 20) (local.get $len))
    (call $fd_write (local.get $fd) (i32.const 16) (i32.const 1) (i32.const 8)))
  (func (export "close") (param i32) (result i32) (call $fd_close (local.get 0)))
  (func (export "mkdir") (param i32 i32 i32) (result i32)
    (call $mkdir (local.get 0) (local.get 1) (local.get 2)))
  (func (export "rmdir") (param i32 i32 i32) (result i32)
    (call $rmdir (local.get 0) (local.get 1) (local.get 2)))
  (func (export "unlink") (param i32 i32 i32) (result i32)
    (call $unlink (local.get 0) (local.get 1) (local.get 2)))
  (func (export "rename") (param i32 i32 i32 i32 i32 i32) (result i32)
    (call $rename (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)))
  (func (export "link") (param i32 i32 i32 i32 i32 i32 i32) (result i32)
    (call $link (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)
      (local.get 6)))
  (func (export "symlink") (param i32 i32 i32 i32 i32) (result i32)
    (call $symlink (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4)))
  ;; Reads the link into 4096..; the length is stored at 8.
  (func (export "readlink") (param i32 i32 i32) (result i32)
    (call $readlink (local.get 0) (local.get 1) (local.get 2) (i32.const 4096) (i32.const 4096) (i32.const 8)))
  ;; The filestat is stored at 512.
  (func (export "stat") (param i32 i32 i32 i32) (result i32)
    (call $stat (local.get 0) (local.get 1) (local.get 2) (local.get 3) (i32.const 512)))
  (func (export "set_times") (param i32 i32 i32 i32 i64 i64 i32) (result i32)
    (call $set_times (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)
      (local.get 6)))
)
