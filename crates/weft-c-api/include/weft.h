/**
 * \file weft.h
 *
 * \brief Weft's C API: the standard `wasm.h` plus Weft's own functions.
 *
 * This header mirrors Wasmtime 48's `wasmtime.h` with one renaming rule:
 * `wasmtime_` is `weft_`, `WASMTIME_` is `WEFT_`, and `wasmtime/...` headers
 * are `weft/...`. Programs written for Wasmtime's C API port by applying it.
 *
 * Conventions:
 *
 * - Functions returning `weft_error_t *` return NULL on success; a non-NULL
 *   error belongs to the caller, who frees it with #weft_error_delete.
 *   Out-parameters are left untouched on error unless stated otherwise.
 * - Objects of a store (#weft_func_t, #weft_global_t, #weft_table_t,
 *   #weft_memory_t, #weft_tag_t, #weft_instance_t) are plain values: the id
 *   of their store and a private index. They have no destructor and live as
 *   long as their store. Using one with another store is an error (or a
 *   null/false result where a function has no error), never undefined
 *   behaviour.
 * - Names passed as `(const char *name, size_t name_len)` must be UTF-8.
 * - Calls and instantiations taking a `wasm_trap_t **` have three outcomes:
 *   an error (misuse: wrong arguments, objects of another store, link
 *   errors, a host function's plain error), a trap (wasm trapped, or a host
 *   function returned a trap with a code), or success (both NULL).
 * - A null pointer where an object is required gives an error, a NULL or a
 *   false result. No panic of Weft's unwinds into C.
 */

#ifndef WEFT_H
#define WEFT_H

#include <wasi.h>
#include <wasm.h>
#include <weft/conf.h>

/// The version of Weft's C API.
#define WEFT_VERSION "0.1.0"
/// The major version.
#define WEFT_VERSION_MAJOR 0
/// The minor version.
#define WEFT_VERSION_MINOR 1
/// The patch version.
#define WEFT_VERSION_PATCH 0

#include <weft/anyref.h>
#include <weft/arrayref.h>
#include <weft/async.h>
#include <weft/component.h>
#include <weft/config.h>
#include <weft/engine.h>
#include <weft/eqref.h>
#include <weft/error.h>
#include <weft/exnref.h>
#include <weft/extern.h>
#include <weft/externref.h>
#include <weft/func.h>
#include <weft/global.h>
#include <weft/instance.h>
#include <weft/linker.h>
#include <weft/memory.h>
#include <weft/module.h>
#include <weft/profiling.h>
#include <weft/sharedmemory.h>
#include <weft/store.h>
#include <weft/structref.h>
#include <weft/table.h>
#include <weft/tag.h>
#include <weft/trap.h>
#include <weft/types/arrayref.h>
#include <weft/types/exnref.h>
#include <weft/types/structref.h>
#include <weft/types/val.h>
#include <weft/val.h>
#include <weft/wat.h>

#endif // WEFT_H
