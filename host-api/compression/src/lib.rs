//! How the daemon stores what its binary embeds (the builtin adapters' WebAssembly
//! and precompiled code): zstd at one fixed level, zstd against a base (what two
//! components share is stored once), and SHA-256. A crate of its own so that the
//! daemon's build script can compress without compiling the adapter host (and
//! wasmtime) a second time when it does not precompile.

use std::io::{Read, Write};

use sha2::{Digest, Sha256};

/// zstd level for embedded bytes: slow to compress (once, at build time), as fast
/// as any level to decompress.
const ZSTD_LEVEL: i32 = 19;

/// Largest zstd window a delta may use (and a reader accepts): 128 MiB.
const DELTA_WINDOW_LOG_MAX: u32 = 27;

/// zstd-compresses bytes for embedding.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(bytes, ZSTD_LEVEL).expect("zstd compresses in memory")
}

/// Undoes [`compress`].
pub fn decompress(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    zstd::stream::decode_all(bytes)
}

/// zstd-compresses `bytes` with `base` as reference prefix: what they share is
/// stored as references into `base`. The frame carries the checksum of `bytes`,
/// so decoding it against another base fails instead of giving other bytes.
pub fn compress_against(bytes: &[u8], base: &[u8]) -> Vec<u8> {
    // The window must reach from the end of `bytes` back to the start of `base`.
    let span = (base.len() + bytes.len()).max(1);
    let window_log = (usize::BITS - (span - 1).leading_zeros()).clamp(10, DELTA_WINDOW_LOG_MAX);
    let mut encoder = zstd::stream::write::Encoder::with_ref_prefix(Vec::new(), ZSTD_LEVEL, base)
        .expect("a zstd encoder");
    encoder.include_checksum(true).expect("zstd checksum flag");
    encoder.window_log(window_log).expect("zstd window log");
    encoder
        .long_distance_matching(true)
        .expect("zstd long mode");
    encoder.write_all(bytes).expect("zstd compresses in memory");
    encoder.finish().expect("zstd compresses in memory")
}

/// Undoes [`compress_against`] given the same `base`.
pub fn decompress_against(bytes: &[u8], base: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut decoder = zstd::stream::read::Decoder::with_ref_prefix(bytes, base)?;
    decoder.window_log_max(DELTA_WINDOW_LOG_MAX)?;
    let mut out = Vec::new();
    decoder.read_to_end(&mut out)?;
    Ok(out)
}

/// SHA-256 of some bytes.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_compressed_decompresses_to_itself_alone_or_against_its_base() {
        let base: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let mut bytes = base.clone();
        bytes.extend_from_slice(b"and something of its own");
        assert_eq!(decompress(&compress(&bytes)).unwrap(), bytes);
        let delta = compress_against(&bytes, &base);
        assert!(delta.len() < compress(&bytes).len(), "the base is used");
        assert_eq!(decompress_against(&delta, &base).unwrap(), bytes);
        // Against another base, the frame's checksum refuses it.
        let other = vec![7u8; base.len()];
        assert!(decompress_against(&delta, &other).is_err());
    }

    #[test]
    fn sha256_is_the_standard_digest() {
        assert_eq!(
            sha256(b"abc")[..4],
            [0xba, 0x78, 0x16, 0xbf],
            "the first bytes of SHA-256(\"abc\")"
        );
    }
}
