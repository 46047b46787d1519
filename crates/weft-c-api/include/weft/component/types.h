/**
 * \file weft/component/types.h
 *
 * \brief Every header of `weft/component/types/` (the types of components,
 * their functions, instances, modules, resources and values), as Wasmtime's
 * `wasmtime/component/types.h` gathers them.
 */

#ifndef WEFT_COMPONENT_TYPES_H
#define WEFT_COMPONENT_TYPES_H

#include <weft/component/types/component.h>
#include <weft/component/types/func.h>
#include <weft/component/types/instance.h>
#include <weft/component/types/module.h>
#include <weft/component/types/resource.h>
#include <weft/component/types/val.h>

#endif // WEFT_COMPONENT_TYPES_H
