// The standard's example programs written against `wasm.hh` (the C++ API,
// namespace `wasm`), one per function below, chosen by the first argument.
// Each prints what the C program of the same name (`NAME.c`) prints, so the
// test compares it with `NAME.out`. One program for all of them: one
// compiler run.
#include <wasm.hh>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#define check(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

using namespace wasm;

namespace {

// The bytes of `path`.
vec<byte_t> read_file(const char *path) {
  std::ifstream f(path, std::ios::binary);
  check(f.good());
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // Not `vec::make(std::string)`: it copies with `strncpy`, up to the
  // first NUL (and a binary starts with one).
  auto v = vec<byte_t>::make_uninitialized(s.size());
  std::memcpy(v.get(), s.data(), s.size());
  return v;
}

// The module in `path`, compiled for `store`.
own<Module> load_module(Store *store, const char *path) {
  auto binary = read_file(path);
  check(Module::validate(store, binary));
  auto module = Module::make(store, binary);
  check(module);
  return module;
}

// `i32 -> i32` and similar function types.
own<FuncType> functype(std::vector<ValKind> params, std::vector<ValKind> results) {
  auto p = ownvec<ValType>::make_uninitialized(params.size());
  for (size_t i = 0; i < params.size(); ++i) p[i] = ValType::make(params[i]);
  auto r = ownvec<ValType>::make_uninitialized(results.size());
  for (size_t i = 0; i < results.size(); ++i) r[i] = ValType::make(results[i]);
  return FuncType::make(std::move(p), std::move(r));
}

// --- hello ----------------------------------------------------------------

int hello_calls = 0;

auto hello_callback(const vec<Val> &args, vec<Val> &results) -> own<Trap> {
  printf("Calling back...\n> Hello World!\n");
  check(args.size() == 0 && results.size() == 0);
  hello_calls++;
  return nullptr;
}

void hello() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  printf("Loading binary...\nCompiling module...\n");
  auto module = load_module(store.get(), "hello.wasm");
  printf("Creating callback...\n");
  auto hello_type = FuncType::make();
  auto hello_func = Func::make(store.get(), hello_type.get(), hello_callback);
  check(hello_func);
  printf("Instantiating module...\n");
  auto imports = vec<Extern *>::make(hello_func.get());
  own<Trap> trap;
  auto instance = Instance::make(store.get(), module.get(), imports, &trap);
  check(instance && !trap);
  printf("Extracting export...\n");
  auto exports = instance->exports();
  check(exports.size() == 1 && exports[0]->kind() == ExternKind::FUNC);
  auto run_func = exports[0]->func();
  check(run_func && run_func->param_arity() == 0 && run_func->result_arity() == 0);
  printf("Calling export...\n");
  auto args = vec<Val>::make();
  auto results = vec<Val>::make();
  check(!run_func->call(args, results));
  check(hello_calls == 1);
  printf("Shutting down...\n");
}

// --- callback -------------------------------------------------------------

auto print_callback(const vec<Val> &args, vec<Val> &results) -> own<Trap> {
  check(args.size() == 1 && args[0].kind() == ValKind::I32 && results.size() == 1);
  printf("Calling back...\n> %d\n", args[0].i32());
  results[0] = args[0].copy();
  return nullptr;
}

int callback_finalized = 0;

auto closure_callback(void *env, const vec<Val> &, vec<Val> &results) -> own<Trap> {
  int i = *static_cast<int *>(env);
  printf("Calling back closure...\n> %d\n", i);
  results[0] = Val::i32(i);
  return nullptr;
}

void callback() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "callback.wasm");
  printf("Creating callbacks...\n");
  auto print_type = functype({ValKind::I32}, {ValKind::I32});
  auto print_func = Func::make(store.get(), print_type.get(), print_callback);
  check(print_func->param_arity() == 1 && print_func->result_arity() == 1);
  static int env = 42;
  auto closure_type = functype({}, {ValKind::I32});
  auto closure_func = Func::make(store.get(), closure_type.get(), closure_callback, &env,
                                 [](void *e) { callback_finalized = *static_cast<int *>(e); });
  check(closure_func);
  printf("Instantiating module...\n");
  auto imports = vec<Extern *>::make(print_func.get(), closure_func.get());
  auto instance = Instance::make(store.get(), module.get(), imports);
  check(instance);
  printf("Extracting export...\n");
  auto exports = instance->exports();
  auto run_func = exports[0]->func();
  printf("Calling export...\n");
  auto args = vec<Val>::make(Val::i32(3), Val::i32(4));
  auto results = vec<Val>::make_uninitialized(1);
  check(!run_func->call(args, results));
  printf("Printing result...\n> %d\n", results[0].i32());
  check(results[0].kind() == ValKind::I32 && results[0].i32() == 49);
  // Wrong arity: a trap, not a crash.
  auto none = vec<Val>::make();
  check(run_func->call(none, results));
  // An invalid vector counts as empty.
  auto invalid = vec<Val>::invalid();
  check(run_func->call(invalid, results));
  check(callback_finalized == 0);
  printf("Shutting down...\n");
  // References keep their store alive: the store goes with the last one.
  exports.reset();
  instance.reset();
  print_func.reset();
  closure_func.reset();
  check(callback_finalized == 0);
  store.reset();
  check(callback_finalized == 42);
}

// --- global ---------------------------------------------------------------

Val call0(const Func *f) {
  auto args = vec<Val>::make();
  auto results = vec<Val>::make_uninitialized(1);
  check(!f->call(args, results));
  return results[0].copy();
}

void call1(const Func *f, Val v) {
  auto args = vec<Val>::make(std::move(v));
  auto results = vec<Val>::make();
  check(!f->call(args, results));
}

void global() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "global.wasm");
  printf("Creating globals...\n");
  auto const_i64_type = GlobalType::make(ValType::make(ValKind::I64), Mutability::CONST);
  auto var_i32_type = GlobalType::make(ValType::make(ValKind::I32), Mutability::VAR);
  auto const_i64 = Global::make(store.get(), const_i64_type.get(), Val::i64(1));
  auto var_i32 = Global::make(store.get(), var_i32_type.get(), Val::i32(2));
  check(const_i64 && var_i32);
  // A value of the wrong type is refused.
  check(!Global::make(store.get(), const_i64_type.get(), Val::i32(2)));
  auto t = var_i32->type();
  check(t->mutability() == Mutability::VAR && t->content()->kind() == ValKind::I32);
  check(t->kind() == ExternKind::GLOBAL && t->global() == t.get() && !t->func());
  printf("Instantiating module...\n");
  auto imports = vec<Extern *>::make(const_i64.get(), var_i32.get());
  auto instance = Instance::make(store.get(), module.get(), imports);
  check(instance);
  printf("Extracting exports...\n");
  auto exports = instance->exports();
  check(exports.size() == 7);
  auto const_f64 = exports[0]->global();
  auto var_i64 = exports[1]->global();
  check(const_f64 && var_i64 && !exports[0]->func());
  check(exports[0]->kind() == ExternKind::GLOBAL);
  const Func *get_const_i64 = exports[2]->func();
  const Func *get_var_i32 = exports[3]->func();
  const Func *set_var_i32 = exports[4]->func();
  const Func *get_var_i64 = exports[5]->func();
  const Func *set_var_i64 = exports[6]->func();
  check(get_const_i64 && get_var_i32 && set_var_i32 && get_var_i64 && set_var_i64);
  printf("Accessing globals...\n");
  check(const_i64->get().i64() == 1 && call0(get_const_i64).i64() == 1);
  check(const_f64->get().kind() == ValKind::F64 && const_f64->get().f64() == 5.0);
  check(var_i32->get().i32() == 2 && call0(get_var_i32).i32() == 2);
  check(var_i64->get().i64() == 7 && call0(get_var_i64).i64() == 7);
  var_i32->set(Val::i32(21));
  var_i64->set(Val::i64(27));
  check(call0(get_var_i32).i32() == 21 && call0(get_var_i64).i64() == 27);
  printf("> var i32 = %d, var i64 = %lld\n", var_i32->get().i32(), (long long)var_i64->get().i64());
  // A constant global and a mistyped value are left alone.
  const_f64->set(Val::f64(9.0));
  check(const_f64->get().f64() == 5.0);
  var_i32->set(Val::i64(27));
  check(var_i32->get().i32() == 21);
  call1(set_var_i32, Val::i32(31));
  call1(set_var_i64, Val::i64(37));
  check(var_i32->get().i32() == 31 && var_i64->get().i64() == 37);
  printf("> var i32 = %d, var i64 = %lld\n", var_i32->get().i32(), (long long)var_i64->get().i64());
  auto copy = var_i32->copy();
  check(copy->same(var_i32.get()) && !copy->same(const_i64.get()));
  printf("Shutting down...\n");
}

// --- memory ---------------------------------------------------------------

int32_t call_i32(const Func *f, std::vector<int32_t> in, bool *trapped) {
  auto args = vec<Val>::make_uninitialized(in.size());
  for (size_t i = 0; i < in.size(); ++i) args[i] = Val::i32(in[i]);
  auto results = vec<Val>::make_uninitialized(f->result_arity());
  auto trap = f->call(args, results);
  *trapped = bool(trap);
  return results.size() && !trap ? results[0].i32() : 0;
}

void memory() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "memory.wasm");
  auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make());
  check(instance);
  auto exports = instance->exports();
  auto memory = exports[0]->memory();
  check(memory);
  auto size_func = exports[1]->func();
  auto load_func = exports[2]->func();
  auto store_func = exports[3]->func();
  bool trapped;
  printf("Checking memory...\n");
  check(memory->size() == 2 && memory->data_size() == 0x20000);
  check(memory->data()[0] == 0 && memory->data()[0x1000] == 1 && memory->data()[0x1003] == 4);
  check(call_i32(size_func, {}, &trapped) == 2 && !trapped);
  check(call_i32(load_func, {0x1002}, &trapped) == 3 && !trapped);
  check(call_i32(load_func, {0x1ffff}, &trapped) == 0 && !trapped);
  call_i32(load_func, {0x20000}, &trapped);
  check(trapped);
  printf("Mutating memory...\n");
  memory->data()[0x1003] = 5;
  call_i32(store_func, {0x1002, 7}, &trapped);
  check(!trapped);
  call_i32(store_func, {0x20000, 0}, &trapped);
  check(trapped);
  check(memory->data()[0x1002] == 7 && call_i32(load_func, {0x1003}, &trapped) == 5);
  printf("Growing memory...\n");
  check(memory->grow(1) && memory->size() == 3 && memory->data_size() == 0x30000);
  check(call_i32(load_func, {0x20000}, &trapped) == 0 && !trapped);
  call_i32(load_func, {0x30000}, &trapped);
  check(trapped);
  check(!memory->grow(1) && memory->grow(0));
  auto mt = memory->type();
  printf("> limits: min %u, max %u\n", mt->limits().min, mt->limits().max);
  printf("Creating stand-alone memory...\n");
  auto memorytype = MemoryType::make(Limits(5, 5));
  auto memory2 = Memory::make(store.get(), memorytype.get());
  check(memory2 && memory2->size() == 5 && !memory2->grow(1) && memory2->grow(0));
  printf("Shutting down...\n");
}

// --- table ----------------------------------------------------------------

auto neg_callback(const vec<Val> &args, vec<Val> &results) -> own<Trap> {
  results[0] = Val::i32(-args[0].i32());
  return nullptr;
}

void table() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "table.wasm");
  auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make());
  check(instance);
  auto exports = instance->exports();
  auto table = exports[0]->table();
  check(table);
  auto call_indirect = exports[1]->func();
  auto f = exports[2]->func();
  auto g = exports[3]->func();
  bool trapped;
  printf("Creating callback...\n");
  auto neg_type = functype({ValKind::I32}, {ValKind::I32});
  auto h = Func::make(store.get(), neg_type.get(), neg_callback);
  printf("Checking table...\n");
  check(table->size() == 2 && !table->get(0));
  auto e1 = table->get(1);
  check(e1 && e1->same(f));
  check(!table->get(2));
  check(call_i32(call_indirect, {7, 1}, &trapped) == 7 && !trapped);
  call_i32(call_indirect, {7, 0}, &trapped);
  check(trapped);
  call_i32(call_indirect, {7, 2}, &trapped);
  check(trapped);
  printf("Mutating table...\n");
  check(table->set(0, g) && table->set(1, nullptr) && !table->set(2, f));
  check(call_i32(call_indirect, {7, 0}, &trapped) == 666 && !trapped);
  call_i32(call_indirect, {7, 1}, &trapped);
  check(trapped);
  check(table->set(1, h.get()));
  check(call_i32(call_indirect, {5, 1}, &trapped) == -5 && !trapped);
  printf("> host function in the table: %d\n", call_i32(call_indirect, {5, 1}, &trapped));
  printf("Growing table...\n");
  check(table->grow(3, f) && table->size() == 5);
  check(call_i32(call_indirect, {9, 4}, &trapped) == 9 && !trapped);
  check(table->grow(5) && table->size() == 10 && !table->grow(1) && table->grow(0));
  printf("Creating stand-alone table...\n");
  auto tabletype = TableType::make(ValType::make(ValKind::FUNCREF), Limits(5, 5));
  check(tabletype->element()->kind() == ValKind::FUNCREF && tabletype->limits().min == 5);
  auto table2 = Table::make(store.get(), tabletype.get(), h.get());
  check(table2 && table2->size() == 5);
  auto e = table2->get(4);
  check(e->same(h.get()) && !table2->grow(1));
  // A reference read from a table is a function again.
  auto v = Val::ref(std::move(e));
  check(v.is_ref() && v.ref() != nullptr);
  printf("Shutting down...\n");
}

// --- trap -----------------------------------------------------------------

Store *trap_store;

auto fail_callback(const vec<Val> &, vec<Val> &) -> own<Trap> {
  printf("Calling back...\n");
  return Trap::make(trap_store, vec<byte_t>::make_nt(std::string("callback abort")));
}

void print_frame(const Frame *frame) {
  printf("> frame: func index %u\n", frame->func_index());
  check(frame->module_offset() >= frame->func_offset());
  check(frame->instance() == nullptr);  // Weft's frames record no instance
}

void trap() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  trap_store = store.get();
  auto module = load_module(store.get(), "trap.wasm");
  auto fail_type = functype({}, {ValKind::I32});
  auto fail_func = Func::make(store.get(), fail_type.get(), fail_callback);
  auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make(fail_func.get()));
  check(instance);
  auto exports = instance->exports();
  check(exports.size() == 2);
  // A trap made by the host keeps its message.
  auto own_trap = Trap::make(store.get(), vec<byte_t>::make_nt(std::string("made here")));
  auto own_message = own_trap->message();
  check(std::strcmp(own_message.get(), "made here") == 0);
  check(own_message[own_message.size() - 1] == '\0');
  check(!own_trap->origin() && own_trap->trace().size() == 0);
  check(own_trap->copy()->same(own_trap.get()));
  for (size_t i = 0; i < 2; ++i) {
    printf("Calling export %zu...\n", i);
    auto args = vec<Val>::make();
    auto results = vec<Val>::make_uninitialized(1);
    auto trap = exports[i]->func()->call(args, results);
    check(trap);
    printf("Printing message...\n");
    auto message = trap->message();
    const char *expected = i == 0 ? "callback abort" : "unreachable";
    check(std::strstr(message.get(), expected) != nullptr);
    printf("> contains \"%s\"\n", expected);
    printf("Printing origin...\n");
    auto frame = trap->origin();
    check(frame);
    print_frame(frame.get());
    check(frame->copy()->func_index() == frame->func_index());
    printf("Printing trace...\n");
    auto trace = trap->trace();
    check(trace.size() == 1);
    for (size_t j = 0; j < trace.size(); ++j) print_frame(trace[j].get());
    auto trace_copy = trace.deep_copy();
    check(trace_copy.size() == 1 && trace_copy[0]->func_index() == trace[0]->func_index());
  }
  printf("Shutting down...\n");
}

// --- start ----------------------------------------------------------------

void start() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "start.wasm");
  printf("Instantiating module...\n");
  own<Trap> trap;
  auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make(), &trap);
  check(!instance && trap);
  printf("Printing message...\n");
  check(std::strstr(trap->message().get(), "unreachable") != nullptr);
  printf("> contains \"unreachable\"\n");
  printf("Printing origin...\n");
  auto frame = trap->origin();
  check(frame);
  printf("> func index %u\n", frame->func_index());
  printf("Printing trace...\n");
  printf("> %zu frame(s)\n", trap->trace().size());
  // Too many imports (a null one) is a link error, reported as a trap too;
  // with no trap output, the instance is still refused.
  auto one = vec<Extern *>::make(static_cast<Extern *>(nullptr));
  own<Trap> trap2;
  check(!Instance::make(store.get(), module.get(), one, &trap2) && trap2);
  check(!Instance::make(store.get(), module.get(), one));
  printf("Shutting down...\n");
}

// --- reflect --------------------------------------------------------------

void print_valtype(const ValType *t) {
  switch (t->kind()) {
    case ValKind::I32: printf("i32"); break;
    case ValKind::I64: printf("i64"); break;
    case ValKind::F32: printf("f32"); break;
    case ValKind::F64: printf("f64"); break;
    case ValKind::EXTERNREF: printf("externref"); break;
    case ValKind::FUNCREF: printf("funcref"); break;
    default: printf("?");
  }
}

void print_valtypes(const ownvec<ValType> &ts) {
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) printf(" ");
    print_valtype(ts[i].get());
  }
}

void print_externtype(const ExternType *t) {
  switch (t->kind()) {
    case ExternKind::FUNC: {
      auto f = t->func();
      printf("func ");
      print_valtypes(f->params());
      printf(" -> ");
      print_valtypes(f->results());
      break;
    }
    case ExternKind::GLOBAL: {
      auto g = t->global();
      printf("global %s ", g->mutability() == Mutability::VAR ? "var" : "const");
      print_valtype(g->content());
      break;
    }
    case ExternKind::TABLE: {
      auto tt = t->table();
      printf("table %u %u ", tt->limits().min, tt->limits().max);
      print_valtype(tt->element());
      break;
    }
    case ExternKind::MEMORY: {
      auto m = t->memory();
      printf("memory %u ", m->limits().min);
      if (m->limits().max == 0xffffffffu) printf("unbounded");
      else printf("%u", m->limits().max);
      break;
    }
    default: printf("?");
  }
}

void reflect() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "reflect.wasm");
  auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make());
  check(instance);
  printf("Extracting export...\n");
  auto export_types = module->exports();
  auto exports = instance->exports();
  check(export_types.size() == exports.size() && exports.size() == 5);
  for (size_t i = 0; i < exports.size(); ++i) {
    auto &name = export_types[i]->name();
    printf("> export %zu \"%.*s\"\n", i, (int)name.size(), name.get());
    printf(">> initial: ");
    print_externtype(export_types[i]->type());
    printf("\n>> current: ");
    auto current = exports[i]->type();
    print_externtype(current.get());
    printf("\n");
    check(current->kind() == exports[i]->kind());
    if (exports[i]->kind() == ExternKind::FUNC) {
      auto f = exports[i]->func();
      printf(">> in-arity: %zu, out-arity: %zu\n", f->param_arity(), f->result_arity());
      check(f->type()->params().size() == f->param_arity());
    }
  }
  // Types made by the host, and copied.
  auto it = ImportType::make(vec<byte_t>::make(std::string("m")), vec<byte_t>::make(std::string("n")),
                             MemoryType::make(Limits(1)));
  auto it2 = it->copy();
  check(it2->module().size() == 1 && it2->module()[0] == 'm' && it2->name()[0] == 'n');
  check(it2->type()->kind() == ExternKind::MEMORY && it2->type()->memory()->limits().min == 1);
  auto et = ExportType::make(vec<byte_t>::make(std::string("e")), GlobalType::make(ValType::make(ValKind::F32), Mutability::VAR));
  check(et->copy()->name()[0] == 'e' && et->type()->global()->content()->kind() == ValKind::F32);
  auto tag = TagType::make(functype({ValKind::I64}, {}));
  check(tag->functype()->params().size() == 1 && tag->copy()->kind() == ExternKind::TAG);
  check(tag->tag() == tag.get());
  printf("Shutting down...\n");
}

// --- multi ----------------------------------------------------------------

auto multi_callback(const vec<Val> &args, vec<Val> &results) -> own<Trap> {
  printf("Calling back...\n> %d %lld %lld %d\n", args[0].i32(), (long long)args[1].i64(), (long long)args[2].i64(),
         args[3].i32());
  results[0] = args[3].copy();
  results[1] = args[2].copy();
  results[2] = args[1].copy();
  results[3] = args[0].copy();
  return nullptr;
}

void multi() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "multi.wasm");
  auto ty = functype({ValKind::I32, ValKind::I64, ValKind::I64, ValKind::I32},
                     {ValKind::I32, ValKind::I64, ValKind::I64, ValKind::I32});
  auto f = Func::make(store.get(), ty.get(), multi_callback);
  // A host function called directly.
  auto args = vec<Val>::make(Val::i32(1), Val::i64(2), Val::i64(3), Val::i32(4));
  auto results = vec<Val>::make_uninitialized(4);
  check(!f->call(args, results));
  check(results[0].i32() == 4 && results[3].i32() == 1);
  auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make(f.get()));
  check(instance);
  auto exports = instance->exports();
  printf("Calling export...\n");
  check(!exports[0]->func()->call(args, results));
  printf("Printing result...\n> %d %lld %lld %d\n", results[0].i32(), (long long)results[1].i64(),
         (long long)results[2].i64(), results[3].i32());
  printf("Shutting down...\n");
}

// --- hostref --------------------------------------------------------------

auto hostref_callback(const vec<Val> &args, vec<Val> &results) -> own<Trap> {
  printf("Calling back...\n> %p\n", args[0].ref() ? args[0].ref()->get_host_info() : nullptr);
  results[0] = args[0].copy();
  return nullptr;
}

own<Ref> call_r(const Func *f, std::vector<Val> &&in) {
  auto args = vec<Val>::make_uninitialized(in.size());
  for (size_t i = 0; i < in.size(); ++i) args[i] = std::move(in[i]);
  auto results = vec<Val>::make_uninitialized(f->result_arity());
  check(!f->call(args, results));
  if (results.size() == 0) return nullptr;
  return results[0].release_ref();
}

Val ref_val(const Ref *r) { return r ? Val::ref(r->copy()) : Val(); }

bool same_host(const Ref *a, const Ref *b) {
  if (!a || !b) return a == b;
  return a->get_host_info() == b->get_host_info();
}

void hostref() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "hostref.wasm");
  auto ty = functype({ValKind::EXTERNREF}, {ValKind::EXTERNREF});
  auto f = Func::make(store.get(), ty.get(), hostref_callback);
  auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make(f.get()));
  check(instance);
  auto exports = instance->exports();
  auto global = exports[0]->global();
  auto table = exports[1]->table();
  auto global_set = exports[2]->func();
  auto global_get = exports[3]->func();
  auto table_set = exports[4]->func();
  auto table_get = exports[5]->func();
  auto func_call = exports[6]->func();
  check(global && table && global_set && global_get && table_set && table_get && func_call);
  printf("Creating references...\n");
  auto host1 = Foreign::make(store.get());
  auto host2 = Foreign::make(store.get());
  host1->set_host_info(reinterpret_cast<void *>(1));
  host2->set_host_info(reinterpret_cast<void *>(2));
  check(host1->copy()->get_host_info() == reinterpret_cast<void *>(1));
  printf("Accessing global...\n");
  check(!call_r(global_get, {}));
  call_r(global_set, [&] { std::vector<Val> v; v.push_back(ref_val(host1.get())); return v; }());
  check(same_host(call_r(global_get, {}).get(), host1.get()));
  global->set(ref_val(host2.get()));
  check(same_host(global->get().ref(), host2.get()));
  check(same_host(call_r(global_get, {}).get(), host2.get()));
  global->set(Val());
  check(global->get().ref() == nullptr);
  printf("Accessing table...\n");
  check(!table->get(0) && !table->get(1));
  check(table->set(0, host1.get()) && table->set(1, host2.get()));
  check(same_host(table->get(0).get(), host1.get()) && same_host(table->get(1).get(), host2.get()));
  {
    std::vector<Val> a;
    a.push_back(Val::i32(2));
    a.push_back(ref_val(host1.get()));
    call_r(table_set, std::move(a));
    std::vector<Val> b;
    b.push_back(Val::i32(2));
    check(same_host(call_r(table_get, std::move(b)).get(), host1.get()));
  }
  check(table->set(0, nullptr) && !table->get(0));
  printf("Accessing function...\n");
  {
    std::vector<Val> a;
    a.push_back(Val());
    check(!call_r(func_call, std::move(a)));
    std::vector<Val> b;
    b.push_back(ref_val(host1.get()));
    check(same_host(call_r(func_call, std::move(b)).get(), host1.get()));
    std::vector<Val> c;
    c.push_back(ref_val(host2.get()));
    check(same_host(call_r(func_call, std::move(c)).get(), host2.get()));
  }
  printf("Shutting down...\n");
}

// --- finalize -------------------------------------------------------------

const int iterations = 500;
int live_count = 0;

void finalize_info(void *data) {
  intptr_t i = reinterpret_cast<intptr_t>(data);
  check(i >= 0 && i <= 4 * iterations);
  --live_count;
}

void run_in_store(Store *store, int offset) {
  auto module = load_module(store, "finalize.wasm");
  module->set_host_info(reinterpret_cast<void *>(static_cast<intptr_t>(offset + iterations + 1)), finalize_info);
  ++live_count;
  printf("Instantiating modules...\n");
  for (int i = 0; i < iterations; ++i) {
    auto instance = Instance::make(store, module.get(), vec<Extern *>::make());
    check(instance);
    instance->set_host_info(reinterpret_cast<void *>(static_cast<intptr_t>(offset + i)), finalize_info);
    ++live_count;
    check(instance->get_host_info() == reinterpret_cast<void *>(static_cast<intptr_t>(offset + i)));
    if (i % 2 == 0) {
      // Host info belongs to the function, not to this reference to it.
      auto exports = instance->exports();
      exports[0]->func()->set_host_info(reinterpret_cast<void *>(static_cast<intptr_t>(i)), finalize_info);
      ++live_count;
      auto again = instance->exports();
      check(again[0]->func()->get_host_info() == reinterpret_cast<void *>(static_cast<intptr_t>(i)));
      check(again[1]->memory()->get_host_info() == nullptr);
    }
  }
}

void finalize() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  printf("Live count %d\n", live_count);
  printf("Creating store 1...\n");
  auto store1 = Store::make(engine.get());
  printf("Running in store 1...\n");
  run_in_store(store1.get(), 0);
  printf("Live count %d\n", live_count);
  printf("Creating store 2...\n");
  auto store2 = Store::make(engine.get());
  printf("Running in store 2...\n");
  run_in_store(store2.get(), iterations);
  printf("Live count %d\n", live_count);
  printf("Deleting store 2...\n");
  store2.reset();
  printf("Live count %d\n", live_count);
  printf("Running in store 1...\n");
  run_in_store(store1.get(), 2 * iterations);
  printf("Live count %d\n", live_count);
  printf("Deleting store 1...\n");
  store1.reset();
  printf("Live count %d\n", live_count);
  check(live_count == 0);
  // Foreign objects finalize with their last reference.
  auto store = Store::make(engine.get());
  auto foreign = Foreign::make(store.get());
  foreign->set_host_info(reinterpret_cast<void *>(1), finalize_info);
  ++live_count;
  auto foreign_copy = foreign->copy();
  foreign.reset();
  check(live_count == 1 && foreign_copy->get_host_info() == reinterpret_cast<void *>(1));
  foreign_copy.reset();
  check(live_count == 0);
}

// --- serialize ------------------------------------------------------------

void run_hello(Store *store, const Module *module) {
  auto hello_type = FuncType::make();
  auto hello_func = Func::make(store, hello_type.get(), hello_callback);
  auto instance = Instance::make(store, module, vec<Extern *>::make(hello_func.get()));
  check(instance);
  auto exports = instance->exports();
  auto none = vec<Val>::make();
  auto none2 = vec<Val>::make();
  check(!exports[0]->func()->call(none, none2));
}

void serialize() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto module = load_module(store.get(), "serialize.wasm");
  printf("Serializing module...\n");
  auto serialized = module->serialize();
  check(serialized && serialized.size() > 0);
  printf("Deserializing module...\n");
  auto deserialized = Module::deserialize(store.get(), serialized);
  check(deserialized);
  check(!Module::deserialize(store.get(), vec<byte_t>::make(std::string("not a module"))));
  check(!Module::deserialize(store.get(), vec<byte_t>::invalid()));
  printf("Instantiating deserialized module...\n");
  run_hello(store.get(), deserialized.get());
  printf("Sharing module...\n");
  auto shared = module->share();
  check(shared);
  auto store2 = Store::make(engine.get());
  auto obtained = Module::obtain(store2.get(), shared.get());
  check(obtained);
  printf("Instantiating obtained module...\n");
  run_hello(store2.get(), obtained.get());
  check(obtained->imports().size() == 1 && obtained->imports()[0]->type()->kind() == ExternKind::FUNC);
  printf("Shutting down...\n");
}

// --- threads --------------------------------------------------------------

const int n_threads = 8;
const int n_reps = 20;
std::atomic<int> thread_counts[n_threads];

auto thread_hello(void *env, const vec<Val> &args, vec<Val> &) -> own<Trap> {
  int id = args[0].i32();
  check(id == *static_cast<int *>(env));
  thread_counts[id]++;
  return nullptr;
}

void threads() {
  printf("Initializing...\n");
  auto engine = Engine::make();
  own<Shared<Module>> shared;
  {
    auto store = Store::make(engine.get());
    auto module = load_module(store.get(), "threads.wasm");
    shared = module->share();
  }
  printf("Running %d threads...\n", n_threads);
  std::vector<std::thread> ts;
  static int ids[n_threads];
  for (int i = 0; i < n_threads; ++i) {
    ids[i] = i;
    ts.emplace_back([&, i] {
      for (int rep = 0; rep < n_reps; ++rep) {
        auto store = Store::make(engine.get());
        auto module = Module::obtain(store.get(), shared.get());
        check(module);
        auto hello_type = functype({ValKind::I32}, {});
        auto func = Func::make(store.get(), hello_type.get(), thread_hello, &ids[i]);
        auto global_type = GlobalType::make(ValType::make(ValKind::I32), Mutability::CONST);
        auto global = Global::make(store.get(), global_type.get(), Val::i32(i));
        auto instance = Instance::make(store.get(), module.get(), vec<Extern *>::make(func.get(), global.get()));
        check(instance);
        auto exports = instance->exports();
        auto none = vec<Val>::make();
        auto none2 = vec<Val>::make();
        check(!exports[0]->func()->call(none, none2));
      }
    });
  }
  for (auto &t : ts) t.join();
  for (int i = 0; i < n_threads; ++i) check(thread_counts[i] == n_reps);
  printf("> every thread called back %d times\n", n_reps);
}

// --- exceptions escaping a host function ----------------------------------

auto throwing_callback(const vec<Val> &, vec<Val> &) -> own<Trap> { throw 42; }

auto replacing_callback(const vec<Val> &, vec<Val> &results) -> own<Trap> {
  results = vec<Val>::make(Val::i32(1), Val::i32(2));
  return nullptr;
}

// Misuse by a host function is a trap, never undefined behaviour.
void misuse() {
  auto engine = Engine::make();
  auto store = Store::make(engine.get());
  auto ty = functype({}, {ValKind::I32});
  auto none = vec<Val>::make();
  auto results = vec<Val>::make_uninitialized(1);
  auto f = Func::make(store.get(), ty.get(), throwing_callback);
  auto trap = f->call(none, results);
  check(trap && std::strstr(trap->message().get(), "C++ exception"));
  printf("> %s\n", trap->message().get());
  auto g = Func::make(store.get(), ty.get(), replacing_callback);
  trap = g->call(none, results);
  check(trap);
  printf("> %s\n", trap->message().get());
  // Null callbacks make no function.
  check(!Func::make(store.get(), ty.get(), static_cast<Func::callback>(nullptr)));
  // An invalid binary is no module.
  check(!Module::validate(store.get(), vec<byte_t>::invalid()));
  check(!Module::make(store.get(), vec<byte_t>::make(std::string("\0asm", 4))));
  // Null objects give null results, never a crash.
  auto with_null = ownvec<ValType>::make_uninitialized(2);
  with_null[0] = ValType::make(ValKind::I32);
  auto with_null_type = FuncType::make(std::move(with_null));
  check(with_null_type && with_null_type->params().size() == 2 && !with_null_type->params()[1]);
  check(!Func::make(store.get(), with_null_type.get(), hello_callback));
  check(!GlobalType::make(nullptr, Mutability::VAR));
  check(!TableType::make(nullptr, Limits(1)));
  check(!TagType::make(nullptr));
  check(!Store::make(nullptr));
  check(!Func::make(nullptr, ty.get(), hello_callback));
  check(!Func::make(store.get(), nullptr, hello_callback));
  check(!Global::make(store.get(), nullptr, Val::i32(1)));
  check(!Memory::make(store.get(), nullptr));
  check(!Table::make(store.get(), nullptr));
  check(!Instance::make(store.get(), nullptr, vec<Extern *>::make()));
  check(!Module::obtain(store.get(), nullptr));
  // One vector as arguments and results: the arguments are read first.
  auto id_type = functype({ValKind::EXTERNREF}, {ValKind::EXTERNREF});
  auto id = Func::make(store.get(), id_type.get(), hostref_callback);
  auto foreign = Foreign::make(store.get());
  foreign->set_host_info(reinterpret_cast<void *>(7));
  auto both = vec<Val>::make(Val::ref(foreign->copy()));
  check(!id->call(both, both));
  check(both[0].ref() && both[0].ref()->get_host_info() == reinterpret_cast<void *>(7));
  printf("Done.\n");
}

}  // namespace

int main(int argc, char **argv) {
  check(argc == 2);
  const std::string name = argv[1];
  struct Example {
    const char *name;
    void (*run)();
  };
  const Example examples[] = {
      {"hello", hello},   {"callback", callback}, {"global", global},       {"memory", memory},
      {"table", table},   {"trap", trap},         {"start", start},         {"reflect", reflect},
      {"multi", multi},   {"hostref", hostref},   {"finalize", finalize},   {"serialize", serialize},
      {"threads", threads}, {"misuse", misuse},
  };
  for (const auto &e : examples) {
    if (name == e.name) {
      e.run();  // its objects are all gone when it returns (RAII)
      if (name != "misuse") printf("Done.\n");
      return 0;
    }
  }
  fprintf(stderr, "no example %s\n", name.c_str());
  return 2;
}
