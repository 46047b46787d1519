/**
 * \file weft/trap.h
 *
 * \brief Traps with codes, and frame names.
 */

#ifndef WEFT_TRAP_H
#define WEFT_TRAP_H

#include <wasm.h>

#ifdef __cplusplus
extern "C" {
#endif

/// \brief The code of a wasm trap (#weft_trap_code_enum).
typedef uint8_t weft_trap_code_t;

/**
 * \brief The codes of wasm traps, numbered as Wasmtime 48's. Weft raises
 * the core ones (up to #WEFT_TRAP_CODE_NULL_REFERENCE) and the canonical
 * ABI's it checks; the others are listed for compatibility.
 */
enum weft_trap_code_enum {
  /// The wasm stack overflowed.
  WEFT_TRAP_CODE_STACK_OVERFLOW = 0,
  /// A memory access out of bounds.
  WEFT_TRAP_CODE_MEMORY_OUT_OF_BOUNDS = 1,
  /// A misaligned atomic access.
  WEFT_TRAP_CODE_HEAP_MISALIGNED = 2,
  /// A table access out of bounds.
  WEFT_TRAP_CODE_TABLE_OUT_OF_BOUNDS = 3,
  /// An indirect call to a null element.
  WEFT_TRAP_CODE_INDIRECT_CALL_TO_NULL = 4,
  /// An indirect call with the wrong signature.
  WEFT_TRAP_CODE_BAD_SIGNATURE = 5,
  /// An integer overflow.
  WEFT_TRAP_CODE_INTEGER_OVERFLOW = 6,
  /// An integer division by zero.
  WEFT_TRAP_CODE_INTEGER_DIVISION_BY_ZERO = 7,
  /// A float-to-integer conversion out of range.
  WEFT_TRAP_CODE_BAD_CONVERSION_TO_INTEGER = 8,
  /// `unreachable` was executed.
  WEFT_TRAP_CODE_UNREACHABLE_CODE_REACHED = 9,
  /// The epoch deadline interrupted execution.
  WEFT_TRAP_CODE_INTERRUPT = 10,
  /// The store ran out of fuel.
  WEFT_TRAP_CODE_OUT_OF_FUEL = 11,
  /// An atomic wait on a non-shared memory (not raised by Weft).
  WEFT_TRAP_CODE_ATOMIC_WAIT_NON_SHARED_MEMORY = 12,
  /// A null reference was dereferenced.
  WEFT_TRAP_CODE_NULL_REFERENCE = 13,
  /// An array access out of bounds (not raised by Weft).
  WEFT_TRAP_CODE_ARRAY_OUT_OF_BOUNDS = 14,
  /// A GC allocation too large (not raised by Weft).
  WEFT_TRAP_CODE_ALLOCATION_TOO_LARGE = 15,
  /// A failed cast (not raised by Weft).
  WEFT_TRAP_CODE_CAST_FAILURE = 16,
  /// A component instance could not be entered.
  WEFT_TRAP_CODE_CANNOT_ENTER_COMPONENT = 17,
  /// An async-lifted export never called `task.return`.
  WEFT_TRAP_CODE_NO_ASYNC_RESULT = 18,
  /// An unhandled tag of stack switching (not raised by Weft).
  WEFT_TRAP_CODE_UNHANDLED_TAG = 19,
  /// A continuation resumed twice (not raised by Weft).
  WEFT_TRAP_CODE_CONTINUATION_ALREADY_CONSUMED = 20,
  /// A disabled Pulley opcode (not raised by Weft).
  WEFT_TRAP_CODE_DISABLED_OPCODE = 21,
  /// An async deadlock.
  WEFT_TRAP_CODE_ASYNC_DEADLOCK = 22,
  /// A component instance could not be left.
  WEFT_TRAP_CODE_CANNOT_LEAVE_COMPONENT = 23,
  /// A synchronous task would block.
  WEFT_TRAP_CODE_CANNOT_BLOCK_SYNC_TASK = 24,
  /// An invalid `char` in the canonical ABI.
  WEFT_TRAP_CODE_INVALID_CHAR = 25,
  /// A debug assertion of string transcoding (not raised by Weft).
  WEFT_TRAP_CODE_DEBUG_ASSERT_STRING_ENCODING_FINISHED = 26,
  /// A debug assertion of string transcoding (not raised by Weft).
  WEFT_TRAP_CODE_DEBUG_ASSERT_EQUAL_CODE_UNITS = 27,
  /// A debug assertion of alignment (not raised by Weft).
  WEFT_TRAP_CODE_DEBUG_ASSERT_POINTER_ALIGNED = 28,
  /// A debug assertion of upper bits (not raised by Weft).
  WEFT_TRAP_CODE_DEBUG_ASSERT_UPPER_BITS_UNSET = 29,
  /// A string out of bounds in the canonical ABI.
  WEFT_TRAP_CODE_STRING_OUT_OF_BOUNDS = 30,
  /// A list out of bounds in the canonical ABI.
  WEFT_TRAP_CODE_LIST_OUT_OF_BOUNDS = 31,
  /// An invalid variant discriminant in the canonical ABI.
  WEFT_TRAP_CODE_INVALID_DISCRIMINANT = 32,
  /// An unaligned pointer in the canonical ABI.
  WEFT_TRAP_CODE_UNALIGNED_POINTER = 33,
  /// `task.cancel` of a task not cancelled.
  WEFT_TRAP_CODE_TASK_CANCEL_NOT_CANCELLED = 34,
  /// A task cancelled or returned twice.
  WEFT_TRAP_CODE_TASK_CANCEL_OR_RETURN_TWICE = 35,
  /// `subtask.cancel` after a terminal state.
  WEFT_TRAP_CODE_SUBTASK_CANCEL_AFTER_TERMINAL = 36,
  /// An invalid `task.return`.
  WEFT_TRAP_CODE_TASK_RETURN_INVALID = 37,
  /// A waitable set dropped with waiters.
  WEFT_TRAP_CODE_WAITABLE_SET_DROP_HAS_WAITERS = 38,
  /// A subtask dropped before it resolved.
  WEFT_TRAP_CODE_SUBTASK_DROP_NOT_RESOLVED = 39,
  /// `thread.new-indirect` of the wrong type.
  WEFT_TRAP_CODE_THREAD_NEW_INDIRECT_INVALID_TYPE = 40,
  /// `thread.new-indirect` of a null element.
  WEFT_TRAP_CODE_THREAD_NEW_INDIRECT_UNINITIALIZED = 41,
  /// Backpressure counter overflow.
  WEFT_TRAP_CODE_BACKPRESSURE_OVERFLOW = 42,
  /// An unknown callback code.
  WEFT_TRAP_CODE_UNSUPPORTED_CALLBACK_CODE = 43,
  /// A thread that cannot be resumed.
  WEFT_TRAP_CODE_CANNOT_RESUME_THREAD = 44,
  /// Concurrent operations on one future or stream.
  WEFT_TRAP_CODE_CONCURRENT_FUTURE_STREAM_OP = 45,
  /// A reference count overflowed.
  WEFT_TRAP_CODE_REFERENCE_COUNT_OVERFLOW = 46,
  /// A stream operation of too many items.
  WEFT_TRAP_CODE_STREAM_OP_TOO_BIG = 47,
  /// A waitable used synchronously and asynchronously.
  WEFT_TRAP_CODE_WAITABLE_SYNC_AND_ASYNC = 48,
  /// An exception no handler caught.
  WEFT_TRAP_CODE_UNCAUGHT_EXCEPTION = 49,
};

/**
 * \brief A new trap with the message `msg` (`msg_len` bytes of UTF-8), not
 * a wasm trap: it has no code. The caller owns it.
 */
WASM_API_EXTERN wasm_trap_t *weft_trap_new(const char *msg, size_t msg_len);

/**
 * \brief A new wasm trap of code `code`, with the message Weft gives it
 * (e.g. "all fuel consumed" for #WEFT_TRAP_CODE_OUT_OF_FUEL); NULL for a
 * code Weft never raises. The caller owns it.
 */
WASM_API_EXTERN wasm_trap_t *weft_trap_new_code(weft_trap_code_t code);

/**
 * \brief Whether the trap is a wasm trap with a code (not one made by
 * #weft_trap_new or `wasm_trap_new`); if so writes the code.
 */
WASM_API_EXTERN bool weft_trap_code(const wasm_trap_t *, weft_trap_code_t *code);

/// \brief The frame's function name from the name section (NULL if none).
WASM_API_EXTERN const wasm_name_t *weft_frame_func_name(const wasm_frame_t *);

/// \brief The frame's module name from the name section (NULL if none).
WASM_API_EXTERN const wasm_name_t *weft_frame_module_name(const wasm_frame_t *);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // WEFT_TRAP_H
