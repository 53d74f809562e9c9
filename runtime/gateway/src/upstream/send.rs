//! Writing a request while watching for an early answer.
//!
//! An upstream may answer before it has read the whole request (a `413` for a
//! body too large) and then read no more of it. Once the socket's buffers are
//! full, a write that waited for the upstream to take the rest would wait for
//! the response timeout, though the answer is there. So whenever the write
//! has to wait, what the upstream sent is read meanwhile, and a final answer's
//! head in it ends the sending. A request that fits in the socket's buffers
//! (every model call but the largest) is written without a read.

use std::future::poll_fn;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::Poll;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::io::poll_read_buf;

use super::{Parsed, ResponseHead, MAX_HEAD};

/// Most slices a write hands the socket at once.
const MAX_SLICES: usize = 4;

/// How sending a request ended.
#[derive(Debug)]
pub(super) enum Sent {
    /// All of it was written and flushed.
    Whole,
    /// The upstream answered first: the answer read holds a final head, and
    /// the rest of the request was not sent.
    AnsweredEarly,
    /// The write failed.
    Failed(io::Error),
}

/// Writes `request` (to be answered as one with `method`) to `connection`;
/// while the write waits, reads what the upstream sends into `answer`.
pub(super) async fn send<C>(
    connection: &mut C,
    request: &mut impl Buf,
    method: &str,
    answer: &mut BytesMut,
) -> Sent
where
    C: AsyncRead + AsyncWrite + Unpin,
{
    // Until the upstream closes its side or sends more than a head can be.
    let mut watching = true;
    poll_fn(|cx| {
        while request.has_remaining() {
            let mut slices = [IoSlice::new(&[]); MAX_SLICES];
            let count = request.chunks_vectored(&mut slices);
            match Pin::new(&mut *connection).poll_write_vectored(cx, &slices[..count]) {
                Poll::Ready(Ok(0)) => {
                    return Poll::Ready(Sent::Failed(io::ErrorKind::WriteZero.into()))
                }
                Poll::Ready(Ok(written)) => request.advance(written),
                Poll::Ready(Err(error)) => return Poll::Ready(Sent::Failed(error)),
                Poll::Pending => {
                    while watching {
                        match poll_read_buf(Pin::new(&mut *connection), cx, answer) {
                            Poll::Ready(Ok(1..)) if answered(answer, method) => {
                                return Poll::Ready(Sent::AnsweredEarly)
                            }
                            Poll::Ready(Ok(1..)) => watching = answer.len() < MAX_HEAD,
                            // Closed, or broken: the write will tell.
                            Poll::Ready(_) => watching = false,
                            Poll::Pending => break,
                        }
                    }
                    return Poll::Pending;
                }
            }
        }
        match Pin::new(&mut *connection).poll_flush(cx) {
            Poll::Ready(Ok(())) => Poll::Ready(Sent::Whole),
            Poll::Ready(Err(error)) => Poll::Ready(Sent::Failed(error)),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// Whether `bytes` hold a final answer's head (after any interim `1xx` ones),
/// to a request with `method`.
fn answered(bytes: &[u8], method: &str) -> bool {
    matches!(
        ResponseHead::parse_final(bytes, method),
        Parsed::Complete(..)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_request_is_sent_whole_when_it_is_taken() {
        let (mut ours, mut theirs) = tokio::io::duplex(64);
        let taking = tokio::spawn(async move {
            let mut taken = Vec::new();
            theirs.read_to_end(&mut taken).await.unwrap();
            taken
        });
        let mut request = Buf::chain(&b"POST / HTTP/1.1\r\n\r\n"[..], &[7u8; 1000][..]);
        let mut answer = BytesMut::new();
        let sent = send(&mut ours, &mut request, "POST", &mut answer).await;
        assert!(matches!(sent, Sent::Whole), "{sent:?}");
        drop(ours);
        assert_eq!(taking.await.unwrap().len(), 19 + 1000);
        assert!(answer.is_empty());
    }

    #[tokio::test]
    async fn an_answer_before_the_request_was_taken_ends_the_sending() {
        // The upstream reads nothing, answers after an interim head, and stays open.
        let (mut ours, mut theirs) = tokio::io::duplex(64);
        theirs
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 413 Payload Too Large\r\n")
            .await
            .unwrap();
        let answering = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            theirs
                .write_all(b"content-length: 0\r\n\r\n")
                .await
                .unwrap();
            theirs
        });
        let body = vec![7u8; 1 << 20];
        let mut request = Buf::chain(&b"POST / HTTP/1.1\r\n\r\n"[..], &body[..]);
        let mut answer = BytesMut::new();
        let sent = send(&mut ours, &mut request, "POST", &mut answer).await;
        assert!(matches!(sent, Sent::AnsweredEarly), "{sent:?}");
        assert!(request.has_remaining(), "the rest of the body is not sent");
        assert!(answer.ends_with(b"content-length: 0\r\n\r\n"));
        drop(answering.await.unwrap());
    }

    #[tokio::test]
    async fn an_upstream_that_closes_unread_fails_the_write() {
        let (mut ours, theirs) = tokio::io::duplex(64);
        drop(theirs);
        let body = vec![7u8; 1 << 16];
        let mut request = Buf::chain(&b"POST / HTTP/1.1\r\n\r\n"[..], &body[..]);
        let mut answer = BytesMut::new();
        let sent = send(&mut ours, &mut request, "POST", &mut answer).await;
        assert!(matches!(sent, Sent::Failed(_)), "{sent:?}");
    }
}
