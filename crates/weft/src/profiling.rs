//! `GuestProfiler`: samples of the wasm stack written in the Firefox
//! profiler's processed format, with the same API as Wasmtime 48's guest
//! profiler (behind the `profiling` feature).

#[cfg(feature = "component-model")]
use crate::component::Component;
use crate::{AsContext, CallHook, Engine, Module};
use fxprof_processed_profile::{
    CategoryHandle, CpuDelta, Frame, FrameFlags, FrameInfo, MarkerLocations, MarkerTiming, ProcessHandle, Profile,
    ReferenceTimestamp, SamplingInterval, StackHandle, StaticSchemaMarker, StaticSchemaMarkerField, StringHandle,
    ThreadHandle, Timestamp,
};
use std::io::Write;
use std::time::{Duration, Instant, SystemTime};

/// Collects samples of the wasm call stack of a store and writes them as a
/// profile for the Firefox profiler (<https://profiler.firefox.com>), as
/// Wasmtime's `GuestProfiler` does.
///
/// Sampling is the embedder's job: call [`GuestProfiler::sample`] at regular
/// intervals while the guest runs, typically from a callback registered
/// with [`Store::epoch_deadline_callback`](crate::Store::epoch_deadline_callback)
/// (which sees the frames of the interrupted wasm), and
/// [`GuestProfiler::call_hook`] from the store's call hook to mark host
/// calls, then [`GuestProfiler::finish`] to write the profile.
///
/// Only frames of the modules given to [`GuestProfiler::new`] appear in the
/// profile; frames of other modules and host frames are left out. A frame
/// is named `name!function`, with `name` the name given for its module and
/// `function` the name-section name of the function (or
/// `wasm-function[N]`, N its function index).
///
/// # Accuracy
///
/// With epoch interruption, samples are taken only at function entries and
/// loop headers, and never during host calls; with fuel, after a number of
/// instructions that may take different amounts of time.
///
/// # Security
///
/// The profile holds no host addresses, and the process and thread IDs
/// recorded are 0: only the names given here and the function names of the
/// listed modules.
pub struct GuestProfiler {
    profile: Profile,
    /// The modules whose frames the profile shows, with their names.
    modules: Vec<(String, Module)>,
    process: ProcessHandle,
    thread: ThreadHandle,
    start: Instant,
    marker: CallMarker,
}

impl std::fmt::Debug for GuestProfiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuestProfiler")
            .field("modules", &self.modules.iter().map(|(n, _)| n).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl GuestProfiler {
    /// Begins profiling a guest; the wall-clock time now is the profile's
    /// start.
    ///
    /// `module_name` names the profile (its product and process).
    /// `interval` is the rate at which you mean to call
    /// [`GuestProfiler::sample`], a hint recorded in the profile. Only the
    /// frames of `modules` appear in the samples, each module named as
    /// given.
    ///
    /// Fails when a module was compiled by another engine than `engine`.
    pub fn new(
        engine: &Engine,
        module_name: &str,
        interval: Duration,
        modules: impl IntoIterator<Item = (String, Module)>,
    ) -> crate::Result<Self> {
        let modules: Vec<(String, Module)> = modules.into_iter().collect();
        for (name, module) in &modules {
            if !Engine::same(module.engine(), engine) {
                return Err(crate::format_err!(
                    "GuestProfiler::new: module `{name}` was compiled by another engine than the one given"
                ));
            }
        }
        let interval = SamplingInterval::from_nanos(u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX));
        let mut profile = Profile::new(
            module_name,
            ReferenceTimestamp::from_system_time(SystemTime::now()),
            interval,
        );
        let zero = Timestamp::from_nanos_since_reference(0);
        let process = profile.add_process(module_name, 0, zero);
        let thread = profile.add_thread(process, 0, zero, true);
        let marker = CallMarker {
            name: profile.intern_string(CallMarker::UNIQUE_MARKER_TYPE_NAME),
        };
        Ok(GuestProfiler {
            profile,
            modules,
            process,
            thread,
            start: Instant::now(),
            marker,
        })
    }

    /// A profiler for `component`: [`GuestProfiler::new`] with the core
    /// modules of the component (named by their name section, or
    /// `<unknown>`) followed by `extra_modules`.
    #[cfg(feature = "component-model")]
    pub fn new_component(
        engine: &Engine,
        component_name: &str,
        interval: Duration,
        component: Component,
        extra_modules: impl IntoIterator<Item = (String, Module)>,
    ) -> crate::Result<Self> {
        let modules = component
            .inner
            .modules
            .iter()
            .map(|m| (m.name().unwrap_or("<unknown>").to_string(), m.clone()))
            .chain(extra_modules);
        Self::new(engine, component_name, interval, modules)
    }

    fn now(&self) -> Timestamp {
        Timestamp::from_nanos_since_reference(u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// The stack of the frames of the listed modules on the stack of
    /// `store` now (none outside wasm).
    fn stack(&mut self, store: impl AsContext) -> Option<StackHandle> {
        let pcs = store.as_context().0.opaque.objects.context().wasm_frame_pcs();
        let mut frames = Vec::with_capacity(pcs.len());
        // The profile wants the stack outermost first; the pcs are
        // innermost first.
        for &pc in pcs.iter().rev() {
            let Some((name, func)) = self.modules.iter().find_map(|(name, module)| {
                let (index, _, _) = module.frame_at_pc(pc)?;
                let func = match module.inner.env.func_names.get(index) {
                    Some(f) => f.to_string(),
                    None => format!("wasm-function[{index}]"),
                };
                Some((name, func))
            }) else {
                continue;
            };
            let label = self.profile.intern_string(&format!("{name}!{func}"));
            frames.push(FrameInfo {
                frame: Frame::Label(label),
                category_pair: CategoryHandle::OTHER.into(),
                flags: FrameFlags::empty(),
            });
        }
        self.profile.intern_stack_frames(self.thread, frames.into_iter())
    }

    /// Adds a sample of the wasm frames of `store` on the stack now (of the
    /// listed modules), with `delta` the CPU time the guest used since the
    /// previous sample (`Duration::ZERO` is fine). Typically called from an
    /// epoch deadline callback.
    pub fn sample(&mut self, store: impl AsContext, delta: Duration) {
        let now = self.now();
        let stack = self.stack(store);
        let delta = CpuDelta::from_nanos(u64::try_from(delta.as_nanos()).unwrap_or(u64::MAX));
        self.profile.add_sample(self.thread, now, stack, delta, 1);
    }

    /// Marks the transitions between guest and host, as Wasmtime does: for
    /// the store's call hook, with the `kind` given to the hook. A call
    /// into the host starts an interval marker named `hostcall` holding
    /// the wasm stack of the call; the return from it ends that interval.
    /// Calls into wasm and returns from wasm record nothing.
    pub fn call_hook(&mut self, store: impl AsContext, kind: CallHook) {
        let now = self.now();
        match kind {
            CallHook::CallingWasm | CallHook::ReturningFromWasm => {}
            CallHook::CallingHost => {
                let stack = self.stack(store);
                let marker = self
                    .profile
                    .add_marker(self.thread, MarkerTiming::IntervalStart(now), self.marker);
                self.profile.set_marker_stack(self.thread, marker, stack);
            }
            CallHook::ReturningFromHost => {
                self.profile
                    .add_marker(self.thread, MarkerTiming::IntervalEnd(now), self.marker);
            }
        }
    }

    /// Ends the profile now and writes it to `output`, as the Firefox
    /// profiler's [processed-format][fmt] JSON.
    ///
    /// [fmt]: https://github.com/firefox-devtools/profiler/blob/main/docs-developer/processed-profile-format.md
    pub fn finish(mut self, output: impl Write) -> crate::Result<()> {
        let now = self.now();
        self.profile.set_thread_end_time(self.thread, now);
        self.profile.set_process_end_time(self.process, now);
        serde_json::to_writer(output, &self.profile)
            .map_err(|e| crate::format_err!("failed to write the guest profile: {e}"))
    }
}

/// The marker of a host call (an interval from the call to its return).
#[derive(Debug, Clone, Copy)]
struct CallMarker {
    name: StringHandle,
}

impl StaticSchemaMarker for CallMarker {
    const UNIQUE_MARKER_TYPE_NAME: &'static str = "hostcall";
    const FIELDS: &'static [StaticSchemaMarkerField] = &[];
    const LOCATIONS: MarkerLocations =
        MarkerLocations::MARKER_CHART.union(MarkerLocations::MARKER_TABLE.union(MarkerLocations::TIMELINE_OVERVIEW));

    fn name(&self, _profile: &mut Profile) -> StringHandle {
        self.name
    }

    fn category(&self, _profile: &mut Profile) -> CategoryHandle {
        CategoryHandle::OTHER
    }

    // The marker has no fields, so the profile never asks for their
    // values; these answers are never used.
    fn string_field_value(&self, _field_index: u32) -> StringHandle {
        self.name
    }

    fn number_field_value(&self, _field_index: u32) -> f64 {
        0.0
    }
}
