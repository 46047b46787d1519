(module
  (type (;0;) (func (result i32 i32)))
  (memory (;0;) 1 3)
  (global (;0;) (mut i32) i32.const 0)
  (global (;1;) (mut i64) i64.const 0)
  (global (;2;) (mut i32) i32.const 0)
  (export "3" (func 1))
  (export "" (global 0))
  (func (;0;) (type 0) (result i32 i32)
    i32.const 0
    i32.const 0
  )
  (func (;1;) (type 0) (result i32 i32)
    (local f32 i32 i32 i32 i64 i32 i32)
    i32.const 0
    if ;; label = @1
      unreachable
    end
    global.get 2
    global.set 2
    memory.size
    if ;; label = @1
    end
    i32.const 0
    if ;; label = @1
    end
    i32.const 1
    if ;; label = @1
    end
    i32.const 0
    if ;; label = @1
    end
    block ;; label = @1
      block ;; label = @2
        local.get 1
        br_if 0 (;@2;)
        i32.const 0
        br_if 0 (;@2;)
        br 1 (;@1;)
      end
    end
    local.get 2
    block (result i32) ;; label = @1
      i32.const 0
      block ;; label = @2
        block ;; label = @3
          local.get 3
          br_if 0 (;@3;)
          local.get 3
          br_if 0 (;@3;)
          br 1 (;@2;)
        end
      end
      local.get 4
      call 0
      local.set 5
      i32.const 1
      local.get 5
      local.get 5
      i32.eqz
      select
      local.set 5
      local.set 6
      block ;; label = @2
        block ;; label = @3
          local.get 6
          br_if 0 (;@3;)
          i32.const 38684604
          br_if 0 (;@3;)
          br 1 (;@2;)
        end
      end
      local.get 5
      global.set 0
      global.get 1
      i64.xor
      global.set 1
    end
  )
)
