/**
 * \file weft/types/func.hh
 *
 * \brief C++ API: `FuncType` (the file of Wasmtime 48's `wasmtime/types/func.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_FUNC_HH
#define WEFT_TYPES_FUNC_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_FUNC_HH
