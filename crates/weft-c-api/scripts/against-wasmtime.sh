#!/bin/bash
# Runs C test programs of tests/c/ against Wasmtime's own C API library, to
# check that a program written for Weft's C API behaves the same on Wasmtime
# once renamed (weft_ -> wasmtime_, WEFT_ -> WASMTIME_, weft.h -> wasmtime.h).
#
#   crates/weft-c-api/scripts/against-wasmtime.sh [NAME...]
#
# Each program is built twice with WEFT_CORRECT_USE_ONLY defined: once
# against Weft's libweft (target/debug, or the folder in WEFT_LIB; build it
# with `cargo build -p weft-c-api`), once renamed against Wasmtime's
# library. That define leaves out the parts of the weft_* programs that
# check Weft's refusal of misuse (null pointers, objects of another store,
# Weft-only functions), which Wasmtime answers with crashes, and makes
# error_contains() accept any wording (weft_common.h). The script prints,
# per program, both exit statuses and whether the two outputs are equal.
#
# Needs a C compiler, python3 and pip (it downloads the `wasmtime` wheel from
# PyPI, whose _libwasmtime.so is the whole C API, and uses its wat2wasm for the
# .wat files). Classic programs that call functions Wasmtime leaves
# unimplemented (wasm_*_same, host info with finalizers, wasm_foreign_*)
# abort there. Work files go to $WORK (default /tmp/weft-against-wasmtime).
#
# To use another build of Wasmtime's C API (for instance 48's, built from the
# `wasmtime-c-api-impl` crate as a cdylib), set WASMTIME_LIB to the folder of
# its library (`libwasmtime.so`, or `_libwasmtime.so`) and, to compile against
# Wasmtime's own headers rather than Weft's renamed ones, WASMTIME_INCLUDE to
# a folder with `wasmtime.h` (and a configured `wasmtime/conf.h`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/weft-against-wasmtime}
version=${WASMTIME_VERSION:-50.0.1}
weft_lib=${WEFT_LIB:-$here/../../target/debug}
mkdir -p "$work"
cd "$work"
if [ ! -d py/wasmtime ]; then
  pip download -q --no-deps "wasmtime==$version" -d wheel
  pip install -q --no-deps --target py wheel/*.whl
fi
if [ -n "${WASMTIME_LIB:-}" ]; then
  lib=$WASMTIME_LIB
else
  lib=$(dirname "$(find "$work/py" -name _libwasmtime.so | head -1)")
fi
libname=$(cd "$lib" && { ls libwasmtime.so _libwasmtime.so 2> /dev/null || true; } | head -1)
rename='s/weft_/wasmtime_/g; s/WEFT_/WASMTIME_/g; s/weft\.h/wasmtime.h/g; s/"weft\//"wasmtime\//g; s/<weft\//<wasmtime\//g'
rm -rf inc wasm && mkdir -p inc wasm
if [ -n "${WASMTIME_INCLUDE:-}" ]; then
  cp -r "$WASMTIME_INCLUDE/." inc/
else
  cp -r "$here/include/." inc/
  mv inc/weft.h inc/wasmtime.h && mv inc/weft inc/wasmtime
  find inc -type f -exec sed -i "$rename" {} +
fi
PYTHONPATH=py python3 - "$here/tests/c" <<'PY'
import glob, os, sys, wasmtime
for p in glob.glob(os.path.join(sys.argv[1], '*.wat')):
    try:
        open('wasm/' + os.path.basename(p)[:-4] + '.wasm', 'wb').write(wasmtime.wat2wasm(open(p).read()))
    except Exception as e:
        print(f'{os.path.basename(p)}: not converted ({str(e)[:60]})')
PY
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for c in "$here"/tests/c/*.c; do names+=("$(basename "$c" .c)"); done
fi
# Builds $1 (a .c file) into $2 with the include folder $3 against the
# library $5 in folder $4, with the correct-use-only define (given under
# both prefixes, as the renaming renames it).
build() {
  cc -std=c11 -w -DWEFT_CORRECT_USE_ONLY -DWASMTIME_CORRECT_USE_ONLY -I "$3" -I "$(dirname "$1")" "$1" -o "$2" -L "$4" -l:"$5" \
    -Wl,-rpath,"$4" -lpthread -ldl -lm
}
# Runs the program $1 in its folder; prints its exit status.
run() {
  set +e
  local base
  base=$(basename "$1")
  (cd "$(dirname "$1")" && "./$base" > "$base.out" 2> "$base.err") 2> /dev/null
  echo $?
  set -e
}
for name in "${names[@]}"; do
  dir=run/$name
  rm -rf "$dir" && mkdir -p "$dir/weft"
  cp "$here"/tests/c/*.wat "$here"/tests/c/*.h wasm/*.wasm "$dir"/ 2>/dev/null || true
  cp "$here"/tests/c/*.wat "$here"/tests/c/*.h "$here/tests/c/$name.c" wasm/*.wasm "$dir/weft"/ 2>/dev/null || true
  for h in "$dir"/*.h; do
    case $(basename "$h") in weft_*) cp "$h" "$dir/wasmtime_$(basename "$h" | sed 's/^weft_//')";; esac
  done
  sed -i "$rename" "$dir"/*.h
  sed "$rename" "$here/tests/c/$name.c" > "$dir/$name.c"
  if ! build "$dir/weft/$name.c" "$dir/weft/$name" "$here/include" "$weft_lib" libweft.so 2> "$dir/weft/build.err"; then
    echo "$name: does not build against Weft ($(grep -m1 error "$dir/weft/build.err"))"
    continue
  fi
  if ! build "$dir/$name.c" "$dir/$name" inc "$lib" "$libname" 2> "$dir/build.err"; then
    why=$(grep -m1 -o -e "undefined reference to \`[a-z_0-9]*'" -e 'error: .*' "$dir/build.err" || true)
    echo "$name: does not build against Wasmtime ($why)"
    continue
  fi
  weft_status=$(run "$dir/weft/$name")
  status=$(run "$dir/$name")
  if diff -q "$dir/$name.out" "$dir/weft/$name.out" > /dev/null && [ "$status" = "$weft_status" ]; then
    echo "$name: exit $status on both, same output"
  else
    why=$(grep -m1 -o -e '`[a-z_]*` is not implemented' -e 'check failed: .*' "$dir/$name.err" || true)
    line=$(diff "$dir/$name.out" "$dir/weft/$name.out" | head -1 || true)
    echo "$name: exit $status on Wasmtime, $weft_status on Weft, output differs${line:+ (diff: $line)}${why:+ ($why)}"
  fi
done
