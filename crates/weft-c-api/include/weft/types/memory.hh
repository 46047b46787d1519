/**
 * \file weft/types/memory.hh
 *
 * \brief C++ API: `MemoryType` (the file of Wasmtime 48's `wasmtime/types/memory.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_MEMORY_HH
#define WEFT_TYPES_MEMORY_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_MEMORY_HH
