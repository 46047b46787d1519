// weft.hh: the C++ API over the C API, for core wasm (host functions,
// calls, traps, globals, memories, linkers, serialization) and components
// (host functions in a linker instance, string and record values).
#include <iostream>
#include <weft.hh>

using namespace weft;

static const char *WAT = R"((module
  (import "host" "double" (func $double (param i32) (result i32)))
  (memory (export "mem") 1)
  (global (export "g") (mut i32) (i32.const 5))
  (func (export "run") (param i32) (result i32) (call $double (local.get 0)))
  (func (export "boom") unreachable))
)";

static const char *EXN_WAT = R"((module
  (import "host" "tag" (tag $t (param i32)))
  (import "host" "throw" (func $throw (param i32)))
  (func (export "catch") (param i32) (result i32)
    (block $h (result i32) (try_table (catch $t $h) (call $throw (local.get 0))) (i32.const -1)))
  (func (export "escape") (param i32) (call $throw (local.get 0)))
  (func (export "catch_ref") (param i32) (result exnref)
    (block $h (result exnref) (try_table (catch_all_ref $h) (call $throw (local.get 0))) (unreachable)))
  (func (export "rethrow") (param exnref) (result i32)
    (block $h (result i32) (try_table (catch $t $h) (throw_ref (local.get 0))) (i32.const -1))))
)";

static const char *COMPONENT = R"((component
  (import "host" (instance $host
    (export "twice" (func (param "s" string) (result string)))))
  (alias export $host "twice" (func $twice))
  (core module $libc
    (memory (export "mem") 1)
    (global $bump (mut i32) (i32.const 1024))
    (func (export "realloc") (param i32 i32 i32 i32) (result i32)
      (local $p i32)
      (local.set $p (global.get $bump))
      (global.set $bump (i32.add (global.get $bump) (local.get 3)))
      (local.get $p)))
  (core instance $libc (instantiate $libc))
  (core func $twice-lowered (canon lower (func $twice) (memory (core memory $libc "mem")) (realloc (core func $libc "realloc"))))
  (core module $m
    (import "host" "twice" (func $twice (param i32 i32 i32)))
    (func (export "greet") (param i32 i32) (result i32)
      (call $twice (local.get 0) (local.get 1) (i32.const 256))
      (i32.const 256)))
  (core instance $i (instantiate $m (with "host" (instance (export "twice" (func $twice-lowered))))))
  (func (export "greet") (param "name" string) (result string)
    (canon lift (core func $i "greet") (memory (core memory $libc "mem")) (realloc (core func $libc "realloc")))))
)";

int main() {
  Config config;
  PoolAllocationConfig pool;
  pool.total_memories(8);
  pool.total_core_instances(8);
  config.pooling_allocation_strategy(pool);
  config.consume_fuel(true);
  Engine engine(std::move(config));
  Engine engine2 = engine;
  Store store(engine);
  Store::Context cx = store.context();
  cx.set_fuel(100000).unwrap();
  cx.set_data(std::string("store data"));
  std::cout << std::any_cast<std::string>(cx.get_data()) << "\n";

  Module module = Module::compile(engine, WAT).unwrap();
  Module copy = module;
  Linker linker(engine);
  int calls = 0;
  linker
      .func_new("host", "double", FuncType({ValType::i32()}, {ValType::i32()}),
                [&calls](Caller caller, Span<const Val> args, Span<Val> results) -> Result<std::monostate, Trap> {
                  calls++;
                  auto mem = caller.get_export("mem");
                  if (!mem || !std::holds_alternative<Memory>(*mem))
                    return Trap("no memory");
                  if (args[0].i32() < 0)
                    return Trap("negative");
                  results[0] = Val(args[0].i32() * 2);
                  return std::monostate();
                })
      .unwrap();
  Instance instance = linker.instantiate(cx, copy).unwrap();
  Func run = std::get<Func>(*instance.get(cx, "run"));
  auto out = run.call(cx, {Val(int32_t(21))}).unwrap();
  std::cout << "run(21) = " << out[0].i32() << ", host calls " << calls << "\n";
  auto failed = run.call(cx, {Val(int32_t(-1))});
  std::cout << "run(-1) fails with the host's message: "
            << (!failed && failed.err().message().find("negative") != std::string::npos) << "\n";
  auto boom = std::get<Func>(*instance.get(cx, "boom")).call(cx, {});
  const TrapError &te = boom.err_ref();
  std::cout << "boom: trap " << std::holds_alternative<Trap>(te.data) << ", code "
            << int(*std::get<Trap>(te.data).code()) << "\n";
  auto wrong = run.call(cx, {});
  std::cout << "wrong arguments: " << (wrong ? "ok" : wrong.err().message()) << "\n";

  Global g = std::get<Global>(*instance.get(cx, "g"));
  g.set(cx, Val(int32_t(9))).unwrap();
  std::cout << "global: " << g.get(cx).i32() << "\n";
  Memory mem = std::get<Memory>(*instance.get(cx, "mem"));
  mem.data(cx)[0] = 42;
  std::cout << "memory: " << mem.size(cx) << " page(s), grown from " << mem.grow(cx, 1).unwrap() << " to "
            << mem.size(cx) << ", byte " << int(mem.data(cx)[0]) << "\n";
  std::cout << "missing export: " << instance.get(cx, "nope").has_value() << "\n";

  // A host function made directly, imported by an instance.
  Func neg(cx, FuncType({ValType::i32()}, {ValType::i32()}),
           [](Caller, Span<const Val> args, Span<Val> results) -> Result<std::monostate, Trap> {
             results[0] = Val(-args[0].i32());
             return std::monostate();
           });
  Instance direct = Instance::create(cx, module, {neg}).unwrap();
  std::cout << "direct run(4) = " << std::get<Func>(*direct.get(cx, "run")).call(cx, {Val(int32_t(4))}).unwrap()[0].i32()
            << "\n";

  auto bytes = module.serialize().unwrap();
  Module again = Module::deserialize(engine2, bytes).unwrap();
  (void)again;
  auto bad = Module::compile(engine, "(module");
  std::cout << "bad module fails: " << !bad << "\n";
  std::cout << "fuel left > 0: " << (cx.get_fuel().unwrap() > 0) << "\n";

  // Exceptions made and thrown by a host function: caught by wasm, or
  // taken by the embedder.
  Tag tag = Tag::create(cx, TagType(FuncType({ValType::i32()}, {}))).unwrap();
  Func thrower(cx, FuncType({ValType::i32()}, {}),
               [tag](Caller caller, Span<const Val> args, Span<Val>) -> Result<std::monostate, Trap> {
                 Store::Context hcx(caller);
                 if (hcx.has_exception())
                   return Trap("an exception is already pending");
                 ExnRef exn = ExnRef::create(hcx, tag, {Val(args[0].i32() + 1)}).unwrap();
                 return hcx.throw_exception(exn);
               });
  Module exn_module = Module::compile(engine, EXN_WAT).unwrap();
  Instance exn_inst = Instance::create(cx, exn_module, {tag, thrower}).unwrap();
  auto caught = std::get<Func>(*exn_inst.get(cx, "catch")).call(cx, {Val(int32_t(41))}).unwrap();
  std::cout << "host exception caught by wasm: " << caught[0].i32() << ", pending " << cx.has_exception() << "\n";
  auto escaped = std::get<Func>(*exn_inst.get(cx, "escape")).call(cx, {Val(int32_t(6))});
  std::cout << "uncaught: trap " << (!escaped && std::holds_alternative<Trap>(escaped.err_ref().data))
            << ", pending " << cx.has_exception() << "\n";
  std::optional<ExnRef> taken = cx.take_exception();
  ExnRef copy_exn = *taken;
  std::cout << "taken: tag matches " << copy_exn.tag(cx).unwrap().eq(cx, tag) << ", " << taken->field_count(cx)
            << " field = " << taken->field(cx, 0).unwrap().i32() << ", pending " << cx.has_exception() << "\n";
  std::cout << "wrong fields refused: " << !ExnRef::create(cx, tag, {}) << "\n";
  // exnref values: from wasm to the host and back.
  auto refs = std::get<Func>(*exn_inst.get(cx, "catch_ref")).call(cx, {Val(int32_t(10))}).unwrap();
  std::optional<ExnRef> caught_ref = refs[0].exnref();
  std::cout << "catch_ref: kind exnref " << (refs[0].kind() == ValKind::ExnRef) << ", field "
            << caught_ref->field(cx, 0).unwrap().i32() << "\n";
  Func rethrow = std::get<Func>(*exn_inst.get(cx, "rethrow"));
  std::cout << "rethrow: " << rethrow.call(cx, {Val(*caught_ref)}).unwrap()[0].i32() << ", of a host-made one: "
            << rethrow.call(cx, {Val(ExnRef::create(cx, tag, {Val(int32_t(3))}).unwrap())}).unwrap()[0].i32()
            << ", of null fails: " << !rethrow.call(cx, {Val(std::optional<ExnRef>())}) << "\n";
  std::cout << "exnref type: params " << FuncType({ValType::exnref()}, {}).param_count() << "\n";

  // Components.
  component::Component comp = component::Component::compile(engine, COMPONENT).unwrap();
  component::Linker clinker(engine);
  {
    component::LinkerInstance root = clinker.root();
    component::LinkerInstance host = root.add_instance("host").unwrap();
    host.add_func("twice",
                  [](Store::Context, const component::FuncType &ty, Span<component::Val> args,
                     Span<component::Val> results) -> Result<std::monostate> {
                    if (ty.param_count() != 1 || !args[0].is_string())
                      return Error("bad arguments");
                    std::string s(args[0].get_string());
                    results[0] = component::Val::string(s + " " + s);
                    return std::monostate();
                  })
        .unwrap();
  }
  component::Instance cinst = clinker.instantiate(cx, comp).unwrap();
  auto idx = comp.export_index(nullptr, "greet");
  auto greet = cinst.get_func(cx, *idx);
  std::vector<component::Val> args = {component::Val::string("weft")};
  std::vector<component::Val> results(1);
  greet->call(cx, args, results).unwrap();
  std::cout << "greet: " << results[0].get_string() << "\n";
  greet->post_return(cx).unwrap();
  std::vector<component::Val> wrong_args = {component::Val(uint32_t(1))};
  auto err = greet->call(cx, wrong_args, results);
  std::cout << "greet(1) fails: " << !err << "\n";

  component::Val rec = component::Val::record(
      {{"a", component::Val(uint32_t(7))}, {"b", component::Val::list({component::Val(true), component::Val(false)})}});
  component::Val rec2 = rec;
  std::cout << "record: a=" << rec2.get_field("a")->get_u32() << ", b has " << rec2.get_field("b")->get_list().size()
            << " items\n";
  component::Val opt = component::Val::option(component::Val::string("x"));
  std::cout << "option: " << opt.get_option().value()->get_string() << "\n";
  auto ser = comp.serialize().unwrap();
  component::Component back = component::Component::deserialize(engine, ser).unwrap();
  std::cout << "wasip2 added: " << bool(clinker.add_wasip2()) << "\n";
  std::cout << "wasi:http added: " << bool(clinker.add_wasi_http()) << "\n";
  cx.set_wasi_http();
  std::cout << "done\n";
  return 0;
}
