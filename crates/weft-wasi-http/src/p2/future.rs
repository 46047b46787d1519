//! `HostFutureIncomingResponse`: the response an outgoing request will
//! get.

use super::body::{poll_once, HyperIncomingBody};
use crate::Error;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

/// The response an outgoing request will get.
pub type FutureIncomingResponseHandle =
    Pin<Box<dyn Future<Output = Result<http::Response<HyperIncomingBody>, Error>> + Send>>;

/// The host value of `wasi:http/types.future-incoming-response`.
pub enum HostFutureIncomingResponse {
    /// The response has not come yet.
    Pending(FutureIncomingResponseHandle),
    /// The response (or the request's error) is there.
    Ready(Result<http::Response<HyperIncomingBody>, Error>),
    /// The guest took it.
    Consumed,
}

impl HostFutureIncomingResponse {
    /// A response that comes when `fut` ends. `fut` is polled by whatever
    /// runs the guest (a thread blocked in a synchronous host call, or the
    /// embedder's executor), not necessarily in a tokio context: anything
    /// that needs the runtime (a hyper connection) must be spawned on it,
    /// with `fut` awaiting the task's join handle.
    pub fn pending(
        fut: impl Future<Output = Result<http::Response<HyperIncomingBody>, Error>> + Send + 'static,
    ) -> HostFutureIncomingResponse {
        HostFutureIncomingResponse::Pending(Box::pin(fut))
    }

    /// A response that is there already.
    pub fn ready(result: Result<http::Response<HyperIncomingBody>, Error>) -> HostFutureIncomingResponse {
        HostFutureIncomingResponse::Ready(result)
    }

    /// Whether the response (or its error) has come.
    pub fn is_ready(&mut self) -> bool {
        if let HostFutureIncomingResponse::Pending(fut) = self {
            match poll_once(fut) {
                Poll::Ready(r) => *self = HostFutureIncomingResponse::Ready(r),
                Poll::Pending => return false,
            }
        }
        true
    }
}

#[weft_wasi::async_trait]
impl weft_wasi::p2::Pollable for HostFutureIncomingResponse {
    async fn ready(&mut self) {
        let r = match self {
            HostFutureIncomingResponse::Pending(fut) => fut.as_mut().await,
            _ => return,
        };
        *self = HostFutureIncomingResponse::Ready(r);
    }
}
