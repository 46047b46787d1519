/**
 * \file weft/types/export.hh
 *
 * \brief C++ API: `ExportType` (the file of Wasmtime 48's `wasmtime/types/export.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_EXPORT_HH
#define WEFT_TYPES_EXPORT_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_EXPORT_HH
