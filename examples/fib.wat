;; fib(n): the n-th Fibonacci number (fib(0) = 0, fib(1) = 1), computed
;; iteratively with wrapping i32 arithmetic.
;;
;;   weft run --invoke fib examples/fib.wat 20   # prints 6765
(module
  (func (export "fib") (param $n i32) (result i32)
    (local $a i32)
    (local $b i32)
    (local $next i32)
    (local.set $b (i32.const 1))
    (block $done
      (loop $again
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $next (i32.add (local.get $a) (local.get $b)))
        (local.set $a (local.get $b))
        (local.set $b (local.get $next))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $again)))
    (local.get $a)))
