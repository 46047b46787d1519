// wasi:http 0.3 service components for the tests, written in WAT on the
// component model's async ABI: `wasi:http/handler@0.3.0#handle` is lifted
// `async` with a callback. Each guest (a `Mode`) builds its response with
// `response.new` (a `stream<u8>` from `stream.new` as its contents and a
// trailers future from `future.new`), returns it with `task.return`, then
// writes the body with `stream.write async`, drops the stream's writable
// end and writes `ok(none)` to the trailers future, waiting in a waitable
// set (`WAIT` from the callback) whenever a copy is `BLOCKED`.
//
// A guest serves several requests at once: each task's state (the
// globals of the core module, and the memory the host writes into while
// a copy or a call is pending) lives in a block of its own, found with
// `context.get`. `handle` and the callback load the globals from it
// when they start and store them back when they return; a task that
// ends gives its block back. At most `TASKS` tasks run at once.

/// How many requests one instance of a guest serves at once (a request
/// beyond them traps).
pub const TASKS: usize = 16;

/// What the guest does with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Answers 201 with `content-type: text/plain`, `x-weft: p3` and
    /// [`FIXED_BODY`].
    Fixed,
    /// Answers 200 with the request's body, read through the stream
    /// `request.consume-body` gives (and reports `ok` on its `res`
    /// future).
    Echo,
    /// Sends a `GET http://{authority}/` (scheme, authority and path set
    /// on the request) with `wasi:http/client.send`:
    /// answers with the response's status and `fetched\n` when it comes,
    /// 403 `denied\n` when the send is refused with `HTTP-request-denied`,
    /// 502 `refused otherwise\n` for another error code.
    Send,
    /// Appends the forbidden header `connection` to new fields and
    /// `x-weft` to the request's (immutable) headers: answers 200 with
    /// [`FIXED_BODY`] when the first fails with `forbidden` and the second
    /// with `immutable`, 500..=503 when a check fails.
    Headers,
    /// [`Mode::Send`] without setting the request's scheme (the host's
    /// `default_scheme` hook decides it).
    SendNoScheme,
    /// Traps (`unreachable`) before it answers.
    Trap,
    /// [`Mode::Fixed`]'s answer with the trailer `x-trailer: done` (its
    /// trailers future gets `ok(some(fields))`).
    Trailers,
    /// [`Mode::Fixed`]'s answer with a `content-length: 5` header (the
    /// body is longer).
    WrongLength,
}

/// The body of [`Mode::Fixed`]'s answer.
pub const FIXED_BODY: &str = "hello from a wasi:http 0.3 guest\n";

/// The cases of `wasi:http/types.error-code`, with their payloads.
const ERROR_CODE: &str = r#"(variant
      (case "DNS-timeout") (case "DNS-error" $dns) (case "destination-not-found") (case "destination-unavailable")
      (case "destination-IP-prohibited") (case "destination-IP-unroutable") (case "connection-refused")
      (case "connection-terminated") (case "connection-timeout") (case "connection-read-timeout")
      (case "connection-write-timeout") (case "connection-limit-reached") (case "TLS-protocol-error")
      (case "TLS-certificate-error") (case "TLS-alert-received" $tls) (case "HTTP-request-denied")
      (case "HTTP-request-length-required") (case "HTTP-request-body-size" (option u64))
      (case "HTTP-request-method-invalid") (case "HTTP-request-URI-invalid") (case "HTTP-request-URI-too-long")
      (case "HTTP-request-header-section-size" (option u32)) (case "HTTP-request-header-size" (option $fsp))
      (case "HTTP-request-trailer-section-size" (option u32)) (case "HTTP-request-trailer-size" $fsp)
      (case "HTTP-response-incomplete") (case "HTTP-response-header-section-size" (option u32))
      (case "HTTP-response-header-size" $fsp) (case "HTTP-response-body-size" (option u64))
      (case "HTTP-response-trailer-section-size" (option u32)) (case "HTTP-response-trailer-size" $fsp)
      (case "HTTP-response-transfer-coding" (option string)) (case "HTTP-response-content-coding" (option string))
      (case "HTTP-response-timeout") (case "HTTP-upgrade-failed") (case "HTTP-protocol-error")
      (case "loop-detected") (case "configuration-error") (case "internal-error" (option string)))"#;

/// Escapes `s` for a WAT data string.
fn escape(s: &str) -> String {
    s.bytes().map(|b| format!("\\{b:02x}")).collect()
}

/// The component text of the guest `mode`; [`Mode::Send`] sends to
/// `authority` (`host:port`).
pub fn service(mode: Mode, authority: &str) -> String {
    let mode = match mode {
        Mode::Fixed => 0,
        Mode::Echo => 1,
        Mode::Send => 2,
        Mode::Headers => 3,
        Mode::Trap => 4,
        Mode::Trailers => 5,
        Mode::WrongLength => 6,
        Mode::SendNoScheme => 7,
    };
    let auth_len = authority.len();
    let auth = escape(authority);
    let body_len = FIXED_BODY.len();
    let body = escape(FIXED_BODY);
    let tasks = TASKS;
    format!(
        r#"(component
  (import "wasi:http/types@0.3.0" (instance $types
    (type $dns' (record (field "rcode" (option string)) (field "info-code" (option u16))))
    (export "DNS-error-payload" (type $dns (eq $dns')))
    (type $tls' (record (field "alert-id" (option u8)) (field "alert-message" (option string))))
    (export "TLS-alert-received-payload" (type $tls (eq $tls')))
    (type $fsp' (record (field "field-name" (option string)) (field "field-size" (option u32))))
    (export "field-size-payload" (type $fsp (eq $fsp')))
    (type $ec' {ERROR_CODE})
    (export "error-code" (type $ec (eq $ec')))
    (type $he' (variant (case "invalid-syntax") (case "forbidden") (case "immutable") (case "size-exceeded")
      (case "other" (option string))))
    (export "header-error" (type $he (eq $he')))
    (type $sch' (variant (case "HTTP") (case "HTTPS") (case "other" string)))
    (export "scheme" (type $sch (eq $sch')))
    (export "fields" (type $fields (sub resource)))
    (export "request" (type $req (sub resource)))
    (export "request-options" (type $ro (sub resource)))
    (export "response" (type $resp (sub resource)))
    (export "[constructor]fields" (func (result (own $fields))))
    (export "[method]fields.append" (func (param "self" (borrow $fields)) (param "name" string) (param "value" (list u8))
      (result (result (error $he)))))
    (export "[static]request.new" (func (param "headers" (own $fields)) (param "contents" (option (stream u8)))
      (param "trailers" (future (result (option (own $fields)) (error $ec)))) (param "options" (option (own $ro)))
      (result (tuple (own $req) (future (result (error $ec)))))))
    (export "[method]request.set-scheme" (func (param "self" (borrow $req)) (param "scheme" (option $sch)) (result (result))))
    (export "[method]request.set-authority" (func (param "self" (borrow $req)) (param "authority" (option string))
      (result (result))))
    (export "[method]request.set-path-with-query" (func (param "self" (borrow $req))
      (param "path-with-query" (option string)) (result (result))))
    (export "[method]request.get-headers" (func (param "self" (borrow $req)) (result (own $fields))))
    (export "[static]request.consume-body" (func (param "this" (own $req)) (param "res" (future (result (error $ec))))
      (result (tuple (stream u8) (future (result (option (own $fields)) (error $ec)))))))
    (export "[static]response.new" (func (param "headers" (own $fields)) (param "contents" (option (stream u8)))
      (param "trailers" (future (result (option (own $fields)) (error $ec))))
      (result (tuple (own $resp) (future (result (error $ec)))))))
    (export "[method]response.get-status-code" (func (param "self" (borrow $resp)) (result u16)))
    (export "[method]response.set-status-code" (func (param "self" (borrow $resp)) (param "status-code" u16)
      (result (result))))))
  (alias export $types "error-code" (type $ec))
  (alias export $types "fields" (type $fields))
  (alias export $types "request" (type $req))
  (alias export $types "response" (type $resp))
  (import "wasi:http/client@0.3.0" (instance $client
    (alias outer 1 $req (type $req')) (export "request" (type $r (eq $req')))
    (alias outer 1 $resp (type $resp')) (export "response" (type $rs (eq $resp')))
    (alias outer 1 $ec (type $ec')) (export "error-code" (type $e (eq $ec')))
    (export "send" (func async (param "request" (own $r)) (result (result (own $rs) (error $e)))))))
  (type $S8 (stream u8))
  (type $TF (future (result (option (own $fields)) (error $ec))))
  (type $RF (future (result (error $ec))))

  (core module $libc
    (memory (export "mem") 3)
    (global $next (mut i32) (i32.const 32768))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $next) (i32.const 7)) (i32.const -8)))
      (global.set $next (i32.add (local.get $p) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (alias core export $libc "mem" (core memory $mem))
  (alias core export $libc "realloc" (core func $realloc))

  (core func $fields-new (canon lower (func $types "[constructor]fields")))
  (core func $fields-append (canon lower (func $types "[method]fields.append") (memory $mem) (realloc $realloc)))
  (core func $req-new (canon lower (func $types "[static]request.new") (memory $mem)))
  (core func $req-set-scheme (canon lower (func $types "[method]request.set-scheme") (memory $mem) (realloc $realloc)))
  (core func $req-set-authority (canon lower (func $types "[method]request.set-authority") (memory $mem) (realloc $realloc)))
  (core func $req-set-path (canon lower (func $types "[method]request.set-path-with-query") (memory $mem) (realloc $realloc)))
  (core func $req-headers (canon lower (func $types "[method]request.get-headers")))
  (core func $req-consume (canon lower (func $types "[static]request.consume-body") (memory $mem)))
  (core func $resp-new (canon lower (func $types "[static]response.new") (memory $mem)))
  (core func $resp-get-status (canon lower (func $types "[method]response.get-status-code")))
  (core func $resp-set-status (canon lower (func $types "[method]response.set-status-code")))
  (core func $send (canon lower (func $client "send") async (memory $mem) (realloc $realloc)))
  (core func $task-return (canon task.return (result (result (own $resp) (error $ec))) (memory $mem)))
  (core func $s-new (canon stream.new $S8))
  (core func $s-read (canon stream.read $S8 async (memory $mem)))
  (core func $s-write (canon stream.write $S8 async (memory $mem)))
  (core func $s-drop-r (canon stream.drop-readable $S8))
  (core func $s-drop-w (canon stream.drop-writable $S8))
  (core func $tf-new (canon future.new $TF))
  (core func $tf-write (canon future.write $TF async (memory $mem)))
  (core func $tf-drop-r (canon future.drop-readable $TF))
  (core func $tf-drop-w (canon future.drop-writable $TF))
  (core func $rf-new (canon future.new $RF))
  (core func $rf-write (canon future.write $RF async (memory $mem)))
  (core func $rf-drop-r (canon future.drop-readable $RF))
  (core func $rf-drop-w (canon future.drop-writable $RF))
  (core func $ws-new (canon waitable-set.new))
  (core func $ws-drop (canon waitable-set.drop))
  (core func $join (canon waitable.join))
  (core func $subtask-drop (canon subtask.drop))
  (core func $drop-fields (canon resource.drop $fields))
  (core func $drop-request (canon resource.drop $req))
  (core func $drop-response (canon resource.drop $resp))
  (core func $ctx-get (canon context.get i32 0))
  (core func $ctx-set (canon context.set i32 0))

  (core module $m
    (import "libc" "mem" (memory 3))
    (import "h" "fields-new" (func $fields-new (result i32)))
    (import "h" "fields-append" (func $fields-append (param i32 i32 i32 i32 i32 i32)))
    (import "h" "req-new" (func $req-new (param i32 i32 i32 i32 i32 i32 i32)))
    (import "h" "req-set-scheme" (func $req-set-scheme (param i32 i32 i32 i32 i32) (result i32)))
    (import "h" "req-set-authority" (func $req-set-authority (param i32 i32 i32 i32) (result i32)))
    (import "h" "req-set-path" (func $req-set-path (param i32 i32 i32 i32) (result i32)))
    (import "h" "req-headers" (func $req-headers (param i32) (result i32)))
    (import "h" "req-consume" (func $req-consume (param i32 i32 i32)))
    (import "h" "resp-new" (func $resp-new (param i32 i32 i32 i32 i32)))
    (import "h" "resp-get-status" (func $resp-get-status (param i32) (result i32)))
    (import "h" "resp-set-status" (func $resp-set-status (param i32 i32) (result i32)))
    (import "h" "send" (func $send (param i32 i32) (result i32)))
    (import "h" "task-return" (func $task-return (param i32 i32 i32 i64 i32 i32 i32 i32)))
    (import "h" "s-new" (func $s-new (result i64)))
    (import "h" "s-read" (func $s-read (param i32 i32 i32) (result i32)))
    (import "h" "s-write" (func $s-write (param i32 i32 i32) (result i32)))
    (import "h" "s-drop-r" (func $s-drop-r (param i32)))
    (import "h" "s-drop-w" (func $s-drop-w (param i32)))
    (import "h" "tf-new" (func $tf-new (result i64)))
    (import "h" "tf-write" (func $tf-write (param i32 i32) (result i32)))
    (import "h" "tf-drop-r" (func $tf-drop-r (param i32)))
    (import "h" "tf-drop-w" (func $tf-drop-w (param i32)))
    (import "h" "rf-new" (func $rf-new (result i64)))
    (import "h" "rf-write" (func $rf-write (param i32 i32) (result i32)))
    (import "h" "rf-drop-r" (func $rf-drop-r (param i32)))
    (import "h" "rf-drop-w" (func $rf-drop-w (param i32)))
    (import "h" "ws-new" (func $ws-new (result i32)))
    (import "h" "ws-drop" (func $ws-drop (param i32)))
    (import "h" "join" (func $join (param i32 i32)))
    (import "h" "subtask-drop" (func $subtask-drop (param i32)))
    (import "h" "drop-fields" (func $drop-fields (param i32)))
    (import "h" "drop-request" (func $drop-request (param i32)))
    (import "h" "drop-response" (func $drop-response (param i32)))
    (import "h" "ctx-get" (func $ctx-get (result i32)))
    (import "h" "ctx-set" (func $ctx-set (param i32)))
    (global $mode i32 (i32.const {mode}))
    (global $ws (mut i32) (i32.const 0))
    ;; 1: writing the body, 2: reading the request's body (echo),
    ;; 4: closing, 5: done once no future write is pending, 6: sending.
    (global $phase (mut i32) (i32.const 0))
    (global $pending (mut i32) (i32.const 0))
    (global $body-tx (mut i32) (i32.const 0))
    (global $tr-tx (mut i32) (i32.const 0))
    (global $in-rx (mut i32) (i32.const 0))
    (global $res-tx (mut i32) (i32.const 0))
    (global $ptr (mut i32) (i32.const 0))
    (global $left (mut i32) (i32.const 0))
    (global $eof (mut i32) (i32.const 0))
    ;; A stream read or write is in progress (`BLOCKED`, its event not
    ;; come yet).
    (global $busy (mut i32) (i32.const 0))
    ;; The running task's block: its saved globals at 0..44, `send`'s
    ;; result at 160, the trailers' value at 288, the echo's buffer at
    ;; 4096..8192. Blocks are 8 KiB from 64 KiB on; `$free` lists the
    ;; given-back ones (linked through their first word), `$fresh` counts
    ;; the ones handed out.
    (global $blk (mut i32) (i32.const 0))
    (global $free (mut i32) (i32.const 0))
    (global $fresh (mut i32) (i32.const 0))
    (data (i32.const 1024) "content-type")
    (data (i32.const 1040) "text/plain")
    (data (i32.const 1056) "{body}")
    (data (i32.const 1100) "connection")
    (data (i32.const 1120) "close")
    (data (i32.const 1136) "x-weft")
    (data (i32.const 1152) "p3")
    (data (i32.const 1168) "denied\n")
    (data (i32.const 1184) "refused otherwise\n")
    (data (i32.const 1216) "fetched\n")
    (data (i32.const 1224) "/")
    (data (i32.const 1232) "{auth}")
    (data (i32.const 1300) "x-trailer")
    (data (i32.const 1316) "done")
    (data (i32.const 1332) "content-length")
    (data (i32.const 1348) "5")

    (func $wait (result i32)
      (i32.or (i32.const 2) (i32.shl (global.get $ws) (i32.const 4))))

    ;; Makes the response (status, headers, a body stream, a trailers
    ;; future), returns it, and starts writing `len` bytes from `ptr`.
    (func $respond (param $status i32) (param $headers i32) (param $ptr i32) (param $len i32)
      (local $e i64) (local $body-rx i32) (local $tr-rx i32) (local $resp i32)
      (local.set $e (call $s-new))
      (local.set $body-rx (i32.wrap_i64 (local.get $e)))
      (global.set $body-tx (i32.wrap_i64 (i64.shr_u (local.get $e) (i64.const 32))))
      (local.set $e (call $tf-new))
      (local.set $tr-rx (i32.wrap_i64 (local.get $e)))
      (global.set $tr-tx (i32.wrap_i64 (i64.shr_u (local.get $e) (i64.const 32))))
      (call $resp-new (local.get $headers) (i32.const 1) (local.get $body-rx) (local.get $tr-rx) (i32.const 64))
      (local.set $resp (i32.load (i32.const 64)))
      (call $rf-drop-r (i32.load (i32.const 68)))
      (if (call $resp-set-status (local.get $resp) (local.get $status)) (then unreachable))
      (call $task-return (i32.const 0) (local.get $resp) (i32.const 0) (i64.const 0)
        (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))
      (global.set $ptr (local.get $ptr))
      (global.set $left (local.get $len))
      (global.set $phase (i32.const 1)))

    ;; Writes `ok` (zeroes at 256) to the future `tx` (`rf`: of
    ;; `result<_, error-code>`, else a trailers future); drops it once
    ;; written.
    (func $fwrite (param $tx i32) (param $rf i32)
      (local $r i32)
      (if (local.get $rf)
        (then (local.set $r (call $rf-write (local.get $tx) (i32.const 256))))
        (else (local.set $r (call $tf-write (local.get $tx) (i32.const 256)))))
      (if (i32.eq (local.get $r) (i32.const -1))
        (then
          (call $join (local.get $tx) (global.get $ws))
          (global.set $pending (i32.add (global.get $pending) (i32.const 1))))
        (else (if (local.get $rf)
          (then (call $rf-drop-w (local.get $tx)))
          (else (call $tf-drop-w (local.get $tx)))))))

    ;; Writes `ok(some(x-trailer: done))` to the response's trailers
    ;; future (the value at 288 of the block: ok, some, the fields'
    ;; handle).
    (func $write-trailers
      (local $t i32) (local $r i32)
      (local.set $t (call $fields-new))
      (call $fields-append (local.get $t) (i32.const 1300) (i32.const 9) (i32.const 1316) (i32.const 4) (i32.const 32))
      (if (i32.load8_u (i32.const 32)) (then unreachable))
      (i32.store8 offset=288 (global.get $blk) (i32.const 0))
      (i32.store8 offset=296 (global.get $blk) (i32.const 1))
      (i32.store offset=300 (global.get $blk) (local.get $t))
      (local.set $r (call $tf-write (global.get $tr-tx) (i32.add (global.get $blk) (i32.const 288))))
      (if (i32.eq (local.get $r) (i32.const -1))
        (then
          (call $join (global.get $tr-tx) (global.get $ws))
          (global.set $pending (i32.add (global.get $pending) (i32.const 1))))
        (else
          ;; DROPPED: the reader is gone and the trailers stay ours.
          (if (i32.eq (i32.and (local.get $r) (i32.const 0xf)) (i32.const 1))
            (then (call $drop-fields (local.get $t))))
          (call $tf-drop-w (global.get $tr-tx)))))

    ;; Counts what a body write moved; a dropped reader ends the body.
    (func $advance (param $r i32)
      (local $n i32)
      (local.set $n (i32.shr_u (local.get $r) (i32.const 4)))
      (global.set $ptr (i32.add (global.get $ptr) (local.get $n)))
      (global.set $left (i32.sub (global.get $left) (local.get $n)))
      (if (i32.eq (i32.and (local.get $r) (i32.const 0xf)) (i32.const 1)) (then
        (global.set $left (i32.const 0))
        (global.set $eof (i32.const 1)))))

    ;; What a read of the request's body gave: write it back.
    (func $got (param $r i32)
      (if (i32.eq (i32.and (local.get $r) (i32.const 0xf)) (i32.const 1)) (then
        (global.set $eof (i32.const 1))))
      (global.set $ptr (i32.add (global.get $blk) (i32.const 4096)))
      (global.set $left (i32.shr_u (local.get $r) (i32.const 4)))
      (global.set $phase (i32.const 1)))

    ;; The result of `send` at 160 of the block: answer with what it says.
    (func $sent
      (local $resp i32)
      (if (i32.eqz (i32.load8_u offset=160 (global.get $blk))) (then
        (local.set $resp (i32.load offset=168 (global.get $blk)))
        (call $respond (call $resp-get-status (local.get $resp)) (call $fields-new) (i32.const 1216) (i32.const 8))
        (call $drop-response (local.get $resp))
        (return)))
      (if (i32.eq (i32.load8_u offset=168 (global.get $blk)) (i32.const 15)) (then
        (call $respond (i32.const 403) (call $fields-new) (i32.const 1168) (i32.const 7))
        (return)))
      (call $respond (i32.const 502) (call $fields-new) (i32.const 1184) (i32.const 18)))

    ;; Moves the state machine on until it must wait; the callback code.
    (func $step (result i32)
      (local $r i32)
      (if (global.get $busy) (then (return (call $wait))))
      (loop $again
        (if (i32.eq (global.get $phase) (i32.const 1)) (then
          (if (i32.eqz (global.get $left)) (then
            (if (i32.and (i32.eq (global.get $mode) (i32.const 1)) (i32.eqz (global.get $eof)))
              (then (global.set $phase (i32.const 2)))
              (else (global.set $phase (i32.const 4))))
            (br $again)))
          (local.set $r (call $s-write (global.get $body-tx) (global.get $ptr) (global.get $left)))
          (if (i32.eq (local.get $r) (i32.const -1)) (then
            (call $join (global.get $body-tx) (global.get $ws))
            (global.set $busy (i32.const 1))
            (return (call $wait))))
          (call $advance (local.get $r))
          (br $again)))
        (if (i32.eq (global.get $phase) (i32.const 2)) (then
          (local.set $r (call $s-read (global.get $in-rx) (i32.add (global.get $blk) (i32.const 4096)) (i32.const 4096)))
          (if (i32.eq (local.get $r) (i32.const -1)) (then
            (call $join (global.get $in-rx) (global.get $ws))
            (global.set $busy (i32.const 1))
            (return (call $wait))))
          (call $got (local.get $r))
          (br $again)))
        (if (i32.eq (global.get $phase) (i32.const 4)) (then
          (call $s-drop-w (global.get $body-tx))
          (if (i32.eq (global.get $mode) (i32.const 1)) (then
            (call $s-drop-r (global.get $in-rx))
            (call $fwrite (global.get $res-tx) (i32.const 1))))
          (if (i32.eq (global.get $mode) (i32.const 5))
            (then (call $write-trailers))
            (else (call $fwrite (global.get $tr-tx) (i32.const 0))))
          (global.set $phase (i32.const 5))
          (br $again)))
        (if (i32.eq (global.get $phase) (i32.const 5)) (then
          (if (global.get $pending) (then (return (call $wait))))
          (return (i32.const 0)))))
      (call $wait))

    ;; The task's globals to its block, or its waitable set dropped and
    ;; the block back to the free list once the task is done (`code` 0,
    ;; `EXIT`); gives `code`.
    (func $leave (param $code i32) (result i32)
      (if (i32.eqz (local.get $code)) (then
        (call $ws-drop (global.get $ws))
        (i32.store (global.get $blk) (global.get $free))
        (global.set $free (global.get $blk))
        (return (i32.const 0))))
      (i32.store offset=0 (global.get $blk) (global.get $ws))
      (i32.store offset=4 (global.get $blk) (global.get $phase))
      (i32.store offset=8 (global.get $blk) (global.get $pending))
      (i32.store offset=12 (global.get $blk) (global.get $body-tx))
      (i32.store offset=16 (global.get $blk) (global.get $tr-tx))
      (i32.store offset=20 (global.get $blk) (global.get $in-rx))
      (i32.store offset=24 (global.get $blk) (global.get $res-tx))
      (i32.store offset=28 (global.get $blk) (global.get $ptr))
      (i32.store offset=32 (global.get $blk) (global.get $left))
      (i32.store offset=36 (global.get $blk) (global.get $eof))
      (i32.store offset=40 (global.get $blk) (global.get $busy))
      (local.get $code))

    ;; The running task's globals from its block (`context.get`).
    (func $resume
      (global.set $blk (call $ctx-get))
      (global.set $ws (i32.load offset=0 (global.get $blk)))
      (global.set $phase (i32.load offset=4 (global.get $blk)))
      (global.set $pending (i32.load offset=8 (global.get $blk)))
      (global.set $body-tx (i32.load offset=12 (global.get $blk)))
      (global.set $tr-tx (i32.load offset=16 (global.get $blk)))
      (global.set $in-rx (i32.load offset=20 (global.get $blk)))
      (global.set $res-tx (i32.load offset=24 (global.get $blk)))
      (global.set $ptr (i32.load offset=28 (global.get $blk)))
      (global.set $left (i32.load offset=32 (global.get $blk)))
      (global.set $eof (i32.load offset=36 (global.get $blk)))
      (global.set $busy (i32.load offset=40 (global.get $blk))))

    ;; A new task: a block of its own (traps beyond `TASKS` at once) and
    ;; its globals reset.
    (func $begin
      (if (global.get $free)
        (then
          (global.set $blk (global.get $free))
          (global.set $free (i32.load (global.get $free))))
        (else
          (if (i32.ge_u (global.get $fresh) (i32.const {tasks})) (then unreachable))
          (global.set $blk (i32.add (i32.const 65536) (i32.mul (global.get $fresh) (i32.const 8192))))
          (global.set $fresh (i32.add (global.get $fresh) (i32.const 1)))))
      (call $ctx-set (global.get $blk))
      (global.set $phase (i32.const 0))
      (global.set $pending (i32.const 0))
      (global.set $eof (i32.const 0))
      (global.set $busy (i32.const 0)))

    (func (export "handle") (param $req i32) (result i32)
      (call $begin)
      (call $leave (call $handle (local.get $req))))

    (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
      (call $resume)
      (call $leave (call $cb (local.get $event) (local.get $index) (local.get $payload))))

    (func $handle (param $req i32) (result i32)
      (local $h i32) (local $e i64) (local $r i32) (local $tr-tx i32) (local $out i32)
      (global.set $ws (call $ws-new))
      (if (i32.or (i32.or (i32.eqz (global.get $mode)) (i32.eq (global.get $mode) (i32.const 5)))
                  (i32.eq (global.get $mode) (i32.const 6))) (then
        (call $drop-request (local.get $req))
        (local.set $h (call $fields-new))
        (if (i32.eq (global.get $mode) (i32.const 6)) (then
          (call $fields-append (local.get $h) (i32.const 1332) (i32.const 14) (i32.const 1348) (i32.const 1) (i32.const 32))
          (if (i32.load8_u (i32.const 32)) (then unreachable))))
        (call $fields-append (local.get $h) (i32.const 1024) (i32.const 12) (i32.const 1040) (i32.const 10) (i32.const 32))
        (if (i32.load8_u (i32.const 32)) (then unreachable))
        (call $fields-append (local.get $h) (i32.const 1136) (i32.const 6) (i32.const 1152) (i32.const 2) (i32.const 32))
        (if (i32.load8_u (i32.const 32)) (then unreachable))
        (call $respond (i32.const 201) (local.get $h) (i32.const 1056) (i32.const {body_len}))
        (return (call $step))))
      (if (i32.eq (global.get $mode) (i32.const 1)) (then
        (local.set $e (call $rf-new))
        (global.set $res-tx (i32.wrap_i64 (i64.shr_u (local.get $e) (i64.const 32))))
        (call $req-consume (local.get $req) (i32.wrap_i64 (local.get $e)) (i32.const 96))
        (global.set $in-rx (i32.load (i32.const 96)))
        (call $tf-drop-r (i32.load (i32.const 100)))
        (call $respond (i32.const 200) (call $fields-new) (i32.const 0) (i32.const 0))
        (global.set $phase (i32.const 2))
        (return (call $step))))
      (if (i32.or (i32.eq (global.get $mode) (i32.const 2)) (i32.eq (global.get $mode) (i32.const 7))) (then
        (call $drop-request (local.get $req))
        (local.set $e (call $tf-new))
        (local.set $tr-tx (i32.wrap_i64 (i64.shr_u (local.get $e) (i64.const 32))))
        (call $req-new (call $fields-new) (i32.const 0) (i32.const 0) (i32.wrap_i64 (local.get $e))
          (i32.const 0) (i32.const 0) (i32.const 128))
        (local.set $out (i32.load (i32.const 128)))
        (call $rf-drop-r (i32.load (i32.const 132)))
        (if (i32.eq (global.get $mode) (i32.const 2)) (then
          (if (call $req-set-scheme (local.get $out) (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0))
            (then unreachable))))
        (if (call $req-set-authority (local.get $out) (i32.const 1) (i32.const 1232) (i32.const {auth_len}))
          (then unreachable))
        (if (call $req-set-path (local.get $out) (i32.const 1) (i32.const 1224) (i32.const 1))
          (then unreachable))
        (call $fwrite (local.get $tr-tx) (i32.const 0))
        (local.set $r (call $send (local.get $out) (i32.add (global.get $blk) (i32.const 160))))
        (if (i32.eq (i32.and (local.get $r) (i32.const 0xf)) (i32.const 2)) (then
          (call $sent)
          (return (call $step))))
        (call $join (i32.shr_u (local.get $r) (i32.const 4)) (global.get $ws))
        (global.set $phase (i32.const 6))
        (return (call $wait))))
      (if (i32.eq (global.get $mode) (i32.const 3)) (then
        (local.set $h (call $fields-new))
        (call $fields-append (local.get $h) (i32.const 1100) (i32.const 10) (i32.const 1120) (i32.const 5) (i32.const 32))
        (local.set $r (i32.const 200))
        ;; err(forbidden): the result's case 1, the error's case 1.
        (if (i32.ne (i32.load8_u (i32.const 32)) (i32.const 1)) (then (local.set $r (i32.const 500))))
        (if (i32.ne (i32.load8_u offset=4 (i32.const 32)) (i32.const 1)) (then (local.set $r (i32.const 501))))
        (local.set $out (call $req-headers (local.get $req)))
        (call $fields-append (local.get $out) (i32.const 1136) (i32.const 6) (i32.const 1152) (i32.const 2) (i32.const 32))
        ;; err(immutable): the error's case 2.
        (if (i32.ne (i32.load8_u (i32.const 32)) (i32.const 1)) (then (local.set $r (i32.const 502))))
        (if (i32.ne (i32.load8_u offset=4 (i32.const 32)) (i32.const 2)) (then (local.set $r (i32.const 503))))
        (call $drop-fields (local.get $out))
        (call $drop-request (local.get $req))
        (call $respond (local.get $r) (local.get $h) (i32.const 1056) (i32.const {body_len}))
        (return (call $step))))
      unreachable)

    (func $cb (param $event i32) (param $index i32) (param $payload i32) (result i32)
      (call $join (local.get $index) (i32.const 0))
      ;; SUBTASK: `send` returned.
      (if (i32.eq (local.get $event) (i32.const 1)) (then
        (if (i32.ne (local.get $payload) (i32.const 2)) (then
          (call $join (local.get $index) (global.get $ws))
          (return (call $wait))))
        (call $subtask-drop (local.get $index))
        (call $sent)))
      ;; STREAM_READ
      (if (i32.eq (local.get $event) (i32.const 2)) (then
        (global.set $busy (i32.const 0))
        (call $got (local.get $payload))))
      ;; STREAM_WRITE
      (if (i32.eq (local.get $event) (i32.const 3)) (then
        (global.set $busy (i32.const 0))
        (call $advance (local.get $payload))))
      ;; FUTURE_WRITE
      (if (i32.eq (local.get $event) (i32.const 5)) (then
        (if (i32.eq (local.get $index) (global.get $res-tx))
          (then (call $rf-drop-w (local.get $index)))
          (else (call $tf-drop-w (local.get $index))))
        (global.set $pending (i32.sub (global.get $pending) (i32.const 1)))))
      (call $step)))

  (core instance $i (instantiate $m
    (with "libc" (instance $libc))
    (with "h" (instance
      (export "fields-new" (func $fields-new))
      (export "fields-append" (func $fields-append))
      (export "req-new" (func $req-new))
      (export "req-set-scheme" (func $req-set-scheme))
      (export "req-set-authority" (func $req-set-authority))
      (export "req-set-path" (func $req-set-path))
      (export "req-headers" (func $req-headers))
      (export "req-consume" (func $req-consume))
      (export "resp-new" (func $resp-new))
      (export "resp-get-status" (func $resp-get-status))
      (export "resp-set-status" (func $resp-set-status))
      (export "send" (func $send))
      (export "task-return" (func $task-return))
      (export "s-new" (func $s-new))
      (export "s-read" (func $s-read))
      (export "s-write" (func $s-write))
      (export "s-drop-r" (func $s-drop-r))
      (export "s-drop-w" (func $s-drop-w))
      (export "tf-new" (func $tf-new))
      (export "tf-write" (func $tf-write))
      (export "tf-drop-r" (func $tf-drop-r))
      (export "tf-drop-w" (func $tf-drop-w))
      (export "rf-new" (func $rf-new))
      (export "rf-write" (func $rf-write))
      (export "rf-drop-r" (func $rf-drop-r))
      (export "rf-drop-w" (func $rf-drop-w))
      (export "ws-new" (func $ws-new))
      (export "ws-drop" (func $ws-drop))
      (export "join" (func $join))
      (export "subtask-drop" (func $subtask-drop))
      (export "drop-fields" (func $drop-fields))
      (export "drop-request" (func $drop-request))
      (export "drop-response" (func $drop-response))
      (export "ctx-get" (func $ctx-get))
      (export "ctx-set" (func $ctx-set))))))

  (func $handle async (param "request" (own $req)) (result (result (own $resp) (error $ec)))
    (canon lift (core func $i "handle") async (callback (core func $i "cb")) (memory $mem) (realloc $realloc)))
  (instance $handler (export "handle" (func $handle)))
  (export "wasi:http/handler@0.3.0" (instance $handler)))
"#
    )
}
