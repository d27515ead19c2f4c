//! The CRC-16 that ends every COBS frame: CRC-16/CCITT-FALSE (also catalogued as
//! CRC-16/IBM-3740): polynomial `0x1021`, initial value `0xFFFF`, no reflection, no final
//! XOR; check value `0x29B1` for the ASCII bytes `123456789`. It is sent big-endian after the
//! message, inside the COBS encoding.
//!
//! It is computed bit by bit (the `crc` crate without a table): about 16 shifts a byte, a
//! fraction of a millisecond for a 2 KiB message on a microcontroller, and no 512-byte table
//! in flash.

use crc::{CRC_16_IBM_3740, Crc, NoTable};

const CRC16: Crc<u16, NoTable> = Crc::<u16, NoTable>::new(&CRC_16_IBM_3740);

/// Bytes of checksum after each COBS message.
pub const CHECKSUM_LEN: usize = 2;

/// The CRC-16/CCITT-FALSE of `bytes`.
pub fn crc16(bytes: &[u8]) -> u16 {
    CRC16.checksum(bytes)
}

/// The message of a decoded frame whose trailing checksum is right.
pub(crate) fn split(decoded: &[u8]) -> Option<&[u8]> {
    let at = decoded.len().checked_sub(CHECKSUM_LEN)?;
    let (message, sent) = decoded.split_at(at);
    (crc16(message).to_be_bytes() == *sent).then_some(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_value_is_ccitt_false() {
        assert_eq!(crc16(b"123456789"), 0x29B1);
        assert_eq!(crc16(b""), 0xFFFF);
    }

    #[test]
    fn a_message_splits_from_its_checksum() {
        assert_eq!(split(b"ab\x00"), None);
        let mut framed = std::vec::Vec::from(&b"hello"[..]);
        framed.extend_from_slice(&crc16(b"hello").to_be_bytes());
        assert_eq!(split(&framed), Some(&b"hello"[..]));
        framed[1] ^= 1;
        assert_eq!(split(&framed), None);
    }
}
