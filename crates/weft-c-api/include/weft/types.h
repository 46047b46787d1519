/**
 * \file weft/types.h
 *
 * \brief Every header of `weft/types/` (value, struct, array and exception
 * types), as Wasmtime's `wasmtime/types.h` gathers them.
 */

#ifndef WEFT_TYPES_H
#define WEFT_TYPES_H

#include <weft/types/arrayref.h>
#include <weft/types/exnref.h>
#include <weft/types/structref.h>
#include <weft/types/val.h>

#endif // WEFT_TYPES_H
