/**
 * \file weft/component.h
 *
 * \brief The component model: every header of `weft/component/`.
 */

#ifndef WEFT_COMPONENT_H
#define WEFT_COMPONENT_H

#include <weft/component/component.h>
#include <weft/component/func.h>
#include <weft/component/instance.h>
#include <weft/component/linker.h>
#include <weft/component/types/component.h>
#include <weft/component/types/func.h>
#include <weft/component/types/instance.h>
#include <weft/component/types/module.h>
#include <weft/component/types/resource.h>
#include <weft/component/types/val.h>
#include <weft/component/val.h>

#endif // WEFT_COMPONENT_H
