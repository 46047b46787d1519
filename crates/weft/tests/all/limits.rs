//! Resource limiters refuse or fail memory and table growth.

use weft::*;

fn wasm(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("test module is valid text")
}

const GROW: &str = r#"(module
    (memory (export "m") 1)
    (table (export "t") 1 funcref)
    (func (export "grow") (param i32) (result i32) local.get 0 memory.grow)
    (func (export "tgrow") (param i32) (result i32) ref.null func local.get 0 table.grow 0))"#;

struct Limits {
    max_memory: usize,
    max_table: usize,
    fail: bool,
}

impl ResourceLimiter for Limits {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> Result<bool> {
        if self.fail && desired > self.max_memory {
            bail!("memory limit hit: {desired}");
        }
        Ok(desired <= self.max_memory)
    }
    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> Result<bool> {
        Ok(desired <= self.max_table)
    }
    fn instances(&self) -> usize {
        2
    }
}

#[test]
fn a_limiter_refuses_growth_with_minus_one() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, wasm(GROW))?;
    let mut store = Store::new(
        &engine,
        Limits {
            max_memory: 2 << 16,
            max_table: 3,
            fail: false,
        },
    );
    store.limiter(|l| l as &mut dyn ResourceLimiter);
    let instance = Instance::new(&mut store, &module, &[])?;
    let grow = instance.get_typed_func::<i32, i32>(&mut store, "grow")?;
    assert_eq!(grow.call(&mut store, 1)?, 1);
    assert_eq!(grow.call(&mut store, 1)?, -1);
    let tgrow = instance.get_typed_func::<i32, i32>(&mut store, "tgrow")?;
    assert_eq!(tgrow.call(&mut store, 2)?, 1);
    assert_eq!(tgrow.call(&mut store, 1)?, -1);
    let m = instance.get_memory(&mut store, "m").unwrap();
    assert!(m.grow(&mut store, 1).is_err());
    let t = instance.get_table(&mut store, "t").unwrap();
    assert!(t.grow(&mut store, 1, Ref::Func(None)).is_err());
    // The instance count limit.
    Instance::new(&mut store, &module, &[])?;
    let err = Instance::new(&mut store, &module, &[]).unwrap_err();
    assert!(err.to_string().contains("instance count"), "{err}");
    Ok(())
}

#[test]
fn a_limiter_error_stops_the_call() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, wasm(GROW))?;
    let mut store = Store::new(
        &engine,
        Limits {
            max_memory: 1 << 16,
            max_table: 10,
            fail: true,
        },
    );
    store.limiter(|l| l as &mut dyn ResourceLimiter);
    let instance = Instance::new(&mut store, &module, &[])?;
    let grow = instance.get_typed_func::<i32, i32>(&mut store, "grow")?;
    let err = grow.call(&mut store, 1).unwrap_err();
    assert!(format!("{err:?}").contains("memory limit hit"), "{err:?}");
    assert_eq!(grow.call(&mut store, 0)?, 1);
    Ok(())
}

#[test]
fn a_limiter_refuses_initial_sizes() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, wasm(r#"(module (memory 4))"#))?;
    let mut store = Store::new(
        &engine,
        Limits {
            max_memory: 1 << 16,
            max_table: 10,
            fail: false,
        },
    );
    store.limiter(|l| l as &mut dyn ResourceLimiter);
    let err = Instance::new(&mut store, &module, &[]).unwrap_err();
    assert!(err.to_string().contains("memory minimum size"), "{err}");
    Ok(())
}

#[cfg(feature = "async")]
struct AsyncLimits;

#[cfg(feature = "async")]
#[async_trait::async_trait]
impl ResourceLimiterAsync for AsyncLimits {
    async fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> Result<bool> {
        tokio::task::yield_now().await;
        Ok(desired <= 2 << 16)
    }
    async fn table_growing(&mut self, _current: usize, _desired: usize, _maximum: Option<usize>) -> Result<bool> {
        Ok(true)
    }
}

#[cfg(feature = "async")]
#[test]
fn an_async_limiter_works_in_async_calls() -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    rt.block_on(async {
        let config = Config::new();
        let engine = Engine::new(&config)?;
        let module = Module::new(&engine, wasm(GROW))?;
        let mut store = Store::new(&engine, AsyncLimits);
        store.limiter_async(|l| l as &mut (dyn ResourceLimiterAsync + Send));
        let instance = Instance::new_async(&mut store, &module, &[]).await?;
        let grow = instance.get_typed_func::<i32, i32>(&mut store, "grow")?;
        assert_eq!(grow.call_async(&mut store, 1).await?, 1);
        assert_eq!(grow.call_async(&mut store, 1).await?, -1);
        // A sync call cannot wait for an async limiter: a clean error.
        assert!(grow.call(&mut store, 1).is_err());
        Ok(())
    })
}
