;; GC objects passed between C and wasm (for weft_gc.c): a struct type and
;; an array type C builds the same types as, functions that read, write
;; and make them, i31 and eq checks, and an exception escaping to the host.
(module
  (type $point (struct (field $x (mut i32)) (field $y i64)))
  (type $ints (array (mut i32)))
  (tag $oops (export "oops") (param i32))

  ;; The sum of the array's elements.
  (func (export "sum") (param $a (ref null $ints)) (result i32)
    (local $i i32) (local $s i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
        (local.set $s (i32.add (local.get $s) (array.get $ints (local.get $a) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $s))

  ;; Doubles every element in place.
  (func (export "double") (param $a (ref null $ints))
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
        (array.set $ints (local.get $a) (local.get $i)
          (i32.mul (array.get $ints (local.get $a) (local.get $i)) (i32.const 2)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  ;; Adds 1 to x, returns x + y.
  (func (export "bump") (param $p (ref null $point)) (result i64)
    (struct.set $point $x (local.get $p) (i32.add (struct.get $point $x (local.get $p)) (i32.const 1)))
    (i64.add (i64.extend_i32_s (struct.get $point $x (local.get $p))) (struct.get $point $y (local.get $p))))

  ;; A point made by wasm, as an anyref.
  (func (export "make") (param i32 i64) (result anyref)
    (struct.new $point (local.get 0) (local.get 1)))

  ;; An i31ref made by wasm, and the value of one made by C.
  (func (export "to_i31") (param i32) (result anyref) (ref.i31 (local.get 0)))
  (func (export "from_i31") (param (ref null i31)) (result i32) (i31.get_s (local.get 0)))

  ;; ref.eq of two eqrefs, and an anyref passed through.
  (func (export "same") (param eqref eqref) (result i32) (ref.eq (local.get 0) (local.get 1)))
  (func (export "identity") (param anyref) (result anyref) (local.get 0))

  ;; Throws $oops(42), caught by no one.
  (func (export "throw") (throw $oops (i32.const 42))))
