/**
 * \file weft/component.hh
 *
 * \brief C++ API of the component model, namespace `weft::component` (as
 * Wasmtime 48's `wasmtime/component.hh`): includes
 * `weft/component/component.hh`, `func.hh`, `instance.hh`, `linker.hh`,
 * `types.hh` and `val.hh`.
 */

#ifndef WEFT_COMPONENT_HH
#define WEFT_COMPONENT_HH

#include <weft/component/component.hh>
#include <weft/component/func.hh>
#include <weft/component/instance.hh>
#include <weft/component/linker.hh>
#include <weft/component/types.hh>
#include <weft/component/val.hh>

#endif // WEFT_COMPONENT_HH
