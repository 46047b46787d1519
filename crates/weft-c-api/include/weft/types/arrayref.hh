/**
 * \file weft/types/arrayref.hh
 *
 * \brief C++ API: `ArrayType` (the file of Wasmtime 48's `wasmtime/types/arrayref.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_ARRAYREF_HH
#define WEFT_TYPES_ARRAYREF_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_ARRAYREF_HH
