/**
 * \file weft/types/table.hh
 *
 * \brief C++ API: `TableType` (the file of Wasmtime 48's `wasmtime/types/table.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_TABLE_HH
#define WEFT_TYPES_TABLE_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_TABLE_HH
