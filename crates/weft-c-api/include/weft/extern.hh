/**
 * \file weft/extern.hh
 *
 * \brief C++ API: `Extern`, an item of a store that can be imported or
 * exported (as Wasmtime 48's `wasmtime/extern.hh`).
 */

#include <weft/detail/core.hh>

#ifndef WEFT_EXTERN_HH
#define WEFT_EXTERN_HH

namespace weft {

namespace detail {
inline std::optional<Extern> extern_of(const weft_extern_t &e) {
  switch (e.kind) {
  case WEFT_EXTERN_FUNC: return Extern(Func(e.of.func));
  case WEFT_EXTERN_GLOBAL: return Extern(Global(e.of.global));
  case WEFT_EXTERN_MEMORY: return Extern(Memory(e.of.memory));
  case WEFT_EXTERN_TABLE: return Extern(Table(e.of.table));
  case WEFT_EXTERN_TAG: return Extern(Tag(e.of.tag));
  default: return std::nullopt;
  }
}
inline weft_extern_t to_extern(const Extern &e) {
  weft_extern_t out;
  if (auto *f = std::get_if<Func>(&e)) {
    out.kind = WEFT_EXTERN_FUNC;
    out.of.func = f->capi();
  } else if (auto *g = std::get_if<Global>(&e)) {
    out.kind = WEFT_EXTERN_GLOBAL;
    out.of.global = g->capi();
  } else if (auto *m = std::get_if<Memory>(&e)) {
    out.kind = WEFT_EXTERN_MEMORY;
    out.of.memory = m->capi();
  } else if (auto *t = std::get_if<Table>(&e)) {
    out.kind = WEFT_EXTERN_TABLE;
    out.of.table = t->capi();
  } else {
    out.kind = WEFT_EXTERN_TAG;
    out.of.tag = std::get<Tag>(e).capi();
  }
  return out;
}
} // namespace detail

inline std::optional<Extern> Caller::get_export(std::string_view name) {
  weft_extern_t e;
  if (!weft_caller_export_get(ptr, name.data(), name.size(), &e))
    return std::nullopt;
  return detail::extern_of(e);
}

} // namespace weft

#endif // WEFT_EXTERN_HH
