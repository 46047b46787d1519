/**
 * \file weft/wat.hh
 *
 * \brief C++ API: `wat2wasm` (the file of Wasmtime 48's `wasmtime/wat.hh`; Weft
 * declares them in `weft/error.hh`, which this includes).
 */

#ifndef WEFT_WAT_HH
#define WEFT_WAT_HH

#include <weft/error.hh>

#endif // WEFT_WAT_HH
