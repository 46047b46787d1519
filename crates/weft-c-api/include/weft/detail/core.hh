/**
 * \file weft/detail/core.hh
 *
 * \brief The C++ classes of a store and its items, whose definitions use
 * each other, included in dependency order. Each of `weft/store.hh`,
 * `externref.hh`, `anyref.hh`, `eqref.hh`, `structref.hh`, `arrayref.hh`,
 * `exnref.hh`, `val.hh`, `func.hh`, `tag.hh`, `global.hh`, `table.hh`,
 * `memory.hh` and `extern.hh` includes this first, so that including any of
 * them gives all of them, complete.
 */

#ifndef WEFT_DETAIL_CORE_HH
#define WEFT_DETAIL_CORE_HH

#include <weft/store.hh>
#include <weft/externref.hh>
#include <weft/anyref.hh>
#include <weft/eqref.hh>
#include <weft/structref.hh>
#include <weft/arrayref.hh>
#include <weft/exnref.hh>
#include <weft/func.hh>
#include <weft/val.hh>
#include <weft/detail/func_impl.hh>
#include <weft/tag.hh>
#include <weft/global.hh>
#include <weft/table.hh>
#include <weft/memory.hh>
#include <weft/extern.hh>

#endif // WEFT_DETAIL_CORE_HH
