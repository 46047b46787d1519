// WASI 0.2 command components for the tests, written in WAT: one
// component that imports the WASI interfaces the tests use (under a
// chosen 0.2.x version) and exports `wasi:cli/run`, around a core module
// whose `$main` (returning 0 for `ok`, 1 for `err`) is each test's own.
//
// The core module sees each lowered WASI function under module `w`, the
// memory and `realloc` of a small "libc" instance, and helpers:
// `$print`/`$eprint` (pointer, length), `$puts` (a NUL-terminated data
// string), `$print_u32`, `$print_code` (the name of a filesystem error
// code) and `$nl`. Addresses 0..1024 are scratch (return areas), data
// strings live from 2048, error-code names from 4096, and `realloc` hands
// out memory from 65536.
/// The `error-code` cases of `wasi:filesystem/types`, in order.
pub const ERROR_CODES: &[&str] = &[
    "access",
    "would-block",
    "already",
    "bad-descriptor",
    "busy",
    "deadlock",
    "quota",
    "exist",
    "file-too-large",
    "illegal-byte-sequence",
    "in-progress",
    "interrupted",
    "invalid",
    "io",
    "is-directory",
    "loop",
    "too-many-links",
    "message-size",
    "name-too-long",
    "no-device",
    "no-entry",
    "no-lock",
    "insufficient-memory",
    "insufficient-space",
    "not-directory",
    "not-empty",
    "not-recoverable",
    "unsupported",
    "no-tty",
    "no-such-device",
    "overflow",
    "not-permitted",
    "pipe",
    "read-only",
    "invalid-seek",
    "text-file-busy",
    "cross-device",
];

/// The component text: `main` is the core module's code (functions,
/// data segments) and must define `$main (result i32)`.
pub fn component(version: &str, main: &str) -> String {
    let codes = ERROR_CODES
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(" ");
    let v = version;
    // The name of each error code in a 32-byte slot from 4096.
    let names: String = ERROR_CODES
        .iter()
        .enumerate()
        .map(|(i, c)| format!("(data (i32.const {}) \"{c}\\00\")\n", 4096 + 32 * i))
        .collect();
    format!(
        r#"(component
  (import "wasi:io/error@{v}" (instance $io-error (export "error" (type (sub resource)))))
  (alias export $io-error "error" (type $error))
  (import "wasi:io/poll@{v}" (instance $poll
    (export "pollable" (type $pollable (sub resource)))
    (export "[method]pollable.block" (func (param "self" (borrow $pollable))))
    (export "poll" (func (param "in" (list (borrow $pollable))) (result (list u32))))))
  (alias export $poll "pollable" (type $pollable))
  (import "wasi:io/streams@{v}" (instance $streams
    (alias outer 1 $error (type $error'))
    (export "error" (type $err (eq $error')))
    (type $stream-error' (variant (case "last-operation-failed" (own $err)) (case "closed")))
    (export "stream-error" (type $stream-error (eq $stream-error')))
    (export "input-stream" (type $input (sub resource)))
    (export "output-stream" (type $output (sub resource)))
    (export "[method]output-stream.blocking-write-and-flush"
      (func (param "self" (borrow $output)) (param "contents" (list u8)) (result (result (error $stream-error)))))
    (export "[method]input-stream.blocking-read"
      (func (param "self" (borrow $input)) (param "len" u64) (result (result (list u8) (error $stream-error)))))))
  (alias export $streams "input-stream" (type $input-stream))
  (alias export $streams "output-stream" (type $output-stream))
  (import "wasi:cli/environment@{v}" (instance $env
    (export "get-environment" (func (result (list (tuple string string)))))
    (export "get-arguments" (func (result (list string))))))
  (import "wasi:cli/exit@{v}" (instance $exit (export "exit" (func (param "status" (result))))))
  (import "wasi:cli/stdin@{v}" (instance $stdin
    (alias outer 1 $input-stream (type $i))
    (export "input-stream" (type $is (eq $i)))
    (export "get-stdin" (func (result (own $is))))))
  (import "wasi:cli/stdout@{v}" (instance $stdout
    (alias outer 1 $output-stream (type $o))
    (export "output-stream" (type $os (eq $o)))
    (export "get-stdout" (func (result (own $os))))))
  (import "wasi:cli/stderr@{v}" (instance $stderr
    (alias outer 1 $output-stream (type $o))
    (export "output-stream" (type $os (eq $o)))
    (export "get-stderr" (func (result (own $os))))))
  (import "wasi:clocks/wall-clock@{v}" (instance $wall
    (type $datetime' (record (field "seconds" u64) (field "nanoseconds" u32)))
    (export "datetime" (type $datetime (eq $datetime')))
    (export "now" (func (result $datetime)))))
  (alias export $wall "datetime" (type $wall-datetime))
  (import "wasi:clocks/monotonic-clock@{v}" (instance $mono
    (alias outer 1 $pollable (type $p'))
    (export "pollable" (type $p (eq $p')))
    (export "now" (func (result u64)))
    (export "subscribe-duration" (func (param "when" u64) (result (own $p))))))
  (import "wasi:random/random@{v}" (instance $random
    (export "get-random-bytes" (func (param "len" u64) (result (list u8))))))
  (import "wasi:filesystem/types@{v}" (instance $fs
    (export "descriptor" (type $descriptor (sub resource)))
    (export "directory-entry-stream" (type $des (sub resource)))
    (type $error-code' (enum {codes}))
    (export "error-code" (type $error-code (eq $error-code')))
    (type $path-flags' (flags "symlink-follow"))
    (export "path-flags" (type $path-flags (eq $path-flags')))
    (type $open-flags' (flags "create" "directory" "exclusive" "truncate"))
    (export "open-flags" (type $open-flags (eq $open-flags')))
    (type $descriptor-flags' (flags "read" "write" "file-integrity-sync" "data-integrity-sync" "requested-write-sync" "mutate-directory"))
    (export "descriptor-flags" (type $descriptor-flags (eq $descriptor-flags')))
    (type $descriptor-type' (enum "unknown" "block-device" "character-device" "directory" "fifo" "symbolic-link" "regular-file" "socket"))
    (export "descriptor-type" (type $descriptor-type (eq $descriptor-type')))
    (type $directory-entry' (record (field "type" $descriptor-type) (field "name" string)))
    (export "directory-entry" (type $directory-entry (eq $directory-entry')))
    (export "[method]descriptor.open-at" (func (param "self" (borrow $descriptor)) (param "path-flags" $path-flags)
      (param "path" string) (param "open-flags" $open-flags) (param "flags" $descriptor-flags)
      (result (result (own $descriptor) (error $error-code)))))
    (export "[method]descriptor.read" (func (param "self" (borrow $descriptor)) (param "length" u64) (param "offset" u64)
      (result (result (tuple (list u8) bool) (error $error-code)))))
    (export "[method]descriptor.write" (func (param "self" (borrow $descriptor)) (param "buffer" (list u8)) (param "offset" u64)
      (result (result u64 (error $error-code)))))
    (export "[method]descriptor.read-directory" (func (param "self" (borrow $descriptor))
      (result (result (own $des) (error $error-code)))))
    (export "[method]descriptor.rename-at" (func (param "self" (borrow $descriptor)) (param "old-path" string)
      (param "new-descriptor" (borrow $descriptor)) (param "new-path" string) (result (result (error $error-code)))))
    (export "[method]descriptor.symlink-at" (func (param "self" (borrow $descriptor)) (param "old-path" string)
      (param "new-path" string) (result (result (error $error-code)))))
    (alias outer 1 $wall-datetime (type $datetime'))
    (export "datetime" (type $datetime (eq $datetime')))
    (type $descriptor-stat' (record (field "type" $descriptor-type) (field "link-count" u64) (field "size" u64)
      (field "data-access-timestamp" (option $datetime)) (field "data-modification-timestamp" (option $datetime))
      (field "status-change-timestamp" (option $datetime))))
    (export "descriptor-stat" (type $descriptor-stat (eq $descriptor-stat')))
    (export "[method]descriptor.stat" (func (param "self" (borrow $descriptor))
      (result (result $descriptor-stat (error $error-code)))))
    (alias outer 1 $input-stream (type $fis'))
    (export "input-stream" (type $fis (eq $fis')))
    (alias outer 1 $output-stream (type $fos'))
    (export "output-stream" (type $fos (eq $fos')))
    (export "[method]descriptor.read-via-stream" (func (param "self" (borrow $descriptor)) (param "offset" u64)
      (result (result (own $fis) (error $error-code)))))
    (export "[method]descriptor.write-via-stream" (func (param "self" (borrow $descriptor)) (param "offset" u64)
      (result (result (own $fos) (error $error-code)))))
    (export "[method]descriptor.append-via-stream" (func (param "self" (borrow $descriptor))
      (result (result (own $fos) (error $error-code)))))
    (export "[method]directory-entry-stream.read-directory-entry" (func (param "self" (borrow $des))
      (result (result (option $directory-entry) (error $error-code)))))))
  (alias export $fs "descriptor" (type $descriptor))
  (alias export $fs "directory-entry-stream" (type $des))
  (import "wasi:filesystem/preopens@{v}" (instance $preopens
    (alias outer 1 $descriptor (type $d'))
    (export "descriptor" (type $d (eq $d')))
    (export "get-directories" (func (result (list (tuple (own $d) string)))))))

  (core module $libc
    (memory (export "mem") 4)
    (global $bump (mut i32) (i32.const 65536))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get 2) (i32.const 1)))
                             (i32.sub (i32.const 0) (local.get 2))))
      (global.set $bump (i32.add (local.get $p) (local.get 3)))
      (if (i32.gt_u (global.get $bump) (i32.mul (memory.size) (i32.const 65536)))
        (then (drop (memory.grow (i32.add (i32.shr_u (i32.sub (global.get $bump) (i32.mul (memory.size) (i32.const 65536))) (i32.const 16)) (i32.const 1))))))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (alias core export $libc "mem" (core memory $mem))
  (alias core export $libc "realloc" (core func $realloc))

  (core func $write (canon lower (func $streams "[method]output-stream.blocking-write-and-flush") (memory $mem) (realloc $realloc)))
  (core func $read (canon lower (func $streams "[method]input-stream.blocking-read") (memory $mem) (realloc $realloc)))
  (core func $drop-output (canon resource.drop $output-stream))
  (core func $drop-input (canon resource.drop $input-stream))
  (core func $block (canon lower (func $poll "[method]pollable.block")))
  (core func $poll (canon lower (func $poll "poll") (memory $mem) (realloc $realloc)))
  (core func $drop-pollable (canon resource.drop $pollable))
  (core func $get-env (canon lower (func $env "get-environment") (memory $mem) (realloc $realloc)))
  (core func $get-args (canon lower (func $env "get-arguments") (memory $mem) (realloc $realloc)))
  (core func $exit (canon lower (func $exit "exit")))
  (core func $get-stdin (canon lower (func $stdin "get-stdin")))
  (core func $get-stdout (canon lower (func $stdout "get-stdout")))
  (core func $get-stderr (canon lower (func $stderr "get-stderr")))
  (core func $wall-now (canon lower (func $wall "now") (memory $mem)))
  (core func $mono-now (canon lower (func $mono "now")))
  (core func $sleep (canon lower (func $mono "subscribe-duration")))
  (core func $random (canon lower (func $random "get-random-bytes") (memory $mem) (realloc $realloc)))
  (core func $open-at (canon lower (func $fs "[method]descriptor.open-at") (memory $mem) (realloc $realloc)))
  (core func $fs-read (canon lower (func $fs "[method]descriptor.read") (memory $mem) (realloc $realloc)))
  (core func $fs-write (canon lower (func $fs "[method]descriptor.write") (memory $mem) (realloc $realloc)))
  (core func $read-dir (canon lower (func $fs "[method]descriptor.read-directory") (memory $mem) (realloc $realloc)))
  (core func $rename-at (canon lower (func $fs "[method]descriptor.rename-at") (memory $mem) (realloc $realloc)))
  (core func $symlink-at (canon lower (func $fs "[method]descriptor.symlink-at") (memory $mem) (realloc $realloc)))
  (core func $fs-stat (canon lower (func $fs "[method]descriptor.stat") (memory $mem) (realloc $realloc)))
  (core func $read-via (canon lower (func $fs "[method]descriptor.read-via-stream") (memory $mem)))
  (core func $write-via (canon lower (func $fs "[method]descriptor.write-via-stream") (memory $mem)))
  (core func $append-via (canon lower (func $fs "[method]descriptor.append-via-stream") (memory $mem)))
  (core func $read-entry (canon lower (func $fs "[method]directory-entry-stream.read-directory-entry") (memory $mem) (realloc $realloc)))
  (core func $drop-descriptor (canon resource.drop $descriptor))
  (core func $get-dirs (canon lower (func $preopens "get-directories") (memory $mem) (realloc $realloc)))

  (core module $m
    (import "libc" "mem" (memory 1))
    (import "libc" "realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
    (import "w" "write" (func $write (param i32 i32 i32 i32)))
    (import "w" "read" (func $read (param i32 i64 i32)))
    (import "w" "drop-output" (func $drop-output (param i32)))
    (import "w" "drop-input" (func $drop-input (param i32)))
    (import "w" "block" (func $block (param i32)))
    (import "w" "poll" (func $poll (param i32 i32 i32)))
    (import "w" "drop-pollable" (func $drop-pollable (param i32)))
    (import "w" "get-env" (func $get-env (param i32)))
    (import "w" "get-args" (func $get-args (param i32)))
    (import "w" "exit" (func $exit (param i32)))
    (import "w" "get-stdin" (func $get-stdin (result i32)))
    (import "w" "get-stdout" (func $get-stdout (result i32)))
    (import "w" "get-stderr" (func $get-stderr (result i32)))
    (import "w" "wall-now" (func $wall-now (param i32)))
    (import "w" "mono-now" (func $mono-now (result i64)))
    (import "w" "sleep" (func $sleep (param i64) (result i32)))
    (import "w" "random" (func $random (param i64 i32)))
    (import "w" "open-at" (func $open-at (param i32 i32 i32 i32 i32 i32 i32)))
    (import "w" "fs-read" (func $fs-read (param i32 i64 i64 i32)))
    (import "w" "fs-write" (func $fs-write (param i32 i32 i32 i64 i32)))
    (import "w" "read-dir" (func $read-dir (param i32 i32)))
    (import "w" "rename-at" (func $rename-at (param i32 i32 i32 i32 i32 i32 i32)))
    (import "w" "symlink-at" (func $symlink-at (param i32 i32 i32 i32 i32 i32)))
    (import "w" "read-entry" (func $read-entry (param i32 i32)))
    (import "w" "fs-stat" (func $fs-stat (param i32 i32)))
    (import "w" "read-via" (func $read-via (param i32 i64 i32)))
    (import "w" "write-via" (func $write-via (param i32 i64 i32)))
    (import "w" "append-via" (func $append-via (param i32 i32)))
    (import "w" "drop-descriptor" (func $drop-descriptor (param i32)))
    (import "w" "get-dirs" (func $get-dirs (param i32)))

    (global $stdout (mut i32) (i32.const -1))
    (global $stderr (mut i32) (i32.const -1))

    ;; Writes [ptr, ptr+len) to the stream, in pieces of at most 4096
    ;; bytes; traps when the write fails.
    (func $write-all (param $s i32) (param $ptr i32) (param $len i32)
      (local $n i32)
      (block $done
        (loop $more
          (br_if $done (i32.eqz (local.get $len)))
          (local.set $n (select (i32.const 4096) (local.get $len) (i32.gt_u (local.get $len) (i32.const 4096))))
          (call $write (local.get $s) (local.get $ptr) (local.get $n) (i32.const 16))
          (if (i32.load8_u (i32.const 16)) (then unreachable))
          (local.set $ptr (i32.add (local.get $ptr) (local.get $n)))
          (local.set $len (i32.sub (local.get $len) (local.get $n)))
          (br $more))))
    (func $print (param $ptr i32) (param $len i32)
      (if (i32.lt_s (global.get $stdout) (i32.const 0)) (then (global.set $stdout (call $get-stdout))))
      (call $write-all (global.get $stdout) (local.get $ptr) (local.get $len)))
    (func $eprint (param $ptr i32) (param $len i32)
      (if (i32.lt_s (global.get $stderr) (i32.const 0)) (then (global.set $stderr (call $get-stderr))))
      (call $write-all (global.get $stderr) (local.get $ptr) (local.get $len)))
    ;; The length of the NUL-terminated string at $p.
    (func $strlen (param $p i32) (result i32) (local $n i32)
      (block $done (loop $l
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $l)))
      (local.get $n))
    (func $puts (param $p i32) (call $print (local.get $p) (call $strlen (local.get $p))))
    (func $print_u32 (param $v i32) (local $p i32)
      (local.set $p (i32.const 1000))
      (loop $l
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
        (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
        (br_if $l (local.get $v)))
      (call $print (local.get $p) (i32.sub (i32.const 1000) (local.get $p))))
    {names}
    (func $print_code (param $code i32) (call $puts (i32.add (i32.const 4096) (i32.shl (local.get $code) (i32.const 5)))))
    (func $nl (i32.store8 (i32.const 1000) (i32.const 10)) (call $print (i32.const 1000) (i32.const 1)))

    {main}

    (func (export "run") (result i32) (call $main)))

  (core instance $i (instantiate $m
    (with "libc" (instance $libc))
    (with "w" (instance
      (export "write" (func $write)) (export "read" (func $read))
      (export "drop-output" (func $drop-output)) (export "drop-input" (func $drop-input))
      (export "block" (func $block)) (export "poll" (func $poll)) (export "drop-pollable" (func $drop-pollable))
      (export "get-env" (func $get-env)) (export "get-args" (func $get-args)) (export "exit" (func $exit))
      (export "get-stdin" (func $get-stdin)) (export "get-stdout" (func $get-stdout)) (export "get-stderr" (func $get-stderr))
      (export "wall-now" (func $wall-now)) (export "mono-now" (func $mono-now)) (export "sleep" (func $sleep))
      (export "random" (func $random)) (export "open-at" (func $open-at)) (export "fs-read" (func $fs-read))
      (export "fs-write" (func $fs-write)) (export "read-dir" (func $read-dir)) (export "rename-at" (func $rename-at))
      (export "symlink-at" (func $symlink-at)) (export "read-entry" (func $read-entry)) (export "fs-stat" (func $fs-stat))
      (export "read-via" (func $read-via)) (export "write-via" (func $write-via)) (export "append-via" (func $append-via))
      (export "drop-descriptor" (func $drop-descriptor)) (export "get-dirs" (func $get-dirs))))))
  (func $run (result (result)) (canon lift (core func $i "run")))
  (instance $run-instance (export "run" (func $run)))
  (export "wasi:cli/run@{v}" (instance $run-instance)))"#
    )
}

/// A guest that prints "hello", its arguments (one a line) and its
/// environment (`KEY=VALUE` lines), then returns `ok`.
pub const HELLO: &str = r#"
    (data (i32.const 2048) "hello from a component\00")
    (data (i32.const 2100) "=\00")
    (func $main (result i32) (local $list i32) (local $n i32) (local $i i32) (local $e i32)
      (call $puts (i32.const 2048)) (call $nl)
      (call $get-args (i32.const 32))
      (local.set $list (i32.load (i32.const 32)))
      (local.set $n (i32.load (i32.const 36)))
      (block $done (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $e (i32.add (local.get $list) (i32.mul (local.get $i) (i32.const 8))))
        (call $print (i32.load (local.get $e)) (i32.load offset=4 (local.get $e)))
        (call $nl)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (call $get-env (i32.const 32))
      (local.set $list (i32.load (i32.const 32)))
      (local.set $n (i32.load (i32.const 36)))
      (local.set $i (i32.const 0))
      (block $done (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $e (i32.add (local.get $list) (i32.mul (local.get $i) (i32.const 16))))
        (call $print (i32.load (local.get $e)) (i32.load offset=4 (local.get $e)))
        (call $puts (i32.const 2100))
        (call $print (i32.load offset=8 (local.get $e)) (i32.load offset=12 (local.get $e)))
        (call $nl)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
      (i32.const 0))
"#;

/// A guest of the file system: prints its preopen's name, writes
/// `out.txt`, prints `in.txt`, lists the directory, then tries to leave
/// it every way and prints what each try gave (`opened` or the error
/// code's name).
pub const FILES: &str = r#"
    (global $root (mut i32) (i32.const 0))
    (data (i32.const 2048) "out.txt\00")
    (data (i32.const 2064) "written by the guest\n\00")
    (data (i32.const 2096) "in.txt\00")
    (data (i32.const 2112) "preopen \00")
    (data (i32.const 2128) "opened\00")
    (data (i32.const 2144) ": \00")
    (data (i32.const 2160) "entry \00")
    (data (i32.const 2176) "../outside/secret.txt\00")
    (data (i32.const 2208) "/etc/passwd\00")
    (data (i32.const 2224) "rel_link\00")
    (data (i32.const 2240) "abs_link\00")
    (data (i32.const 2256) "sub/../../outside/secret.txt\00")
    (data (i32.const 2288) "dir_link/secret.txt\00")
    (data (i32.const 2320) "../created.txt\00")
    (data (i32.const 2336) "mylink\00")
    (data (i32.const 2352) "create \00")
    (data (i32.const 2368) "symlink \00")
    (data (i32.const 2384) "rename \00")
    (data (i32.const 2400) "ok\00")
    (data (i32.const 2416) "../moved.txt\00")
    (data (i32.const 2432) "dir_link/created.txt\00")
    (data (i32.const 2464) "sub\00")
    ;; open-at(root, path-flags, path, open-flags, flags): prints the
    ;; error's name and returns -1, or returns the descriptor.
    (func $open (param $pf i32) (param $path i32) (param $of i32) (param $flags i32) (result i32)
      (call $open-at (global.get $root) (local.get $pf) (local.get $path) (call $strlen (local.get $path))
        (local.get $of) (local.get $flags) (i32.const 48))
      (if (i32.load8_u (i32.const 48))
        (then (call $print_code (i32.load8_u (i32.const 52))) (return (i32.const -1))))
      (i32.load (i32.const 52)))
    ;; Tries to read `path` (following symlinks) and prints the outcome.
    (func $try (param $path i32) (local $f i32)
      (call $puts (local.get $path)) (call $puts (i32.const 2144))
      (local.set $f (call $open (i32.const 1) (local.get $path) (i32.const 0) (i32.const 1)))
      (if (i32.ge_s (local.get $f) (i32.const 0))
        (then
          (call $fs-read (local.get $f) (i64.const 100) (i64.const 0) (i32.const 48))
          (call $puts (i32.const 2128)) (call $puts (i32.const 2144))
          (call $print (i32.load (i32.const 52)) (i32.load (i32.const 56)))
          (call $drop-descriptor (local.get $f))))
      (call $nl))
    ;; Prints `ok` or the error of a result<_, error-code> at 48.
    (func $outcome
      (if (i32.load8_u (i32.const 48))
        (then (call $print_code (i32.load8_u (i32.const 49))))
        (else (call $puts (i32.const 2400))))
      (call $nl))
    (func $main (result i32) (local $f i32) (local $s i32) (local $list i32)
      (call $get-dirs (i32.const 32))
      (local.set $list (i32.load (i32.const 32)))
      (global.set $root (i32.load (local.get $list)))
      (call $puts (i32.const 2112))
      (call $print (i32.load offset=4 (local.get $list)) (i32.load offset=8 (local.get $list)))
      (call $nl)
      ;; Write out.txt (create | truncate, write).
      (local.set $f (call $open (i32.const 0) (i32.const 2048) (i32.const 9) (i32.const 2)))
      (if (i32.lt_s (local.get $f) (i32.const 0)) (then (return (i32.const 1))))
      (call $fs-write (local.get $f) (i32.const 2064) (call $strlen (i32.const 2064)) (i64.const 0) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (call $drop-descriptor (local.get $f))
      ;; Print in.txt.
      (local.set $f (call $open (i32.const 0) (i32.const 2096) (i32.const 0) (i32.const 1)))
      (if (i32.lt_s (local.get $f) (i32.const 0)) (then (return (i32.const 1))))
      (call $fs-read (local.get $f) (i64.const 1000) (i64.const 0) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (call $print (i32.load (i32.const 52)) (i32.load (i32.const 56)))
      (call $drop-descriptor (local.get $f))
      ;; List the directory.
      (call $read-dir (global.get $root) (i32.const 48))
      (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
      (local.set $s (i32.load (i32.const 52)))
      (block $done (loop $l
        (call $read-entry (local.get $s) (i32.const 48))
        (if (i32.load8_u (i32.const 48)) (then (return (i32.const 1))))
        (br_if $done (i32.eqz (i32.load8_u (i32.const 52))))
        (call $puts (i32.const 2160))
        (call $print (i32.load (i32.const 60)) (i32.load (i32.const 64)))
        (call $nl)
        (br $l)))
      ;; Ways out.
      (call $try (i32.const 2176))
      (call $try (i32.const 2208))
      (call $try (i32.const 2224))
      (call $try (i32.const 2240))
      (call $try (i32.const 2256))
      (call $try (i32.const 2288))
      (call $puts (i32.const 2352))
      (local.set $f (call $open (i32.const 0) (i32.const 2320) (i32.const 1) (i32.const 2)))
      (call $nl)
      (call $puts (i32.const 2352))
      (local.set $f (call $open (i32.const 1) (i32.const 2432) (i32.const 1) (i32.const 2)))
      (call $nl)
      (call $puts (i32.const 2368))
      (call $symlink-at (global.get $root) (i32.const 2176) (call $strlen (i32.const 2176))
        (i32.const 2336) (call $strlen (i32.const 2336)) (i32.const 48))
      (call $outcome)
      (call $try (i32.const 2336))
      (call $puts (i32.const 2384))
      (call $rename-at (global.get $root) (i32.const 2048) (i32.const 7) (global.get $root)
        (i32.const 2416) (call $strlen (i32.const 2416)) (i32.const 48))
      (call $outcome)
      (i32.const 0))
"#;

/// A guest that returns `err` from `run`.
pub const RETURN_ERR: &str = r#"(func $main (result i32) (i32.const 1))"#;

/// A guest that prints, then calls `exit(err)`.
pub const EXIT_ERR: &str = r#"
    (data (i32.const 2048) "exiting\00")
    (func $main (result i32) (call $puts (i32.const 2048)) (call $nl) (call $exit (i32.const 1)) unreachable)
"#;

/// A guest that prints, then traps.
pub const TRAP: &str = r#"
    (data (i32.const 2048) "about to trap\00")
    (func $main (result i32) (call $puts (i32.const 2048)) (call $nl) (call $crash) (i32.const 0))
    (func $crash unreachable)
"#;

/// A guest that copies its stdin to its stdout with blocking reads.
pub const CAT: &str = r#"
    (func $main (result i32) (local $in i32)
      (local.set $in (call $get-stdin))
      (block $done (loop $l
        (call $read (local.get $in) (i64.const 7) (i32.const 48))
        (if (i32.load8_u (i32.const 48))
          (then
            ;; closed is the end; a failed read is an error.
            (br_if $done (i32.eq (i32.load8_u (i32.const 52)) (i32.const 1)))
            (return (i32.const 1))))
        (call $print (i32.load (i32.const 52)) (i32.load (i32.const 56)))
        (br $l)))
      (call $drop-input (local.get $in))
      (i32.const 0))
"#;

/// A guest of clocks and random numbers: prints `wall ok` when the wall
/// clock is past 2020, `slept` after blocking on a 20 ms timer for at
/// least 20 ms of the monotonic clock, `poll 0` after polling a 5 ms and a
/// 60 s timer (only the first is ready), and the number of random bytes
/// it got.
pub const CLOCKS: &str = r#"
    (data (i32.const 2048) "wall ok\00")
    (data (i32.const 2064) "slept\00")
    (data (i32.const 2080) "poll \00")
    (data (i32.const 2096) "random \00")
    (func $main (result i32) (local $t0 i64) (local $p i32) (local $q i32)
      (call $wall-now (i32.const 32))
      (if (i64.gt_u (i64.load (i32.const 32)) (i64.const 1577836800))
        (then (call $puts (i32.const 2048)) (call $nl)))
      (local.set $t0 (call $mono-now))
      (local.set $p (call $sleep (i64.const 20000000)))
      (call $block (local.get $p))
      (call $drop-pollable (local.get $p))
      (if (i64.ge_u (i64.sub (call $mono-now) (local.get $t0)) (i64.const 20000000))
        (then (call $puts (i32.const 2064)) (call $nl)))
      (local.set $p (call $sleep (i64.const 5000000)))
      (local.set $q (call $sleep (i64.const 60000000000)))
      (i32.store (i32.const 200) (local.get $q))
      (i32.store (i32.const 204) (local.get $p))
      (call $poll (i32.const 200) (i32.const 2) (i32.const 48))
      (call $puts (i32.const 2080))
      (call $print_u32 (i32.load (i32.const 52)))
      (call $puts (i32.const 2144))
      (call $print_u32 (i32.load (i32.load (i32.const 48))))
      (call $nl)
      (call $random (i64.const 16) (i32.const 48))
      (call $puts (i32.const 2096))
      (call $print_u32 (i32.load (i32.const 52)))
      (call $nl)
      (i32.const 0))
    (data (i32.const 2144) " \00")
"#;
