//! Where a wasm function starts within a cache line, chosen so that its
//! small loops touch as few 64-byte lines as they can.
//!
//! A loop that straddles one line more than it needs costs much more than
//! its extra bytes on the machine measured (an AMD EPYC of the Zen 4
//! generation, whose decoded instructions are cached by 64-byte line):
//! shootout-sieve ran 1.5× slower
//! when its inner loop crossed a line and 1.25× slower when its outer loop
//! touched three lines instead of two, with the same machine code.
//! Cranelift does not align loop headers, so the only lever is where the
//! whole function starts: this module tries every start into a line that
//! the code's alignment allows and keeps the one whose loops without calls
//! touch the fewest lines beyond their minimum, weighting a loop by its
//! nesting depth (inner loops run more often). Among the starts that fit
//! those loops equally well, it prefers one where the loops around calls
//! and the loops too long to fit end (their back edge) at an offset into a
//! line that ran fast (see [`back_edge_end_cost`]), then one that fits the
//! small loops with calls, then the earliest (see [`start_in_line`]). A
//! function without loops of up to [`LONG_LOOP`] bytes starts on a line.

/// The size of the lines the loops are fitted to.
pub(crate) const LINE: u32 = 64;

/// Loops longer than this are not fitted to lines: one more line is a
/// small part of what they touch. Up to [`LONG_LOOP`], where they end
/// still counts.
const MAX_LOOP: u32 = 3 * LINE;

/// Loops longer than this are left to chance.
const LONG_LOOP: u32 = 16 * LINE;

/// How many times an inner loop's end counts for each loop around it: it
/// runs once per iteration, and an inner loop usually runs many times for
/// each of the loop around it.
const END_DEPTH_WEIGHT: u32 = 8;

/// The loops of x86-64 code whose basic blocks start at `block_starts`
/// (in order), each as the offsets `(header, end)`: a block whose branch
/// goes back to a block at or before it closes a loop that covers the code
/// from that block to its own end.
///
/// Cranelift's own edge list (`machine_code_cfg_info`) cannot be used: it
/// pairs blocks with offsets by block number, which goes wrong once cold
/// blocks are moved to the end. So the branches are read from the code: a
/// block ends with `jmp rel32` (`E9`), `jcc rel32` (`0F 8x`) or both, the
/// only forms Cranelift emits for branches to labels on x86-64. A block
/// that falls through may end with bytes that look like a branch; such a
/// misreading only moves the function within a line.
pub(crate) fn loops_x64(code: &[u8], block_starts: &[u32]) -> Vec<(u32, u32)> {
    let rel32_target = |at: usize| -> Option<u32> {
        // The 4-byte displacement ending at `at`, from `at`.
        let bytes: [u8; 4] = code.get(at.checked_sub(4)?..at)?.try_into().ok()?;
        u32::try_from(at as i64 + i64::from(i32::from_le_bytes(bytes))).ok()
    };
    let mut loops = Vec::new();
    for (i, &start) in block_starts.iter().enumerate() {
        // The last block runs into the trap and constant islands: its end is
        // unknown, and a loop ending there is left to chance.
        let Some(&end) = block_starts.get(i + 1) else { break };
        let (start, end) = (start as usize, end as usize);
        let mut targets = Vec::new();
        let mut at = end;
        // At most two branches end a block: `jcc` then `jmp`.
        for _ in 0..2 {
            let target = match at.checked_sub(start) {
                Some(n) if n >= 5 && code.get(at - 5) == Some(&0xE9) => (rel32_target(at), 5),
                Some(n)
                    if n >= 6
                        && code.get(at - 6) == Some(&0x0F)
                        && code.get(at - 5).is_some_and(|b| b & 0xF0 == 0x80) =>
                {
                    (rel32_target(at), 6)
                }
                _ => break,
            };
            if let (Some(t), _) = target {
                targets.push(t);
            }
            at -= target.1;
        }
        for t in targets {
            if (t as usize) <= start {
                loops.push((t, end as u32));
            }
        }
    }
    loops
}

/// How slowly a loop around a call ran on the machine measured when its
/// back edge (the branch that closes it) ends `at` bytes into the code,
/// counted from a line: 0 for an end 42-45 bytes into a line, 1 for 0-15,
/// 2 elsewhere. Loops too long to fit a line are placed by the same
/// measure (see [`start_in_line`]).
///
/// Measured on Zen 3, on the two sightglass programs whose hot function is
/// a small loop around a recursive call, at every even start 0..62 into a
/// line:
///
/// * shootout-fib2 (a 41-byte loop ending 0x6a bytes into the function;
///   pinned, fastest of 2 processes): 1094-1108 ms with the end 0-16, 36,
///   42-44 or 60-62 bytes into a line; 1110-1155 ms with it 18-34 or 46-58
///   bytes in; 1204-1209 ms at 38 and 40. Wasmtime ran it in 1098 ms.
/// * shootout-ackermann (a 55-byte loop ending 0x6a bytes in; pinned,
///   fastest of 3 processes): 863-898 µs with the end 0-16 or 38-46 bytes
///   into a line; 970-985 µs with it 18-36 or 48-62 bytes in. Wasmtime:
///   865 µs. Each run is short (under 1 ms, a fresh instance each), and
///   the first runs after compiling are slower: the median of 8 processes
///   of 10 runs each (unpinned but for the runs, as `cargo xtask bench`
///   runs them) was 0.917 ms with the end 42 bytes in, 0.898 ms with it 44
///   bytes in, 0.970 ms with it 0 bytes in (the fastest processes agreed:
///   0.877, 0.864 and 0.894 ms). Wasmtime: 0.937 ms.
///
/// So the ends fast for both come first, those 42-45 bytes in ahead of
/// the others. The return address of the call, which an earlier rule
/// placed (late in a 32-byte block, from fib2 on Zen 4), does not tell the
/// two apart on Zen 3: fib2 was slow with its return 21-31 bytes into a
/// line, where ackermann was fast.
fn back_edge_end_cost(at: u32) -> u32 {
    match at % LINE {
        42..46 => 0,
        0..16 => 1,
        _ => 2,
    }
}

/// The start offset within a [`LINE`] for a function with `loops`
/// (`(header, end)` offsets, see [`loops_x64`]) and calls returning to
/// `call_returns`. The offset is a multiple of `align`, the alignment the
/// code needs (its constants'); it is 0 when `align` is a line or more.
///
/// The start puts the small loops without calls on the fewest lines beyond
/// their minimum; among the starts that do that equally well, it ends the
/// loops around calls and the loops longer than [`MAX_LOOP`] where they
/// cost least ([`back_edge_end_cost`], an inner loop counting
/// [`END_DEPTH_WEIGHT`] times the loop around it); among those, it puts
/// the small loops with calls on the fewest lines. A tie keeps the
/// earliest start.
///
/// Where long loops end was measured on Zen 3 (bench-like runs: medians of
/// 4 processes, before and after): shootout-matrix, whose inner loop is
/// 387 bytes long, ran in 191.6 ms with it ending 56 bytes into a line and
/// in 186.3 ms with it 42 bytes in (Wasmtime: 188.7 ms); shootout-ctype's
/// 230-byte loop around its calls, 308.4 ms ending 18 bytes in and 302.6
/// ms 42 bytes in (Wasmtime: 305.4 ms); shootout-minicsv 690 ms and 606 ms
/// (Wasmtime: 691 ms). Of the other programs whose functions moved, seven
/// stayed within 0.7 % and shootout-xblabla20 went from 0.839 to 0.852 ms
/// (Wasmtime: 0.847 ms).
///
/// A loop with a call comes last because its lines mattered least where
/// measured. On Zen 3, shootout-ackermann's loop around its call ran as
/// fast on two lines as on one, but 10 % slower where its end fell badly;
/// and
/// shootout-sieve ran in 229-231 ms at starts 0 to 3 and 232 ms at 32,
/// although at 0 and 1 its outer loop, which calls `memset`, touches one
/// line more. On Zen 4 those two starts were about 5 % slower, so
/// the lines of such loops still break the remaining ties.
///
/// Every byte offset is tried, not only multiples of 8 or 16: the loops of
/// shootout-sieve's hot function (headers 0x7e, 0xa0 and 0xc4 bytes in;
/// 151, 93 and 28 bytes long) all touch their fewest lines only at starts
/// 2, 3 and 32. Measured on Zen 4 (pinned, every start 0..63, fastest of 2
/// processes): 171.7 ms at 2 and 3, 176.1 ms at 32, 179-181 ms at the
/// starts that fit the two inner loops but not the outer one, 205-265 ms
/// at the others; Wasmtime 171.1 ms. The earliest of the best starts is a
/// fast one there; in full bench runs the other programs did not move
/// beyond their noise.
pub(crate) fn start_in_line(align: u32, loops: &[(u32, u32)], call_returns: &[u32]) -> u32 {
    let step = align.max(1);
    if step >= LINE {
        return 0;
    }
    let mut loops: Vec<(u32, u32)> = loops
        .iter()
        .copied()
        .filter(|&(start, end)| start < end && end - start <= LONG_LOOP)
        .collect();
    loops.sort_unstable();
    loops.dedup();
    // Each loop with its depth among the small loops (how many of them
    // contain it, itself too: the weight of its lines; 0 for a long loop),
    // its depth among all the loops kept (for the weight of its end), and
    // whether a call returns inside it (a call ends before its return
    // address, so the address may be the loop's end).
    let small = |&(s, e): &(u32, u32)| e - s <= MAX_LOOP;
    let depth = |at: u32, end: u32, only_small: bool| {
        loops
            .iter()
            .filter(|l| !only_small || small(l))
            .filter(|&&(s, e)| s <= at && end <= e)
            .count() as u32
    };
    let weighted: Vec<(u32, u32, u32, u32, bool)> = loops
        .iter()
        .map(|&(s, e)| {
            let small_depth = if small(&(s, e)) { depth(s, e, true) } else { 0 };
            let calls = call_returns.iter().any(|&ret| s < ret && ret <= e);
            (s, e, small_depth, depth(s, e, false), calls)
        })
        .collect();
    if weighted.is_empty() {
        return 0;
    }
    // The extra lines the small loops touch at `shift`: those without
    // calls, then those with calls.
    let extra_lines = |shift: u32, with_calls: bool| -> u32 {
        weighted
            .iter()
            .filter(|&&(_, _, small_depth, _, calls)| small_depth > 0 && calls == with_calls)
            .map(|&(s, e, depth, _, _)| {
                let touched = (e - 1 + shift) / LINE - (s + shift) / LINE + 1;
                let least = (e - s).div_ceil(LINE);
                depth * (touched - least)
            })
            .sum()
    };
    // How badly the loops placed by their ends end at `shift`: those with
    // calls and those too long to fit, an inner loop counting
    // `END_DEPTH_WEIGHT` times its outer one.
    let slow_ends = |shift: u32| -> u32 {
        weighted
            .iter()
            .filter(|&&(_, _, small_depth, _, calls)| calls || small_depth == 0)
            .map(|&(_, e, _, depth, _)| {
                END_DEPTH_WEIGHT
                    .saturating_pow(depth - 1)
                    .saturating_mul(back_edge_end_cost(e + shift))
            })
            .fold(0, u32::saturating_add)
    };
    let cost =
        |shift: u32| -> (u32, u32, u32) { (extra_lines(shift, false), slow_ends(shift), extra_lines(shift, true)) };
    // The earliest start wins a tie: 0, the line start, first of all.
    let mut best = (cost(0), 0);
    for shift in (step..LINE).step_by(step as usize) {
        let c = cost(shift);
        if c < best.0 {
            best = (c, shift);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loops of shootout-sieve's hot function as Cranelift laid them
    /// out: the outer one (151 bytes, around a call to `memset`), the
    /// middle one over the candidates (93 bytes) and the inner one that
    /// strikes out multiples (28 bytes).
    const SIEVE: [(u32, u32); 3] = [(0x7e, 0x115), (0xa0, 0xfd), (0xc4, 0xe0)];

    fn lines(shift: u32, (s, e): (u32, u32)) -> u32 {
        (e - 1 + shift) / LINE - (s + shift) / LINE + 1
    }

    fn fits(shift: u32, l: (u32, u32)) -> bool {
        lines(shift, l) == (l.1 - l.0).div_ceil(LINE)
    }

    #[test]
    fn sieve_loops_fit_their_least_lines() {
        let shift = start_in_line(1, &SIEVE, &[]);
        assert_eq!(shift, 2);
        for l in SIEVE {
            assert!(fits(shift, l), "the loop {l:x?}");
        }
        // At 0 and 1 the outer loop touches a fourth line.
        assert!(!fits(0, SIEVE[0]) && !fits(1, SIEVE[0]));
        // 2, 3 and 32 are the only starts that fit all three.
        let all: Vec<u32> = (0..LINE).filter(|&s| SIEVE.iter().all(|&l| fits(s, l))).collect();
        assert_eq!(all, [2, 3, 32]);
    }

    #[test]
    fn without_loops_or_when_nothing_is_gained_a_function_starts_on_a_line() {
        assert_eq!(start_in_line(1, &[], &[]), 0);
        // A 20-byte loop at 8 fits in line 0 already.
        assert_eq!(start_in_line(1, &[(8, 28)], &[]), 0);
        // A loop longer than LONG_LOOP is left alone.
        assert_eq!(start_in_line(1, &[(60, 60 + LONG_LOOP + 1)], &[]), 0);
    }

    #[test]
    fn a_loop_too_long_to_fit_is_placed_by_its_end() {
        // A 330-byte loop ending 6 bytes into a line at 0 ends 42 bytes in
        // at 36, however many lines it touches.
        assert_eq!(start_in_line(1, &[(60, 390)], &[]), 36);
        assert_eq!(back_edge_end_cost(390 + 36), 0);
        // shootout-matrix's hot function: three nested loops of 387, 468
        // and 516 bytes. The inner one ends 56 bytes into a line at 0,
        // where the program ran in 191.4 ms; at 50 it ends 42 bytes in
        // (185.8 ms; every start from 18 to 54 gave 185.3-186.2 ms), though
        // the two outer loops then end badly.
        let matrix = [(0x1b5, 0x338), (0x18b, 0x35f), (0x17c, 0x380)];
        assert_eq!(start_in_line(1, &matrix, &[]), 50);
        assert_eq!(back_edge_end_cost(0x338 + 50), 0);
        assert!(back_edge_end_cost(0x35f + 50) == 2 && back_edge_end_cost(0x380 + 50) == 2);
    }

    #[test]
    fn a_loop_crossing_a_line_moves_just_far_enough_to_fit() {
        // A 24-byte loop at 56 crosses into line 1; starting the function
        // 8 bytes into a line puts it at 64..88, inside line 1.
        assert_eq!(start_in_line(1, &[(56, 80)], &[]), 8);
    }

    #[test]
    fn a_loop_around_a_call_ends_where_it_ran_fast() {
        // shootout-fib2's hot function: a loop from 0x41 to 0x6a around a
        // call that returns to 0x4f. At 0 the loop fits a line and ends 42
        // bytes into it, the best end.
        let fib = [(0x41, 0x6a)];
        assert_eq!(start_in_line(1, &fib, &[0x4f]), 0);
        assert!(back_edge_end_cost(0x6a) == 0 && lines(0, fib[0]) == 1);
        // The start the earlier rule gave, 6, ends it 48 bytes in: slow.
        assert_eq!(back_edge_end_cost(0x6a + 6), 2);
        // Calls outside the small loops do not move the function.
        assert_eq!(start_in_line(1, &fib, &[0x20, 0x90]), 0);
        // shootout-ackermann's hot function: a loop from 0x33 to 0x6a
        // around a call returning to 0x59. At 0 it ends 42 bytes into a
        // line, on two lines; at 22 it would fit one line and end on a
        // line's first byte, which ran slower in its first runs.
        let ack = [(0x33, 0x6a)];
        assert_eq!(start_in_line(1, &ack, &[0x59]), 0);
        assert!(!fits(0, ack[0]) && fits(22, ack[0]) && back_edge_end_cost(0x6a + 22) == 1);
    }

    #[test]
    fn loops_without_calls_are_fitted_before_the_ends_and_lines_of_loops_with_calls() {
        // Sieve's outer loop calls `memset` (returning to 0x99): its inner
        // loops fit at 0..=3, 32 and 60..=63, and the outer loop at 2, 3
        // and 32 only; its end is slow at all three, so the lines decide
        // and 2 is kept.
        assert_eq!(start_in_line(1, &SIEVE, &[0x99]), 2);
        assert!([2, 3, 32].iter().all(|&s| back_edge_end_cost(SIEVE[0].1 + s) == 2));
        // A loop without calls still comes first: the 60-byte loop at 0x44
        // fits one line only at 0 and 60..=63, where the loop around the
        // call to 0x28 ends slowly; 8 or 50 would end it better.
        let loops = [(0x10, 0x38), (0x44, 0x80)];
        assert_eq!(start_in_line(1, &loops, &[0x28]), 0);
        assert!([0, 60, 61, 62, 63].iter().all(|&s| back_edge_end_cost(0x38 + s) == 2));
        assert!(back_edge_end_cost(0x38 + 8) == 1 && !fits(8, loops[1]));
        assert!(back_edge_end_cost(0x38 + 50) == 0 && !fits(50, loops[1]));
    }

    #[test]
    fn deeply_nested_loops_do_not_overflow_the_weights() {
        // 40 long loops, each inside the one before: the inner ones' weights
        // (8 to the power of their depth) saturate.
        let nested: Vec<(u32, u32)> = (0..40).map(|i| (4 * i, 900 - 4 * i)).collect();
        let returns: Vec<u32> = (0..40).map(|i| 4 * i + 2).collect();
        let shift = start_in_line(1, &nested, &returns);
        assert!(shift < LINE);
    }

    #[test]
    fn the_start_keeps_the_alignment_the_code_needs() {
        // Sieve's loops want 2; code with 16-aligned constants cannot have
        // it and takes a multiple of 16 (32 fits them too), and code
        // aligned to a line or more stays on one.
        assert_eq!(start_in_line(16, &SIEVE, &[]), 32);
        assert_eq!(start_in_line(64, &SIEVE, &[]), 0);
        assert_eq!(start_in_line(128, &SIEVE, &[]), 0);
    }

    #[test]
    fn loops_are_read_from_the_branches_that_end_blocks() {
        let nops = |n: usize| vec![0x90u8; n];
        let mut code = nops(8); // block 0: 0..8, falls through
                                // block 1: 8..24, `jcc` back to 8 (a loop), then `jmp` on to 30.
        code.extend(nops(5));
        code.extend([0x0F, 0x85]);
        code.extend((8i32 - 19).to_le_bytes());
        code.push(0xE9);
        code.extend((30i32 - 24).to_le_bytes());
        // block 2: 24..30, `jmp` back to 0 (an outer loop).
        code.push(0x90);
        code.push(0xE9);
        code.extend((0i32 - 30).to_le_bytes());
        // block 3: 30..32, whose end is unknown (islands follow).
        code.extend(nops(2));
        assert_eq!(code.len(), 32);
        let mut loops = loops_x64(&code, &[0, 8, 24, 30]);
        loops.sort_unstable();
        assert_eq!(loops, [(0, 30), (8, 24)]);
        // Nothing past the code is read, whatever the starts say.
        assert_eq!(loops_x64(&code, &[0, 3, 40, 50]), []);
    }
}
