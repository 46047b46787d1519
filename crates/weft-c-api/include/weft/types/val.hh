/**
 * \file weft/types/val.hh
 *
 * \brief C++ API: `ValKind`, `HeapType`, `RefType` and `ValType` (the file of Wasmtime 48's `wasmtime/types/val.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_VAL_HH
#define WEFT_TYPES_VAL_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_VAL_HH
