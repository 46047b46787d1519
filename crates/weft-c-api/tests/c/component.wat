;; The component of weft_component.c: `echo` passes a record holding a value
;; of every kind to the host's `host-echo` and returns what the host gave
;; back; resources of a host type go in and out; `slow-add` calls the host's
;; async `host-add`.
(component
  (import "host" (instance $host
    (type $e (enum "red" "green" "blue"))
    (export "color" (type $ei (eq $e)))
    (type $f (flags "a" "b" "c"))
    (export "perms" (type $fi (eq $f)))
    (type $v (variant (case "none") (case "num" u32) (case "str" string)))
    (export "choice" (type $vi (eq $v)))
    (type $rec (record
      (field "b" bool) (field "i8" s8) (field "u8" u8) (field "i16" s16) (field "u16" u16)
      (field "i32" s32) (field "u32" u32) (field "i64" s64) (field "u64" u64)
      (field "f32" f32) (field "f64" f64) (field "c" char) (field "s" string)
      (field "l" (list u32)) (field "t" (tuple u8 string)) (field "v" $vi) (field "e" $ei)
      (field "o" (option u32)) (field "r" (result u32 (error string))) (field "fl" $fi)))
    (export "everything" (type $reci (eq $rec)))
    (export "host-echo" (func (param "x" $reci) (result $reci)))
    (export "thing" (type (sub resource)))
    (export "host-add" (func (param "a" u32) (param "b" u32) (result u32)))))
  (import "plugin" (core module
    (import "env" "log" (func (param i32)))
    (export "f" (func (result i32)))
    (export "mem" (memory 1))))
  (alias export $host "everything" (type $reci))
  (alias export $host "thing" (type $thing))
  (alias export $host "host-echo" (func $host-echo))
  (alias export $host "host-add" (func $host-add))

  (core module $libc
    (memory (export "mem") 1)
    (global $bump (mut i32) (i32.const 4096))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (i32.and
        (i32.add (global.get $bump) (i32.sub (local.get 2) (i32.const 1)))
        (i32.sub (i32.const 0) (local.get 2))))
      (global.set $bump (i32.add (local.get $p) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (core func $echo-lowered (canon lower (func $host-echo) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core func $add-lowered (canon lower (func $host-add)))
  (core func $thing-drop (canon resource.drop $thing))
  (core module $m
    (import "host" "echo" (func $echo (param i32 i32)))
    (import "host" "add" (func $add (param i32 i32) (result i32)))
    (import "host" "drop" (func $drop (param i32)))
    (func (export "echo") (param i32) (result i32)
      (call $echo (local.get 0) (i32.const 256))
      (i32.const 256))
    (func (export "id") (param i32) (result i32) (local.get 0))
    (func (export "consume") (param i32) (call $drop (local.get 0)))
    (func (export "slow-add") (param i32 i32) (result i32)
      (i32.mul (call $add (local.get 0) (local.get 1)) (i32.const 10))))
  (core instance $i (instantiate $m
    (with "host" (instance
      (export "echo" (func $echo-lowered))
      (export "add" (func $add-lowered))
      (export "drop" (func $thing-drop))))))
  (func (export "echo") (param "x" $reci) (result $reci)
    (canon lift (core func $i "echo") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (func (export "roundtrip") (param "x" (own $thing)) (result (own $thing))
    (canon lift (core func $i "id")))
  (func (export "consume") (param "x" (own $thing))
    (canon lift (core func $i "consume")))
  (func $slow-add (param "a" u32) (param "b" u32) (result u32)
    (canon lift (core func $i "slow-add")))
  (export "slow-add" (func $slow-add))
  (instance $nested (export "slow-add" (func $slow-add)))
  (export "api" (instance $nested))
)
