//! `wasi:sockets@0.3`: name lookup over WASI 0.2's resolver and the
//! context's permission (`allow_ip_name_lookup`, off by default).
//!
//! The lookup is synchronous: a slow resolver blocks the event loop (as
//! WASI 0.2's `resolve-addresses` blocks its caller).

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
        Ok(crate::p2::sockets::lookup(&name)
            .map(|addrs| addrs.into_iter().map(ip).collect())
            .map_err(lookup_code))
    }
}
