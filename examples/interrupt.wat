(module
  (func (export "run")
    (loop
      br 0)
  )
)
