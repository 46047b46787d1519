// weft.hh's GC reference classes: ExternRef (host values), AnyRef and
// i31refs, EqRef, StructRefPre/StructRef, ArrayRefPre/ArrayRef, passed
// through globals and functions (by Func::call and TypedFunc) and back;
// copies, moves and take_raw/borrow_raw; objects reclaimed by a GC once
// their roots are gone.
#include <iostream>
#include <weft.hh>

using namespace weft;

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      std::cout << "check failed, line " << __LINE__ << ": " #cond "\n";                                               \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static const char *WAT = R"((module
  (type $point (struct (field $x (mut i32)) (field $y i64)))
  (type $ints (array (mut i32)))
  (global $any (export "any") (mut anyref) (ref.null any))
  (global $ext (export "ext") (mut externref) (ref.null extern))
  (func (export "identity") (param anyref) (result anyref) (local.get 0))
  (func (export "ext_identity") (param externref) (result externref) (local.get 0))
  (func (export "bump") (param $p (ref null $point)) (result i64)
    (struct.set $point $x (local.get $p) (i32.add (struct.get $point $x (local.get $p)) (i32.const 1)))
    (i64.add (i64.extend_i32_s (struct.get $point $x (local.get $p))) (struct.get $point $y (local.get $p))))
  (func (export "sum") (param $a (ref null $ints)) (result i32)
    (local $i i32) (local $s i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
        (local.set $s (i32.add (local.get $s) (array.get $ints (local.get $a) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $s))
  (func (export "make") (param i32 i64) (result anyref) (struct.new $point (local.get 0) (local.get 1)))
  (func (export "stash") (param anyref) (global.set $any (local.get 0)))
  (func (export "is_i31") (param anyref) (result i32) (ref.test (ref i31) (local.get 0))))
)";

static int finalized = 0;
struct Tracked {
  int value;
  explicit Tracked(int v) : value(v) {}
  Tracked(const Tracked &o) : value(o.value) {}
  ~Tracked() { finalized++; }
};

int main() {
  Config config;
  config.wasm_gc(true);
  config.wasm_function_references(true);
  Engine engine(std::move(config));
  Store store(engine);
  Store::Context cx = store.context();
  Module module = Module::compile(engine, WAT).unwrap();
  Instance inst = Instance::create(cx, module, {}).unwrap();
  auto get_func = [&](const char *name) { return std::get<Func>(*inst.get(cx, name)); };
  Global any_global = std::get<Global>(*inst.get(cx, "any"));
  Global ext_global = std::get<Global>(*inst.get(cx, "ext"));

  // externref: a host value through a global and a function.
  {
    ExternRef ext(cx, std::string("host value"));
    CHECK(std::any_cast<std::string>(ext.data(cx)) == "host value");
    ext_global.set(cx, Val(ext)).unwrap();
    std::optional<ExternRef> from_global = ext_global.get(cx).externref();
    CHECK(from_global && std::any_cast<std::string>(from_global->data(cx)) == "host value");
    auto out = get_func("ext_identity").call(cx, {Val(*from_global)}).unwrap();
    std::optional<ExternRef> from_func = out[0].externref();
    CHECK(from_func && std::any_cast<std::string>(from_func->data(cx)) == "host value");
    std::any_cast<std::string &>(from_func->data(cx)) += " (changed)";
    std::cout << "externref: " << std::any_cast<std::string>(ext.data(cx)) << "\n";
    auto typed = get_func("ext_identity").typed<std::optional<ExternRef>, std::optional<ExternRef>>(cx).unwrap();
    std::optional<ExternRef> none = typed.call(cx, std::nullopt).unwrap();
    CHECK(!none);
    CHECK(typed.call(cx, ext).unwrap().has_value());
  }
  // Its data is freed with its store.
  int before_store = 0;
  {
    Store other(engine);
    ExternRef tracked(other, Tracked(7));
    CHECK(std::any_cast<Tracked &>(tracked.data(other)).value == 7);
    int before = finalized;
    Val in_val(tracked);
    Val copied = in_val;
    CHECK(finalized == before && std::any_cast<Tracked &>(copied.externref()->data(other)).value == 7);
    ExternRef survivor = std::move(tracked);
    tracked = survivor;
    CHECK(finalized == before);
    before_store = finalized;
  }
  std::cout << "externref data freed with its store: " << (finalized == before_store + 1) << "\n";

  // i31refs and anyrefs.
  AnyRef i31 = AnyRef::i31(cx, 0x7fffffff);
  CHECK(i31.is_i31(cx) && i31.is_eqref(cx) && !i31.is_struct(cx) && !i31.is_array(cx));
  std::cout << "i31: u31 " << *i31.u31(cx) << ", i31 " << *i31.i31(cx) << "\n";
  auto identity = get_func("identity").typed<std::optional<AnyRef>, std::optional<AnyRef>>(cx).unwrap();
  std::optional<AnyRef> same = identity.call(cx, i31).unwrap();
  CHECK(same && *same->i31(cx) == -1);
  auto is_i31 = get_func("is_i31").typed<std::optional<AnyRef>, int32_t>(cx).unwrap();
  CHECK(is_i31.call(cx, i31).unwrap() == 1);
  std::optional<EqRef> eq = i31.as_eqref(cx);
  CHECK(eq && eq->is_i31(cx) && *eq->u31(cx) == 0x7fffffff);
  HeapType i31_ty = i31.ty(cx);
  CHECK(i31_ty.is_i31());

  // Structs made by the host, changed by wasm, read by the host.
  StructType point_ty(engine, {FieldType::mut_(ValType::i32()), FieldType::const_(ValType::i64())});
  StructRefPre point_pre = StructRefPre::create(cx, point_ty);
  StructRef point = StructRef::create(cx, point_pre, {Val(int32_t(10)), Val(int64_t(100))}).unwrap();
  auto bump = get_func("bump").call(cx, {Val(point.to_anyref())}).unwrap();
  CHECK(bump[0].i64() == 111);
  CHECK(point.field(cx, 0).unwrap().i32() == 11);
  point.set_field(cx, 0, Val(int32_t(20))).unwrap();
  CHECK(point.field(cx, 0).unwrap().i32() == 20);
  auto immutable = point.set_field(cx, 1, Val(int64_t(1)));
  auto out_of_bounds = point.field(cx, 5);
  auto wrong_type = point.set_field(cx, 0, Val(int64_t(1)));
  std::cout << "struct: x " << point.field(cx, 0).unwrap().i32() << ", y " << point.field(cx, 1).unwrap().i64()
            << ", refused: immutable " << !immutable << ", out of bounds " << !out_of_bounds << ", wrong type "
            << !wrong_type << "\n";
  CHECK(point.ty(cx).num_fields() == 2);
  CHECK(!StructRef::create(cx, point_pre, {Val(int32_t(1))}));

  // A struct through a global, and a struct made by wasm.
  any_global.set(cx, Val(point.to_anyref())).unwrap();
  std::optional<AnyRef> from_global = any_global.get(cx).anyref();
  CHECK(from_global && from_global->is_struct(cx));
  std::optional<StructRef> as_struct = from_global->as_struct(cx);
  CHECK(as_struct && as_struct->field(cx, 1).unwrap().i64() == 100);
  std::optional<AnyRef> made = identity.call(cx, std::nullopt).unwrap();
  CHECK(!made);
  auto made_vals = get_func("make").call(cx, {Val(int32_t(3)), Val(int64_t(4))}).unwrap();
  std::optional<AnyRef> made_ref = made_vals[0].anyref();
  CHECK(made_ref && made_ref->is_struct(cx) && !made_ref->is_array(cx));
  HeapType made_ty = made_ref->ty(cx);
  CHECK(made_ty.is_concrete_struct() && made_ty.as_concrete_struct()->num_fields() == 2);
  std::optional<EqRef> made_eq = made_ref->as_eqref(cx);
  CHECK(made_eq && made_eq->is_struct(cx) && made_eq->as_struct(cx)->field(cx, 0).unwrap().i32() == 3);
  std::cout << "struct from wasm: x " << made_eq->as_struct(cx)->field(cx, 0).unwrap().i32() << ", y "
            << made_ref->as_struct(cx)->field(cx, 1).unwrap().i64() << "\n";

  // Arrays.
  ArrayType ints_ty(engine, FieldType::mut_(ValType::i32()));
  ArrayRefPre ints_pre = ArrayRefPre::create(cx, ints_ty);
  ArrayRef ints = ArrayRef::create(cx, ints_pre, Val(int32_t(5)), 4).unwrap();
  CHECK(ints.len(cx).unwrap() == 4);
  ints.set(cx, 2, Val(int32_t(30))).unwrap();
  CHECK(ints.get(cx, 2).unwrap().i32() == 30 && !ints.get(cx, 4));
  auto sum = get_func("sum").call(cx, {Val(ints.to_anyref())}).unwrap();
  std::cout << "array: len " << ints.len(cx).unwrap() << ", sum in wasm " << sum[0].i32() << "\n";
  CHECK(sum[0].i32() == 45);
  AnyRef ints_any = ints.to_anyref();
  CHECK(ints_any.is_array(cx) && ints_any.as_array(cx)->get(cx, 0).unwrap().i32() == 5);
  CHECK(ints.to_eqref().is_array(cx) && ints.ty(cx).field().is_mutable());

  // Copies are new roots; moved-from references are null; raw references
  // are taken and given back.
  StructRef copy = point;
  StructRef moved = std::move(copy);
  CHECK(copy.capi().store_id == 0 && moved.field(cx, 0).unwrap().i32() == 20);
  const weft_structref_t *borrowed = moved.borrow_raw();
  CHECK(borrowed->store_id != 0);
  weft_structref_t raw = moved.take_raw();
  CHECK(moved.borrow_raw()->store_id == 0);
  StructRef again(raw);
  CHECK(again.field(cx, 0).unwrap().i32() == 20);
  Val v1(point.to_anyref());
  Val v2 = v1;
  Val v3 = std::move(v1);
  CHECK(v1.kind() == ValKind::I32 && v2.anyref()->is_struct(cx) && v3.anyref()->is_struct(cx));
  weft_val_t raw_val = v2.take_raw();
  Val v4(raw_val);
  CHECK(v4.anyref()->as_struct(cx)->field(cx, 0).unwrap().i32() == 20);
  std::cout << "copies, moves and raw references ok\n";

  // A GC with roots held by the host keeps their objects.
  get_func("stash").call(cx, {Val(std::optional<AnyRef>())}).unwrap();
  cx.gc().unwrap();
  CHECK(point.field(cx, 0).unwrap().i32() == 20 && ints.get(cx, 2).unwrap().i32() == 30);
  CHECK(std::any_cast<std::string>(ExternRef(cx, std::string("after gc")).data(cx)) == "after gc");
  std::cout << "done\n";
  return 0;
}
