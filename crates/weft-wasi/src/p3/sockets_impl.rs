//! `wasi:sockets@0.3`: name lookup over WASI 0.2's resolver and the
//! context's permission (`allow_ip_name_lookup`, off by default).
//!
//! A host name is looked up on a thread of the blocking pool of this
//! crate's runtime (as WASI 0.2's `resolve-addresses`): the calling task
//! waits for it without blocking its thread, so a slow resolver does not
//! stop the store's other tasks.

use super::bindings::wasi::sockets::ip_name_lookup::{self, ErrorCode};
use super::bindings::wasi::sockets::types::IpAddress;
use crate::p2::bindings::wasi::sockets::network::ErrorCode as P2ErrorCode;
use crate::sockets::{WasiSockets, WasiSocketsCtxView};
use std::net::IpAddr;
use weft::component::Accessor;

/// A host address as `wasi:sockets/types@0.3.0`'s.
fn ip(addr: IpAddr) -> IpAddress {
    match addr {
        IpAddr::V4(a) => {
            let [a, b, c, d] = a.octets();
            IpAddress::Ipv4((a, b, c, d))
        }
        IpAddr::V6(a) => {
            let [a, b, c, d, e, f, g, h] = a.segments();
            IpAddress::Ipv6((a, b, c, d, e, f, g, h))
        }
    }
}

/// WASI 0.2's lookup error as 0.3's.
fn lookup_code(code: P2ErrorCode) -> ErrorCode {
    match code {
        P2ErrorCode::AccessDenied => ErrorCode::AccessDenied,
        P2ErrorCode::InvalidArgument => ErrorCode::InvalidArgument,
        P2ErrorCode::NameUnresolvable => ErrorCode::NameUnresolvable,
        P2ErrorCode::TemporaryResolverFailure => ErrorCode::TemporaryResolverFailure,
        P2ErrorCode::PermanentResolverFailure => ErrorCode::PermanentResolverFailure,
        other => ErrorCode::Other(Some(format!("{other:?}"))),
    }
}

impl ip_name_lookup::Host for WasiSocketsCtxView<'_> {}

impl<T: 'static> ip_name_lookup::HostWithStore<T> for WasiSockets {
    async fn resolve_addresses(
        accessor: &Accessor<T, Self>,
        name: String,
    ) -> weft::Result<Result<Vec<IpAddress>, ErrorCode>> {
        let allowed = accessor.with(|mut access| access.get().ctx.allow_ip_name_lookup);
        if !allowed {
            return Ok(Err(ErrorCode::AccessDenied));
        }
        resolve(&name, crate::p2::sockets::lookup_host).await
    }
}

/// Resolves `name`: an address literal is its own answer; a host name is
/// looked up by `lookup` on a blocking thread, which the caller awaits.
async fn resolve(
    name: &str,
    lookup: fn(&str) -> Result<Vec<IpAddr>, P2ErrorCode>,
) -> weft::Result<Result<Vec<IpAddress>, ErrorCode>> {
    use crate::p2::sockets::{parse_name, Lookup};
    let host = match parse_name(name) {
        Ok(Lookup::Address(a)) => return Ok(Ok(vec![ip(a)])),
        Ok(Lookup::Host(host)) => host,
        Err(code) => return Ok(Err(lookup_code(code))),
    };
    let mut task = match crate::runtime::try_spawn_blocking(move || lookup(&host)) {
        Ok(task) => task,
        // No runtime for the lookup: a failure of the resolver, not a trap.
        Err(_) => return Ok(Err(ErrorCode::TemporaryResolverFailure)),
    };
    let found = task.join().await.unwrap_or(Err(P2ErrorCode::TemporaryResolverFailure));
    Ok(found
        .map(|addrs| addrs.into_iter().map(ip).collect())
        .map_err(lookup_code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// The thread the last slow lookup ran on.
    static LOOKUP_THREAD: Mutex<Option<std::thread::ThreadId>> = Mutex::new(None);
    /// Releases the slow lookup.
    static RELEASE: Mutex<Option<mpsc::Receiver<()>>> = Mutex::new(None);

    /// A lookup that lasts until the test releases it.
    fn slow_lookup(_host: &str) -> Result<Vec<IpAddr>, P2ErrorCode> {
        *LOOKUP_THREAD.lock().unwrap() = Some(std::thread::current().id());
        let rx = RELEASE.lock().unwrap().take().expect("one slow lookup at a time");
        rx.recv_timeout(Duration::from_secs(20))
            .map_err(|_| P2ErrorCode::TemporaryResolverFailure)?;
        Ok(vec![IpAddr::from([127, 0, 0, 1])])
    }

    /// While a lookup is slow, another task of the same single-threaded
    /// executor runs (it is the one that ends the lookup), and the lookup
    /// ran on another thread than the executor's.
    #[test]
    fn a_slow_lookup_does_not_block_the_executor() {
        let (tx, rx) = mpsc::channel();
        *RELEASE.lock().unwrap() = Some(rx);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let executor = std::thread::current().id();
        let other_ran = Arc::new(Mutex::new(false));
        let flag = other_ran.clone();
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(move || {
                let r = rt.block_on(async move {
                    let local = tokio::task::LocalSet::new();
                    local
                        .run_until(async move {
                            let lookup = tokio::task::spawn_local(resolve("slow.example", slow_lookup));
                            let other = tokio::task::spawn_local(async move {
                                tokio::task::yield_now().await;
                                *flag.lock().unwrap() = true;
                                let _ = tx.send(());
                            });
                            other.await.unwrap();
                            lookup.await.unwrap()
                        })
                        .await
                });
                let _ = done_tx.send((r.unwrap(), std::thread::current().id()));
            });
        });
        let (found, executor_thread) = done_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the executor hung");
        assert!(
            matches!(found.as_deref(), Ok([IpAddress::Ipv4((127, 0, 0, 1))])),
            "{found:?}"
        );
        assert!(*other_ran.lock().unwrap());
        let lookup_thread = LOOKUP_THREAD.lock().unwrap().expect("the lookup ran");
        assert_ne!(lookup_thread, executor_thread);
        assert_ne!(lookup_thread, executor);
    }
}
