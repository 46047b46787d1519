// weft.hh against Wasmtime 48's C++ API: the members and header files that
// weft.hh lacked or named differently (issue #16) — EqRef::from_i31 and
// i31_get_s/i31_get_u, HeapType::is_concrete, RefType::nullable/heaptype,
// StorageType::as_valtype, FieldType::storage_type, ArrayType::element_type,
// ExternType::from_import/from_export, operator<< of HeapType/RefType/ValType,
// Span's size_bytes/IsSpan/container constructor, and 48's header paths.
#include <array>
#include <iostream>
#include <sstream>
#include <weft.hh>
#include <weft/component.hh>
#include <weft/extern_declare.hh>
#include <weft/helpers.hh>
#include <weft/span.hh>
#include <weft/types/arrayref.hh>
#include <weft/types/exnref.hh>
#include <weft/types/export.hh>
#include <weft/types/extern.hh>
#include <weft/types/func.hh>
#include <weft/types/global.hh>
#include <weft/types/import.hh>
#include <weft/types/memory.hh>
#include <weft/types/structref.hh>
#include <weft/types/table.hh>
#include <weft/types/tag.hh>
#include <weft/types/val.hh>
#include <weft/wat.hh>
#include <weft/component/types/component.hh>
#include <weft/component/types/func.hh>
#include <weft/component/types/instance.hh>
#include <weft/component/types/module.hh>
#include <weft/component/types/val.hh>

using namespace weft;

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      std::cout << "check failed, line " << __LINE__ << ": " #cond "\n";                                               \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static const char *WAT = R"((module
  (import "host" "f" (func (param i32) (result i64)))
  (import "host" "g" (global (mut f32)))
  (memory (export "mem") 2 5)
  (table (export "tab") 1 8 funcref))
)";

template <typename T> static std::string show(const T &v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

static const char *extern_kind(const ExternType::Ref &r) {
  if (std::holds_alternative<FuncType::Ref>(r))
    return "func";
  if (std::holds_alternative<GlobalType::Ref>(r))
    return "global";
  if (std::holds_alternative<TableType::Ref>(r))
    return "table";
  if (std::holds_alternative<MemoryType::Ref>(r))
    return "memory";
  return "tag";
}

int main() {
  Config config;
  config.wasm_gc(true);
  config.wasm_function_references(true);
  Engine engine(std::move(config));
  Store store(engine);
  Store::Context cx = store.context();

  // EqRef's i31 members, 48's names.
  EqRef small = EqRef::from_i31(cx, 42);
  CHECK(small.is_i31(cx));
  CHECK(small.i31_get_u(cx) == 42u && small.i31_get_s(cx) == 42);
  EqRef neg = EqRef::from_i31(cx, 0x7fffffffu); // all 31 bits set: -1 signed
  CHECK(neg.i31_get_u(cx) == 0x7fffffffu && neg.i31_get_s(cx) == -1);
  EqRef top = EqRef::from_i31(cx, 0x80000005u); // the top bit is dropped
  CHECK(top.i31_get_u(cx) == 5u && top.i31_get_s(cx) == 5);
  std::cout << "i31: " << *small.i31_get_u(cx) << " " << *neg.i31_get_u(cx) << " " << *neg.i31_get_s(cx) << " "
            << *top.i31_get_s(cx) << "\n";
  StructType point(engine, {FieldType::mut_(StorageType(ValType::i32())), FieldType::const_(StorageType::i8())});
  StructRefPre pre = StructRefPre::create(cx, point);
  StructRef obj = StructRef::create(cx, pre, {Val(int32_t(7)), Val(int32_t(3))}).unwrap();
  EqRef obj_eq = obj.to_eqref();
  CHECK(!obj_eq.is_i31(cx) && !obj_eq.i31_get_u(cx) && !obj_eq.i31_get_s(cx));

  // HeapType::is_concrete, RefType::nullable/heaptype and operator<<.
  CHECK(!HeapType::any().is_concrete() && !HeapType::eq().is_concrete() && !HeapType::func().is_concrete());
  HeapType point_heap = HeapType::concrete_struct(point);
  CHECK(point_heap.is_concrete() && point_heap.is_concrete_struct());
  RefType eqref = RefType::eqref();
  CHECK(eqref.nullable() && eqref.heaptype().is_eq() && !eqref.heaptype().is_concrete());
  RefType point_ref(false, point_heap);
  CHECK(!point_ref.nullable() && point_ref.heaptype().is_concrete());
  CHECK(show(HeapType::i31()) == "i31" && show(point_heap) == "$struct");
  CHECK(show(eqref) == "(ref null eq)" && show(point_ref) == "(ref $struct)");
  ValType point_val(engine, point_ref);
  CHECK(show(ValType::i64()) == "i64" && show(ValType::v128()) == "v128");
  CHECK(show(ValType::externref()) == "(ref null extern)" && show(point_val) == "(ref $struct)");
  std::cout << "types: " << HeapType::noexn() << " " << RefType::nullfuncref() << " " << eqref << " " << point_ref
            << " " << ValType::f32() << " " << ValType::anyref() << " " << point_val << "\n";

  // StorageType::as_valtype, FieldType::storage_type, ArrayType::element_type.
  StorageType st_i32(ValType::i32());
  CHECK(st_i32.as_valtype() && st_i32.as_valtype()->is_i32());
  CHECK(!StorageType::i8().as_valtype() && !StorageType::i16().as_valtype());
  FieldType f0 = *point.field(0);
  const StorageType &f0_storage = f0.storage_type();
  CHECK(f0.is_mutable() && f0_storage.as_valtype() && f0_storage.as_valtype()->is_i32());
  FieldType f1 = *point.field(1);
  CHECK(!f1.is_mutable() && f1.storage_type().is_i8() && !f1.storage_type().as_valtype());
  ArrayType bytes(engine, FieldType::mut_(StorageType::i16()));
  FieldType elem = bytes.element_type();
  CHECK(elem.is_mutable() && elem.storage_type().is_i16());
  ArrayType floats(engine, FieldType::const_(StorageType(ValType::f64())));
  CHECK(!floats.element_type().is_mutable() && floats.element_type().storage_type().as_valtype()->is_f64());
  std::cout << "fields: i32 mut=" << f0.is_mutable() << ", i8 mut=" << f1.is_mutable()
            << ", array i16 mut=" << elem.is_mutable() << ", array f64 mut=" << floats.element_type().is_mutable()
            << "\n";

  // ExternType::from_import/from_export.
  Module module = Module::compile(engine, WAT).unwrap();
  ImportType::List imports = module.imports();
  CHECK(imports.size() == 2);
  ExternType::Ref imp0 = ExternType::from_import(imports[0]);
  CHECK(std::holds_alternative<FuncType::Ref>(imp0));
  FuncType::Ref fty = std::get<FuncType::Ref>(imp0);
  CHECK(fty.params().size() == 1 && fty.params()[0].is_i32() && fty.results()[0].is_i64());
  ExternType::Ref imp1 = ExternType::from_import(imports[1]);
  CHECK(std::holds_alternative<GlobalType::Ref>(imp1));
  CHECK(std::get<GlobalType::Ref>(imp1).is_mutable() && std::get<GlobalType::Ref>(imp1).content().is_f32());
  for (ImportType::Ref imp : imports)
    std::cout << "import " << imp.module() << "::" << imp.name() << ": " << extern_kind(ExternType::from_import(imp))
              << "\n";
  ExportType::List exports = module.exports();
  CHECK(exports.size() == 2);
  ExternType::Ref exp0 = ExternType::from_export(exports[0]);
  CHECK(std::holds_alternative<MemoryType::Ref>(exp0));
  CHECK(std::get<MemoryType::Ref>(exp0).min() == 2 && std::get<MemoryType::Ref>(exp0).max() == 5u);
  ExternType::Ref exp1 = ExternType::from_export(exports[1]);
  CHECK(std::holds_alternative<TableType::Ref>(exp1));
  CHECK(std::get<TableType::Ref>(exp1).min() == 1 && std::get<TableType::Ref>(exp1).element().is_funcref());
  for (ExportType::Ref exp : exports)
    std::cout << "export " << exp.name() << ": " << extern_kind(ExternType::from_export(exp)) << "\n";

  // The iterator type names, TagType::Ref::functype (an owned FuncType)
  // and Store::gc (a Result).
  ImportType::List::iterator it = imports.begin();
  CHECK((*it).name() == "f");
  ExportType::List::iterator eit = exports.end();
  CHECK(eit != exports.begin());
  ValType::ListRef::iterator pit = fty.params().begin();
  CHECK((*pit).is_i32());
  TagType tag_ty(FuncType({ValType::i32(), ValType::f64()}, {}));
  FuncType tag_fn = tag_ty->functype();
  CHECK(tag_fn->params().size() == 2 && tag_fn->params()[1].is_f64() && tag_fn->results().size() == 0);
  CHECK(store.gc() && cx.gc());
  std::cout << "tag params " << tag_fn->params().size() << ", gc ok\n";

  // Span: size_bytes, IsSpan, dynamic_extent, the container constructor.
  std::array<uint32_t, 3> arr{1, 2, 3};
  Span<uint32_t> from_array(arr);
  CHECK(from_array.size() == 3 && from_array.size_bytes() == 12 && from_array[2] == 3);
  from_array[0] = 10;
  CHECK(arr[0] == 10);
  std::vector<uint8_t> vec{9, 8};
  Span<const uint8_t> from_vec(vec);
  CHECK(from_vec.size() == 2 && from_vec.size_bytes() == 2 && from_vec.data() == vec.data());
  Span<uint32_t, dynamic_extent> explicit_extent(arr.data(), 2);
  uint32_t sum = 0;
  for (uint32_t v : explicit_extent)
    sum += v;
  CHECK(sum == 12);
  static_assert(IsSpan<Span<int>>::value && !IsSpan<std::vector<int>>::value, "IsSpan");
  std::cout << "span: " << from_array.size_bytes() << " bytes, sum of first two " << sum << "\n";

  // capi() as pointers: HeapType, RefType, StorageType, FieldType, Val.
  CHECK(point_heap.capi()->kind == WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT);
  weft_heaptype_t raw_heap;
  weft_heaptype_clone(point_heap.capi(), &raw_heap);
  HeapType from_raw = raw_heap; // takes it, leaving `none`
  CHECK(from_raw.is_concrete_struct() && raw_heap.kind == WEFT_HEAPTYPE_KIND_NONE);
  weft_heaptype_delete(&raw_heap);
  CHECK(point_ref.capi()->nullable == false && point_ref.capi()->heaptype.kind == WEFT_HEAPTYPE_KIND_CONCRETE_STRUCT);
  RefType ref_copy = point_ref;
  RefType ref_moved = std::move(ref_copy);
  CHECK(!ref_moved.nullable() && ref_moved.heaptype().is_concrete_struct());
  CHECK(StorageType::i16().capi()->kind == WEFT_STORAGE_TYPE_KIND_I16);
  CHECK(f0.capi()->mutable_ && f0.capi()->storage.kind == WEFT_STORAGE_TYPE_KIND_VALTYPE);
  Val v = Val(int64_t(-9));
  Val::Raw *raw = v.capi();
  CHECK(raw->kind == WEFT_I64 && raw->of.i64 == -9);
  raw->of.i64 = 11;
  const Val &cv = v;
  CHECK(cv.capi()->of.i64 == 11 && v.i64() == 11);
  component::ValType cbool = component::ValType::new_bool();
  CHECK(cbool.capi()->kind == WEFT_COMPONENT_VALTYPE_BOOL);
  const component::ValType &ccbool = cbool;
  CHECK(ccbool.capi() == cbool.capi() && ccbool.is_bool());
  std::cout << "capi: " << ref_moved << " " << cv.capi()->of.i64 << "\n";

  // Func::call over an iterator range.
  Module adder = Module::compile(engine, "(module (func (export \"add\") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))").unwrap();
  Instance adder_inst = Instance::create(cx, adder, {}).unwrap();
  Func add = std::get<Func>(*adder_inst.get(cx, "add"));
  std::array<Val, 2> add_args{Val(int32_t(40)), Val(int32_t(2))};
  std::vector<Val> add_res = add.call(cx, add_args.begin(), add_args.end()).unwrap();
  CHECK(add_res.size() == 1 && add_res[0].i32() == 42);
  std::cout << "call range: " << add_res[0].i32() << "\n";

  // Result's const and non-const accessors.
  Result<int> good(5);
  good.ok_ref() += 1;
  const Result<int> &cgood = good;
  CHECK(cgood.ok_ref() == 6 && cgood.ok() == 6);
  Result<int> bad = Result<int>(Module::compile(engine, "(module").err());
  CHECK(!bad && !bad.err_ref().message().empty());
  const Result<int> &cbad = bad;
  CHECK(&cbad.err_ref() == &bad.err_ref());
  std::cout << "result: " << cgood.ok_ref() << ", error " << (cbad.err().message().empty() ? "empty" : "set") << "\n";

  // 48's return types: the GC references' ty(cx) by value, the concrete
  // types of a HeapType and ValType::as_ref as pointers into the type, the
  // component types' accessors as const references.
  StructType obj_ty = obj.ty(cx);
  CHECK(obj_ty.num_fields() == 2);
  HeapType eq_ty = obj_eq.ty(cx);
  const StructType *eq_struct = eq_ty.as_concrete_struct();
  CHECK(eq_struct && eq_struct->num_fields() == 2);
  CHECK(!eq_ty.as_concrete_array() && !eq_ty.as_concrete_exn() && !eq_ty.as_concrete_func());
  CHECK(obj.to_anyref().ty(cx).is_concrete_struct());
  Store other(engine);
  CHECK(obj_eq.ty(other.context()).is_none() && obj.to_anyref().ty(other.context()).is_none());
  CHECK(obj.ty(other.context()).num_fields() == 0);
  HeapType fn_heap = HeapType::concrete_func(FuncType({ValType::i32(), ValType::f64()}, {}));
  std::optional<FuncType::Ref> fn_ref = fn_heap.as_concrete_func();
  CHECK(fn_ref && fn_ref->params().size() == 2 && fn_ref->params()[1].is_f64() && !fn_heap.as_concrete_struct());
  ValType pv(engine, point_ref);
  const RefType *pr = pv.as_ref();
  CHECK(pr && !pr->nullable() && pr->heaptype().as_concrete_struct()->num_fields() == 2);
  CHECK(pv.as_ref() == pr && ValType::i32().as_ref() == nullptr);
  ValType pv_copy = pv;
  CHECK(pv_copy.as_ref() && pv_copy.as_ref() != pr && pv_copy.as_ref()->heaptype().is_concrete_struct());
  ValType pv_moved = std::move(pv_copy);
  CHECK(pv_moved.as_ref() && pv_moved.as_ref()->heaptype().is_concrete_struct());
  pv_moved = ValType::f32();
  CHECK(pv_moved.as_ref() == nullptr);
  component::Component comp = component::Component::compile(engine, R"((component
    (core module $m
      (memory (export "mem") 1)
      (func (export "len") (param i32 i32) (result i32) local.get 1)
      (func (export "realloc") (param i32 i32 i32 i32) (result i32) i32.const 64))
    (core instance $i (instantiate $m))
    (func (export "len") (param "xs" (list u8)) (result u32)
      (canon lift (core func $i "len") (memory (core memory $i "mem")) (realloc (core func $i "realloc"))))
    (import "plain" (core module))
  ))").unwrap();
  std::optional<component::ComponentItem> len_item = comp.type().export_get(engine, "len");
  CHECK(len_item && len_item->is_component_func());
  const component::FuncType &len_ty = len_item->component_func();
  CHECK(len_ty.param_count() == 1 && len_ty.result()->is_u32());
  component::ValType xs = len_ty.param_nth(0)->second;
  const component::ListType &xs_list = xs.list();
  CHECK(xs_list.element().is_u8());
  CHECK(xs.record().field_count() == 0 && !xs.option().capi());
  const component::ResourceType &not_resource = len_item->resource();
  CHECK(!not_resource.capi() && len_item->type().is_bool() && !len_item->core_func().capi());
  std::optional<component::ComponentItem> plain = comp.type().import_get(engine, "plain");
  CHECK(plain && plain->is_module());
  const component::ModuleType &plain_ty = plain->module();
  CHECK(plain_ty.import_count(engine) == 0 && plain_ty.export_count(engine) == 0);
  std::cout << "48 return types: struct fields " << obj_ty.num_fields() << ", list of u8 "
            << xs_list.element().is_u8() << "\n";

  // weft/wat.hh and weft/extern_declare.hh.
  std::vector<uint8_t> wasm = wat2wasm("(module)").unwrap();
  CHECK(wasm.size() == 8 && wasm[0] == 0 && wasm[1] == 'a');
  Extern item = Memory::create(cx, MemoryType(1)).unwrap();
  CHECK(std::holds_alternative<Memory>(item));
  std::cout << "ok\n";
  return 0;
}
