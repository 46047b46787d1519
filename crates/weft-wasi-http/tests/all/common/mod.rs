// wasi:http proxy components for the tests, written in WAT: one component
// that imports the parts of `wasi:io/streams`, `wasi:http/types` and
// `wasi:http/outgoing-handler` the guests use (under a chosen 0.2.x
// version) and exports `wasi:http/incoming-handler.handle`, around a core
// module whose `$handle (param $req i32) (param $out i32)` is each guest's
// own.
//
// The core module sees each lowered function under module `h`, the memory
// and `realloc` of a small "libc" instance, and helpers: `$start` (sets a
// response of a status and headers on the outparam and returns the body's
// output stream), `$write-all` (pointer, length) and `$finish` (drops the
// stream and finishes the body). Addresses 0..1024 are scratch (return
// areas), data strings live from 2048, and `realloc` hands out memory
// from 65536.

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

/// Answers 200 with `content-type: text/plain` and a fixed body.
pub const FIXED: &str = r#"
    (data (i32.const 2048) "hello from weft serve\n")
    (data (i32.const 2100) "content-type")
    (data (i32.const 2120) "text/plain")
    (func $handle (param $req i32) (param $out i32)
      (local $h i32) (local $s i32)
      (local.set $h (call $fields-new))
      (call $fields-append (local.get $h) (i32.const 2100) (i32.const 12) (i32.const 2120) (i32.const 10) (i32.const 0))
      (if (i32.load8_u (i32.const 0)) (then unreachable))
      (local.set $s (call $start (local.get $out) (i32.const 200) (local.get $h)))
      (call $write-all (local.get $s) (i32.const 2048) (i32.const 22))
      (call $finish (local.get $s)))
"#;

/// The body of `FIXED`'s answer.
pub const FIXED_BODY: &str = "hello from weft serve\n";

/// Answers 200 with the request's headers, an `x-path` header holding its
/// path and query, and its body.
pub const ECHO: &str = r#"
    (data (i32.const 2200) "x-path")
    (func $handle (param $req i32) (param $out i32)
      (local $h i32) (local $s i32) (local $in i32) (local $ib i32)
      (call $fields-entries (call $req-headers (local.get $req)) (i32.const 0))
      (call $fields-from-list (i32.load (i32.const 0)) (i32.load (i32.const 4)) (i32.const 16))
      (if (i32.load8_u (i32.const 16)) (then unreachable))
      (local.set $h (i32.load (i32.const 20)))
      (call $req-path (local.get $req) (i32.const 32))
      (if (i32.load8_u (i32.const 32)) (then
        (call $fields-append (local.get $h) (i32.const 2200) (i32.const 6)
          (i32.load (i32.const 36)) (i32.load (i32.const 40)) (i32.const 48))
        (if (i32.load8_u (i32.const 48)) (then unreachable))))
      (call $req-consume (local.get $req) (i32.const 0))
      (if (i32.load8_u (i32.const 0)) (then unreachable))
      (local.set $ib (i32.load (i32.const 4)))
      (call $body-stream (local.get $ib) (i32.const 0))
      (if (i32.load8_u (i32.const 0)) (then unreachable))
      (local.set $in (i32.load (i32.const 4)))
      (local.set $s (call $start (local.get $out) (i32.const 200) (local.get $h)))
      (block $done
        (loop $next
          (call $read (local.get $in) (i64.const 4096) (i32.const 64))
          (br_if $done (i32.load8_u (i32.const 64)))
          (call $write-all (local.get $s) (i32.load (i32.const 68)) (i32.load (i32.const 72)))
          (br $next)))
      (call $drop-input (local.get $in))
      (call $drop-ibody (local.get $ib))
      (call $finish (local.get $s)))
"#;

/// Reads the request's whole body before it answers 200 with an empty
/// body: a body that never ends keeps it waiting before its response.
pub const READ_FIRST: &str = r#"
    (func $handle (param $req i32) (param $out i32)
      (local $in i32) (local $ib i32)
      (call $req-consume (local.get $req) (i32.const 0))
      (if (i32.load8_u (i32.const 0)) (then unreachable))
      (local.set $ib (i32.load (i32.const 4)))
      (call $body-stream (local.get $ib) (i32.const 0))
      (if (i32.load8_u (i32.const 0)) (then unreachable))
      (local.set $in (i32.load (i32.const 4)))
      (block $done
        (loop $next
          (call $read (local.get $in) (i64.const 4096) (i32.const 64))
          (br_if $done (i32.load8_u (i32.const 64)))
          (br $next)))
      (call $drop-input (local.get $in))
      (call $drop-ibody (local.get $ib))
      (call $finish (call $start (local.get $out) (i32.const 200) (call $fields-new))))
"#;

/// Traps before it answers.
pub const TRAP: &str = r#"
    (func $handle (param $req i32) (param $out i32)
      unreachable)
"#;

/// Answers with the error code `internal-error(none)` instead of a
/// response.
pub const ERROR_CODE_ANSWER: &str = r#"
    (func $handle (param $req i32) (param $out i32)
      (call $outparam-set (local.get $out) (i32.const 1) (i32.const 38)
        (i32.const 0) (i64.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)))
"#;

/// Sends a request to `example.com` with `wasi:http/outgoing-handler`:
/// answers 403 `denied` when it is refused with `HTTP-request-denied`,
/// 502 `refused otherwise` for another error, and 200 `sent` when the
/// request went out.
pub const OUTGOING: &str = r#"
    (data (i32.const 2048) "denied\n")
    (data (i32.const 2064) "refused otherwise\n")
    (data (i32.const 2096) "sent\n")
    (data (i32.const 2112) "example.com")
    (func $handle (param $req i32) (param $out i32)
      (local $r i32) (local $s i32)
      (local.set $r (call $oreq-new (call $fields-new)))
      (if (call $oreq-set-authority (local.get $r) (i32.const 1) (i32.const 2112) (i32.const 11)) (then unreachable))
      (call $oh-handle (local.get $r) (i32.const 0) (i32.const 0) (i32.const 0))
      (if (i32.eqz (i32.load8_u (i32.const 0))) (then
        (local.set $s (call $start (local.get $out) (i32.const 200) (call $fields-new)))
        (call $write-all (local.get $s) (i32.const 2096) (i32.const 5))
        (call $finish (local.get $s))
        (return)))
      (if (i32.eq (i32.load8_u (i32.const 8)) (i32.const 15)) (then
        (local.set $s (call $start (local.get $out) (i32.const 403) (call $fields-new)))
        (call $write-all (local.get $s) (i32.const 2048) (i32.const 7))
        (call $finish (local.get $s))
        (return)))
      (local.set $s (call $start (local.get $out) (i32.const 502) (call $fields-new)))
      (call $write-all (local.get $s) (i32.const 2064) (i32.const 18))
      (call $finish (local.get $s)))
"#;

/// The component text of a proxy importing WASI `version` whose core
/// module holds `guest` (which defines `$handle`).
pub fn proxy(version: &str, guest: &str) -> String {
    let v = version;
    format!(
        r#"(component
  (import "wasi:io/error@{v}" (instance $io-error (export "error" (type (sub resource)))))
  (alias export $io-error "error" (type $error))
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
  (import "wasi:http/types@{v}" (instance $types
    (alias outer 1 $input-stream (type $is')) (export "input-stream" (type $is (eq $is')))
    (alias outer 1 $output-stream (type $os')) (export "output-stream" (type $os (eq $os')))
    (type $dns' (record (field "rcode" (option string)) (field "info-code" (option u16))))
    (export "DNS-error-payload" (type $dns (eq $dns')))
    (type $tls' (record (field "alert-id" (option u8)) (field "alert-message" (option string))))
    (export "TLS-alert-received-payload" (type $tls (eq $tls')))
    (type $fsp' (record (field "field-name" (option string)) (field "field-size" (option u32))))
    (export "field-size-payload" (type $fsp (eq $fsp')))
    (type $ec' {ERROR_CODE})
    (export "error-code" (type $ec (eq $ec')))
    (type $he' (variant (case "invalid-syntax") (case "forbidden") (case "immutable")))
    (export "header-error" (type $he (eq $he')))
    (export "fields" (type $fields (sub resource)))
    (export "incoming-request" (type $ireq (sub resource)))
    (export "outgoing-request" (type $oreq (sub resource)))
    (export "request-options" (type $ropts (sub resource)))
    (export "response-outparam" (type $out (sub resource)))
    (export "incoming-body" (type $ibody (sub resource)))
    (export "outgoing-response" (type $oresp (sub resource)))
    (export "outgoing-body" (type $obody (sub resource)))
    (export "future-incoming-response" (type $fir (sub resource)))
    (export "[constructor]fields" (func (result (own $fields))))
    (export "[static]fields.from-list" (func (param "entries" (list (tuple string (list u8))))
      (result (result (own $fields) (error $he)))))
    (export "[method]fields.append" (func (param "self" (borrow $fields)) (param "name" string) (param "value" (list u8))
      (result (result (error $he)))))
    (export "[method]fields.entries" (func (param "self" (borrow $fields)) (result (list (tuple string (list u8))))))
    (export "[method]incoming-request.headers" (func (param "self" (borrow $ireq)) (result (own $fields))))
    (export "[method]incoming-request.path-with-query" (func (param "self" (borrow $ireq)) (result (option string))))
    (export "[method]incoming-request.consume" (func (param "self" (borrow $ireq)) (result (result (own $ibody)))))
    (export "[method]incoming-body.stream" (func (param "self" (borrow $ibody)) (result (result (own $is)))))
    (export "[constructor]outgoing-response" (func (param "headers" (own $fields)) (result (own $oresp))))
    (export "[method]outgoing-response.set-status-code" (func (param "self" (borrow $oresp)) (param "status-code" u16)
      (result (result))))
    (export "[method]outgoing-response.body" (func (param "self" (borrow $oresp)) (result (result (own $obody)))))
    (export "[method]outgoing-body.write" (func (param "self" (borrow $obody)) (result (result (own $os)))))
    (export "[static]outgoing-body.finish" (func (param "this" (own $obody)) (param "trailers" (option (own $fields)))
      (result (result (error $ec)))))
    (export "[static]response-outparam.set" (func (param "param" (own $out))
      (param "response" (result (own $oresp) (error $ec)))))
    (export "[constructor]outgoing-request" (func (param "headers" (own $fields)) (result (own $oreq))))
    (export "[method]outgoing-request.set-authority" (func (param "self" (borrow $oreq))
      (param "authority" (option string)) (result (result))))))
  (alias export $types "error-code" (type $error-code))
  (alias export $types "fields" (type $fields))
  (alias export $types "incoming-request" (type $ireq))
  (alias export $types "outgoing-request" (type $oreq))
  (alias export $types "request-options" (type $ropts))
  (alias export $types "response-outparam" (type $out))
  (alias export $types "incoming-body" (type $ibody))
  (alias export $types "future-incoming-response" (type $fir))
  (import "wasi:http/outgoing-handler@{v}" (instance $oh
    (alias outer 1 $oreq (type $oreq')) (export "outgoing-request" (type $oreq (eq $oreq')))
    (alias outer 1 $ropts (type $ropts')) (export "request-options" (type $ropts (eq $ropts')))
    (alias outer 1 $fir (type $fir')) (export "future-incoming-response" (type $fir (eq $fir')))
    (alias outer 1 $error-code (type $ec')) (export "error-code" (type $ec (eq $ec')))
    (export "handle" (func (param "request" (own $oreq)) (param "options" (option (own $ropts)))
      (result (result (own $fir) (error $ec)))))))

  (core module $libc
    (memory (export "mem") 2)
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

  (core func $fields-new (canon lower (func $types "[constructor]fields")))
  (core func $fields-from-list (canon lower (func $types "[static]fields.from-list") (memory $mem) (realloc $realloc)))
  (core func $fields-append (canon lower (func $types "[method]fields.append") (memory $mem) (realloc $realloc)))
  (core func $fields-entries (canon lower (func $types "[method]fields.entries") (memory $mem) (realloc $realloc)))
  (core func $req-headers (canon lower (func $types "[method]incoming-request.headers")))
  (core func $req-path (canon lower (func $types "[method]incoming-request.path-with-query") (memory $mem) (realloc $realloc)))
  (core func $req-consume (canon lower (func $types "[method]incoming-request.consume") (memory $mem)))
  (core func $body-stream (canon lower (func $types "[method]incoming-body.stream") (memory $mem)))
  (core func $resp-new (canon lower (func $types "[constructor]outgoing-response")))
  (core func $resp-status (canon lower (func $types "[method]outgoing-response.set-status-code")))
  (core func $resp-body (canon lower (func $types "[method]outgoing-response.body") (memory $mem)))
  (core func $obody-write (canon lower (func $types "[method]outgoing-body.write") (memory $mem)))
  (core func $obody-finish (canon lower (func $types "[static]outgoing-body.finish") (memory $mem) (realloc $realloc)))
  (core func $outparam-set (canon lower (func $types "[static]response-outparam.set") (memory $mem) (realloc $realloc)))
  (core func $oreq-new (canon lower (func $types "[constructor]outgoing-request")))
  (core func $oreq-set-authority (canon lower (func $types "[method]outgoing-request.set-authority") (memory $mem) (realloc $realloc)))
  (core func $oh-handle (canon lower (func $oh "handle") (memory $mem) (realloc $realloc)))
  (core func $read (canon lower (func $streams "[method]input-stream.blocking-read") (memory $mem) (realloc $realloc)))
  (core func $write (canon lower (func $streams "[method]output-stream.blocking-write-and-flush") (memory $mem) (realloc $realloc)))
  (core func $drop-input (canon resource.drop $input-stream))
  (core func $drop-output (canon resource.drop $output-stream))
  (core func $drop-ibody (canon resource.drop $ibody))

  (core module $m
    (import "libc" "mem" (memory 1))
    (import "libc" "realloc" (func $realloc (param i32 i32 i32 i32) (result i32)))
    (import "h" "fields-new" (func $fields-new (result i32)))
    (import "h" "fields-from-list" (func $fields-from-list (param i32 i32 i32)))
    (import "h" "fields-append" (func $fields-append (param i32 i32 i32 i32 i32 i32)))
    (import "h" "fields-entries" (func $fields-entries (param i32 i32)))
    (import "h" "req-headers" (func $req-headers (param i32) (result i32)))
    (import "h" "req-path" (func $req-path (param i32 i32)))
    (import "h" "req-consume" (func $req-consume (param i32 i32)))
    (import "h" "body-stream" (func $body-stream (param i32 i32)))
    (import "h" "resp-new" (func $resp-new (param i32) (result i32)))
    (import "h" "resp-status" (func $resp-status (param i32 i32) (result i32)))
    (import "h" "resp-body" (func $resp-body (param i32 i32)))
    (import "h" "obody-write" (func $obody-write (param i32 i32)))
    (import "h" "obody-finish" (func $obody-finish (param i32 i32 i32 i32)))
    (import "h" "outparam-set" (func $outparam-set (param i32 i32 i32 i32 i64 i32 i32 i32 i32)))
    (import "h" "oreq-new" (func $oreq-new (param i32) (result i32)))
    (import "h" "oreq-set-authority" (func $oreq-set-authority (param i32 i32 i32 i32) (result i32)))
    (import "h" "oh-handle" (func $oh-handle (param i32 i32 i32 i32)))
    (import "h" "read" (func $read (param i32 i64 i32)))
    (import "h" "write" (func $write (param i32 i32 i32 i32)))
    (import "h" "drop-input" (func $drop-input (param i32)))
    (import "h" "drop-output" (func $drop-output (param i32)))
    (import "h" "drop-ibody" (func $drop-ibody (param i32)))
    (global $obody (mut i32) (i32.const 0))

    ;; Sets a response of `status` and `headers` on `out`; returns the
    ;; body's output stream.
    (func $start (param $out i32) (param $status i32) (param $headers i32) (result i32)
      (local $resp i32) (local $stream i32)
      (local.set $resp (call $resp-new (local.get $headers)))
      (if (call $resp-status (local.get $resp) (local.get $status)) (then unreachable))
      (call $resp-body (local.get $resp) (i32.const 512))
      (if (i32.load8_u (i32.const 512)) (then unreachable))
      (global.set $obody (i32.load (i32.const 516)))
      (call $obody-write (global.get $obody) (i32.const 512))
      (if (i32.load8_u (i32.const 512)) (then unreachable))
      (local.set $stream (i32.load (i32.const 516)))
      (call $outparam-set (local.get $out) (i32.const 0) (local.get $resp)
        (i32.const 0) (i64.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))
      (local.get $stream))

    ;; Writes `len` bytes from `ptr` to `stream`, 4096 at a time.
    (func $write-all (param $stream i32) (param $ptr i32) (param $len i32)
      (local $n i32)
      (block $done
        (loop $next
          (br_if $done (i32.eqz (local.get $len)))
          (local.set $n (select (i32.const 4096) (local.get $len) (i32.gt_u (local.get $len) (i32.const 4096))))
          (call $write (local.get $stream) (local.get $ptr) (local.get $n) (i32.const 512))
          (if (i32.load8_u (i32.const 512)) (then unreachable))
          (local.set $ptr (i32.add (local.get $ptr) (local.get $n)))
          (local.set $len (i32.sub (local.get $len) (local.get $n)))
          (br $next))))

    ;; Drops the body's stream and finishes the body.
    (func $finish (param $stream i32)
      (call $drop-output (local.get $stream))
      (call $obody-finish (global.get $obody) (i32.const 0) (i32.const 0) (i32.const 512))
      (if (i32.load8_u (i32.const 512)) (then unreachable)))

    {guest}
    (export "handle" (func $handle)))

  (core instance $i (instantiate $m
    (with "libc" (instance $libc))
    (with "h" (instance
      (export "fields-new" (func $fields-new))
      (export "fields-from-list" (func $fields-from-list))
      (export "fields-append" (func $fields-append))
      (export "fields-entries" (func $fields-entries))
      (export "req-headers" (func $req-headers))
      (export "req-path" (func $req-path))
      (export "req-consume" (func $req-consume))
      (export "body-stream" (func $body-stream))
      (export "resp-new" (func $resp-new))
      (export "resp-status" (func $resp-status))
      (export "resp-body" (func $resp-body))
      (export "obody-write" (func $obody-write))
      (export "obody-finish" (func $obody-finish))
      (export "outparam-set" (func $outparam-set))
      (export "oreq-new" (func $oreq-new))
      (export "oreq-set-authority" (func $oreq-set-authority))
      (export "oh-handle" (func $oh-handle))
      (export "read" (func $read))
      (export "write" (func $write))
      (export "drop-input" (func $drop-input))
      (export "drop-output" (func $drop-output))
      (export "drop-ibody" (func $drop-ibody))))))

  (func $handle (param "request" (own $ireq)) (param "response-out" (own $out))
    (canon lift (core func $i "handle")))
  (instance $handler (export "handle" (func $handle)))
  (export "wasi:http/incoming-handler@{v}" (instance $handler)))
"#
    )
}
