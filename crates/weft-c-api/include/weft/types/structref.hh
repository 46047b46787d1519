/**
 * \file weft/types/structref.hh
 *
 * \brief C++ API: `StorageType`, `FieldType` and `StructType` (the file of Wasmtime 48's `wasmtime/types/structref.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_STRUCTREF_HH
#define WEFT_TYPES_STRUCTREF_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_STRUCTREF_HH
