//! Fuel and epochs: the store's side of interruption.

use crate::store::{Store, StoreContextMut, StoreInner};
use crate::Trap;
use weft_runtime::Interrupt;

/// What to do when the epoch deadline is reached, as returned by an epoch
/// deadline callback.
#[non_exhaustive]
pub enum UpdateDeadline {
    /// Continue, with a new deadline this many ticks after the current
    /// epoch.
    Continue(u64),
    /// Yield to the async executor (async calls only), then continue with a
    /// new deadline this many ticks after the epoch at resumption.
    Yield(u64),
}

/// The callback of [`Store::epoch_deadline_callback`].
pub(crate) type EpochCallback<T> =
    Box<dyn FnMut(StoreContextMut<'_, T>) -> crate::Result<UpdateDeadline> + Send + Sync>;

/// What a store does at its epoch deadline.
pub(crate) enum EpochBehavior<T: 'static> {
    Trap,
    Callback(EpochCallback<T>),
    YieldAndUpdate(u64),
}

/// Fuel kept back from compiled code so that it can be handed out in slices
/// (`fuel_async_yield_interval`).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FuelState {
    pub(crate) reserve: u64,
    pub(crate) yield_interval: Option<u64>,
}

impl<T: 'static> StoreInner<T> {
    /// The fuel left: the reserve plus what compiled code still has.
    pub(crate) fn fuel_left(&self) -> u64 {
        let consumed = self.opaque.objects.fuel_consumed();
        let reserve = self.fuel.reserve as i128;
        (reserve - consumed as i128).clamp(0, u64::MAX as i128) as u64
    }

    /// Splits `total` fuel into what compiled code gets now and the reserve.
    pub(crate) fn set_fuel_left(&mut self, total: u64) {
        let active = match self.fuel.yield_interval {
            Some(interval) if interval > 0 => total.min(interval),
            _ => total,
        };
        self.fuel.reserve = total - active;
        self.opaque
            .objects
            .set_fuel_consumed(-(active.min(i64::MAX as u64) as i64));
    }

    /// Called by compiled code through the runtime when fuel or the epoch
    /// deadline ran out.
    pub(crate) fn on_interrupt(&mut self, why: Interrupt) -> crate::Result<()> {
        match why {
            Interrupt::OutOfFuel => {
                let left = self.fuel_left();
                if left == 0 || self.fuel.reserve == 0 {
                    return Err(crate::Error::new(Trap::OutOfFuel));
                }
                self.set_fuel_left(left);
                if self.fuel.yield_interval.is_some() {
                    self.async_yield()?;
                }
                Ok(())
            }
            _ => {
                let update = match &self.epoch_behavior {
                    EpochBehavior::Trap => return Err(crate::Error::new(Trap::Interrupt)),
                    EpochBehavior::YieldAndUpdate(delta) => UpdateDeadline::Yield(*delta),
                    EpochBehavior::Callback(_) => {
                        // The callback is taken out while it runs (it gets
                        // the store) and put back before any yield, so that
                        // other tasks of the store meanwhile see it.
                        let mut behavior = std::mem::replace(&mut self.epoch_behavior, EpochBehavior::Trap);
                        let update = match &mut behavior {
                            EpochBehavior::Callback(callback) => callback(StoreContextMut(&mut *self)),
                            _ => Err(crate::Error::new(Trap::Interrupt)),
                        };
                        // The callback may have installed another behavior.
                        if matches!(self.epoch_behavior, EpochBehavior::Trap) {
                            self.epoch_behavior = behavior;
                        }
                        update?
                    }
                };
                match update {
                    UpdateDeadline::Continue(delta) => {
                        self.set_epoch_deadline(delta);
                        Ok(())
                    }
                    UpdateDeadline::Yield(delta) => self.yield_then_update(delta),
                }
            }
        }
    }

    /// Yields to the async caller, then sets the deadline `delta` ticks
    /// beyond the epoch at resumption (as Wasmtime does: ticks that passed
    /// while suspended do not count against the new deadline). The deadline
    /// is also set before the yield, so that the store's other tasks, which
    /// may run meanwhile (some where they cannot yield), do not find it
    /// passed.
    fn yield_then_update(&mut self, delta: u64) -> crate::Result<()> {
        self.set_epoch_deadline(delta);
        self.async_yield()?;
        self.set_epoch_deadline(delta);
        Ok(())
    }

    pub(crate) fn set_epoch_deadline(&mut self, ticks_beyond_current: u64) {
        let now = self.opaque.engine.current_epoch();
        self.opaque
            .objects
            .set_epoch_deadline(now.saturating_add(ticks_beyond_current));
    }

    pub(crate) fn fuel_enabled(&self) -> bool {
        self.opaque.engine.inner.config.tunables.consume_fuel
    }
}

/// The interrupt handler installed in every store's runtime objects.
pub(crate) fn handle_interrupt<T: 'static>(store: &mut StoreInner<T>, why: Interrupt) -> crate::Result<bool> {
    use crate::limits::Growth;
    match why {
        Interrupt::OutOfFuel | Interrupt::EpochDeadline => store.on_interrupt(why).map(|()| true),
        Interrupt::MemoryGrowing {
            current,
            desired,
            maximum,
        } => store.may_grow(Growth::Memory, current, desired, maximum),
        Interrupt::TableGrowing {
            current,
            desired,
            maximum,
        } => store.may_grow(Growth::Table, current, desired, maximum),
    }
}

impl<T: 'static> StoreContextMut<'_, T> {
    /// See [`Store::set_fuel`].
    pub fn set_fuel(&mut self, fuel: u64) -> crate::Result<()> {
        if !self.0.fuel_enabled() {
            crate::bail!("fuel is not configured in this store");
        }
        self.0.set_fuel_left(fuel);
        Ok(())
    }

    /// See [`Store::get_fuel`].
    pub fn get_fuel(&self) -> crate::Result<u64> {
        if !self.0.fuel_enabled() {
            crate::bail!("fuel is not configured in this store");
        }
        Ok(self.0.fuel_left())
    }

    /// See [`Store::set_epoch_deadline`].
    pub fn set_epoch_deadline(&mut self, ticks_beyond_current: u64) {
        self.0.set_epoch_deadline(ticks_beyond_current);
    }
}

impl<T: 'static> Store<T> {
    /// Sets the fuel this store may consume (with `Config::consume_fuel`).
    pub fn set_fuel(&mut self, fuel: u64) -> crate::Result<()> {
        if !self.inner_mut().fuel_enabled() {
            crate::bail!("fuel is not configured in this store");
        }
        self.inner_mut().set_fuel_left(fuel);
        Ok(())
    }

    /// The fuel left (with `Config::consume_fuel`).
    pub fn get_fuel(&self) -> crate::Result<u64> {
        if !self.inner().fuel_enabled() {
            crate::bail!("fuel is not configured in this store");
        }
        Ok(self.inner().fuel_left())
    }

    /// With async calls, hand fuel to wasm in slices of `interval` and yield
    /// to the executor between slices (`None`: never yield).
    pub fn fuel_async_yield_interval(&mut self, interval: Option<u64>) -> crate::Result<()> {
        if !self.inner_mut().fuel_enabled() {
            crate::bail!("fuel is not configured in this store");
        }
        if interval == Some(0) {
            crate::bail!("fuel_async_yield_interval must not be 0");
        }
        let left = self.inner_mut().fuel_left();
        self.inner_mut().fuel.yield_interval = interval;
        self.inner_mut().set_fuel_left(left);
        Ok(())
    }

    /// Sets the epoch deadline to `ticks_beyond_current` ticks after the
    /// engine's current epoch.
    pub fn set_epoch_deadline(&mut self, ticks_beyond_current: u64) {
        self.inner_mut().set_epoch_deadline(ticks_beyond_current);
    }

    /// At the epoch deadline, trap with `Trap::Interrupt` (the default).
    pub fn epoch_deadline_trap(&mut self) {
        self.inner_mut().epoch_behavior = EpochBehavior::Trap;
    }

    /// At the epoch deadline, call `callback`, which decides whether to
    /// continue (with a new deadline), yield, or fail.
    pub fn epoch_deadline_callback(
        &mut self,
        callback: impl FnMut(StoreContextMut<'_, T>) -> crate::Result<UpdateDeadline> + Send + Sync + 'static,
    ) {
        self.inner_mut().epoch_behavior = EpochBehavior::Callback(Box::new(callback));
    }

    /// At the epoch deadline, yield to the async executor and, once the
    /// call is resumed, continue with a deadline `delta` ticks after the
    /// epoch at that time, as Wasmtime does (async calls only; a sync call
    /// fails instead).
    pub fn epoch_deadline_async_yield_and_update(&mut self, delta: u64) {
        self.inner_mut().epoch_behavior = EpochBehavior::YieldAndUpdate(delta);
    }
}
