/**
 * \file weft/extern_declare.hh
 *
 * \brief C++ API: `Extern`, the variant of the item classes (the file of Wasmtime 48's `wasmtime/extern_declare.hh`; Weft
 * declares them in `weft/store.hh`, which this includes).
 */

#ifndef WEFT_EXTERN_DECLARE_HH
#define WEFT_EXTERN_DECLARE_HH

#include <weft/store.hh>

#endif // WEFT_EXTERN_DECLARE_HH
