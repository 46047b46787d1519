;; A WASI 0.2 command component (for weft_wasip2.c): `wasi:cli/run`'s `run`
;; prints a greeting, its arguments (one a line) and its environment
;; (NAME=VALUE lines) to stdout, then returns `ok`, unless the environment
;; has `FAIL`, when it returns `err`.
(component
  (import "wasi:io/error@0.2.0" (instance $io-error (export "error" (type (sub resource)))))
  (alias export $io-error "error" (type $error))
  (import "wasi:io/streams@0.2.0" (instance $streams
    (alias outer 1 $error (type $error'))
    (export "error" (type $err (eq $error')))
    (type $stream-error' (variant (case "last-operation-failed" (own $err)) (case "closed")))
    (export "stream-error" (type $stream-error (eq $stream-error')))
    (export "output-stream" (type $output (sub resource)))
    (export "[method]output-stream.blocking-write-and-flush"
      (func (param "self" (borrow $output)) (param "contents" (list u8)) (result (result (error $stream-error)))))))
  (alias export $streams "output-stream" (type $output-stream))
  (import "wasi:cli/environment@0.2.0" (instance $env
    (export "get-environment" (func (result (list (tuple string string)))))
    (export "get-arguments" (func (result (list string))))))
  (import "wasi:cli/stdout@0.2.0" (instance $stdout
    (alias outer 1 $output-stream (type $o))
    (export "output-stream" (type $os (eq $o)))
    (export "get-stdout" (func (result (own $os))))))

  (core module $libc
    (memory (export "mem") 1)
    (global $bump (mut i32) (i32.const 8192))
    ;; A bump allocator (never frees; the runs are short).
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and (i32.add (global.get $bump) (i32.sub (local.get 2) (i32.const 1)))
                             (i32.sub (i32.const 0) (local.get 2))))
      (global.set $bump (i32.add (local.get $p) (local.get 3)))
      (if (i32.gt_u (global.get $bump) (i32.mul (memory.size) (i32.const 65536)))
        (then (drop (memory.grow (i32.const 1)))))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (alias core export $libc "mem" (core memory $mem))
  (alias core export $libc "realloc" (core func $realloc))

  (core func $write (canon lower (func $streams "[method]output-stream.blocking-write-and-flush") (memory $mem) (realloc $realloc)))
  (core func $drop-output (canon resource.drop $output-stream))
  (core func $get-env (canon lower (func $env "get-environment") (memory $mem) (realloc $realloc)))
  (core func $get-args (canon lower (func $env "get-arguments") (memory $mem) (realloc $realloc)))
  (core func $get-stdout (canon lower (func $stdout "get-stdout")))

  (core module $m
    (import "libc" "mem" (memory 1))
    (import "w" "write" (func $write (param i32 i32 i32 i32)))
    (import "w" "drop-output" (func $drop-output (param i32)))
    (import "w" "get-env" (func $get-env (param i32)))
    (import "w" "get-args" (func $get-args (param i32)))
    (import "w" "get-stdout" (func $get-stdout (result i32)))
    (global $out (mut i32) (i32.const 0))
    (data (i32.const 2048) "hello from a WASI 0.2 component\0a")
    (data (i32.const 2100) "=\0aFAIL")
    ;; Writes `n` bytes at `p` to stdout (the result lands at 0..16).
    (func $print (param $p i32) (param $n i32)
      (call $write (global.get $out) (local.get $p) (local.get $n) (i32.const 0)))
    (func $nl (call $print (i32.const 2101) (i32.const 1)))
    (func (export "run") (result i32)
      (local $list i32) (local $n i32) (local $e i32) (local $fail i32)
      (global.set $out (call $get-stdout))
      (call $print (i32.const 2048) (i32.const 32))
      ;; The arguments: (pointer, length) pairs.
      (call $get-args (i32.const 16))
      (local.set $list (i32.load (i32.const 16)))
      (local.set $n (i32.load (i32.const 20)))
      (block $done
        (loop $next
          (br_if $done (i32.eqz (local.get $n)))
          (call $print (i32.load (local.get $list)) (i32.load offset=4 (local.get $list)))
          (call $nl)
          (local.set $list (i32.add (local.get $list) (i32.const 8)))
          (local.set $n (i32.sub (local.get $n) (i32.const 1)))
          (br $next)))
      ;; The environment: (name pointer, name length, value pointer, value length).
      (call $get-env (i32.const 16))
      (local.set $list (i32.load (i32.const 16)))
      (local.set $n (i32.load (i32.const 20)))
      (block $done
        (loop $next
          (br_if $done (i32.eqz (local.get $n)))
          (local.set $e (local.get $list))
          (call $print (i32.load (local.get $e)) (i32.load offset=4 (local.get $e)))
          (call $print (i32.const 2100) (i32.const 1))
          (call $print (i32.load offset=8 (local.get $e)) (i32.load offset=12 (local.get $e)))
          (call $nl)
          ;; A variable named FAIL makes the run fail.
          (if (i32.eq (i32.load offset=4 (local.get $e)) (i32.const 4))
            (then (if (i32.eq (i32.load (i32.load (local.get $e))) (i32.load (i32.const 2102)))
              (then (local.set $fail (i32.const 1))))))
          (local.set $list (i32.add (local.get $list) (i32.const 16)))
          (local.set $n (i32.sub (local.get $n) (i32.const 1)))
          (br $next)))
      (call $drop-output (global.get $out))
      (local.get $fail)))
  (core instance $i (instantiate $m
    (with "libc" (instance $libc))
    (with "w" (instance
      (export "write" (func $write)) (export "drop-output" (func $drop-output))
      (export "get-env" (func $get-env)) (export "get-args" (func $get-args))
      (export "get-stdout" (func $get-stdout))))))
  (func $run (result (result)) (canon lift (core func $i "run")))
  (instance $run-instance (export "run" (func $run)))
  (export "wasi:cli/run@0.2.0" (instance $run-instance)))
