//! Handing a connection to the general path: `hyper`, as the daemon's gateway
//! serves, with the bytes the passthrough already read given back first.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::listener;
use crate::Shared;

/// Serves the rest of the connection on the general path, `read` first.
pub(super) async fn hand_off(stream: TcpStream, read: BytesMut, shared: Arc<Shared>) {
    listener::serve_http(Replayed { read, stream }, shared).await;
}

/// A connection whose first bytes were already read: they are read again.
struct Replayed {
    read: BytesMut,
    stream: TcpStream,
}

impl AsyncRead for Replayed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.read.is_empty() {
            return Pin::new(&mut this.stream).poll_read(cx, buf);
        }
        let taken = this.read.len().min(buf.remaining());
        buf.put_slice(&this.read[..taken]);
        this.read.advance(taken);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Replayed {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
