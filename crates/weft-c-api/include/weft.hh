/**
 * \file weft.hh
 *
 * \brief The C++ API of Weft: RAII classes over the C API of `weft.h`, in
 * the shape of Wasmtime 48's `wasmtime.hh`, header-only, C++17.
 *
 * As in Wasmtime 48, this header includes the per-topic headers of
 * namespace `weft` (`weft/anyref.hh`, `arrayref.hh`, `config.hh`,
 * `engine.hh`, `eqref.hh`, `error.hh`, `exnref.hh`, `extern.hh`,
 * `externref.hh`, `func.hh`, `global.hh`, `instance.hh`, `linker.hh`,
 * `memory.hh`, `module.hh`, `store.hh`, `structref.hh`, `table.hh`,
 * `tag.hh`, `trap.hh`, `types.hh`, `val.hh`, `wasi.hh`) and the component
 * model's, namespace `weft::component` (`weft/component.hh`, which
 * includes `weft/component/component.hh`, `func.hh`, `instance.hh`,
 * `linker.hh`, `types.hh` and `val.hh`).
 *
 * Owning classes free their C object when destroyed, and a moved-from
 * object is empty and safe to destroy; objects of a store (`Func`,
 * `Global`, `Memory`, `Table`, `Tag`, `Instance`, component instances and
 * functions) are plain values, valid as long as their store; GC references
 * (`ExternRef`, `AnyRef`, `EqRef`, `StructRef`, `ArrayRef`, `ExnRef`, and
 * `Val`s holding them) own a root, cloned on copy and released on
 * destruction. Fallible operations return `Result<T>` (or `TrapResult<T>`
 * where wasm may trap).
 *
 * Not offered (the C functions are there): the profiler class
 * (`GuestProfiler`), async calls, the unchecked calls and raw values of
 * `Func`, shared memories and instance-pres.
 */

#ifndef WEFT_HH
#define WEFT_HH

#include <weft/anyref.hh>
#include <weft/arrayref.hh>
#include <weft/config.hh>
#include <weft/engine.hh>
#include <weft/eqref.hh>
#include <weft/error.hh>
#include <weft/exnref.hh>
#include <weft/extern.hh>
#include <weft/externref.hh>
#include <weft/func.hh>
#include <weft/global.hh>
#include <weft/instance.hh>
#include <weft/linker.hh>
#include <weft/memory.hh>
#include <weft/module.hh>
#include <weft/store.hh>
#include <weft/structref.hh>
#include <weft/table.hh>
#include <weft/tag.hh>
#include <weft/trap.hh>
#include <weft/types.hh>
#include <weft/val.hh>
#include <weft/wasi.hh>
#include <weft/component.hh>

#endif // WEFT_HH
