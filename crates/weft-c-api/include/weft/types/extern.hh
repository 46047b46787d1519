/**
 * \file weft/types/extern.hh
 *
 * \brief C++ API: `ExternType` (the file of Wasmtime 48's `wasmtime/types/extern.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_EXTERN_HH
#define WEFT_TYPES_EXTERN_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_EXTERN_HH
