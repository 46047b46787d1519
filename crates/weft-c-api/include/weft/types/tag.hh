/**
 * \file weft/types/tag.hh
 *
 * \brief C++ API: `TagType` (the file of Wasmtime 48's `wasmtime/types/tag.hh`; Weft
 * declares them in `weft/types.hh`, which this includes).
 */

#ifndef WEFT_TYPES_TAG_HH
#define WEFT_TYPES_TAG_HH

#include <weft/types.hh>

#endif // WEFT_TYPES_TAG_HH
