/**
 * \file weft/types/global.hh
 *
 * \brief C++ API: `GlobalType` (the file of Wasmtime 48's `wasmtime/types/global.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_GLOBAL_HH
#define WEFT_TYPES_GLOBAL_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_GLOBAL_HH
