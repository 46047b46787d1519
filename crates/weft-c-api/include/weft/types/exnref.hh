/**
 * \file weft/types/exnref.hh
 *
 * \brief C++ API: `ExnType` (the file of Wasmtime 48's `wasmtime/types/exnref.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_EXNREF_HH
#define WEFT_TYPES_EXNREF_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_EXNREF_HH
