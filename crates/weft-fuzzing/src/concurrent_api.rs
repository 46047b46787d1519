//! `concurrent_api`: the API-sequence property test of the component
//! model's concurrent API, as a fuzz target and as a seeded test. Random
//! sequences of `run_concurrent` with several `call_concurrent`s (some
//! dropped after a few polls), `call_async` futures dropped at random
//! points, synchronous calls, `start_call_concurrent` results dropped
//! outside the event loop, spawned tasks that are aborted, calls that trap,
//! concurrent host functions that fail or panic, under random schedule
//! seeds, over two instances of a guest component.
//!
//! Host streams and futures go both ways in the same sequences: calls
//! pass a guest a `StreamReader` (of `u32`s or bytes) or a `FutureReader`
//! whose host producer yields, offers random amounts, writes bytes
//! directly or fails; the guest reads with random chunk sizes, cancels
//! reads at random points and stops early; and a guest's streams and
//! futures are piped into host consumers that yield, take random amounts
//! and stop early, while the guest cancels writes at random points, or
//! are closed or dropped unread. Those calls are dropped, started and
//! dropped, or run synchronously like the others.
//!
//! Checked after every step: no panic escapes except the host function's
//! own; every call that completes returns the right value (`x + 1`; for a
//! stream, the hash of exactly the items sent, in order, up to where the
//! guest stopped; for a future, its value), and one to an instance nothing
//! has doomed yet always completes; every item a host consumer takes is the
//! one the guest wrote, in order, and unless something was doomed every
//! consumer ends with all of them (or where it stopped); and at the end of
//! every sequence the task table adds up (`Store::check_concurrent_state`)
//! and, unless an instance was doomed, is empty.
//!
//! The sequences come from a [`Source`]: a seed (the test in
//! `tests/concurrent_api.rs`, 10,000 sequences in `cargo test`) or the
//! bytes of a fuzz input (`fuzz/fuzz_targets/concurrent_api.rs`, and
//! `--target concurrent_api` of the `crash` binary).

mod streams;

use std::future::Future;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use streams::{sequence_hash, Log, Pace, SeqConsumer, SeqProducer, ValueConsumer};
use weft::component::{Accessor, AccessorTask, Component, FutureReader, Linker, StreamReader, TypedFunc};
use weft::{AsContextMut, Config, Engine, Store, StoreContextMut};

/// `run(x)` calls the host's `echo(x)` lowered `async`, waits for it with
/// the callback's WAIT when it does not return at once, and returns the
/// echo plus one; an echo of 1000 traps in the callback (after the
/// callback dropped its handles).
///
/// The stream and future functions (see [`streams`] for the host's side):
/// - `consume32`/`consume8 (s, plan)` read the stream `chunk` items at a
///   time (`1 + plan & 15`) until the writer drops it or, if
///   `limit = plan >> 4 & 255` is not 0, `limit` items arrived; bit `12 + k
///   % 8` of `plan` makes the `k`th read `async`, cancelled at once when it
///   blocks. They drop the stream and return the hash of what they read
///   ([`streams::sequence_hash`]).
/// - `produce32`/`produce8 (n, plan)` return a stream, then write items
///   `0..n` of the sequence to it, `chunk` at a time, with the same cancel
///   pattern (a cancelled write goes on after what it moved), until done
///   or the reader drops it.
/// - `fut (f, plan)` reads the future (with `plan & 1`: `async`, cancelled
///   at once when it blocks, then read again) and returns its value, or
///   `0xffff_ffff` when it had none; `make-future (v)` returns a future and
///   writes `v` to it.
///
/// Each task takes 64 bytes of its own (`$alloc`, from a ring at 0x4000).
const COMPONENT: &str = r#"(component
    (import "echo" (func $echo async (param "a" u32) (result u32)))
    (core module $libc (memory (export "mem") 1))
    (core instance $libc (instantiate $libc))
    (type $ST (stream u32))
    (type $ST8 (stream u8))
    (type $FT (future u32))
    (core func $echo_async (canon lower (func $echo) async (memory (core memory $libc "mem"))))
    (core func $task_return (canon task.return (result u32)))
    (core func $ws_new (canon waitable-set.new))
    (core func $join (canon waitable.join))
    (core func $subtask_drop (canon subtask.drop))
    (core func $ws_drop (canon waitable-set.drop))
    (core func $context_get (canon context.get i32 0))
    (core func $context_set (canon context.set i32 0))
    (core func $read32 (canon stream.read $ST (memory (core memory $libc "mem"))))
    (core func $read8 (canon stream.read $ST8 (memory (core memory $libc "mem"))))
    (core func $reada32 (canon stream.read $ST async (memory (core memory $libc "mem"))))
    (core func $reada8 (canon stream.read $ST8 async (memory (core memory $libc "mem"))))
    (core func $cancelr32 (canon stream.cancel-read $ST))
    (core func $cancelr8 (canon stream.cancel-read $ST8))
    (core func $dropr32 (canon stream.drop-readable $ST))
    (core func $dropr8 (canon stream.drop-readable $ST8))
    (core func $snew32 (canon stream.new $ST))
    (core func $snew8 (canon stream.new $ST8))
    (core func $write32 (canon stream.write $ST (memory (core memory $libc "mem"))))
    (core func $write8 (canon stream.write $ST8 (memory (core memory $libc "mem"))))
    (core func $writea32 (canon stream.write $ST async (memory (core memory $libc "mem"))))
    (core func $writea8 (canon stream.write $ST8 async (memory (core memory $libc "mem"))))
    (core func $cancelw32 (canon stream.cancel-write $ST))
    (core func $cancelw8 (canon stream.cancel-write $ST8))
    (core func $dropw32 (canon stream.drop-writable $ST))
    (core func $dropw8 (canon stream.drop-writable $ST8))
    (core func $retst32 (canon task.return (result $ST)))
    (core func $retst8 (canon task.return (result $ST8)))
    (core func $fread (canon future.read $FT (memory (core memory $libc "mem"))))
    (core func $freada (canon future.read $FT async (memory (core memory $libc "mem"))))
    (core func $fcancel (canon future.cancel-read $FT))
    (core func $fdropr (canon future.drop-readable $FT))
    (core func $fnew (canon future.new $FT))
    (core func $fwrite (canon future.write $FT (memory (core memory $libc "mem"))))
    (core func $fdropw (canon future.drop-writable $FT))
    (core func $retft (canon task.return (result $FT)))
    (core module $m
        (import "" "mem" (memory 1))
        (import "" "echo-async" (func $echo_async (param i32 i32) (result i32)))
        (import "" "task.return" (func $task_return (param i32)))
        (import "" "ws.new" (func $ws_new (result i32)))
        (import "" "ws.drop" (func $ws_drop (param i32)))
        (import "" "join" (func $join (param i32 i32)))
        (import "" "subtask.drop" (func $subtask_drop (param i32)))
        (import "" "context.get" (func $context_get (result i32)))
        (import "" "context.set" (func $context_set (param i32)))
        (import "" "read32" (func $read32 (param i32 i32 i32) (result i32)))
        (import "" "read8" (func $read8 (param i32 i32 i32) (result i32)))
        (import "" "reada32" (func $reada32 (param i32 i32 i32) (result i32)))
        (import "" "reada8" (func $reada8 (param i32 i32 i32) (result i32)))
        (import "" "cancelr32" (func $cancelr32 (param i32) (result i32)))
        (import "" "cancelr8" (func $cancelr8 (param i32) (result i32)))
        (import "" "dropr32" (func $dropr32 (param i32)))
        (import "" "dropr8" (func $dropr8 (param i32)))
        (import "" "snew32" (func $snew32 (result i64)))
        (import "" "snew8" (func $snew8 (result i64)))
        (import "" "write32" (func $write32 (param i32 i32 i32) (result i32)))
        (import "" "write8" (func $write8 (param i32 i32 i32) (result i32)))
        (import "" "writea32" (func $writea32 (param i32 i32 i32) (result i32)))
        (import "" "writea8" (func $writea8 (param i32 i32 i32) (result i32)))
        (import "" "cancelw32" (func $cancelw32 (param i32) (result i32)))
        (import "" "cancelw8" (func $cancelw8 (param i32) (result i32)))
        (import "" "dropw32" (func $dropw32 (param i32)))
        (import "" "dropw8" (func $dropw8 (param i32)))
        (import "" "retst32" (func $retst32 (param i32)))
        (import "" "retst8" (func $retst8 (param i32)))
        (import "" "fread" (func $fread (param i32 i32) (result i32)))
        (import "" "freada" (func $freada (param i32 i32) (result i32)))
        (import "" "fcancel" (func $fcancel (param i32) (result i32)))
        (import "" "fdropr" (func $fdropr (param i32)))
        (import "" "fnew" (func $fnew (result i64)))
        (import "" "fwrite" (func $fwrite (param i32 i32) (result i32)))
        (import "" "fdropw" (func $fdropw (param i32)))
        (import "" "retft" (func $retft (param i32)))
        (global $next (mut i32) (i32.const 16))
        (global $slot (mut i32) (i32.const 0))
        ;; Each task of `run` has 8 bytes of its own (the echo, the
        ;; waitable set), whose address context slot 0 keeps.
        (func (export "run") (param $x i32) (result i32)
            (local $status i32) (local $ptr i32) (local $ws i32)
            (local.set $ptr (global.get $next))
            (global.set $next (i32.and (i32.add (global.get $next) (i32.const 8)) (i32.const 0x3ff8)))
            (call $context_set (local.get $ptr))
            (local.set $status (call $echo_async (local.get $x) (local.get $ptr)))
            (if (i32.eq (i32.and (local.get $status) (i32.const 0xf)) (i32.const 2))
                (then
                    (if (i32.eq (i32.load (local.get $ptr)) (i32.const 1000)) (then unreachable))
                    (call $task_return (i32.add (i32.load (local.get $ptr)) (i32.const 1)))
                    (return (i32.const 0))))
            (local.set $ws (call $ws_new))
            (i32.store offset=4 (local.get $ptr) (local.get $ws))
            (call $join (i32.shr_u (local.get $status) (i32.const 4)) (local.get $ws))
            (i32.or (i32.const 2) (i32.shl (local.get $ws) (i32.const 4))))
        (func (export "cb") (param $event i32) (param $index i32) (param $payload i32) (result i32)
            (local $ptr i32)
            (local.set $ptr (call $context_get))
            (if (i32.ne (local.get $event) (i32.const 1)) (then unreachable))
            (if (i32.ne (local.get $payload) (i32.const 2)) (then unreachable))
            (call $subtask_drop (local.get $index))
            (call $ws_drop (i32.load offset=4 (local.get $ptr)))
            (if (i32.eq (i32.load (local.get $ptr)) (i32.const 1000)) (then unreachable))
            (call $task_return (i32.add (i32.load (local.get $ptr)) (i32.const 1)))
            (i32.const 0))
        (func $alloc (result i32)
            (local $p i32)
            (local.set $p (i32.add (i32.const 0x4000)
                (i32.shl (i32.and (global.get $slot) (i32.const 511)) (i32.const 6))))
            (global.set $slot (i32.add (global.get $slot) (i32.const 1)))
            (local.get $p))
        (func $value (param $wide i32) (param $i i32) (result i32)
            (if (result i32) (local.get $wide)
                (then (i32.add (i32.mul (local.get $i) (i32.const 0x9e3779b1)) (i32.const 1)))
                (else (i32.and (i32.add (i32.mul (local.get $i) (i32.const 7)) (i32.const 3)) (i32.const 0xff)))))
        (func $mix (param $h i32) (param $x i32) (result i32)
            (i32.mul (i32.xor (local.get $h) (local.get $x)) (i32.const 0x01000193)))
        ;; Bit 12 + k % 8 of the plan: whether the kth copy is async.
        (func $cancels (param $plan i32) (param $k i32) (result i32)
            (i32.and (i32.shr_u (local.get $plan) (i32.add (i32.const 12) (i32.and (local.get $k) (i32.const 7))))
                (i32.const 1)))
        ;; One read of at most $n items to $buf: synchronous, or async and
        ;; cancelled at once when it blocks.
        (func $read (param $wide i32) (param $async i32) (param $s i32) (param $buf i32) (param $n i32) (result i32)
            (local $r i32)
            (if (i32.eqz (local.get $async)) (then
                (return (if (result i32) (local.get $wide)
                    (then (call $read32 (local.get $s) (local.get $buf) (local.get $n)))
                    (else (call $read8 (local.get $s) (local.get $buf) (local.get $n)))))))
            (local.set $r (if (result i32) (local.get $wide)
                (then (call $reada32 (local.get $s) (local.get $buf) (local.get $n)))
                (else (call $reada8 (local.get $s) (local.get $buf) (local.get $n)))))
            (if (i32.ne (local.get $r) (i32.const -1)) (then (return (local.get $r))))
            (if (result i32) (local.get $wide)
                (then (call $cancelr32 (local.get $s)))
                (else (call $cancelr8 (local.get $s)))))
        ;; One write of $n items from $buf, the same way.
        (func $write (param $wide i32) (param $async i32) (param $s i32) (param $buf i32) (param $n i32) (result i32)
            (local $r i32)
            (if (i32.eqz (local.get $async)) (then
                (return (if (result i32) (local.get $wide)
                    (then (call $write32 (local.get $s) (local.get $buf) (local.get $n)))
                    (else (call $write8 (local.get $s) (local.get $buf) (local.get $n)))))))
            (local.set $r (if (result i32) (local.get $wide)
                (then (call $writea32 (local.get $s) (local.get $buf) (local.get $n)))
                (else (call $writea8 (local.get $s) (local.get $buf) (local.get $n)))))
            (if (i32.ne (local.get $r) (i32.const -1)) (then (return (local.get $r))))
            (if (result i32) (local.get $wide)
                (then (call $cancelw32 (local.get $s)))
                (else (call $cancelw8 (local.get $s)))))
        (func $consume (param $wide i32) (param $s i32) (param $plan i32) (result i32)
            (local $buf i32) (local $chunk i32) (local $limit i32) (local $k i32) (local $got i32)
            (local $n i32) (local $r i32) (local $i i32) (local $h i32) (local $want i32)
            (local.set $buf (call $alloc))
            (local.set $chunk (i32.add (i32.const 1) (i32.and (local.get $plan) (i32.const 15))))
            (local.set $limit (i32.and (i32.shr_u (local.get $plan) (i32.const 4)) (i32.const 0xff)))
            (local.set $h (i32.const 0x811c9dc5))
            (block $end (loop $l
                (local.set $want (local.get $chunk))
                (if (local.get $limit) (then
                    (br_if $end (i32.ge_u (local.get $got) (local.get $limit)))
                    (if (i32.lt_u (i32.sub (local.get $limit) (local.get $got)) (local.get $want))
                        (then (local.set $want (i32.sub (local.get $limit) (local.get $got)))))))
                (local.set $r (call $read (local.get $wide) (call $cancels (local.get $plan) (local.get $k))
                    (local.get $s) (local.get $buf) (local.get $want)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (local.set $n (i32.shr_u (local.get $r) (i32.const 4)))
                (if (i32.gt_u (local.get $n) (local.get $want)) (then unreachable))
                (local.set $i (i32.const 0))
                (block $d (loop $a
                    (br_if $d (i32.ge_u (local.get $i) (local.get $n)))
                    (local.set $h (call $mix (local.get $h) (if (result i32) (local.get $wide)
                        (then (i32.load (i32.add (local.get $buf) (i32.shl (local.get $i) (i32.const 2)))))
                        (else (i32.load8_u (i32.add (local.get $buf) (local.get $i)))))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $a)))
                (local.set $got (i32.add (local.get $got) (local.get $n)))
                (br_if $end (i32.eq (i32.and (local.get $r) (i32.const 0xf)) (i32.const 1)))
                (br $l)))
            (if (local.get $wide)
                (then (call $dropr32 (local.get $s)))
                (else (call $dropr8 (local.get $s))))
            (call $task_return (call $mix (local.get $h) (local.get $got)))
            (i32.const 0))
        (func (export "consume32") (param $s i32) (param $plan i32) (result i32)
            (call $consume (i32.const 1) (local.get $s) (local.get $plan)))
        (func (export "consume8") (param $s i32) (param $plan i32) (result i32)
            (call $consume (i32.const 0) (local.get $s) (local.get $plan)))
        (func $produce (param $wide i32) (param $n i32) (param $plan i32) (result i32)
            (local $ret64 i64) (local $tx i32) (local $i i32) (local $off i32) (local $r i32)
            (local $chunk i32) (local $want i32) (local $k i32) (local $base i32)
            (local.set $base (if (result i32) (local.get $wide) (then (i32.const 0xc000)) (else (i32.const 0xd000))))
            (block $f (loop $fl
                (br_if $f (i32.ge_u (local.get $i) (local.get $n)))
                (if (local.get $wide)
                    (then (i32.store (i32.add (local.get $base) (i32.shl (local.get $i) (i32.const 2)))
                        (call $value (i32.const 1) (local.get $i))))
                    (else (i32.store8 (i32.add (local.get $base) (local.get $i))
                        (call $value (i32.const 0) (local.get $i)))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $fl)))
            (local.set $ret64 (if (result i64) (local.get $wide) (then (call $snew32)) (else (call $snew8))))
            (local.set $tx (i32.wrap_i64 (i64.shr_u (local.get $ret64) (i64.const 32))))
            (if (local.get $wide)
                (then (call $retst32 (i32.wrap_i64 (local.get $ret64))))
                (else (call $retst8 (i32.wrap_i64 (local.get $ret64)))))
            (local.set $chunk (i32.add (i32.const 1) (i32.and (local.get $plan) (i32.const 15))))
            (block $done (loop $w
                (br_if $done (i32.ge_u (local.get $off) (local.get $n)))
                (local.set $want (i32.sub (local.get $n) (local.get $off)))
                (if (i32.lt_u (local.get $chunk) (local.get $want)) (then (local.set $want (local.get $chunk))))
                (local.set $r (call $write (local.get $wide) (call $cancels (local.get $plan) (local.get $k))
                    (local.get $tx)
                    (i32.add (local.get $base) (i32.shl (local.get $off) (i32.shl (local.get $wide) (i32.const 1))))
                    (local.get $want)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (if (i32.gt_u (i32.shr_u (local.get $r) (i32.const 4)) (local.get $want)) (then unreachable))
                (local.set $off (i32.add (local.get $off) (i32.shr_u (local.get $r) (i32.const 4))))
                (br_if $done (i32.eq (i32.and (local.get $r) (i32.const 0xf)) (i32.const 1)))
                (br $w)))
            (if (local.get $wide)
                (then (call $dropw32 (local.get $tx)))
                (else (call $dropw8 (local.get $tx))))
            (i32.const 0))
        (func (export "produce32") (param $n i32) (param $plan i32) (result i32)
            (call $produce (i32.const 1) (local.get $n) (local.get $plan)))
        (func (export "produce8") (param $n i32) (param $plan i32) (result i32)
            (call $produce (i32.const 0) (local.get $n) (local.get $plan)))
        (func (export "fut") (param $f i32) (param $plan i32) (result i32)
            (local $buf i32) (local $r i32)
            (local.set $buf (call $alloc))
            (if (i32.and (local.get $plan) (i32.const 1))
                (then
                    (local.set $r (call $freada (local.get $f) (local.get $buf)))
                    (if (i32.eq (local.get $r) (i32.const -1))
                        (then (local.set $r (call $fcancel (local.get $f)))))
                    (if (i32.eq (i32.and (local.get $r) (i32.const 0xf)) (i32.const 2))
                        (then (local.set $r (call $fread (local.get $f) (local.get $buf))))))
                (else (local.set $r (call $fread (local.get $f) (local.get $buf)))))
            (call $fdropr (local.get $f))
            (call $task_return (if (result i32) (i32.and (local.get $r) (i32.const 0xf))
                (then (i32.const -1))
                (else (i32.load (local.get $buf)))))
            (i32.const 0))
        (func (export "make-future") (param $v i32) (result i32)
            (local $ret64 i64) (local $tx i32) (local $buf i32)
            (local.set $buf (call $alloc))
            (i32.store (local.get $buf) (local.get $v))
            (local.set $ret64 (call $fnew))
            (local.set $tx (i32.wrap_i64 (i64.shr_u (local.get $ret64) (i64.const 32))))
            (call $retft (i32.wrap_i64 (local.get $ret64)))
            (drop (call $fwrite (local.get $tx) (local.get $buf)))
            (call $fdropw (local.get $tx))
            (i32.const 0)))
    (core instance $i (instantiate $m (with "" (instance
        (export "mem" (memory $libc "mem"))
        (export "echo-async" (func $echo_async))
        (export "task.return" (func $task_return))
        (export "ws.new" (func $ws_new))
        (export "ws.drop" (func $ws_drop))
        (export "join" (func $join))
        (export "subtask.drop" (func $subtask_drop))
        (export "context.get" (func $context_get))
        (export "context.set" (func $context_set))
        (export "read32" (func $read32))
        (export "read8" (func $read8))
        (export "reada32" (func $reada32))
        (export "reada8" (func $reada8))
        (export "cancelr32" (func $cancelr32))
        (export "cancelr8" (func $cancelr8))
        (export "dropr32" (func $dropr32))
        (export "dropr8" (func $dropr8))
        (export "snew32" (func $snew32))
        (export "snew8" (func $snew8))
        (export "write32" (func $write32))
        (export "write8" (func $write8))
        (export "writea32" (func $writea32))
        (export "writea8" (func $writea8))
        (export "cancelw32" (func $cancelw32))
        (export "cancelw8" (func $cancelw8))
        (export "dropw32" (func $dropw32))
        (export "dropw8" (func $dropw8))
        (export "retst32" (func $retst32))
        (export "retst8" (func $retst8))
        (export "fread" (func $fread))
        (export "freada" (func $freada))
        (export "fcancel" (func $fcancel))
        (export "fdropr" (func $fdropr))
        (export "fnew" (func $fnew))
        (export "fwrite" (func $fwrite))
        (export "fdropw" (func $fdropw))
        (export "retft" (func $retft))))))
    (func (export "run") async (param "x" u32) (result u32)
        (canon lift (core func $i "run") async (callback (core func $i "cb"))))
    (func (export "consume32") async (param "s" $ST) (param "plan" u32) (result u32)
        (canon lift (core func $i "consume32") async (callback (core func $i "cb"))))
    (func (export "consume8") async (param "s" $ST8) (param "plan" u32) (result u32)
        (canon lift (core func $i "consume8") async (callback (core func $i "cb"))))
    (func (export "produce32") async (param "n" u32) (param "plan" u32) (result $ST)
        (canon lift (core func $i "produce32") async (callback (core func $i "cb"))))
    (func (export "produce8") async (param "n" u32) (param "plan" u32) (result $ST8)
        (canon lift (core func $i "produce8") async (callback (core func $i "cb"))))
    (func (export "fut") async (param "f" $FT) (param "plan" u32) (result u32)
        (canon lift (core func $i "fut") async (callback (core func $i "cb"))))
    (func (export "make-future") async (param "v" u32) (result $FT)
        (canon lift (core func $i "make-future") async (callback (core func $i "cb"))))
)"#;

/// An echo of this traps the caller.
const TRAP: u32 = 1000;
/// An echo of this panics in the host function.
const PANIC: u32 = 2000;
/// An echo of this fails in the host function (the caller traps).
const FAIL: u32 = 3000;

/// What the sequences did, to show that they test something: calls that
/// returned, calls that failed, host panics caught, calls dropped; and
/// stream items and future values that reached a guest through a call that
/// returned, and that reached a host consumer.
static COMPLETED: AtomicUsize = AtomicUsize::new(0);
static FAILED: AtomicUsize = AtomicUsize::new(0);
static PANICS: AtomicUsize = AtomicUsize::new(0);
static DROPPED: AtomicUsize = AtomicUsize::new(0);
static TO_GUEST: AtomicUsize = AtomicUsize::new(0);
static TO_HOST: AtomicUsize = AtomicUsize::new(0);

/// The message of the host function's own panic.
const HOST_PANIC: &str = "the host function's own panic";
/// The error of a failing future producer.
const PRODUCER_FAILED: &str = "the future producer failed";

/// Where a sequence's choices come from: a seeded xorshift64*, or the
/// bytes of a fuzz input (eight at a time; zeros once they run out).
pub enum Source<'a> {
    /// A seeded pseudo-random sequence.
    Seeded(u64),
    /// A fuzz input.
    Bytes(&'a [u8]),
}

impl Source<'_> {
    /// A source seeded with `seed`.
    pub fn seeded(seed: u64) -> Source<'static> {
        Source::Seeded(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        match self {
            Source::Seeded(state) => {
                let mut x = *state;
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                *state = x;
                x.wrapping_mul(0x2545_F491_4F6C_DD1D)
            }
            Source::Bytes(data) => {
                let n = data.len().min(8);
                let mut word = [0u8; 8];
                word[..n].copy_from_slice(&data[..n]);
                *data = &data[n..];
                u64::from_le_bytes(word)
            }
        }
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A pattern of waits: each bit set with `percent` chance.
    fn pattern(&mut self, percent: u64) -> u64 {
        (0..64).fold(0, |p, bit| p | (u64::from(self.chance(percent)) << bit))
    }
    /// A guest's plan: the chunk size in bits 0..4, the limit in bits
    /// 4..12 (`limit` chance of one), which copies are async and cancelled
    /// in bits 12..19 (the eighth copy of each eight never is, so that
    /// every eight copies one waits for the other side).
    fn plan(&mut self, limit: u64) -> u32 {
        let chunk = self.below(16) as u32;
        let limit = if self.chance(limit) {
            1 + self.below(40) as u32
        } else {
            0
        };
        let cancels = if self.chance(50) { self.below(128) as u32 } else { 0 };
        chunk | limit << 4 | cancels << 12
    }
}

/// A stream the host passes to a guest's `consume32`/`consume8`.
#[derive(Debug, Clone, Copy)]
struct StreamIn {
    /// Of `u32`s (else bytes).
    wide: bool,
    /// The items the producer makes.
    n: u32,
    /// The guest's plan.
    plan: u32,
    per_poll: u32,
    pace: u64,
    direct: bool,
    last_dropped: bool,
    /// The reader goes to the call as a `StreamAny` (a `Val`) converted
    /// back.
    as_any: bool,
}

impl StreamIn {
    /// How many items the guest reads.
    fn read(&self) -> u32 {
        match (self.plan >> 4) & 0xff {
            0 => self.n,
            limit => limit.min(self.n),
        }
    }
}

/// A future the host passes to a guest's `fut`.
#[derive(Debug, Clone, Copy)]
struct FutureIn {
    value: u32,
    /// How often the producer yields first.
    yields: u32,
    /// The producer fails instead (the guest's read finishes `DROPPED`, and
    /// the event loop that polled it fails).
    fails: bool,
    plan: u32,
}

/// What a call does.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// `run(x)`.
    Echo,
    /// `consume32`/`consume8` of a host stream.
    Stream(StreamIn),
    /// `fut` of a host future.
    Future(FutureIn),
}

/// One call: the instance, what it does (`x`: the echo's argument, 0
/// for the others), and after how many polls its future is dropped
/// (`None`: polled to the end).
#[derive(Debug, Clone, Copy)]
struct Call {
    inst: usize,
    x: u32,
    kind: Kind,
    drop_after: Option<usize>,
}

impl Call {
    /// Whether it may poison an instance or fail an event loop.
    fn dooms(&self) -> bool {
        matches!(self.x, TRAP | PANIC | FAIL) || matches!(self.kind, Kind::Future(f) if f.fails)
    }

    /// The value it returns when it completes.
    fn expected(&self) -> Option<u32> {
        match self.kind {
            Kind::Echo => Some(self.x + 1),
            Kind::Stream(s) => Some(sequence_hash(s.wide, s.read())),
            Kind::Future(f) if f.fails => None,
            Kind::Future(f) => Some(f.value),
        }
    }
}

/// What the host does with a stream or future a guest returns.
#[derive(Debug, Clone, Copy)]
enum Out {
    /// Pipes it into a consumer.
    Pipe {
        chunk: usize,
        stop_after: u32,
        pace: u64,
        direct: bool,
    },
    /// Closes it.
    Close,
    /// Drops it (or the `Val` it was turned into).
    Drop { as_any: bool },
}

#[derive(Debug, Clone)]
enum Op {
    /// `run_concurrent` running these calls at once (and, with `spawn`, a
    /// spawned task that is aborted).
    Concurrent { calls: Vec<Call>, spawn: bool },
    /// A `call_async` (its future dropped after `drop_after` polls).
    CallAsync(Call),
    /// A synchronous `call`.
    Call(Call),
    /// `start_call_concurrent`, dropped outside the event loop.
    StartDrop(Call),
    /// `run_concurrent` that only lets the store's other work run.
    Drain,
    /// `produce32`/`produce8 (n, plan)` of an instance, and what the host
    /// does with the stream.
    StreamOut {
        inst: usize,
        wide: bool,
        n: u32,
        plan: u32,
        out: Out,
    },
    /// `make-future (value)` of an instance, and what the host does with
    /// the future.
    FutureOut { inst: usize, value: u32, out: Out },
    /// A host stream (or future) made and closed or dropped unused.
    Unused { future: bool, close: bool },
    /// A host producer piped into a host consumer (or, unless `out` is a
    /// `Pipe`, its reader closed or dropped).
    HostPipe { stream: StreamIn, out: Out },
    /// A host future producer (yielding `yields` times first) piped into
    /// a host consumer.
    HostFuturePipe { value: u32, yields: u32, pace: u64 },
}

fn gen_stream_in(rng: &mut Source<'_>) -> StreamIn {
    StreamIn {
        wide: rng.chance(50),
        n: rng.below(48) as u32,
        plan: rng.plan(30),
        per_poll: 1 + rng.below(20) as u32,
        pace: if rng.chance(50) { rng.pattern(30) } else { 0 },
        direct: rng.chance(50),
        last_dropped: rng.chance(50),
        as_any: rng.chance(15),
    }
}

fn gen_call(rng: &mut Source<'_>) -> Call {
    let (x, kind) = match rng.below(10) {
        0 | 1 => (0, Kind::Stream(gen_stream_in(rng))),
        2 => (
            0,
            Kind::Future(FutureIn {
                value: rng.below(1 << 20) as u32,
                yields: rng.below(3) as u32,
                fails: rng.chance(5),
                plan: rng.below(2) as u32,
            }),
        ),
        _ => {
            let x = match rng.below(40) {
                0 => TRAP,
                1 => PANIC,
                2 => FAIL,
                _ => rng.below(50) as u32,
            };
            (x, Kind::Echo)
        }
    };
    Call {
        inst: rng.below(2) as usize,
        x,
        kind,
        drop_after: rng.chance(25).then(|| rng.below(4) as usize),
    }
}

fn gen_out(rng: &mut Source<'_>) -> Out {
    match rng.below(8) {
        0 => Out::Close,
        1 => Out::Drop { as_any: rng.chance(50) },
        _ => Out::Pipe {
            chunk: 1 + rng.below(20) as usize,
            stop_after: if rng.chance(25) { rng.below(40) as u32 } else { u32::MAX },
            pace: if rng.chance(50) { rng.pattern(30) } else { 0 },
            direct: rng.chance(50),
        },
    }
}

fn gen_op(rng: &mut Source<'_>) -> Op {
    match rng.below(13) {
        0..=3 => Op::Concurrent {
            calls: (0..1 + rng.below(4)).map(|_| gen_call(rng)).collect(),
            spawn: rng.chance(20),
        },
        4 | 5 => Op::CallAsync(gen_call(rng)),
        6 => Op::Call(Call {
            drop_after: None,
            ..gen_call(rng)
        }),
        7 => Op::StartDrop(gen_call(rng)),
        8 => Op::Drain,
        9 | 10 => Op::StreamOut {
            inst: rng.below(2) as usize,
            wide: rng.chance(50),
            n: rng.below(48) as u32,
            plan: rng.plan(0),
            out: gen_out(rng),
        },
        11 if rng.chance(15) => Op::HostFuturePipe {
            value: rng.below(1 << 20) as u32,
            yields: rng.below(3) as u32,
            pace: rng.pattern(30),
        },
        11 if rng.chance(40) => Op::HostPipe {
            stream: gen_stream_in(rng),
            out: gen_out(rng),
        },
        11 => Op::FutureOut {
            inst: rng.below(2) as usize,
            value: rng.below(1 << 20) as u32,
            out: gen_out(rng),
        },
        _ => Op::Unused {
            future: rng.chance(30),
            close: rng.chance(50),
        },
    }
}

/// Pending once (waking itself), then ready.
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}

/// Polls `future` to its end, or gives up after many polls (a call that
/// never finishes is a failure the caller reports).
fn block_on<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..100_000 {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

/// Polls `future` `polls` times, then drops it; its output if it finished.
fn poll_then_drop<F: Future>(future: F, polls: usize) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..polls {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

/// A spawned task that yields until it is aborted.
struct Forever;

impl AccessorTask<()> for Forever {
    async fn run(self, _: &Accessor<()>) -> weft::Result<()> {
        loop {
            yield_once().await;
        }
    }
}

/// The future of one call.
type CallFuture<'a> = Pin<Box<dyn Future<Output = weft::Result<(u32,)>> + Send + 'a>>;

/// The outcome of one call: its result if it finished.
type Outcome = Option<weft::Result<(u32,)>>;

/// An instance's functions.
#[derive(Clone, Copy)]
struct Funcs {
    run: TypedFunc<(u32,), (u32,)>,
    consume32: TypedFunc<(StreamReader<u32>, u32), (u32,)>,
    consume8: TypedFunc<(StreamReader<u8>, u32), (u32,)>,
    fut: TypedFunc<(FutureReader<u32>, u32), (u32,)>,
    produce32: TypedFunc<(u32, u32), (StreamReader<u32>,)>,
    produce8: TypedFunc<(u32, u32), (StreamReader<u8>,)>,
    make_future: TypedFunc<(u32,), (FutureReader<u32>,)>,
}

/// A call's arguments, with the host stream or future it passes.
enum Args {
    Echo(u32),
    S32(StreamReader<u32>, u32),
    S8(StreamReader<u8>, u32),
    Fut(FutureReader<u32>, u32),
}

fn stream_reader<T: streams::Elem>(mut store: StoreContextMut<'_, ()>, s: &StreamIn) -> weft::Result<StreamReader<T>> {
    let reader = StreamReader::new(
        &mut store,
        SeqProducer::<T> {
            next: 0,
            n: s.n,
            per_poll: s.per_poll,
            pace: Pace::new(s.pace),
            direct: s.direct,
            last_dropped: s.last_dropped,
            _marker: PhantomData,
        },
    )?;
    if !s.as_any {
        return Ok(reader);
    }
    let any = reader.try_into_stream_any(&mut store)?;
    StreamReader::try_from_stream_any(any)
}

/// The arguments of `call`, its host stream or future made in `store`.
fn args(mut store: StoreContextMut<'_, ()>, call: &Call) -> weft::Result<Args> {
    Ok(match call.kind {
        Kind::Echo => Args::Echo(call.x),
        Kind::Stream(s) if s.wide => Args::S32(stream_reader(store, &s)?, s.plan),
        Kind::Stream(s) => Args::S8(stream_reader(store, &s)?, s.plan),
        Kind::Future(f) => {
            let reader = FutureReader::new(&mut store, async move {
                for _ in 0..f.yields {
                    yield_once().await;
                }
                if f.fails {
                    weft::bail!("{PRODUCER_FAILED}");
                }
                Ok(f.value)
            })?;
            Args::Fut(reader, f.plan)
        }
    })
}

impl Funcs {
    fn call_concurrent<'a>(&self, accessor: &'a Accessor<()>, args: Args) -> CallFuture<'a> {
        match args {
            Args::Echo(x) => Box::pin(self.run.call_concurrent(accessor, (x,))),
            Args::S32(r, p) => Box::pin(self.consume32.call_concurrent(accessor, (r, p))),
            Args::S8(r, p) => Box::pin(self.consume8.call_concurrent(accessor, (r, p))),
            Args::Fut(r, p) => Box::pin(self.fut.call_concurrent(accessor, (r, p))),
        }
    }

    fn call_async<'a>(self, store: &'a mut Store<()>, args: Args) -> CallFuture<'a> {
        Box::pin(async move {
            match args {
                Args::Echo(x) => self.run.call_async(store, (x,)).await,
                Args::S32(r, p) => self.consume32.call_async(store, (r, p)).await,
                Args::S8(r, p) => self.consume8.call_async(store, (r, p)).await,
                Args::Fut(r, p) => self.fut.call_async(store, (r, p)).await,
            }
        })
    }

    fn call(&self, store: &mut Store<()>, args: Args) -> weft::Result<(u32,)> {
        match args {
            Args::Echo(x) => self.run.call(store, (x,)),
            Args::S32(r, p) => self.consume32.call(store, (r, p)),
            Args::S8(r, p) => self.consume8.call(store, (r, p)),
            Args::Fut(r, p) => self.fut.call(store, (r, p)),
        }
    }

    /// `start_call_concurrent`, its result dropped at once.
    fn start_drop(&self, store: &mut Store<()>, args: Args) -> weft::Result<()> {
        match args {
            Args::Echo(x) => self.run.start_call_concurrent(store, (x,)).map(drop),
            Args::S32(r, p) => self.consume32.start_call_concurrent(store, (r, p)).map(drop),
            Args::S8(r, p) => self.consume8.start_call_concurrent(store, (r, p)).map(drop),
            Args::Fut(r, p) => self.fut.start_call_concurrent(store, (r, p)).map(drop),
        }
    }
}

/// Runs `calls` at once in one `run_concurrent`.
fn concurrent(store: &mut Store<()>, funcs: &[Funcs], calls: &[Call], spawn: bool) -> Result<Vec<Outcome>, String> {
    let out = block_on(store.run_concurrent(async |accessor| {
        let aborted = spawn.then(|| accessor.spawn(Forever)).transpose()?;
        let mut futures: Vec<Option<CallFuture<'_>>> = Vec::new();
        for c in calls {
            let args = accessor.with(|mut access| args(access.as_context_mut(), c))?;
            futures.push(Some(funcs[c.inst].call_concurrent(accessor, args)));
        }
        let mut outcomes: Vec<Outcome> = calls.iter().map(|_| None).collect();
        let mut polls = vec![0usize; calls.len()];
        std::future::poll_fn(|cx| {
            let mut pending = false;
            for (i, f) in futures.iter_mut().enumerate() {
                let Some(fut) = f else { continue };
                if calls[i].drop_after.is_some_and(|n| polls[i] >= n) {
                    *f = None;
                    continue;
                }
                polls[i] += 1;
                match fut.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        outcomes[i] = Some(v);
                        *f = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
            if pending {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
        if let Some(handle) = aborted {
            handle.abort();
            handle.await;
        }
        Ok::<_, weft::Error>(outcomes)
    }));
    match out {
        None => Err(format!(
            "run_concurrent did not finish:\n{}",
            store.debug_concurrent_state()
        )),
        Some(Err(e)) => Err(format!("run_concurrent failed: {e:#}")),
        Some(Ok(Err(e))) => Err(format!("the spawn or a call's arguments failed: {e:#}")),
        Some(Ok(Ok(outcomes))) => Ok(outcomes),
    }
}

/// Whether `e` is an error a doomed call may end with.
fn acceptable_failure(e: &weft::Error) -> bool {
    let text = format!("{e:#}");
    [
        "unreachable",
        "cannot enter component instance",
        "host function",
        "echo failed",
        PRODUCER_FAILED,
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// Checks one call's outcome; `doomed` says whether a call that may
/// poison its instance was issued to it (before or alongside).
fn check(call: &Call, outcome: &Outcome, doomed: bool) -> Result<(), String> {
    let counter = match outcome {
        None => &DROPPED,
        Some(Ok(_)) => &COMPLETED,
        Some(Err(_)) => &FAILED,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    match outcome {
        None if call.drop_after.is_some() => Ok(()),
        None => Err(format!("{call:?} did not finish")),
        Some(Ok((v,))) if matches!(call.x, TRAP | PANIC | FAIL) => Err(format!("{call:?} returned {v}")),
        Some(Ok((v,))) => match (call.expected(), call.kind) {
            (Some(want), Kind::Stream(s)) if *v == want => {
                TO_GUEST.fetch_add(s.read() as usize, Ordering::Relaxed);
                Ok(())
            }
            (Some(want), _) if *v == want => {
                TO_GUEST.fetch_add(usize::from(!matches!(call.kind, Kind::Echo)), Ordering::Relaxed);
                Ok(())
            }
            // A failed future producer: the guest's read finished `DROPPED`.
            (None, _) if *v == u32::MAX => Ok(()),
            (want, _) => Err(format!("{call:?} returned {v:#x}, not {want:#x?}")),
        },
        Some(Err(e)) if (doomed || call.dooms()) && acceptable_failure(e) => Ok(()),
        Some(Err(e)) => Err(format!("{call:?} failed: {e:#}")),
    }
}

/// Whether a panic's payload is the host function's own.
fn host_panic(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.downcast_ref::<&str>().is_some_and(|m| *m == HOST_PANIC)
        || payload.downcast_ref::<String>().is_some_and(|m| m == HOST_PANIC)
}

/// What every sequence shares: the engine, the compiled component and the
/// linker with the host's `echo`.
pub struct Fixture {
    engine: Engine,
    component: Component,
    linker: Linker<()>,
}

/// The shared part of the sequences.
pub fn fixture() -> Fixture {
    let mut config = Config::new();
    // Synchronous stream and future copies and cancellations.
    config.wasm_component_model_more_async_builtins(true);
    let engine = Engine::new(&config).unwrap();
    let component = Component::new(&engine, wat::parse_str(COMPONENT).unwrap()).unwrap();
    let mut linker = Linker::new(&engine);
    linker
        .root()
        .func_wrap_concurrent("echo", |_: &Accessor<()>, (a,): (u32,)| {
            Box::pin(async move {
                for _ in 0..a % 3 {
                    yield_once().await;
                }
                if a == PANIC {
                    panic!("{}", HOST_PANIC);
                }
                if a == FAIL {
                    weft::bail!("echo failed");
                }
                Ok((a,))
            })
        })
        .unwrap();
    Fixture {
        engine,
        component,
        linker,
    }
}

/// A host consumer of a guest's stream or future (or of a host
/// producer's stream), checked at the end of the sequence.
struct Piped {
    /// The writer's instance (2: the host).
    inst: usize,
    /// The items the guest writes (1 for a future).
    n: u32,
    log: Arc<Mutex<Log>>,
}

/// Runs a [`Op::StreamOut`] or [`Op::FutureOut`]: the guest's call, then
/// what the host does with what it returns. The consumer to check, if it
/// piped.
fn run_out(store: &mut Store<()>, funcs: &[Funcs], op: &Op) -> weft::Result<Option<Piped>> {
    let log = Arc::new(Mutex::new(Log::default()));
    let (inst, n, out) = match *op {
        Op::StreamOut {
            inst,
            wide,
            n,
            plan,
            out,
        } => {
            let f = &funcs[inst];
            if wide {
                let call = f.produce32.call_async(&mut *store, (n, plan));
                let (reader,) = block_on(call).ok_or_else(|| weft::format_err!("produce did not finish"))??;
                stream_out(store, reader, out, &log)?;
            } else {
                let call = f.produce8.call_async(&mut *store, (n, plan));
                let (reader,) = block_on(call).ok_or_else(|| weft::format_err!("produce did not finish"))??;
                stream_out(store, reader, out, &log)?;
            }
            (inst, n, out)
        }
        Op::FutureOut { inst, value, out } => {
            let (mut reader,) = funcs[inst].make_future.call(&mut *store, (value,))?;
            match out {
                Out::Pipe { pace, .. } => reader.pipe(
                    &mut *store,
                    ValueConsumer {
                        expect: value,
                        pace: Pace::new(pace),
                        log: log.clone(),
                    },
                )?,
                Out::Close => reader.close(&mut *store)?,
                Out::Drop { as_any: true } => {
                    drop(weft::component::Val::Future(reader.try_into_future_any(&mut *store)?))
                }
                Out::Drop { as_any: false } => drop(reader),
            }
            (inst, 1, out)
        }
        _ => return Ok(None),
    };
    Ok(matches!(out, Out::Pipe { .. }).then_some(Piped { inst, n, log }))
}

fn stream_out<T: streams::Elem>(
    store: &mut Store<()>,
    mut reader: StreamReader<T>,
    out: Out,
    log: &Arc<Mutex<Log>>,
) -> weft::Result<()> {
    match out {
        Out::Pipe {
            chunk,
            stop_after,
            pace,
            direct,
        } => reader.pipe(
            &mut *store,
            SeqConsumer::<T> {
                chunk,
                stop_after,
                pace: Pace::new(pace),
                direct,
                log: log.clone(),
                _marker: PhantomData,
            },
        ),
        Out::Close => reader.close(&mut *store),
        Out::Drop { as_any: true } => {
            drop(weft::component::Val::Stream(reader.try_into_stream_any(&mut *store)?));
            Ok(())
        }
        Out::Drop { as_any: false } => {
            drop(reader);
            Ok(())
        }
    }
}

/// Checks a host consumer at the end of a sequence: every item it took
/// was right, and, unless an instance was doomed, it ended with all the
/// guest wrote or where it stopped.
fn check_piped(p: &Piped, doomed: [bool; 2]) -> Result<(), String> {
    let log = p.log.lock().unwrap();
    if let Some(bad) = &log.bad {
        return Err(format!("a host consumer of instance {}: {bad}", p.inst));
    }
    TO_HOST.fetch_add(log.got as usize, Ordering::Relaxed);
    if doomed != [false, false] {
        return Ok(());
    }
    if !log.ended {
        return Err(format!("a host consumer of instance {} never ended: {log:?}", p.inst));
    }
    if !log.stopped && log.got != p.n {
        return Err(format!(
            "a host consumer of instance {} ended with {} of {} items",
            p.inst, log.got, p.n
        ));
    }
    Ok(())
}

/// Runs the sequence that `source` chooses (`seed` names it in messages);
/// a description of the first broken property.
pub fn run_sequence(f: &Fixture, seed: u64, mut rng: Source<'_>) -> Result<(), String> {
    let mut store = Store::new(&f.engine, ());
    store.set_concurrency_schedule_seed(rng.chance(70).then(|| rng.next()));
    let funcs: Vec<Funcs> = (0..2)
        .map(|_| {
            let instance = f.linker.instantiate(&mut store, &f.component).unwrap();
            let mut get = |name: &str| instance.get_func(&mut store, name).unwrap();
            let (run, c32, c8, fut, p32, p8, make) = (
                get("run"),
                get("consume32"),
                get("consume8"),
                get("fut"),
                get("produce32"),
                get("produce8"),
                get("make-future"),
            );
            Funcs {
                run: run.typed(&store).unwrap(),
                consume32: c32.typed(&store).unwrap(),
                consume8: c8.typed(&store).unwrap(),
                fut: fut.typed(&store).unwrap(),
                produce32: p32.typed(&store).unwrap(),
                produce8: p8.typed(&store).unwrap(),
                make_future: make.typed(&store).unwrap(),
            }
        })
        .collect();
    let mut doomed = [false; 2];
    let mut piped: Vec<Piped> = Vec::new();
    let ops: Vec<Op> = (0..1 + rng.below(8)).map(|_| gen_op(&mut rng)).collect();
    for (step, op) in ops.iter().enumerate() {
        let calls: Vec<Call> = match op {
            Op::Concurrent { calls, .. } => calls.clone(),
            Op::CallAsync(c) | Op::Call(c) | Op::StartDrop(c) => vec![*c],
            _ => Vec::new(),
        };
        let was_doomed = doomed;
        for c in &calls {
            if matches!(c.x, TRAP | PANIC | FAIL) {
                doomed[c.inst] = true;
            }
            if c.dooms() && matches!(c.kind, Kind::Future(_)) {
                // Its error fails whichever event loop polls it.
                doomed = [true, true];
            }
        }
        let context = |e: String| format!("sequence {seed}, step {step} of {ops:?}: {e}");
        let ran = catch_unwind(AssertUnwindSafe(|| -> Result<Vec<Outcome>, String> {
            let call_args = |store: &mut Store<()>, c: &Call| {
                args(store.as_context_mut(), c).map_err(|e| format!("the arguments failed: {e:#}"))
            };
            match op {
                Op::Concurrent { calls, spawn } => concurrent(&mut store, &funcs, calls, *spawn),
                Op::CallAsync(c) => {
                    let a = call_args(&mut store, c)?;
                    let call = funcs[c.inst].call_async(&mut store, a);
                    Ok(vec![match c.drop_after {
                        Some(n) => poll_then_drop(call, n),
                        None => Some(block_on(call).ok_or("call_async did not finish")?),
                    }])
                }
                Op::Call(c) => {
                    let a = call_args(&mut store, c)?;
                    Ok(vec![Some(funcs[c.inst].call(&mut store, a))])
                }
                Op::StartDrop(c) => {
                    let a = call_args(&mut store, c)?;
                    let r = funcs[c.inst].start_drop(&mut store, a);
                    Ok(vec![r.err().map(Err)])
                }
                Op::Drain => {
                    drain(&mut store, 8)?;
                    Ok(Vec::new())
                }
                Op::StreamOut { .. } | Op::FutureOut { .. } => {
                    if let Some(p) = run_out(&mut store, &funcs, op).map_err(|e| format!("{e:#}"))? {
                        piped.push(p);
                    }
                    Ok(Vec::new())
                }
                Op::HostPipe { stream, out } => {
                    if let Some(p) = host_pipe(&mut store, stream, *out).map_err(|e| format!("{e:#}"))? {
                        piped.push(p);
                    }
                    Ok(Vec::new())
                }
                Op::HostFuturePipe { value, yields, pace } => {
                    let (value, yields) = (*value, *yields);
                    let log = Arc::new(Mutex::new(Log::default()));
                    let mut piped_into = || -> weft::Result<()> {
                        let reader = FutureReader::new(&mut store, async move {
                            for _ in 0..yields {
                                yield_once().await;
                            }
                            Ok::<_, weft::Error>(value)
                        })?;
                        let consumer = ValueConsumer {
                            expect: value,
                            pace: Pace::new(*pace),
                            log: log.clone(),
                        };
                        reader.pipe(&mut store, consumer)
                    };
                    piped_into().map_err(|e| format!("a host future pipe: {e:#}"))?;
                    piped.push(Piped { inst: 2, n: 1, log });
                    Ok(Vec::new())
                }
                Op::Unused { future, close } => {
                    unused(&mut store, *future, *close).map_err(|e| format!("an unused reader: {e:#}"))?;
                    Ok(Vec::new())
                }
            }
        }));
        match ran {
            Err(payload) if host_panic(&*payload) => {
                // The panic may come from any echo of 2000 in flight.
                PANICS.fetch_add(1, Ordering::Relaxed);
                doomed = [true, true];
            }
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(context(format!("a panic escaped: {msg}")));
            }
            Ok(Err(e)) if doomed != [false, false] && acceptable_failure(&weft::format_err!("{e}")) => {}
            Ok(Err(e)) => return Err(context(e)),
            Ok(Ok(outcomes)) => {
                for (c, o) in calls.iter().zip(&outcomes) {
                    // A call dropped before it was issued has no outcome.
                    if matches!(op, Op::StartDrop(_)) && o.is_none() {
                        continue;
                    }
                    check(c, o, was_doomed[c.inst] || doomed[c.inst]).map_err(context)?;
                }
            }
        }
        store.check_concurrent_state().map_err(|e| context(format!("{e:#}")))?;
    }
    // Let whatever is left run to its end: streams may need many turns.
    for _ in 0..if doomed == [false, false] { 64 } else { 1 } {
        let drained = catch_unwind(AssertUnwindSafe(|| drain(&mut store, 16)));
        match drained {
            Err(payload) if host_panic(&*payload) => doomed = [true, true],
            Err(_) => return Err(format!("sequence {seed}: a panic escaped the final drain")),
            Ok(Err(e)) if doomed != [false, false] && acceptable_failure(&weft::format_err!("{e}")) => {}
            Ok(Err(e)) => return Err(format!("sequence {seed} of {ops:?}: the final drain: {e}")),
            Ok(Ok(())) => {}
        }
        if store.concurrent_state_table_size() == 0 {
            break;
        }
    }
    store
        .check_concurrent_state()
        .map_err(|e| format!("sequence {seed} of {ops:?}: at the end: {e:#}"))?;
    for p in &piped {
        check_piped(p, doomed).map_err(|e| format!("sequence {seed} of {ops:?}: {e}"))?;
    }
    if doomed == [false, false] && store.concurrent_state_table_size() != 0 {
        return Err(format!(
            "sequence {seed} of {ops:?}: the concurrent state is not empty:\n{}",
            store.debug_concurrent_state()
        ));
    }
    Ok(())
}

/// `run_concurrent` that lets the store's other work run for `turns`
/// yields.
fn drain(store: &mut Store<()>, turns: usize) -> Result<(), String> {
    block_on(store.run_concurrent(async |_| {
        for _ in 0..turns {
            yield_once().await;
        }
    }))
    .ok_or("the drain did not finish")?
    .map_err(|e| format!("the drain failed: {e:#}"))
}

/// Pipes a host producer into a host consumer (when `out` is a `Pipe`;
/// otherwise the reader is closed or dropped). The consumer to check.
fn host_pipe(store: &mut Store<()>, s: &StreamIn, out: Out) -> weft::Result<Option<Piped>> {
    let log = Arc::new(Mutex::new(Log::default()));
    if s.wide {
        let reader = stream_reader::<u32>(store.as_context_mut(), s)?;
        stream_out(store, reader, out, &log)?;
    } else {
        let reader = stream_reader::<u8>(store.as_context_mut(), s)?;
        stream_out(store, reader, out, &log)?;
    }
    Ok(matches!(out, Out::Pipe { .. }).then_some(Piped { inst: 2, n: s.n, log }))
}

/// A host stream or future made, then closed or dropped unused.
fn unused(store: &mut Store<()>, future: bool, close: bool) -> weft::Result<()> {
    if future {
        let mut reader = FutureReader::new(&mut *store, async { Ok::<_, weft::Error>(1u32) })?;
        if close {
            reader.close(&mut *store)?;
        }
    } else {
        let mut reader = StreamReader::new(&mut *store, vec![1u32, 2, 3])?;
        if close {
            reader.close(&mut *store)?;
        }
    }
    Ok(())
}

/// The counts of what the sequences did so far: calls completed, calls
/// failed, host panics caught, calls dropped, stream items and future
/// values that reached a guest (through calls that returned) and that
/// reached a host consumer.
pub fn outcome_counts() -> [usize; 6] {
    [&COMPLETED, &FAILED, &PANICS, &DROPPED, &TO_GUEST, &TO_HOST].map(|c| c.load(Ordering::Relaxed))
}

/// Keeps the host function's own (expected) panics out of the output;
/// other panics print as before.
pub fn quiet_host_panics() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !host_panic(info.payload()) {
            hook(info);
        }
    }));
}

/// `concurrent_api`: the sequence a fuzz input chooses keeps every
/// guarantee (see the module docs); panics with a description otherwise.
pub fn concurrent_api_target(f: &Fixture, data: &[u8]) {
    if let Err(e) = run_sequence(f, 0, Source::Bytes(data)) {
        panic!("{e}");
    }
}
