// WASI 0.3 command components for the tests, written in WAT on the
// component model's async ABI: `wasi:cli/run@0.3.0` is lifted `async` with
// a callback; it makes a `stream<u8>` (`stream.new`), hands its readable
// end to `wasi:cli/stdout@0.3.0#write-via-stream` (and then to stderr's),
// writes the message with `stream.write async`, drops the writable end and
// reads the future `write-via-stream` returned (`future.read async`),
// waiting in a waitable set (`WAIT` from the callback) whenever a copy is
// `BLOCKED`. It then ends as `Ending` says.

/// How the guest's `run` ends once its output is written.
#[derive(Clone, Copy, Debug)]
pub enum Ending {
    /// `task.return` of `ok`.
    Ok,
    /// `task.return` of `err`.
    Err,
    /// `wasi:cli/exit#exit-with-code` with this status.
    ExitCode(u8),
    /// `unreachable`.
    Trap,
}

/// Escapes `s` for a WAT data string.
fn escape(s: &str) -> String {
    s.bytes().map(|b| format!("\\{b:02x}")).collect()
}

/// The component that writes `out` to stdout and `err` to stderr (each
/// skipped when empty), then ends as `ending` says.
pub fn component(out: &str, err: &str, ending: Ending) -> String {
    component_after_wait(0, out, err, ending)
}

/// [`component`], first waiting `wait_ns` nanoseconds with
/// `wasi:clocks/monotonic-clock#wait-for` lowered `async` (its subtask
/// waited for in the waitable set) when `wait_ns` is not 0.
pub fn component_after_wait(wait_ns: u64, out: &str, err: &str, ending: Ending) -> String {
    build(wait_ns, None, out, err, ending)
}

/// The `error-code` cases of `wasi:filesystem/types@0.3.0`, in order.
pub const FS_ERROR_CODES: &[&str] = &[
    "access",
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

/// The component that opens `path` (created, truncated) in its first
/// preopened directory with `wasi:filesystem/types#[method]descriptor.open-at`
/// (lowered `async`), writes `out` to it through the descriptor's
/// `write-via-stream`, writes `err` to stderr and ends as `ending` says.
/// When `open-at` fails, it exits with `exit-with-code(100 + the error
/// code's case)`.
pub fn file_component(path: &str, out: &str, err: &str, ending: Ending) -> String {
    build(0, Some(path), out, err, ending)
}

fn build(wait_ns: u64, file: Option<&str>, out: &str, err: &str, ending: Ending) -> String {
    let use_file = i32::from(file.is_some());
    let path_len = file.map_or(0, str::len);
    let path = escape(file.unwrap_or(""));
    let cases: String = FS_ERROR_CODES.iter().map(|c| format!("(case \"{c}\") ")).collect();
    let out_len = out.len();
    let err_len = err.len();
    let out = escape(out);
    let err = escape(err);
    let end = match ending {
        Ending::Ok => "(call $ret (i32.const 0)) (return (i32.const 0))".to_string(),
        Ending::Err => "(call $ret (i32.const 1)) (return (i32.const 0))".to_string(),
        Ending::ExitCode(n) => format!("(call $exit_code (i32.const {n})) (return (i32.const 0))"),
        Ending::Trap => "unreachable".to_string(),
    };
    format!(
        r#"(component
  (import "wasi:cli/types@0.3.0" (instance $types
    (type $e (enum "io" "illegal-byte-sequence" "pipe"))
    (export "error-code" (type (eq $e)))))
  (alias export $types "error-code" (type $ec))
  (type $S8 (stream u8))
  (type $F (future (result (error $ec))))
  (import "wasi:cli/stdout@0.3.0" (instance $stdout
    (alias outer 1 $F (type $F'))
    (export "write-via-stream" (func (param "data" (stream u8)) (result $F')))))
  (import "wasi:cli/stderr@0.3.0" (instance $stderr
    (alias outer 1 $F (type $F'))
    (export "write-via-stream" (func (param "data" (stream u8)) (result $F')))))
  (import "wasi:filesystem/types@0.3.0" (instance $fs
    (export "descriptor" (type $d (sub resource)))
    (type $ec (variant {cases}(case "other" (option string))))
    (export "error-code" (type $ec' (eq $ec)))
    (type $pf (flags "symlink-follow"))
    (export "path-flags" (type $pf' (eq $pf)))
    (type $of (flags "create" "directory" "exclusive" "truncate"))
    (export "open-flags" (type $of' (eq $of)))
    (type $df (flags "read" "write" "file-integrity-sync" "data-integrity-sync" "requested-write-sync" "mutate-directory"))
    (export "descriptor-flags" (type $df' (eq $df)))
    (export "[method]descriptor.open-at" (func async (param "self" (borrow $d)) (param "path-flags" $pf')
      (param "path" string) (param "open-flags" $of') (param "flags" $df') (result (result (own $d) (error $ec')))))
    (export "[method]descriptor.write-via-stream" (func (param "self" (borrow $d)) (param "data" (stream u8))
      (param "offset" u64) (result (future (result (error $ec'))))))))
  (alias export $fs "error-code" (type $fec))
  (type $FF (future (result (error $fec))))
  (alias export $fs "descriptor" (type $desc))
  (import "wasi:filesystem/preopens@0.3.0" (instance $pre
    (alias outer 1 $desc (type $d))
    (export "get-directories" (func (result (list (tuple (own $d) string)))))))
  (import "wasi:clocks/monotonic-clock@0.3.0" (instance $clock
    (export "wait-for" (func async (param "how-long" u64)))))
  (import "wasi:cli/exit@0.3.0" (instance $exit
    (export "exit-with-code" (func (param "status-code" u8)))))
  (core module $libc
    (memory (export "mem") 1)
    (global $next (mut i32) (i32.const 32768))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $next) (i32.const 7)) (i32.const -8)))
      (global.set $next (i32.add (local.get $p) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (core func $out_wvs (canon lower (func $stdout "write-via-stream")))
  (core func $err_wvs (canon lower (func $stderr "write-via-stream")))
  (core func $exit_code (canon lower (func $exit "exit-with-code")))
  (core func $get_dirs (canon lower (func $pre "get-directories")
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $open_at (canon lower (func $fs "[method]descriptor.open-at") async
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $file_wvs (canon lower (func $fs "[method]descriptor.write-via-stream")))
  (core func $ffread (canon future.read $FF async (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $ffdrop_r (canon future.drop-readable $FF))
  (core func $wait_for (canon lower (func $clock "wait-for") async))
  (core func $subtask_drop (canon subtask.drop))
  (core func $ret (canon task.return (result (result))))
  (core func $snew (canon stream.new $S8))
  (core func $swrite (canon stream.write $S8 async (memory (core memory $libc "mem"))))
  (core func $sdrop_w (canon stream.drop-writable $S8))
  (core func $fread (canon future.read $F async (memory (core memory $libc "mem"))))
  (core func $fdrop_r (canon future.drop-readable $F))
  (core func $ws_new (canon waitable-set.new))
  (core func $join (canon waitable.join))
  (core module $m
    (import "" "mem" (memory 1))
    (import "" "out-wvs" (func $out_wvs (param i32) (result i32)))
    (import "" "err-wvs" (func $err_wvs (param i32) (result i32)))
    (import "" "exit-code" (func $exit_code (param i32)))
    (import "" "get-dirs" (func $get_dirs (param i32)))
    (import "" "open-at" (func $open_at (param i32 i32) (result i32)))
    (import "" "file-wvs" (func $file_wvs (param i32 i32 i64) (result i32)))
    (import "" "ffread" (func $ffread (param i32 i32) (result i32)))
    (import "" "ffdrop-r" (func $ffdrop_r (param i32)))
    (import "" "wait-for" (func $wait_for (param i64) (result i32)))
    (import "" "subtask.drop" (func $subtask_drop (param i32)))
    (import "" "ret" (func $ret (param i32)))
    (import "" "snew" (func $snew (result i64)))
    (import "" "swrite" (func $swrite (param i32 i32 i32) (result i32)))
    (import "" "sdrop-w" (func $sdrop_w (param i32)))
    (import "" "fread" (func $fread (param i32 i32) (result i32)))
    (import "" "fdrop-r" (func $fdrop_r (param i32)))
    (import "" "ws-new" (func $ws_new (result i32)))
    (import "" "join" (func $join (param i32 i32)))
    (global $tx (mut i32) (i32.const 0))
    (global $fut (mut i32) (i32.const 0))
    (global $ptr (mut i32) (i32.const 0))
    (global $left (mut i32) (i32.const 0))
    (global $ws (mut i32) (i32.const 0))
    ;; 0: start stdout, 1: writing, 2: reading the future, 3: the future
    ;; is read, 5: done, 6: waiting for `wait-for`, 7: waiting for `open-at`.
    (global $phase (mut i32) (i32.const 0))
    (global $stage (mut i32) (i32.const 0))
    ;; The opened file's handle, and whether the current stream is its.
    (global $file (mut i32) (i32.const 0))
    (global $to_file (mut i32) (i32.const 0))
    (global $to_file_init i32 (i32.const {use_file}))
    (data (i32.const 8192) "{path}")
    (data (i32.const 1024) "{out}")
    (data (i32.const 4096) "{err}")
    ;; Starts writing `len` bytes at `ptr` to the stream `wvs` takes.
    (func $start (param $stderr i32) (param $ptr i32) (param $len i32)
      (local $ends i64) (local $rx i32)
      (local.set $ends (call $snew))
      (local.set $rx (i32.wrap_i64 (local.get $ends)))
      (global.set $tx (i32.wrap_i64 (i64.shr_u (local.get $ends) (i64.const 32))))
      (global.set $to_file (i32.const 0))
      (if (i32.eq (local.get $stderr) (i32.const 2))
        (then
          (global.set $to_file (i32.const 1))
          (global.set $fut (call $file_wvs (global.get $file) (local.get $rx) (i64.const 0))))
        (else (if (local.get $stderr)
          (then (global.set $fut (call $err_wvs (local.get $rx))))
          (else (global.set $fut (call $out_wvs (local.get $rx)))))))
      (global.set $ptr (local.get $ptr))
      (global.set $left (local.get $len))
      (global.set $phase (i32.const 1)))
    ;; Moves the state machine on until it must wait; the callback code.
    (func $step (result i32)
      (local $r i32)
      (loop $again
        ;; Start the stream of the current stage, or skip an empty one.
        (if (i32.eqz (global.get $phase)) (then
          (if (i32.eqz (global.get $stage))
            (then (if (i32.const {out_len})
              (then (call $start (i32.mul (i32.const 2) (global.get $to_file_init)) (i32.const 1024) (i32.const {out_len})))
              (else (global.set $stage (i32.const 1)))))
            (else (if (i32.and (i32.eq (global.get $stage) (i32.const 1)) (i32.ne (i32.const {err_len}) (i32.const 0)))
              (then (call $start (i32.const 1) (i32.const 4096) (i32.const {err_len})))
              (else (global.set $phase (i32.const 5))))))
          (br $again)))
        (if (i32.eq (global.get $phase) (i32.const 1)) (then
          (if (i32.eqz (global.get $left)) (then
            (call $sdrop_w (global.get $tx))
            (global.set $phase (i32.const 2))
            (br $again)))
          (local.set $r (call $swrite (global.get $tx) (global.get $ptr) (global.get $left)))
          (if (i32.eq (local.get $r) (i32.const -1)) (then
            (call $join (global.get $tx) (global.get $ws))
            (return (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))))
          (call $advance (local.get $r))
          (br $again)))
        (if (i32.eq (global.get $phase) (i32.const 2)) (then
          (if (global.get $to_file)
            (then (local.set $r (call $ffread (global.get $fut) (i32.const 64))))
            (else (local.set $r (call $fread (global.get $fut) (i32.const 64)))))
          (if (i32.eq (local.get $r) (i32.const -1)) (then
            (call $join (global.get $fut) (global.get $ws))
            (return (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))))
          (global.set $phase (i32.const 3))
          (br $again)))
        (if (i32.eq (global.get $phase) (i32.const 3)) (then
          (if (global.get $to_file)
            (then (call $ffdrop_r (global.get $fut)))
            (else (call $fdrop_r (global.get $fut))))
          ;; An `err` from the stream's future ends the run with `err`.
          (if (i32.load8_u (i32.const 64)) (then
            (call $ret (i32.const 1))
            (return (i32.const 0))))
          (global.set $stage (i32.add (global.get $stage) (i32.const 1)))
          (global.set $phase (i32.const 0))
          (br $again))))
      {end})
    ;; Counts what a write moved; a dropped reader ends the writing.
    (func $advance (param $r i32)
      (local $n i32)
      (local.set $n (i32.shr_u (local.get $r) (i32.const 4)))
      (global.set $ptr (i32.add (global.get $ptr) (local.get $n)))
      (global.set $left (i32.sub (global.get $left) (local.get $n)))
      (if (i32.ne (i32.and (local.get $r) (i32.const 0xf)) (i32.const 0))
        (then (global.set $left (i32.const 0)))))
    ;; open-at's result at 320: the file, or exit with 100 + the error.
    (func $opened
      (if (i32.load8_u (i32.const 320)) (then
        (call $exit_code (i32.add (i32.const 100) (i32.load8_u offset=4 (i32.const 320))))
        (unreachable)))
      (global.set $file (i32.load offset=4 (i32.const 320))))
    (func (export "run") (result i32)
      (local $r i32)
      (global.set $ws (call $ws_new))
      (if (global.get $to_file_init) (then
        ;; The first preopen: list<tuple<descriptor, string>> at 128.
        (call $get_dirs (i32.const 128))
        (if (i32.eqz (i32.load offset=4 (i32.const 128))) (then unreachable))
        ;; open-at's parameters at 256: self, path-flags, path, open-flags
        ;; (create | truncate), flags (read | write); its result at 320.
        (i32.store (i32.const 256) (i32.load (i32.load (i32.const 128))))
        (i32.store8 offset=4 (i32.const 256) (i32.const 0))
        (i32.store offset=8 (i32.const 256) (i32.const 8192))
        (i32.store offset=12 (i32.const 256) (i32.const {path_len}))
        (i32.store8 offset=16 (i32.const 256) (i32.const 9))
        (i32.store8 offset=17 (i32.const 256) (i32.const 3))
        (local.set $r (call $open_at (i32.const 256) (i32.const 320)))
        (if (i32.ne (i32.and (local.get $r) (i32.const 0xf)) (i32.const 2)) (then
          (call $join (i32.shr_u (local.get $r) (i32.const 4)) (global.get $ws))
          (global.set $phase (i32.const 7))
          (return (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))))
        (call $opened)))
      (if (i64.ne (i64.const {wait_ns}) (i64.const 0)) (then
        (local.set $r (call $wait_for (i64.const {wait_ns})))
        ;; Not RETURNED yet: wait for the subtask.
        (if (i32.ne (i32.and (local.get $r) (i32.const 0xf)) (i32.const 2)) (then
          (call $join (i32.shr_u (local.get $r) (i32.const 4)) (global.get $ws))
          (global.set $phase (i32.const 6))
          (return (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))))))
      (call $step))
    (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
      (call $join (local.get $index) (i32.const 0))
      ;; SUBTASK (RETURNED)
      (if (i32.eq (local.get $event) (i32.const 1)) (then
        (if (i32.ne (local.get $payload) (i32.const 2)) (then unreachable))
        (call $subtask_drop (local.get $index))
        (if (i32.eq (global.get $phase) (i32.const 7)) (then (call $opened)))
        (global.set $phase (i32.const 0))))
      ;; STREAM_WRITE
      (if (i32.eq (local.get $event) (i32.const 3)) (then (call $advance (local.get $payload))))
      ;; FUTURE_READ
      (if (i32.eq (local.get $event) (i32.const 4)) (then (global.set $phase (i32.const 3))))
      (call $step)))
  (core instance $i (instantiate $m (with "" (instance
    (export "mem" (memory $libc "mem"))
    (export "out-wvs" (func $out_wvs))
    (export "err-wvs" (func $err_wvs))
    (export "exit-code" (func $exit_code))
    (export "get-dirs" (func $get_dirs))
    (export "open-at" (func $open_at))
    (export "file-wvs" (func $file_wvs))
    (export "ffread" (func $ffread))
    (export "ffdrop-r" (func $ffdrop_r))
    (export "wait-for" (func $wait_for))
    (export "subtask.drop" (func $subtask_drop))
    (export "ret" (func $ret))
    (export "snew" (func $snew))
    (export "swrite" (func $swrite))
    (export "sdrop-w" (func $sdrop_w))
    (export "fread" (func $fread))
    (export "fdrop-r" (func $fdrop_r))
    (export "ws-new" (func $ws_new))
    (export "join" (func $join))))))
  (func $run async (result (result))
    (canon lift (core func $i "run") async (callback (core func $i "cb"))))
  (instance $run (export "run" (func $run)))
  (export "wasi:cli/run@0.3.0" (instance $run)))
"#
    )
}

/// The component that resolves `name` with
/// `wasi:sockets/ip-name-lookup@0.3.0#resolve-addresses` (lowered `async`,
/// its subtask waited for in a waitable set when it does not return at
/// once). When the lookup fails it exits with `exit-with-code(100 + the
/// error code's case)` (100 is `access-denied`); when it succeeds, `run`
/// returns `ok` if the first address is a loopback one (`127.x.x.x` or
/// `::1`) and traps otherwise (or when the list is empty).
pub fn lookup_component(name: &str) -> String {
    let name_len = name.len();
    let name = escape(name);
    format!(
        r#"(component
  (import "wasi:sockets/ip-name-lookup@0.3.0" (instance $lookup
    (type $ia (variant (case "ipv4" (tuple u8 u8 u8 u8)) (case "ipv6" (tuple u16 u16 u16 u16 u16 u16 u16 u16))))
    (export "ip-address" (type $ia' (eq $ia)))
    (type $ec (variant (case "access-denied") (case "invalid-argument") (case "name-unresolvable")
      (case "temporary-resolver-failure") (case "permanent-resolver-failure") (case "other" (option string))))
    (export "error-code" (type $ec' (eq $ec)))
    (export "resolve-addresses" (func async (param "name" string) (result (result (list $ia') (error $ec')))))))
  (import "wasi:cli/exit@0.3.0" (instance $exit
    (export "exit-with-code" (func (param "status-code" u8)))))
  (core module $libc
    (memory (export "mem") 1)
    (global $next (mut i32) (i32.const 32768))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $next) (i32.const 7)) (i32.const -8)))
      (global.set $next (i32.add (local.get $p) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (core func $resolve (canon lower (func $lookup "resolve-addresses") async
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $exit_code (canon lower (func $exit "exit-with-code")))
  (core func $subtask_drop (canon subtask.drop))
  (core func $ret (canon task.return (result (result))))
  (core func $ws_new (canon waitable-set.new))
  (core func $join (canon waitable.join))
  (core module $m
    (import "" "mem" (memory 1))
    (import "" "resolve" (func $resolve (param i32 i32 i32) (result i32)))
    (import "" "exit-code" (func $exit_code (param i32)))
    (import "" "subtask.drop" (func $subtask_drop (param i32)))
    (import "" "ret" (func $ret (param i32)))
    (import "" "ws-new" (func $ws_new (result i32)))
    (import "" "join" (func $join (param i32 i32)))
    (global $ws (mut i32) (i32.const 0))
    (data (i32.const 8192) "{name}")
    ;; The result at 320: its case (0: ok), then the list (pointer, length)
    ;; or the error code's case, at 324.
    (func $check
      (local $p i32)
      (if (i32.load8_u (i32.const 320)) (then
        (call $exit_code (i32.add (i32.const 100) (i32.load8_u (i32.const 324))))
        (unreachable)))
      (if (i32.eqz (i32.load (i32.const 328))) (then unreachable))
      ;; The first ip-address: its case, then its tuple at offset 2.
      (local.set $p (i32.load (i32.const 324)))
      (if (i32.eqz (i32.load8_u (local.get $p)))
        (then (if (i32.ne (i32.load8_u offset=2 (local.get $p)) (i32.const 127)) (then unreachable)))
        (else (if (i32.ne (i32.load16_u offset=16 (local.get $p)) (i32.const 1)) (then unreachable))))
      (call $ret (i32.const 0)))
    (func (export "run") (result i32)
      (local $r i32)
      (global.set $ws (call $ws_new))
      (local.set $r (call $resolve (i32.const 8192) (i32.const {name_len}) (i32.const 320)))
      ;; Not RETURNED yet: wait for the subtask.
      (if (i32.ne (i32.and (local.get $r) (i32.const 0xf)) (i32.const 2)) (then
        (call $join (i32.shr_u (local.get $r) (i32.const 4)) (global.get $ws))
        (return (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))))
      (call $check)
      (i32.const 0))
    (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
      ;; SUBTASK RETURNED
      (if (i32.and (i32.eq (local.get $event) (i32.const 1)) (i32.eq (local.get $payload) (i32.const 2))) (then
        (call $join (local.get $index) (i32.const 0))
        (call $subtask_drop (local.get $index))
        (call $check)
        (return (i32.const 0))))
      (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4)))))
  (core instance $i (instantiate $m (with "" (instance
    (export "mem" (memory $libc "mem"))
    (export "resolve" (func $resolve))
    (export "exit-code" (func $exit_code))
    (export "subtask.drop" (func $subtask_drop))
    (export "ret" (func $ret))
    (export "ws-new" (func $ws_new))
    (export "join" (func $join))))))
  (func $run async (result (result))
    (canon lift (core func $i "run") async (callback (core func $i "cb"))))
  (instance $run (export "run" (func $run)))
  (export "wasi:cli/run@0.3.0" (instance $run)))
"#
    )
}

/// What the TCP guest does before it sends its message.
#[derive(Clone, Copy, Debug)]
pub enum TcpMode {
    /// Connects to `127.0.0.1:port` (`connect`, lowered `async`).
    Connect(u16),
    /// Binds `127.0.0.1:port`, listens, and reads one connection from the
    /// `stream<tcp-socket>` of `listen`.
    Listen(u16),
}

/// The component that makes an IPv4 `wasi:sockets/types@0.3.0#tcp-socket`,
/// connects or accepts a connection as `mode` says, then sends `msg` on the
/// connection through `send`'s `stream<u8>` and reads `send`'s future.
/// `run` returns `ok` when everything succeeded; a failure exits with
/// `exit-with-code(N + the error code's case)`: N is 100 for `create`, 120
/// for `connect` or `bind`, 140 for `listen` and 160 for `send`'s future
/// (so 120 is a refused `connect`: `access-denied`).
pub fn tcp_component(mode: TcpMode, msg: &str) -> String {
    let (listen, port) = match mode {
        TcpMode::Connect(p) => (0, p),
        TcpMode::Listen(p) => (1, p),
    };
    let msg_len = msg.len();
    let msg = escape(msg);
    format!(
        r#"(component
  (import "wasi:sockets/types@0.3.0" (instance $types
    (export "tcp-socket" (type $s (sub resource)))
    (type $ec (variant (case "access-denied") (case "not-supported") (case "invalid-argument")
      (case "out-of-memory") (case "timeout") (case "invalid-state") (case "address-not-bindable")
      (case "address-in-use") (case "remote-unreachable") (case "connection-refused")
      (case "connection-broken") (case "connection-reset") (case "connection-aborted")
      (case "datagram-too-large") (case "other" (option string))))
    (export "error-code" (type $ec' (eq $ec)))
    (type $fam (enum "ipv4" "ipv6"))
    (export "ip-address-family" (type $fam' (eq $fam)))
    (type $v4 (record (field "port" u16) (field "address" (tuple u8 u8 u8 u8))))
    (export "ipv4-socket-address" (type $v4' (eq $v4)))
    (type $v6 (record (field "port" u16) (field "flow-info" u32)
      (field "address" (tuple u16 u16 u16 u16 u16 u16 u16 u16)) (field "scope-id" u32)))
    (export "ipv6-socket-address" (type $v6' (eq $v6)))
    (type $sa (variant (case "ipv4" $v4') (case "ipv6" $v6')))
    (export "ip-socket-address" (type $sa' (eq $sa)))
    (export "[static]tcp-socket.create" (func (param "address-family" $fam') (result (result (own $s) (error $ec')))))
    (export "[method]tcp-socket.bind" (func (param "self" (borrow $s)) (param "local-address" $sa')
      (result (result (error $ec')))))
    (export "[method]tcp-socket.connect" (func async (param "self" (borrow $s)) (param "remote-address" $sa')
      (result (result (error $ec')))))
    (type $sl (stream (own $s)))
    (export "[method]tcp-socket.listen" (func (param "self" (borrow $s)) (result (result $sl (error $ec')))))
    (export "[method]tcp-socket.send" (func (param "self" (borrow $s)) (param "data" (stream u8))
      (result (future (result (error $ec'))))))))
  (alias export $types "tcp-socket" (type $sock))
  (alias export $types "error-code" (type $sec))
  (type $S8 (stream u8))
  (type $SL (stream (own $sock)))
  (type $F (future (result (error $sec))))
  (import "wasi:cli/exit@0.3.0" (instance $exit
    (export "exit-with-code" (func (param "status-code" u8)))))
  (core module $libc
    (memory (export "mem") 1)
    (global $next (mut i32) (i32.const 32768))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $next) (i32.const 7)) (i32.const -8)))
      (global.set $next (i32.add (local.get $p) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (core func $create (canon lower (func $types "[static]tcp-socket.create")
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $bind (canon lower (func $types "[method]tcp-socket.bind")
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $connect (canon lower (func $types "[method]tcp-socket.connect") async
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $listen (canon lower (func $types "[method]tcp-socket.listen")
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $send (canon lower (func $types "[method]tcp-socket.send")))
  (core func $exit_code (canon lower (func $exit "exit-with-code")))
  (core func $subtask_drop (canon subtask.drop))
  (core func $ret (canon task.return (result (result))))
  (core func $snew (canon stream.new $S8))
  (core func $swrite (canon stream.write $S8 async (memory (core memory $libc "mem"))))
  (core func $sdrop_w (canon stream.drop-writable $S8))
  (core func $lread (canon stream.read $SL async (memory (core memory $libc "mem"))))
  (core func $fread (canon future.read $F async (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $fdrop_r (canon future.drop-readable $F))
  (core func $ws_new (canon waitable-set.new))
  (core func $join (canon waitable.join))
  (core module $m
    (import "" "mem" (memory 1))
    (import "" "create" (func $create (param i32 i32)))
    (import "" "bind" (func $bind (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)))
    (import "" "connect" (func $connect (param i32 i32) (result i32)))
    (import "" "listen" (func $listen (param i32 i32)))
    (import "" "send" (func $send (param i32 i32) (result i32)))
    (import "" "exit-code" (func $exit_code (param i32)))
    (import "" "subtask.drop" (func $subtask_drop (param i32)))
    (import "" "ret" (func $ret (param i32)))
    (import "" "snew" (func $snew (result i64)))
    (import "" "swrite" (func $swrite (param i32 i32 i32) (result i32)))
    (import "" "sdrop-w" (func $sdrop_w (param i32)))
    (import "" "lread" (func $lread (param i32 i32 i32) (result i32)))
    (import "" "fread" (func $fread (param i32 i32) (result i32)))
    (import "" "fdrop-r" (func $fdrop_r (param i32)))
    (import "" "ws-new" (func $ws_new (result i32)))
    (import "" "join" (func $join (param i32 i32)))
    (global $ws (mut i32) (i32.const 0))
    (global $sock (mut i32) (i32.const 0))
    (global $tx (mut i32) (i32.const 0))
    (global $fut (mut i32) (i32.const 0))
    (global $ptr (mut i32) (i32.const 1024))
    (global $left (mut i32) (i32.const {msg_len}))
    (data (i32.const 1024) "{msg}")
    ;; Exits with `base` + the error code's case when the result at 320
    ;; is an `err`.
    (func $check (param $base i32)
      (if (i32.load8_u (i32.const 320)) (then
        (call $exit_code (i32.add (local.get $base) (i32.load8_u (i32.const 324))))
        (unreachable))))
    (func $wait (result i32) (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))
    ;; Connected (or accepted): starts sending the message.
    (func $start_send (result i32)
      (local $ends i64) (local $rx i32)
      (local.set $ends (call $snew))
      (local.set $rx (i32.wrap_i64 (local.get $ends)))
      (global.set $tx (i32.wrap_i64 (i64.shr_u (local.get $ends) (i64.const 32))))
      (global.set $fut (call $send (global.get $sock) (local.get $rx)))
      (call $write))
    ;; Writes what is left of the message, then reads `send`'s future.
    (func $write (result i32)
      (local $r i32)
      (loop $again
        (if (global.get $left) (then
          (local.set $r (call $swrite (global.get $tx) (global.get $ptr) (global.get $left)))
          (if (i32.eq (local.get $r) (i32.const -1)) (then
            (call $join (global.get $tx) (global.get $ws))
            (return (call $wait))))
          (call $advance (local.get $r))
          (br $again))))
      (call $sdrop_w (global.get $tx))
      (local.set $r (call $fread (global.get $fut) (i32.const 320)))
      (if (i32.eq (local.get $r) (i32.const -1)) (then
        (call $join (global.get $fut) (global.get $ws))
        (return (call $wait))))
      (call $done))
    (func $advance (param $r i32)
      (local $n i32)
      (local.set $n (i32.shr_u (local.get $r) (i32.const 4)))
      (global.set $ptr (i32.add (global.get $ptr) (local.get $n)))
      (global.set $left (i32.sub (global.get $left) (local.get $n)))
      ;; The reader is gone: stop writing.
      (if (i32.ne (i32.and (local.get $r) (i32.const 0xf)) (i32.const 0))
        (then (global.set $left (i32.const 0)))))
    (func $done (result i32)
      (call $fdrop_r (global.get $fut))
      (call $check (i32.const 160))
      (call $ret (i32.const 0))
      (i32.const 0))
    ;; The accepted connection is at 400.
    (func $accepted (param $r i32) (result i32)
      (if (i32.ne (i32.shr_u (local.get $r) (i32.const 4)) (i32.const 1)) (then unreachable))
      (global.set $sock (i32.load (i32.const 400)))
      (call $start_send))
    (func (export "run") (result i32)
      (local $r i32)
      (global.set $ws (call $ws_new))
      ;; create(ipv4): the socket at 324.
      (call $create (i32.const 0) (i32.const 320))
      (call $check (i32.const 100))
      (global.set $sock (i32.load (i32.const 324)))
      (if (i32.const {listen})
        (then
          ;; bind(127.0.0.1:port)
          (call $bind (global.get $sock) (i32.const 0) (i32.const {port})
            (i32.const 127) (i32.const 0) (i32.const 0) (i32.const 1)
            (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)
            (i32.const 320))
          (call $check (i32.const 120))
          (call $listen (global.get $sock) (i32.const 320))
          (call $check (i32.const 140))
          (local.set $r (call $lread (i32.load (i32.const 324)) (i32.const 400) (i32.const 1)))
          (if (i32.eq (local.get $r) (i32.const -1)) (then
            (call $join (i32.load (i32.const 324)) (global.get $ws))
            (return (call $wait))))
          (return (call $accepted (local.get $r)))))
      ;; connect's parameters at 256: self, then the address (case 0 at
      ;; 260, port at 264, 127.0.0.1 at 266); its result at 320.
      (i32.store (i32.const 256) (global.get $sock))
      (i32.store8 (i32.const 260) (i32.const 0))
      (i32.store16 (i32.const 264) (i32.const {port}))
      (i32.store8 (i32.const 266) (i32.const 127))
      (i32.store8 (i32.const 267) (i32.const 0))
      (i32.store8 (i32.const 268) (i32.const 0))
      (i32.store8 (i32.const 269) (i32.const 1))
      (local.set $r (call $connect (i32.const 256) (i32.const 320)))
      (if (i32.ne (i32.and (local.get $r) (i32.const 0xf)) (i32.const 2)) (then
        (call $join (i32.shr_u (local.get $r) (i32.const 4)) (global.get $ws))
        (return (call $wait))))
      (call $check (i32.const 120))
      (call $start_send))
    (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
      ;; SUBTASK: connect returned (or only started).
      (if (i32.eq (local.get $event) (i32.const 1)) (then
        (if (i32.ne (local.get $payload) (i32.const 2)) (then (return (call $wait))))
        (call $join (local.get $index) (i32.const 0))
        (call $subtask_drop (local.get $index))
        (call $check (i32.const 120))
        (return (call $start_send))))
      (call $join (local.get $index) (i32.const 0))
      ;; STREAM_READ: a connection accepted.
      (if (i32.eq (local.get $event) (i32.const 2)) (then (return (call $accepted (local.get $payload)))))
      ;; STREAM_WRITE
      (if (i32.eq (local.get $event) (i32.const 3)) (then
        (call $advance (local.get $payload))
        (return (call $write))))
      ;; FUTURE_READ
      (if (i32.eq (local.get $event) (i32.const 4)) (then (return (call $done))))
      (unreachable)))
  (core instance $i (instantiate $m (with "" (instance
    (export "mem" (memory $libc "mem"))
    (export "create" (func $create))
    (export "bind" (func $bind))
    (export "connect" (func $connect))
    (export "listen" (func $listen))
    (export "send" (func $send))
    (export "exit-code" (func $exit_code))
    (export "subtask.drop" (func $subtask_drop))
    (export "ret" (func $ret))
    (export "snew" (func $snew))
    (export "swrite" (func $swrite))
    (export "sdrop-w" (func $sdrop_w))
    (export "lread" (func $lread))
    (export "fread" (func $fread))
    (export "fdrop-r" (func $fdrop_r))
    (export "ws-new" (func $ws_new))
    (export "join" (func $join))))))
  (func $run async (result (result))
    (canon lift (core func $i "run") async (callback (core func $i "cb"))))
  (instance $run (export "run" (func $run)))
  (export "wasi:cli/run@0.3.0" (instance $run)))
"#
    )
}

/// The component that makes an IPv4 `wasi:sockets/types@0.3.0#udp-socket`
/// and sends `msg` as one datagram to `127.0.0.1:port` with `send` (lowered
/// `async`). `run` returns `ok` when it was sent; a failure exits with
/// `exit-with-code(N + the error code's case)`: N is 100 for `create` and
/// 120 for `send` (so 120 is `access-denied`).
pub fn udp_component(port: u16, msg: &str) -> String {
    let msg_len = msg.len();
    let msg = escape(msg);
    format!(
        r#"(component
  (import "wasi:sockets/types@0.3.0" (instance $types
    (export "udp-socket" (type $s (sub resource)))
    (type $ec (variant (case "access-denied") (case "not-supported") (case "invalid-argument")
      (case "out-of-memory") (case "timeout") (case "invalid-state") (case "address-not-bindable")
      (case "address-in-use") (case "remote-unreachable") (case "connection-refused")
      (case "connection-broken") (case "connection-reset") (case "connection-aborted")
      (case "datagram-too-large") (case "other" (option string))))
    (export "error-code" (type $ec' (eq $ec)))
    (type $fam (enum "ipv4" "ipv6"))
    (export "ip-address-family" (type $fam' (eq $fam)))
    (type $v4 (record (field "port" u16) (field "address" (tuple u8 u8 u8 u8))))
    (export "ipv4-socket-address" (type $v4' (eq $v4)))
    (type $v6 (record (field "port" u16) (field "flow-info" u32)
      (field "address" (tuple u16 u16 u16 u16 u16 u16 u16 u16)) (field "scope-id" u32)))
    (export "ipv6-socket-address" (type $v6' (eq $v6)))
    (type $sa (variant (case "ipv4" $v4') (case "ipv6" $v6')))
    (export "ip-socket-address" (type $sa' (eq $sa)))
    (export "[static]udp-socket.create" (func (param "address-family" $fam') (result (result (own $s) (error $ec')))))
    (export "[method]udp-socket.send" (func async (param "self" (borrow $s)) (param "data" (list u8))
      (param "remote-address" (option $sa')) (result (result (error $ec')))))))
  (import "wasi:cli/exit@0.3.0" (instance $exit
    (export "exit-with-code" (func (param "status-code" u8)))))
  (core module $libc
    (memory (export "mem") 1)
    (global $next (mut i32) (i32.const 32768))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $next) (i32.const 7)) (i32.const -8)))
      (global.set $next (i32.add (local.get $p) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (core func $create (canon lower (func $types "[static]udp-socket.create")
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $send (canon lower (func $types "[method]udp-socket.send") async
    (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $exit_code (canon lower (func $exit "exit-with-code")))
  (core func $subtask_drop (canon subtask.drop))
  (core func $ret (canon task.return (result (result))))
  (core func $ws_new (canon waitable-set.new))
  (core func $join (canon waitable.join))
  (core module $m
    (import "" "mem" (memory 1))
    (import "" "create" (func $create (param i32 i32)))
    (import "" "send" (func $send (param i32 i32) (result i32)))
    (import "" "exit-code" (func $exit_code (param i32)))
    (import "" "subtask.drop" (func $subtask_drop (param i32)))
    (import "" "ret" (func $ret (param i32)))
    (import "" "ws-new" (func $ws_new (result i32)))
    (import "" "join" (func $join (param i32 i32)))
    (global $ws (mut i32) (i32.const 0))
    (data (i32.const 1024) "{msg}")
    (func $check (param $base i32)
      (if (i32.load8_u (i32.const 320)) (then
        (call $exit_code (i32.add (local.get $base) (i32.load8_u (i32.const 324))))
        (unreachable))))
    (func (export "run") (result i32)
      (local $r i32)
      (global.set $ws (call $ws_new))
      (call $create (i32.const 0) (i32.const 320))
      (call $check (i32.const 100))
      ;; send's parameters at 256: self, the list (pointer, length), then
      ;; `some` (at 268) of the address (case 0 at 272, port at 276,
      ;; 127.0.0.1 at 278).
      (i32.store (i32.const 256) (i32.load (i32.const 324)))
      (i32.store (i32.const 260) (i32.const 1024))
      (i32.store (i32.const 264) (i32.const {msg_len}))
      (i32.store8 (i32.const 268) (i32.const 1))
      (i32.store8 (i32.const 272) (i32.const 0))
      (i32.store16 (i32.const 276) (i32.const {port}))
      (i32.store8 (i32.const 278) (i32.const 127))
      (i32.store8 (i32.const 279) (i32.const 0))
      (i32.store8 (i32.const 280) (i32.const 0))
      (i32.store8 (i32.const 281) (i32.const 1))
      (local.set $r (call $send (i32.const 256) (i32.const 320)))
      (if (i32.ne (i32.and (local.get $r) (i32.const 0xf)) (i32.const 2)) (then
        (call $join (i32.shr_u (local.get $r) (i32.const 4)) (global.get $ws))
        (return (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))))
      (call $check (i32.const 120))
      (call $ret (i32.const 0))
      (i32.const 0))
    (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
      (if (i32.and (i32.eq (local.get $event) (i32.const 1)) (i32.eq (local.get $payload) (i32.const 2))) (then
        (call $join (local.get $index) (i32.const 0))
        (call $subtask_drop (local.get $index))
        (call $check (i32.const 120))
        (call $ret (i32.const 0))
        (return (i32.const 0))))
      (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4)))))
  (core instance $i (instantiate $m (with "" (instance
    (export "mem" (memory $libc "mem"))
    (export "create" (func $create))
    (export "send" (func $send))
    (export "exit-code" (func $exit_code))
    (export "subtask.drop" (func $subtask_drop))
    (export "ret" (func $ret))
    (export "ws-new" (func $ws_new))
    (export "join" (func $join))))))
  (func $run async (result (result))
    (canon lift (core func $i "run") async (callback (core func $i "cb"))))
  (instance $run (export "run" (func $run)))
  (export "wasi:cli/run@0.3.0" (instance $run)))
"#
    )
}
