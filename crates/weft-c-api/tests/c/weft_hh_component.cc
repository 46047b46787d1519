// weft.hh's component type classes, through <weft/component.hh> alone:
// the imports and exports of component.wasm (component.wat) reflected
// down to every value type (records, variants, enums, flags, lists,
// tuples, options, results, resources), the core module import's type, and
// the type of a function of an instance.
#include <fstream>
#include <iostream>
#include <iterator>
#include <weft/component.hh>

using weft::Engine;
using weft::Span;
using weft::Store;
using namespace weft::component;

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      std::cout << "check failed, line " << __LINE__ << ": " #cond "\n";                                               \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static std::string names(size_t n, std::optional<std::string_view> (*nth)(const void *, size_t), const void *ty) {
  std::string s;
  for (size_t i = 0; i < n; i++)
    s += (i ? " " : "") + std::string(*nth(ty, i));
  return s;
}

static std::string wit(const ValType &ty) {
  switch (ty.kind()) {
  case WEFT_COMPONENT_VALTYPE_BOOL: return "bool";
  case WEFT_COMPONENT_VALTYPE_S8: return "s8";
  case WEFT_COMPONENT_VALTYPE_S16: return "s16";
  case WEFT_COMPONENT_VALTYPE_S32: return "s32";
  case WEFT_COMPONENT_VALTYPE_S64: return "s64";
  case WEFT_COMPONENT_VALTYPE_U8: return "u8";
  case WEFT_COMPONENT_VALTYPE_U16: return "u16";
  case WEFT_COMPONENT_VALTYPE_U32: return "u32";
  case WEFT_COMPONENT_VALTYPE_U64: return "u64";
  case WEFT_COMPONENT_VALTYPE_F32: return "f32";
  case WEFT_COMPONENT_VALTYPE_F64: return "f64";
  case WEFT_COMPONENT_VALTYPE_CHAR: return "char";
  case WEFT_COMPONENT_VALTYPE_STRING: return "string";
  case WEFT_COMPONENT_VALTYPE_ERROR_CONTEXT: return "error-context";
  case WEFT_COMPONENT_VALTYPE_LIST: return "list<" + wit(ty.list().element()) + ">";
  case WEFT_COMPONENT_VALTYPE_OPTION: return "option<" + wit(ty.option().ty()) + ">";
  case WEFT_COMPONENT_VALTYPE_RESULT: {
    ResultType r = ty.result();
    return "result<" + (r.ok() ? wit(*r.ok()) : "_") + ", " + (r.err() ? wit(*r.err()) : "_") + ">";
  }
  case WEFT_COMPONENT_VALTYPE_TUPLE: {
    TupleType t = ty.tuple();
    std::string s = "tuple<";
    for (size_t i = 0; i < t.types_count(); i++)
      s += (i ? ", " : "") + wit(*t.types_nth(i));
    return s + ">";
  }
  case WEFT_COMPONENT_VALTYPE_RECORD: {
    RecordType r = ty.record();
    std::string s = "record {";
    for (size_t i = 0; i < r.field_count(); i++) {
      auto f = r.field_nth(i);
      s += (i ? ", " : " ") + std::string(f->first) + ": " + wit(f->second);
    }
    return s + " }";
  }
  case WEFT_COMPONENT_VALTYPE_VARIANT: {
    VariantType v = ty.variant();
    std::string s = "variant {";
    for (size_t i = 0; i < v.case_count(); i++) {
      auto c = v.case_nth(i);
      s += (i ? ", " : " ") + std::string(c->name) + (c->payload ? "(" + wit(*c->payload) + ")" : "");
    }
    return s + " }";
  }
  case WEFT_COMPONENT_VALTYPE_ENUM: {
    EnumType e = ty.enum_();
    return "enum { " +
           names(e.names_count(), [](const void *t, size_t i) { return static_cast<const EnumType *>(t)->names_nth(i); },
                 &e) +
           " }";
  }
  case WEFT_COMPONENT_VALTYPE_FLAGS: {
    FlagsType f = ty.flags();
    return "flags { " +
           names(f.names_count(), [](const void *t, size_t i) { return static_cast<const FlagsType *>(t)->names_nth(i); },
                 &f) +
           " }";
  }
  case WEFT_COMPONENT_VALTYPE_OWN: return "own<resource>";
  case WEFT_COMPONENT_VALTYPE_BORROW: return "borrow<resource>";
  case WEFT_COMPONENT_VALTYPE_FUTURE: return "future";
  case WEFT_COMPONENT_VALTYPE_STREAM: return "stream";
  case WEFT_COMPONENT_VALTYPE_MAP: return "map<" + wit(ty.map().key()) + ", " + wit(ty.map().value()) + ">";
  }
  return "?";
}

static std::string func_sig(const FuncType &f) {
  std::string s = f.async() ? "async func(" : "func(";
  for (size_t i = 0; i < f.param_count(); i++) {
    auto p = f.param_nth(i);
    s += (i ? ", " : "") + std::string(p->first) + ": " + wit(p->second);
  }
  s += ")";
  if (auto r = f.result())
    s += " -> " + wit(*r);
  return s;
}

static std::string item_kind(const ComponentItem &item) {
  if (item.is_component())
    return "component";
  if (item.is_component_instance())
    return "instance";
  if (item.is_module())
    return "module";
  if (item.is_component_func())
    return func_sig(item.component_func());
  if (item.is_resource())
    return "resource";
  if (item.is_core_func())
    return "core func";
  if (item.is_type())
    return "type " + wit(*item.type());
  return "?";
}

int main() {
  Engine engine;
  std::ifstream file("component.wasm", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(!bytes.empty());
  Component comp = Component::compile(engine, Span<const uint8_t>(bytes)).unwrap();
  ComponentType ty = comp.type();
  ComponentType ty_copy = ty;
  CHECK(ty_copy.import_count(engine) == 2);
  std::cout << "imports " << ty.import_count(engine) << ", exports " << ty.export_count(engine) << "\n";
  for (size_t i = 0; i < ty.export_count(engine); i++) {
    auto e = ty.export_nth(engine, i);
    std::cout << "export " << e->first << ": " << item_kind(e->second) << "\n";
  }
  CHECK(!ty.export_nth(engine, ty.export_count(engine)));

  // The host instance import: its types and functions.
  std::optional<ComponentItem> host = ty.import_get(engine, "host");
  CHECK(host && host->is_component_instance());
  ComponentInstanceType host_ty = host->component_instance();
  for (size_t i = 0; i < host_ty.export_count(engine); i++) {
    auto e = host_ty.export_nth(engine, i);
    std::cout << "host export " << e->first << ": " << item_kind(e->second) << "\n";
  }
  CHECK(host_ty.export_get(engine, "thing")->is_resource());
  CHECK(!host_ty.export_get(engine, "nope"));
  CHECK(!ty.import_get(engine, "nope"));

  // Resource types: the same in and out of `roundtrip`, another than a host one.
  FuncType roundtrip = ty.export_get(engine, "roundtrip")->component_func();
  ValType param = roundtrip.param_nth(0)->second;
  ValType result = *roundtrip.result();
  CHECK(param.is_own() && result.is_own() && param == result);
  CHECK(param.own() == result.own() && param.own() != ResourceType(1));
  CHECK(ValType::new_own(ResourceType(1)) == ValType::new_own(ResourceType(1)));
  CHECK(ValType::new_own(ResourceType(1)) != ValType::new_borrow(ResourceType(1)));
  std::cout << "roundtrip's resource types equal: " << (param.own() == result.own()) << "\n";

  // Value types compared and moved.
  FuncType echo = ty.export_get(engine, "echo")->component_func();
  ValType rec = echo.param_nth(0)->second;
  CHECK(rec.is_record() && rec == *echo.result() && rec != ValType::new_u32());
  RecordType fields = rec.record();
  CHECK(fields.field_count() == 20 && !fields.field_nth(20));
  RecordType fields_copy = fields;
  CHECK(fields_copy == fields);
  ValType moved = std::move(rec);
  CHECK(moved.is_record() && rec.is_bool());
  CHECK(ValType::new_string().is_string() && ValType(fields).is_record());

  // The core module import.
  ComponentItem plugin = *ty.import_get(engine, "plugin");
  CHECK(plugin.is_module());
  ModuleType mty = plugin.module();
  std::cout << "plugin module: " << mty.import_count(engine) << " import(s), " << mty.export_count(engine)
            << " export(s)\n";
  for (size_t i = 0; i < mty.import_count(engine); i++) {
    weft::ImportType imp = *mty.import_nth(engine, i);
    std::cout << "  import " << imp.ref().module() << "::" << imp.ref().name() << "\n";
  }
  for (size_t i = 0; i < mty.export_count(engine); i++) {
    weft::ExportType exp = *mty.export_nth(engine, i);
    std::cout << "  export " << exp.ref().name() << (std::holds_alternative<weft::MemoryType::Ref>(exp.ref().type()) ? " (memory)" : "")
              << "\n";
  }
  CHECK(!mty.import_nth(engine, 5));

  // The type of a function of an instance.
  Component small = Component::compile(engine, R"((component
    (core module $m (func (export "f") (param i32 i32) (result i32) (local.get 0)))
    (core instance $i (instantiate $m))
    (func (export "first") (param "a" u32) (param "b" bool) (result u32) (canon lift (core func $i "f")))))")
                        .unwrap();
  Store store(engine);
  Store::Context cx = store.context();
  Linker linker(engine);
  Instance inst = linker.instantiate(cx, small).unwrap();
  Func first = *inst.get_func(cx, *small.export_index(nullptr, "first"));
  FuncType fty = first.type(cx);
  CHECK(fty.param_count() == 2 && !fty.async() && fty.result()->is_u32());
  std::cout << "instance func: " << func_sig(fty) << "\n";
  std::vector<Val> args = {Val(uint32_t(7)), Val(true)};
  std::vector<Val> results(1);
  first.call(cx, args, results).unwrap();
  CHECK(results[0].is_u32() && results[0].get_u32() == 7);
  std::cout << "done\n";
  return 0;
}
