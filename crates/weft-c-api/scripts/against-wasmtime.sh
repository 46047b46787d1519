#!/bin/bash
# Runs C test programs of tests/c/ against Wasmtime's own C API library, to
# check that a program written for Weft's C API behaves the same on Wasmtime
# once renamed (weft_ -> wasmtime_, WEFT_ -> WASMTIME_, weft.h -> wasmtime.h).
#
#   crates/weft-c-api/scripts/against-wasmtime.sh [NAME...]
#
# Needs a C compiler, python3 and pip (it downloads the `wasmtime` wheel from
# PyPI, whose _libwasmtime.so is the whole C API, and uses its wat2wasm for the
# .wat files). Prints, per program, Wasmtime's exit status and whether its
# output equals tests/c/NAME.out (Weft's). Programs that call functions
# Wasmtime leaves unimplemented (wasm_*_same, host info with finalizers,
# wasm_foreign_*) abort there; programs that check Weft's refusal of misuse
# differ where Wasmtime does not check. Work files go to $WORK (default
# /tmp/weft-against-wasmtime).
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
for name in "${names[@]}"; do
  dir=run/$name
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$here"/tests/c/*.wat "$here"/tests/c/*.h wasm/*.wasm "$dir"/ 2>/dev/null || true
  for h in "$dir"/*.h; do
    case $(basename "$h") in weft_*) cp "$h" "$dir/wasmtime_$(basename "$h" | sed 's/^weft_//')";; esac
  done
  sed -i "$rename" "$dir"/*.h
  sed "$rename" "$here/tests/c/$name.c" > "$dir/$name.c"
  if ! cc -std=c11 -w -I inc -I "$dir" "$dir/$name.c" -o "$dir/$name" -L "$lib" -l:"$libname" \
      -Wl,-rpath,"$lib" -lpthread -ldl -lm 2> "$dir/build.err"; then
    echo "$name: does not build against Wasmtime ($(grep -o "undefined reference to \`[a-z_0-9]*'" "$dir/build.err" | head -1))"
    continue
  fi
  set +e
  (cd "$dir" && "./$name" > out 2> err) 2> /dev/null
  status=$?
  set -e
  if diff -q "$dir/out" "$here/tests/c/$name.out" > /dev/null; then
    echo "$name: exit $status, same output as Weft"
  else
    why=$(grep -m1 -o -e '`[a-z_]*` is not implemented' -e 'check failed: .*' "$dir/err" || true)
    echo "$name: exit $status, output differs at line $(($(wc -l < "$dir/out") + 1)) of $name.out${why:+ ($why)}"
  fi
done
