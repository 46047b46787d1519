// On targets other than x86-64 Unix (where traps.rs has naked functions
// for them): a setjmp that survives the function returning twice, and the
// matching longjmp. They let a trap in compiled wasm code discard all wasm
// frames at once and resume in the host call that entered wasm. Only wasm
// frames and `weft_catch`'s own frame are ever skipped; no Rust frame with
// destructors lies between them.
#include <setjmp.h>

typedef void (*weft_body)(void *);

int weft_catch(void **jmp_slot, weft_body body, void *data) {
  sigjmp_buf buf;
  *jmp_slot = &buf;
  if (sigsetjmp(buf, 0) == 0) {
    body(data);
    return 1;
  }
  return 0;
}

void weft_unwind(void *jmp_buf) {
  siglongjmp(*(sigjmp_buf *)jmp_buf, 1);
}
