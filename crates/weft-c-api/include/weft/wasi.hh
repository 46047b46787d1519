/**
 * \file weft/wasi.hh
 *
 * \brief C++ API: `WasiConfig` (as Wasmtime 48's `wasmtime/wasi.hh`).
 */

#ifndef WEFT_WASI_HH
#define WEFT_WASI_HH

#include <weft/error.hh>

namespace weft {

/// A WASI configuration, given to a store by `Store::Context::set_wasi`.
class WasiConfig {
  struct Deleter {
    void operator()(wasi_config_t *c) const { wasi_config_delete(c); }
  };
  std::unique_ptr<wasi_config_t, Deleter> ptr;

public:
  /// The default: no arguments, environment, input or output.
  WasiConfig() : ptr(wasi_config_new()) {}
  /// The arguments.
  void argv(const std::vector<std::string> &args) {
    std::vector<const char *> raw;
    for (const auto &a : args)
      raw.push_back(a.c_str());
    wasi_config_set_argv(ptr.get(), raw.size(), raw.data());
  }
  /// The host's arguments.
  void inherit_argv() { wasi_config_inherit_argv(ptr.get()); }
  /// The environment.
  void env(const std::vector<std::pair<std::string, std::string>> &env) {
    std::vector<const char *> names, values;
    for (const auto &kv : env) {
      names.push_back(kv.first.c_str());
      values.push_back(kv.second.c_str());
    }
    wasi_config_set_env(ptr.get(), names.size(), names.data(), values.data());
  }
  /// The host's environment.
  void inherit_env() { wasi_config_inherit_env(ptr.get()); }
  /// Stdin from a file; false if it cannot be opened.
  [[nodiscard]] bool stdin_file(const std::string &path) { return wasi_config_set_stdin_file(ptr.get(), path.c_str()); }
  /// The host's stdin.
  void inherit_stdin() { wasi_config_inherit_stdin(ptr.get()); }
  /// Stdout to a file; false if it cannot be opened.
  [[nodiscard]] bool stdout_file(const std::string &path) {
    return wasi_config_set_stdout_file(ptr.get(), path.c_str());
  }
  /// The host's stdout.
  void inherit_stdout() { wasi_config_inherit_stdout(ptr.get()); }
  /// Stderr to a file; false if it cannot be opened.
  [[nodiscard]] bool stderr_file(const std::string &path) {
    return wasi_config_set_stderr_file(ptr.get(), path.c_str());
  }
  /// The host's stderr.
  void inherit_stderr() { wasi_config_inherit_stderr(ptr.get()); }
  /// A preopened directory; false if it cannot be opened.
  [[nodiscard]] bool preopen_dir(const std::string &path, const std::string &guest_path, bool fs_mutable) {
    return wasi_config_preopen_dir(ptr.get(), path.c_str(), guest_path.c_str(), fs_mutable);
  }
  /// Lets WASI 0.2's sockets use the host's network.
  void inherit_network() { wasi_config_inherit_network(ptr.get()); }
  /// Whether WASI 0.2's sockets may look up names.
  void allow_ip_name_lookup(bool allow) { wasi_config_allow_ip_name_lookup(ptr.get(), allow); }
  /// The C object.
  wasi_config_t *capi() const { return ptr.get(); }
  /// Gives up ownership of the C object.
  wasi_config_t *capi_release() { return ptr.release(); }
};

} // namespace weft

#endif // WEFT_WASI_HH
