(module
  (func (export "f"))
  (memory (export "m") 1))
