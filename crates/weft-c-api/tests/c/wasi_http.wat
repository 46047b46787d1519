;; A component using wasi:http (for weft_wasi_http.c): it imports
;; `wasi:http/types@0.2.0`'s `fields` (constructor, `append`, `has`) and
;; exports `run: func() -> u32`, which makes a `fields`, appends
;; `x-weft: 1` to it and returns a bit set: 1 if `has("x-weft")`, 2 if
;; appending `connection` fails with `header-error.forbidden`, 4 if
;; `has("other")` is false. All of it runs in the host's wasi:http
;; implementation: 7 means it behaved.
(component
  (import "wasi:http/types@0.2.0" (instance $types
    (type $he' (variant (case "invalid-syntax") (case "forbidden") (case "immutable")))
    (export "header-error" (type $he (eq $he')))
    (export "fields" (type $fields (sub resource)))
    (export "[constructor]fields" (func (result (own $fields))))
    (export "[method]fields.append" (func (param "self" (borrow $fields)) (param "name" string) (param "value" (list u8))
      (result (result (error $he)))))
    (export "[method]fields.has" (func (param "self" (borrow $fields)) (param "name" string) (result bool)))))
  (alias export $types "fields" (type $fields))

  (core module $libc
    (memory (export "mem") 1))
  (core instance $libc (instantiate $libc))
  (alias core export $libc "mem" (core memory $mem))

  (core func $fields-new (canon lower (func $types "[constructor]fields")))
  (core func $fields-append (canon lower (func $types "[method]fields.append") (memory $mem)))
  (core func $fields-has (canon lower (func $types "[method]fields.has") (memory $mem)))
  (core func $fields-drop (canon resource.drop $fields))

  (core module $m
    (import "libc" "mem" (memory 1))
    (import "h" "fields-new" (func $fields-new (result i32)))
    (import "h" "fields-append" (func $fields-append (param i32 i32 i32 i32 i32 i32)))
    (import "h" "fields-has" (func $fields-has (param i32 i32 i32) (result i32)))
    (import "h" "fields-drop" (func $fields-drop (param i32)))
    (data (i32.const 100) "x-weft")
    (data (i32.const 110) "1")
    (data (i32.const 120) "connection")
    (data (i32.const 140) "other")
    (func (export "run") (result i32)
      (local $f i32) (local $bits i32)
      (local.set $f (call $fields-new))
      ;; append(x-weft, "1"): result<_, header-error> at 0.
      (call $fields-append (local.get $f) (i32.const 100) (i32.const 6) (i32.const 110) (i32.const 1) (i32.const 0))
      (if (i32.load8_u (i32.const 0)) (then unreachable))
      (if (call $fields-has (local.get $f) (i32.const 100) (i32.const 6))
        (then (local.set $bits (i32.const 1))))
      ;; append(connection, "1") must be refused as forbidden (case 1).
      (call $fields-append (local.get $f) (i32.const 120) (i32.const 10) (i32.const 110) (i32.const 1) (i32.const 0))
      (if (i32.and (i32.eq (i32.load8_u (i32.const 0)) (i32.const 1))
                   (i32.eq (i32.load8_u (i32.const 1)) (i32.const 1)))
        (then (local.set $bits (i32.or (local.get $bits) (i32.const 2)))))
      (if (i32.eqz (call $fields-has (local.get $f) (i32.const 140) (i32.const 5)))
        (then (local.set $bits (i32.or (local.get $bits) (i32.const 4)))))
      (call $fields-drop (local.get $f))
      (local.get $bits)))
  (core instance $i (instantiate $m
    (with "libc" (instance $libc))
    (with "h" (instance
      (export "fields-new" (func $fields-new))
      (export "fields-append" (func $fields-append))
      (export "fields-has" (func $fields-has))
      (export "fields-drop" (func $fields-drop))))))
  (func (export "run") (result u32) (canon lift (core func $i "run"))))
