/**
 * \file weft/helpers.hh
 *
 * \brief C++ API: the helpers shared by the headers (the file of Wasmtime 48's `wasmtime/helpers.hh`; Weft
 * declares them in `weft/error.hh`, which this includes).
 */

#ifndef WEFT_HELPERS_HH
#define WEFT_HELPERS_HH

#include <weft/error.hh>

#endif // WEFT_HELPERS_HH
