// weft.hh's component type and value classes, through <weft/component.hh>
// alone: the imports and exports of component.wasm (component.wat)
// reflected down to every value type (records, variants, enums, flags,
// lists, tuples, options, results, resources), the core module import's
// type, and the type of a function of an instance; then a record holding a
// value of every kind, built from the aggregate classes, and a host
// resource, passed through the component and read back.
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
    return "type " + wit(item.type());
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

  // Values of every kind through `echo`, and a host resource through
  // `roundtrip` and `consume`.
  Linker full(engine);
  int echo_calls = 0;
  std::vector<uint32_t> dropped;
  {
    LinkerInstance root = full.root();
    root.add_module("plugin", weft::Module::compile(engine, R"((module (import "env" "log" (func (param i32)))
      (memory (export "mem") 1) (func (export "f") (result i32) i32.const 1)))")
                                  .unwrap())
        .unwrap();
    LinkerInstance host = root.add_instance("host").unwrap();
    host.add_func("host-echo", [&echo_calls](Store::Context, const FuncType &ty, Span<Val> args,
                                             Span<Val> results) -> weft::Result<std::monostate> {
          echo_calls++;
          if (ty.param_count() != 1 || args.size() != 1 || results.size() != 1)
            return weft::Error("bad host-echo call");
          results[0] = args[0];
          return std::monostate();
        })
        .unwrap();
    host.add_func("host-add", [](Store::Context, const FuncType &, Span<Val> args,
                                 Span<Val> results) -> weft::Result<std::monostate> {
          results[0] = Val(args[0].get_u32() + args[1].get_u32());
          return std::monostate();
        })
        .unwrap();
    host.add_resource("thing", ResourceType(1), [&dropped](Store::Context, uint32_t rep) -> weft::Result<std::monostate> {
          dropped.push_back(rep);
          return std::monostate();
        })
        .unwrap();
  }
  Instance full_inst = full.instantiate(cx, comp).unwrap();
  Func echo_fn = *full_inst.get_func(cx, *comp.export_index(nullptr, "echo"));
  Record everything({
      {"b", Val(true)},
      {"i8", Val(int8_t(-8))},
      {"u8", Val(uint8_t(8))},
      {"i16", Val(int16_t(-16))},
      {"u16", Val(uint16_t(16))},
      {"i32", Val(int32_t(-32))},
      {"u32", Val(uint32_t(32))},
      {"i64", Val(int64_t(-64))},
      {"u64", Val(uint64_t(64))},
      {"f32", Val(1.5f)},
      {"f64", Val(2.25)},
      {"c", Val::char_(0x263a)},
      {"s", Val::string("weft")},
      {"l", Val(List({Val(uint32_t(1)), Val(uint32_t(2)), Val(uint32_t(3))}))},
      {"t", Val(Tuple({Val(uint8_t(7)), Val::string("seven")}))},
      {"v", Val(Variant("num", Val(uint32_t(5))))},
      {"e", Val::enum_("green")},
      {"o", Val(WitOption(Val(uint32_t(9))))},
      {"r", Val(WitResult::err(Val::string("bad")))},
      {"fl", Val(Flags({Flag("a"), Flag("c")}))},
  });
  Record everything_copy = everything;
  CHECK(everything_copy.size() == 20 && everything.size() == 20);
  std::vector<Val> echo_args = {Val(std::move(everything))};
  CHECK(everything.size() == 0);
  std::vector<Val> echo_results(1);
  echo_fn.call(cx, echo_args, echo_results).unwrap();
  const Val &got = echo_results[0];
  CHECK(got.is_record() && got.get_record().size() == 20 && echo_calls == 1);
  CHECK(got.get_field("b")->get_bool() && got.get_field("i8")->get_s8() == -8 && got.get_field("u8")->get_u8() == 8);
  CHECK(got.get_field("i16")->get_s16() == -16 && got.get_field("u16")->get_u16() == 16);
  CHECK(got.get_field("i32")->get_s32() == -32 && got.get_field("u32")->get_u32() == 32);
  CHECK(got.get_field("i64")->get_s64() == -64 && got.get_field("u64")->get_u64() == 64);
  CHECK(got.get_field("f32")->get_f32() == 1.5f && got.get_field("f64")->get_f64() == 2.25);
  CHECK(got.get_field("c")->get_char() == 0x263a && got.get_field("s")->get_string() == "weft");
  const List &l = got.get_field("l")->get_list();
  CHECK(l.size() == 3 && l[2].get_u32() == 3);
  const Tuple &t = got.get_field("t")->get_tuple();
  CHECK(t.size() == 2 && t[0].get_u8() == 7 && t[1].get_string() == "seven");
  const Variant &v = got.get_field("v")->get_variant();
  CHECK(v.discriminant() == "num" && v.value() && v.value()->get_u32() == 5);
  CHECK(got.get_field("e")->is_enum() && got.get_field("e")->get_enum() == "green");
  CHECK(got.get_field("o")->get_option().value()->get_u32() == 9);
  const WitResult &r = got.get_field("r")->get_result();
  CHECK(!r.is_ok() && r.payload()->get_string() == "bad");
  const Flags &fl = got.get_field("fl")->get_flags();
  CHECK(fl.size() == 2 && fl[0].name() == "a" && fl[1].name() == "c");
  std::cout << "echo of every kind:";
  for (const RecordField &f : got.get_record())
    std::cout << " " << f.name();
  std::cout << "\n";
  // The same record, copied before the call, equals what came back field by field.
  Val again(everything_copy);
  CHECK(again.get_field("l")->get_list().size() == 3 && again.get_field("fl")->get_flags().size() == 2);
  Val moved_val = std::move(again);
  CHECK(again.is_bool() && moved_val.is_record());
  Map map({{Val::string("k"), Val(uint32_t(1))}});
  Val map_val(map);
  CHECK(map.size() == 1 && map_val.get_map().size() == 1 && map_val.get_map()[0].key().get_string() == "k" &&
        map_val.get_map()[0].value().get_u32() == 1);
  CHECK(Val(WitOption(std::nullopt)).get_option().value() == nullptr);
  CHECK(Val(WitResult::ok(std::nullopt)).get_result().is_ok());
  CHECK(Val(Variant("none", std::nullopt)).get_variant().value() == nullptr);

  // A host resource given to the guest and back, then dropped by it.
  ResourceHost mine(true, 42, 1);
  ResourceAny handle = mine.to_any(cx).unwrap();
  CHECK(handle.owned() && handle.type() == ResourceType(1));
  Func roundtrip_fn = *full_inst.get_func(cx, *comp.export_index(nullptr, "roundtrip"));
  std::vector<Val> rt_args = {Val(handle)};
  std::vector<Val> rt_results(1);
  roundtrip_fn.call(cx, rt_args, rt_results).unwrap();
  CHECK(rt_results[0].is_resource());
  ResourceHost back_host = rt_results[0].get_resource().to_host(cx).unwrap();
  CHECK(back_host.rep() == 42 && back_host.owned() && back_host.type() == 1);
  Func consume_fn = *full_inst.get_func(cx, *comp.export_index(nullptr, "consume"));
  std::vector<Val> consume_args = {Val(ResourceHost(true, 43, 1).to_any(cx).unwrap())};
  std::vector<Val> no_results;
  consume_fn.call(cx, consume_args, no_results).unwrap();
  CHECK(dropped.size() == 1 && dropped[0] == 43);
  std::cout << "resource: rep " << back_host.rep() << " back from the guest, rep " << dropped[0]
            << " dropped by it\n";
  std::cout << "done\n";
  return 0;
}
