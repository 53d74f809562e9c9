//! Where an HTTP/1.1 message's body ends (RFC 9112 §6), followed as its bytes
//! pass through unchanged: a length, chunks, or the connection's close. The
//! content is handed on piece by piece, for the tap.

/// A body as it goes by.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// `Content-Length` bytes still to come.
    Length(u64),
    /// `Transfer-Encoding: chunked`, where in its chunks.
    Chunked(Chunked),
    /// Everything until the connection closes.
    UntilClose,
}

/// A body's bytes that break its framing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Malformed;

/// Where a chunked body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chunked {
    /// In a chunk's size line: the size so far, its digits, and whether an
    /// extension (`;name=value`, skipped) began.
    Size {
        size: u64,
        digits: u8,
        extension: bool,
    },
    /// After the size line's `\r`.
    SizeEnd { size: u64 },
    /// In a chunk's data: bytes left.
    Data(u64),
    /// After a chunk's data, before its `\r\n`.
    DataEnd,
    /// After that `\r`.
    DataEndLf,
    /// In the trailer section, a line begun; `empty` while it has nothing.
    Trailer { empty: bool },
    /// After a trailer line's `\r`.
    TrailerLf { empty: bool },
    /// After the last chunk's trailer section.
    Done,
}

const FIRST_SIZE: Chunked = Chunked::Size {
    size: 0,
    digits: 0,
    extension: false,
};

impl Body {
    /// A chunked body, from its start.
    pub(crate) fn chunked() -> Self {
        Body::Chunked(FIRST_SIZE)
    }

    /// Whether the body is complete (one until close never is).
    pub(crate) fn done(&self) -> bool {
        matches!(self, Body::Length(0) | Body::Chunked(Chunked::Done))
    }

    /// Reads `bytes` of the body, handing each piece of its content to
    /// `content`; returns how many of them belong to the body (after its end
    /// come the next message's).
    pub(crate) fn feed(
        &mut self,
        bytes: &[u8],
        content: &mut dyn FnMut(&[u8]),
    ) -> Result<usize, Malformed> {
        match self {
            Body::Length(left) => {
                let taken = usize::try_from(*left)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                if taken > 0 {
                    content(&bytes[..taken]);
                }
                *left -= taken as u64;
                Ok(taken)
            }
            Body::UntilClose => {
                if !bytes.is_empty() {
                    content(bytes);
                }
                Ok(bytes.len())
            }
            Body::Chunked(state) => {
                let mut at = 0;
                while at < bytes.len() && *state != Chunked::Done {
                    if let Chunked::Data(left) = state {
                        let taken = usize::try_from(*left)
                            .unwrap_or(usize::MAX)
                            .min(bytes.len() - at);
                        content(&bytes[at..at + taken]);
                        *left -= taken as u64;
                        at += taken;
                        if *left == 0 {
                            *state = Chunked::DataEnd;
                        }
                        continue;
                    }
                    *state = state.step(bytes[at])?;
                    at += 1;
                }
                Ok(at)
            }
        }
    }
}

impl Chunked {
    /// The state after one framing byte (anything but a chunk's data).
    fn step(self, byte: u8) -> Result<Chunked, Malformed> {
        Ok(match (self, byte) {
            (Chunked::Size { size, digits, .. }, b'\r') if digits > 0 => Chunked::SizeEnd { size },
            (
                Chunked::Size {
                    extension: true, ..
                },
                _,
            ) => self,
            (Chunked::Size { size, digits, .. }, b';' | b' ' | b'\t') if digits > 0 => {
                Chunked::Size {
                    size,
                    digits,
                    extension: true,
                }
            }
            (Chunked::Size { size, digits, .. }, _) => {
                let digit = char::from(byte).to_digit(16).ok_or(Malformed)?;
                if digits >= 15 {
                    return Err(Malformed);
                }
                Chunked::Size {
                    size: size * 16 + u64::from(digit),
                    digits: digits + 1,
                    extension: false,
                }
            }
            (Chunked::SizeEnd { size: 0 }, b'\n') => Chunked::Trailer { empty: true },
            (Chunked::SizeEnd { size }, b'\n') => Chunked::Data(size),
            (Chunked::DataEnd, b'\r') => Chunked::DataEndLf,
            (Chunked::DataEndLf, b'\n') => FIRST_SIZE,
            (Chunked::Trailer { empty }, b'\r') => Chunked::TrailerLf { empty },
            (Chunked::Trailer { .. }, _) => Chunked::Trailer { empty: false },
            (Chunked::TrailerLf { empty: true }, b'\n') => Chunked::Done,
            (Chunked::TrailerLf { empty: false }, b'\n') => Chunked::Trailer { empty: true },
            _ => return Err(Malformed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` in pieces of `step`: the content, and how many belonged
    /// to the body.
    fn read(
        mut body: Body,
        bytes: &[u8],
        step: usize,
    ) -> Result<(Vec<u8>, usize, bool), Malformed> {
        let mut content = Vec::new();
        let mut used = 0;
        for piece in bytes.chunks(step) {
            let taken = body.feed(piece, &mut |data| content.extend_from_slice(data))?;
            used += taken;
            if taken < piece.len() {
                break;
            }
        }
        Ok((content, used, body.done()))
    }

    #[test]
    fn chunks_are_followed_whatever_the_pieces_they_come_in() {
        let wire = b"5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nx-trailer: 1\r\n\r\nNEXT";
        for step in [1, 2, 3, 7, wire.len()] {
            let (content, used, done) = read(Body::chunked(), wire, step).unwrap();
            assert_eq!(content, b"helloabcdefghijklmnopqrstuvwxyz", "step {step}");
            assert_eq!((used, done), (wire.len() - 4, true), "step {step}");
        }
        let (content, used, done) = read(Body::chunked(), b"3\r\nabc\r\n0\r\n\r\n", 4).unwrap();
        assert_eq!((content.as_slice(), used, done), (&b"abc"[..], 13, true));
    }

    #[test]
    fn a_chunk_not_yet_ended_is_not_done() {
        let (content, used, done) = read(Body::chunked(), b"5\r\nhel", 64).unwrap();
        assert_eq!((content.as_slice(), used, done), (&b"hel"[..], 6, false));
        let (_, _, done) = read(Body::chunked(), b"0\r\n", 64).unwrap();
        assert!(!done);
    }

    #[test]
    fn broken_framing_is_refused() {
        for wire in [
            &b"x\r\n"[..],
            b"\r\n",
            b"5\r\nhelloXX",
            b"5\nhello\r\n",
            b"ffffffffffffffff0\r\n",
            b"0\r\n\r\r",
        ] {
            assert_eq!(read(Body::chunked(), wire, 64), Err(Malformed), "{wire:?}");
        }
    }

    #[test]
    fn a_length_ends_the_body_and_until_close_never_does() {
        let (content, used, done) = read(Body::Length(5), b"helloNEXT", 2).unwrap();
        assert_eq!((content.as_slice(), used, done), (&b"hello"[..], 5, true));
        assert!(Body::Length(0).done());
        let (content, used, done) = read(Body::UntilClose, b"all of it", 4).unwrap();
        assert_eq!(
            (content.as_slice(), used, done),
            (&b"all of it"[..], 9, false)
        );
    }
}
