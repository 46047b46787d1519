//! `clocks::DatetimeError` and the `TryFrom<SystemTime>` conversions of
//! WASI 0.2's `datetime` and WASI 0.3's `instant` that give it, as in
//! Wasmtime 48.
#![cfg(feature = "p2")]

use std::time::{Duration, UNIX_EPOCH};
use weft_wasi::clocks::DatetimeError;
use weft_wasi::p2::bindings::wasi::clocks::wall_clock::Datetime;

#[test]
fn datetime_error_comes_from_std_errors_and_says_what_went_wrong() {
    let before = (UNIX_EPOCH - Duration::from_secs(5))
        .duration_since(UNIX_EPOCH)
        .unwrap_err();
    let e = DatetimeError::from(before);
    assert!(e.to_string().contains("5s before the Unix epoch"), "{e}");
    let e = DatetimeError::from(i64::try_from(u64::MAX).unwrap_err());
    assert!(e.to_string().contains("too far"), "{e}");
    // An error for `?` and anyhow.
    let _: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
}

#[test]
fn p2_datetime_from_system_time() {
    let t = UNIX_EPOCH + Duration::new(1_700_000_000, 123);
    let d = Datetime::try_from(t).unwrap();
    assert_eq!((d.seconds, d.nanoseconds), (1_700_000_000, 123));
    let e = Datetime::try_from(UNIX_EPOCH - Duration::from_secs(1)).unwrap_err();
    assert!(e.to_string().contains("before the Unix epoch"), "{e}");
}

#[cfg(feature = "p3")]
#[test]
fn p3_instant_from_system_time_and_a_wall_clock_beyond_s64() {
    use weft_wasi::p3::bindings::wasi::clocks::system_clock::{self, Instant};
    let t = UNIX_EPOCH + Duration::new(42, 7);
    let i = Instant::try_from(t).unwrap();
    assert_eq!((i.seconds, i.nanoseconds), (42, 7));
    assert!(Instant::try_from(UNIX_EPOCH - Duration::from_nanos(1)).is_err());
    if let Some(far) = UNIX_EPOCH.checked_add(Duration::from_secs(u64::MAX / 2 + 1)) {
        let e = Instant::try_from(far).unwrap_err();
        assert!(e.to_string().contains("too far"), "{e}");
    }

    // A wall clock of the embedder's reading beyond `s64` seconds: `now`
    // is an error of the host (a trap), not a wrong time.
    struct Far;
    impl weft_wasi::HostWallClock for Far {
        fn resolution(&self) -> Duration {
            Duration::from_secs(1)
        }
        fn now(&self) -> Duration {
            Duration::from_secs(u64::MAX)
        }
    }
    let mut ctx = weft_wasi::WasiCtxBuilder::new().wall_clock(Far).build();
    let mut table = weft_wasi::ResourceTable::new();
    let mut view = weft_wasi::clocks::WasiClocksCtxView {
        ctx: ctx.clocks(),
        table: &mut table,
    };
    let err = system_clock::Host::now(&mut view).unwrap_err();
    assert!(err.downcast_ref::<DatetimeError>().is_some(), "{err:?}");
    assert!(format!("{err:#}").contains("system-clock.now"), "{err:#}");
}
