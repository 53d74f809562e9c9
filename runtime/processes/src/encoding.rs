//! Bytes in JSON strings: UTF-8 text or base64, as a request says.

use agentplex_api::ProcessDataEncoding;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use crate::ProcessError;

/// The bytes a string carries.
pub fn decode(text: &str, encoding: ProcessDataEncoding) -> Result<Vec<u8>, ProcessError> {
    match encoding {
        ProcessDataEncoding::Utf8 => Ok(text.as_bytes().to_vec()),
        ProcessDataEncoding::Base64 => STANDARD
            .decode(text)
            .map_err(|e| ProcessError::InvalidRequest(format!("invalid base64 data: {e}"))),
    }
}

/// Bytes as a string: base64, or UTF-8 with U+FFFD for what is not.
pub fn encode(bytes: &[u8], encoding: ProcessDataEncoding) -> String {
    match encoding {
        ProcessDataEncoding::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
        ProcessDataEncoding::Base64 => STANDARD.encode(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_carries_any_bytes_and_bad_base64_is_refused() {
        let bytes = [0u8, 0xff, b'a', 0x80];
        let text = encode(&bytes, ProcessDataEncoding::Base64);
        assert_eq!(decode(&text, ProcessDataEncoding::Base64).unwrap(), bytes);
        assert_eq!(
            encode(&bytes, ProcessDataEncoding::Utf8),
            "\0\u{fffd}a\u{fffd}"
        );
        assert!(matches!(
            decode("not base64!", ProcessDataEncoding::Base64),
            Err(ProcessError::InvalidRequest(_))
        ));
    }
}
