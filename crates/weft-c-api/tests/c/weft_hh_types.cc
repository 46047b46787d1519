// weft.hh's type classes, backtraces and typed functions, through the
// per-topic headers: a module's imports and exports reflected (function,
// global, table, memory and tag types), types built by the host (memory
// builder, 64-bit memories, heap and reference types, struct, array and
// exception types), the trace of a trap, and host functions from typed C++
// callables (Func::wrap, Linker::func_wrap) called through TypedFunc; a
// host memory creator (Config::host_memory_creator).
#include <iostream>
#include <weft/func.hh>
#include <weft/linker.hh>
#include <weft/module.hh>
#include <weft/types.hh>

using namespace weft;

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      std::cout << "check failed, line " << __LINE__ << ": " #cond "\n";                                               \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static const char *WAT = R"((module $reflected
  (import "env" "add" (func $add (param i32 i64) (result i64)))
  (import "env" "g" (global $g (mut f32)))
  (import "env" "t" (table 1 8 funcref))
  (import "env" "m" (memory 2 5))
  (import "env" "e" (tag (param i32)))
  (import "host" "twice" (func $twice (param i32) (result i32)))
  (memory (export "mem64") i64 1)
  (global (export "answer") i32 (i32.const 42))
  (table (export "refs") 3 externref)
  (func (export "call_add") (param i32 i64) (result i64) (call $add (local.get 0) (local.get 1)))
  (func $inner (export "inner") (param i32) (result i32)
    (if (i32.eqz (local.get 0)) (then unreachable))
    (local.get 0))
  (func $outer (export "outer") (param i32) (result i32) (call $inner (local.get 0)))
  (func (export "swap") (param i32 f64) (result f64 i32) (local.get 1) (local.get 0))
  (func (export "apply") (param i32) (result i32) (call $twice (local.get 0))))
)";

static const char *kind_name(ValKind k) {
  switch (k) {
  case ValKind::I32: return "i32";
  case ValKind::I64: return "i64";
  case ValKind::F32: return "f32";
  case ValKind::F64: return "f64";
  case ValKind::V128: return "v128";
  case ValKind::FuncRef: return "funcref";
  case ValKind::ExternRef: return "externref";
  case ValKind::AnyRef: return "anyref";
  case ValKind::ExnRef: return "exnref";
  }
  return "?";
}

static std::string describe(const ExternType::Ref &ty) {
  std::string s;
  if (auto *f = std::get_if<FuncType::Ref>(&ty)) {
    s = "func (";
    for (ValType::Ref p : f->params())
      s += std::string(" ") + kind_name(p.kind());
    s += " ) -> (";
    for (ValType::Ref r : f->results())
      s += std::string(" ") + kind_name(r.kind());
    s += " )";
  } else if (auto *g = std::get_if<GlobalType::Ref>(&ty)) {
    s = std::string("global ") + (g->is_mutable() ? "mut " : "") + kind_name(g->content().kind());
  } else if (auto *t = std::get_if<TableType::Ref>(&ty)) {
    s = std::string("table ") + kind_name(t->element().kind()) + " " + std::to_string(t->min()) + ".." +
        (t->max() ? std::to_string(*t->max()) : "");
  } else if (auto *m = std::get_if<MemoryType::Ref>(&ty)) {
    s = std::string("memory") + (m->is_64() ? "64 " : " ") + std::to_string(m->min()) + ".." +
        (m->max() ? std::to_string(*m->max()) : "") + " page " + std::to_string(m->page_size());
  } else if (auto *e = std::get_if<TagType::Ref>(&ty)) {
    s = "tag params " + std::to_string(e->functype()->params().size());
  }
  return s;
}

// A host memory creator: memories in host buffers of their reservation.
struct HostMemory {
  std::shared_ptr<std::vector<uint8_t>> buf;
  size_t size;
  int *grows;
  uint8_t *get_memory(size_t *byte_size, size_t *byte_capacity) {
    *byte_size = size;
    *byte_capacity = buf->size();
    return buf->data();
  }
  Result<std::monostate> grow_memory(size_t new_size) {
    ++*grows;
    if (new_size > buf->size())
      return Error("past the reservation");
    size = new_size;
    return std::monostate();
  }
};
struct Creator {
  std::shared_ptr<int> made = std::make_shared<int>(0);
  std::shared_ptr<int> grows = std::make_shared<int>(0);
  std::shared_ptr<uint64_t> min_pages = std::make_shared<uint64_t>(0);
  Result<HostMemory> new_memory(const MemoryType::Ref &ty, size_t minimum, size_t maximum, size_t reserved,
                                size_t) {
    ++*made;
    *min_pages = ty.min();
    size_t capacity = reserved != 0 ? reserved : (maximum != SIZE_MAX ? maximum : minimum);
    return HostMemory{std::make_shared<std::vector<uint8_t>>(capacity, 0), minimum, grows.get()};
  }
};

int main() {
  Engine engine;
  Store store(engine);
  Store::Context cx = store.context();
  Module module = Module::compile(engine, WAT).unwrap();

  // Imports and exports of the module.
  ImportType::List imports = module.imports();
  CHECK(imports.size() == 6);
  for (ImportType::Ref imp : imports)
    std::cout << "import " << imp.module() << "::" << imp.name() << ": " << describe(imp.type()) << "\n";
  ExportType::List exports = module.exports();
  CHECK(exports.size() == 8);
  for (ExportType::Ref exp : exports)
    std::cout << "export " << exp.name() << ": " << describe(exp.type()) << "\n";
  ImportType::List moved = std::move(imports);
  CHECK(moved.size() == 6 && imports.size() == 0);
  ImportType owned(wasm_importtype_copy(moved[1].capi()));
  ImportType owned_copy = owned;
  CHECK(owned_copy.ref().name() == "g");

  // Types built by the host.
  FuncType add_ty({ValType::i32(), ValType::i64()}, {ValType::i64()});
  CHECK(add_ty->params().size() == 2 && add_ty->params()[1].is_i64() && add_ty->results()[0].is_i64());
  FuncType add_copy = add_ty;
  FuncType add_moved = std::move(add_copy);
  CHECK(add_moved->results().size() == 1);
  GlobalType gty(ValType::f32(), true);
  CHECK(gty->is_mutable() && gty->content().is_f32());
  TableType tty(ValType::funcref(), 1, 8);
  CHECK(tty->min() == 1 && tty->max() == 8u && tty->element().is_funcref());
  MemoryType mty(2, 5);
  CHECK(mty->min() == 2 && mty->max() == 5u && !mty->is_64());
  MemoryType m64 = MemoryType::New64(1, std::nullopt);
  CHECK(m64->is_64() && !m64->max());
  MemoryType built = MemoryType::Builder().min(1).max(3).memory64(true).page_size_log2(0).build().unwrap();
  CHECK(built->is_64() && built->page_size() == 1 && built->page_size_log2() == 0 && built->max() == 3u);
  auto bad = MemoryType::Builder().min(5).max(2).build();
  std::cout << "memory type with min > max refused: " << !bad << "\n";
  TagType tagty(FuncType({ValType::i32()}, {}));
  CHECK(tagty->functype()->params().size() == 1);
  std::cout << "v128: " << kind_name(ValType::v128().kind()) << ", equal i32s " << (ValType::i32() == ValType::i32())
            << ", i32 vs i64 " << (ValType::i32() == ValType::i64()) << "\n";

  // Heap, reference, storage, field, struct, array and exception types.
  RefType eqref = RefType::eqref();
  ValType eq_val(engine, eqref);
  CHECK(eq_val.is_anyref());
  const RefType *back = eq_val.as_ref();
  CHECK(back && back->is_nullable() && back->heap_type().is_eq());
  CHECK(!ValType::i32().as_ref());
  StructType point(engine, {FieldType::mut_(ValType::i32()), FieldType::const_(StorageType::i8())});
  CHECK(point.num_fields() == 2);
  CHECK(point.field(0)->is_mutable() && point.field(0)->storage().valtype()->is_i32());
  CHECK(!point.field(1)->is_mutable() && point.field(1)->storage().is_i8());
  CHECK(!point.field(2));
  RefType point_ref(false, HeapType::concrete_struct(point));
  ValType point_val(engine, point_ref);
  const RefType *point_back = point_val.as_ref();
  CHECK(point_back && !point_back->is_nullable());
  std::cout << "concrete struct ref: kind " << kind_name(point_val.kind()) << ", heap type is struct "
            << (point_back->heap_type().is_struct() || point_back->heap_type().is_concrete_struct()) << "\n";
  HeapType hs = HeapType::concrete_struct(point);
  CHECK(hs.is_concrete_struct() && hs.as_concrete_struct()->num_fields() == 2 && !hs.as_concrete_array());
  HeapType hs_moved = std::move(hs);
  CHECK(hs_moved.is_concrete_struct() && hs.is_extern());
  ArrayType bytes(engine, FieldType::mut_(StorageType::i8()));
  CHECK(bytes.field().is_mutable() && bytes.field().storage().is_i8());
  ExnType exn = ExnType::create(engine, {ValType::i32(), ValType::f64()}).unwrap();
  CHECK(exn.tag_type()->functype()->params().size() == 2);
  std::cout << "struct fields " << point.num_fields() << ", array of i8 " << bytes.field().storage().is_i8()
            << ", exception payload " << exn.tag_type()->functype()->params().size() << "\n";

  // Items made from types, and their types read back.
  Global g = Global::create(cx, gty, Val(1.5f)).unwrap();
  CHECK(g.type(cx)->is_mutable() && g.get(cx).f32() == 1.5f);
  Table t = Table::create(cx, tty, Val(std::optional<Func>())).unwrap();
  CHECK(t.size(cx) == 1 && t.type(cx)->max() == 8u);
  CHECK(t.grow(cx, 2, Val(std::optional<Func>())).unwrap() == 1 && t.size(cx) == 3);
  CHECK(t.get(cx, 0) && !t.get(cx, 0)->funcref() && !t.get(cx, 7));
  Memory m = Memory::create(cx, mty).unwrap();
  CHECK(m.size(cx) == 2 && m.type(cx)->max() == 5u && m.page_size(cx) == 65536 && m.page_size_log2(cx) == 16);
  Tag tag = Tag::create(cx, tagty).unwrap();

  // A host function from a typed C++ callable; the instance's functions
  // called through TypedFunc.
  Func add = Func::wrap(cx, [](int32_t a, int64_t b) -> int64_t { return a + b; });
  CHECK(add.type(cx)->params().size() == 2 && add.type(cx)->results()[0].is_i64());
  Linker linker(engine);
  int twice_calls = 0;
  linker
      .func_wrap("host", "twice",
                 [&twice_calls](Caller caller, int32_t x) -> Result<int32_t, Trap> {
                   twice_calls++;
                   if (!caller.get_export("mem64"))
                     return Trap("no mem64");
                   if (x < 0)
                     return Trap("negative");
                   return x * 2;
                 })
      .unwrap();
  linker.define(cx, "env", "add", add).unwrap();
  linker.define(cx, "env", "g", g).unwrap();
  linker.define(cx, "env", "t", t).unwrap();
  linker.define(cx, "env", "m", m).unwrap();
  linker.define(cx, "env", "e", tag).unwrap();
  Instance inst = linker.instantiate(cx, module).unwrap();

  auto call_add = std::get<Func>(*inst.get(cx, "call_add")).typed<std::tuple<int32_t, int64_t>, int64_t>(cx).unwrap();
  CHECK(call_add.call(cx, {40, 2}).unwrap() == 42);
  auto swap = std::get<Func>(*inst.get(cx, "swap")).typed<std::tuple<int32_t, double>, std::tuple<double, int32_t>>(cx).unwrap();
  std::tuple<double, int32_t> swapped = swap.call(cx, {7, 0.5}).unwrap();
  CHECK(std::get<0>(swapped) == 0.5 && std::get<1>(swapped) == 7);
  auto apply = std::get<Func>(*inst.get(cx, "apply")).typed<int32_t, int32_t>(cx).unwrap();
  CHECK(apply.call(cx, 21).unwrap() == 42);
  auto neg = apply.call(cx, -1);
  CHECK(!neg && neg.err().message().find("negative") != std::string::npos);
  std::cout << "typed calls: add " << call_add.call(cx, {1, 2}).unwrap() << ", swap " << std::get<0>(swapped) << " "
            << std::get<1>(swapped) << ", apply " << apply.call(cx, 5).unwrap() << ", host calls " << twice_calls
            << "\n";
  auto wrong = std::get<Func>(*inst.get(cx, "swap")).typed<int32_t, int32_t>(cx);
  std::cout << "wrong typed signature refused: " << !wrong << "\n";
  Func nothing = Func::wrap(cx, []() {});
  CHECK(nothing.type(cx)->params().size() == 0 && nothing.type(cx)->results().size() == 0);
  CHECK(bool(nothing.typed<std::monostate, std::monostate>(cx).unwrap().call(cx, std::monostate())));

  // Exports by index.
  auto first = inst.get(cx, size_t(0));
  CHECK(first && first->first == "mem64" && std::holds_alternative<Memory>(first->second));
  CHECK(!inst.get(cx, size_t(99)));

  // The trace of a trap: innermost frame first, with the name section's names.
  auto outer = std::get<Func>(*inst.get(cx, "outer")).typed<int32_t, int32_t>(cx).unwrap();
  auto trapped = outer.call(cx, 0);
  CHECK(!trapped);
  TrapError te = trapped.err();
  Trap &trap = std::get<Trap>(te.data);
  Trace trace = trap.trace();
  CHECK(trace.size() >= 2);
  std::cout << "trace of the trap: " << trace.size() << " frames\n";
  for (FrameRef frame : trace)
    std::cout << "  func " << frame.func_index() << " " << frame.func_name().value_or("?") << " in "
              << frame.module_name().value_or("?") << ", offsets ok "
              << (frame.module_offset() >= frame.func_offset()) << "\n";
  CHECK(trace[0].func_name() == std::optional<std::string_view>("inner"));
  Trace moved_trace = std::move(trace);
  CHECK(moved_trace.size() >= 2 && trace.size() == 0);
  std::cout << "host-made trap trace empty: " << (Trap("made").trace().size() == 0)
            << ", error trace empty: " << (Error("made").trace().size() == 0) << "\n";

  // Memories made by a host memory creator.
  Creator creator;
  Config with_creator;
  with_creator.host_memory_creator(creator);
  Engine creator_engine(std::move(with_creator));
  {
    Store cstore(creator_engine);
    Module mmod = Module::compile(creator_engine, R"((module (memory (export "mem") 1 3) (data (i32.const 10) "hi")
      (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
      (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))))")
                       .unwrap();
    Instance minst = Instance::create(cstore, mmod, {}).unwrap();
    auto load = std::get<Func>(*minst.get(cstore, "load")).typed<int32_t, int32_t>(cstore).unwrap();
    auto grow = std::get<Func>(*minst.get(cstore, "grow")).typed<int32_t, int32_t>(cstore).unwrap();
    CHECK(load.call(cstore, 10).unwrap() == 'h' && load.call(cstore, 11).unwrap() == 'i');
    CHECK(grow.call(cstore, 1).unwrap() == 1 && grow.call(cstore, 5).unwrap() == -1);
    Memory mem = std::get<Memory>(*minst.get(cstore, "mem"));
    CHECK(mem.size(cstore) == 2 && mem.data(cstore).size() == 2 * 65536);
    std::cout << "host memory creator: made " << *creator.made << " of " << *creator.min_pages << " page(s), grown "
              << *creator.grows << " time(s), data read back " << char(load.call(cstore, 10).unwrap())
              << char(load.call(cstore, 11).unwrap()) << "\n";
  }
  std::cout << "done\n";
  return 0;
}
