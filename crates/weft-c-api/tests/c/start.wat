(module
  (func $start (unreachable))
  (start $start))
