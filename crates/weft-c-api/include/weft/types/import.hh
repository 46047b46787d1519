/**
 * \file weft/types/import.hh
 *
 * \brief C++ API: `ImportType` (the file of Wasmtime 48's `wasmtime/types/import.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_IMPORT_HH
#define WEFT_TYPES_IMPORT_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_IMPORT_HH
