/**
 * \file weft/component/types/component.hh
 *
 * \brief C++ API: the component model types (the file of Wasmtime 48's `wasmtime/component/types/component.hh`; Weft
 * declares them in `weft/component/types.hh`, which this includes).
 */

#ifndef WEFT_COMPONENT_TYPES_COMPONENT_HH
#define WEFT_COMPONENT_TYPES_COMPONENT_HH

#include <weft/component/types.hh>

#endif // WEFT_COMPONENT_TYPES_COMPONENT_HH
