;; A C-like WASI program that works with directories in its preopened
;; directory (fd 3): create, rename, symlink, readlink, stat with and without
;; following links, hard links, listing with fd_readdir (a cookie at a time
;; and all at once), timestamps, removal, and the errors of each.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $fd_readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
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
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)

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
  ;; Prints "yes" or "no".
  (func $yes (param $c i32)
    (if (local.get $c) (then (call $print (i32.const 150) (i32.const 4))) (else (call $print (i32.const 154) (i32.const 3)))))
  (data (i32.const 128) "\n")
  (data (i32.const 132) "step ")
  (data (i32.const 140) ": errno ")
  (data (i32.const 150) "yes\n")
  (data (i32.const 154) "no\n")

  (data (i32.const 200) "sub")          ;; 3
  (data (i32.const 208) "sub/a.txt")    ;; 9
  (data (i32.const 224) "sub/b.txt")    ;; 9
  (data (i32.const 240) "sub/link")     ;; 8
  (data (i32.const 256) "b.txt")        ;; 5
  (data (i32.const 264) "sub/hard")     ;; 8
  (data (i32.const 280) "d2")           ;; 2
  (data (i32.const 288) "d3/f")         ;; 4

  (func $count_entries (param $fd i32) (param $buf_len i32) (result i32)
    (local $cookie i64) (local $count i32)
    (block $end
      (loop $more
        (call $ok (call $fd_readdir (local.get $fd) (i32.const 2048) (local.get $buf_len) (local.get $cookie)
          (i32.const 80)) (i32.const 9))
        (br_if $end (i32.lt_u (i32.load (i32.const 80)) (i32.const 24)))
        (local.set $cookie (i64.load (i32.const 2048)))
        (local.set $count (i32.add (local.get $count) (i32.const 1)))
        (br $more)))
    (local.get $count))
  (func $count_all (param $fd i32) (result i32)
    (local $p i32) (local $count i32)
    (call $ok (call $fd_readdir (local.get $fd) (i32.const 2048) (i32.const 1024) (i64.const 0) (i32.const 80))
      (i32.const 9))
    (block $end
      (loop $more
        (br_if $end (i32.gt_u (i32.add (local.get $p) (i32.const 24)) (i32.load (i32.const 80))))
        (local.set $count (i32.add (local.get $count) (i32.const 1)))
        (local.set $p (i32.add (local.get $p)
          (i32.add (i32.const 24) (i32.load (i32.add (i32.const 2064) (local.get $p))))))
        (br $more)))
    (local.get $count))

  (func (export "_start")
    (local $fd i32)
    ;; 1, 2: create a directory; again -> exist (20)
    (call $ok (call $mkdir (i32.const 3) (i32.const 200) (i32.const 3)) (i32.const 1))
    (call $line (i64.extend_i32_u (call $mkdir (i32.const 3) (i32.const 200) (i32.const 3))))
    ;; 3: create sub/a.txt
    (call $ok (call $path_open (i32.const 3) (i32.const 1) (i32.const 208) (i32.const 9) (i32.const 1)
      (i64.const 0x3fffffff) (i64.const 0x3fffffff) (i32.const 0) (i32.const 64)) (i32.const 3))
    (call $ok (call $fd_close (i32.load (i32.const 64))) (i32.const 3))
    ;; 4: rename it to sub/b.txt
    (call $ok (call $rename (i32.const 3) (i32.const 208) (i32.const 9) (i32.const 3) (i32.const 224) (i32.const 9))
      (i32.const 4))
    ;; 5, 6: sub/link -> b.txt, read back
    (call $ok (call $symlink (i32.const 256) (i32.const 5) (i32.const 3) (i32.const 240) (i32.const 8)) (i32.const 5))
    (call $ok (call $readlink (i32.const 3) (i32.const 240) (i32.const 8) (i32.const 2048) (i32.const 100)
      (i32.const 80)) (i32.const 6))
    (call $print (i32.const 2048) (i32.load (i32.const 80)))
    (call $print (i32.const 128) (i32.const 1))
    ;; 7: the link itself is a symlink (7); followed, a regular file (4)
    (call $ok (call $stat (i32.const 3) (i32.const 0) (i32.const 240) (i32.const 8) (i32.const 512)) (i32.const 7))
    (call $line (i64.load8_u (i32.const 528)))
    (call $ok (call $stat (i32.const 3) (i32.const 1) (i32.const 240) (i32.const 8) (i32.const 512)) (i32.const 7))
    (call $line (i64.load8_u (i32.const 528)))
    ;; 8: a hard link: two links to the file
    (call $ok (call $link (i32.const 3) (i32.const 0) (i32.const 224) (i32.const 9) (i32.const 3) (i32.const 264)
      (i32.const 8)) (i32.const 8))
    (call $ok (call $stat (i32.const 3) (i32.const 0) (i32.const 264) (i32.const 8) (i32.const 512)) (i32.const 8))
    (call $line (i64.load (i32.const 536)))
    ;; 9: list sub: ".", "..", b.txt, link, hard -> 5, a cookie at a time and at once
    ;; (opened with every right but those to write, which a directory refuses)
    (call $ok (call $path_open (i32.const 3) (i32.const 1) (i32.const 200) (i32.const 3) (i32.const 2)
      (i64.const 0x3fbffebe) (i64.const 0x3fffffff) (i32.const 0) (i32.const 64)) (i32.const 9))
    (local.set $fd (i32.load (i32.const 64)))
    (call $line (i64.extend_i32_u (call $count_entries (local.get $fd) (i32.const 40))))
    (call $line (i64.extend_i32_u (call $count_all (local.get $fd))))
    (call $ok (call $fd_close (local.get $fd)) (i32.const 9))
    ;; 10: set the times of sub/b.txt; mtime -> 2000 s
    (call $ok (call $set_times (i32.const 3) (i32.const 1) (i32.const 224) (i32.const 9)
      (i64.const 1000000000000) (i64.const 2000000000000) (i32.const 5)) (i32.const 10))
    (call $ok (call $stat (i32.const 3) (i32.const 1) (i32.const 224) (i32.const 9) (i32.const 512)) (i32.const 10))
    (call $line (i64.div_u (i64.load (i32.const 560)) (i64.const 1000000000)))
    ;; both a time and "now" -> inval (28)
    (call $line (i64.extend_i32_u (call $set_times (i32.const 3) (i32.const 1) (i32.const 224) (i32.const 9)
      (i64.const 0) (i64.const 0) (i32.const 3))))
    ;; 11: remove everything; sub again -> noent (44)
    (call $ok (call $unlink (i32.const 3) (i32.const 240) (i32.const 8)) (i32.const 11))
    (call $ok (call $unlink (i32.const 3) (i32.const 264) (i32.const 8)) (i32.const 11))
    (call $ok (call $unlink (i32.const 3) (i32.const 224) (i32.const 9)) (i32.const 11))
    (call $ok (call $rmdir (i32.const 3) (i32.const 200) (i32.const 3)) (i32.const 11))
    (call $line (i64.extend_i32_u (call $rmdir (i32.const 3) (i32.const 200) (i32.const 3))))
    ;; 12: unlink_file of a directory -> isdir (31)
    (call $ok (call $mkdir (i32.const 3) (i32.const 280) (i32.const 2)) (i32.const 12))
    (call $line (i64.extend_i32_u (call $unlink (i32.const 3) (i32.const 280) (i32.const 2))))
    (call $ok (call $rmdir (i32.const 3) (i32.const 280) (i32.const 2)) (i32.const 12))
    ;; 13: remove a directory that is not empty -> notempty (55)
    (call $ok (call $mkdir (i32.const 3) (i32.const 288) (i32.const 2)) (i32.const 13))
    (call $ok (call $path_open (i32.const 3) (i32.const 1) (i32.const 288) (i32.const 4) (i32.const 1)
      (i64.const 0x3fffffff) (i64.const 0x3fffffff) (i32.const 0) (i32.const 64)) (i32.const 13))
    (call $line (i64.extend_i32_u (call $rmdir (i32.const 3) (i32.const 288) (i32.const 2))))
    ;; 14: a path that is not valid UTF-8 -> ilseq (25)
    (i32.store (i32.const 300) (i32.const 0xfffefdfc))
    (call $line (i64.extend_i32_u (call $mkdir (i32.const 3) (i32.const 300) (i32.const 4)))))
)
