//! The device's options, parsed from words (a host's `argv`, or the command line a debugger
//! or emulator hands the firmware through semihosting), so every build reads them alike.
//!
//! ```text
//! [--framing line|cobs] [--announce] [--measure-stack] [--cost]
//! ```

use snodo_core::io::Framing;

use crate::device::Options;

/// The options' usage line, without the program name.
pub const USAGE: &str = "[--framing line|cobs] [--announce] [--measure-stack] [--cost]";

/// What the device was asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Args {
    /// How the device is run.
    pub options: Options,
    /// Measure the peak stack of boot and of the rounds.
    pub measure_stack: bool,
    /// Measure the cost of fixed rounds and of sealing and opening state, then stop (boards
    /// with a cycle or instruction count only).
    pub cost: bool,
}

impl Args {
    /// Parses the words after the program name; `None` for an unknown word or a missing or
    /// unknown framing.
    pub fn parse<'a>(mut words: impl Iterator<Item = &'a [u8]>) -> Option<Args> {
        let mut parsed = Args {
            options: Options {
                framing: Framing::Line,
                announce: false,
            },
            measure_stack: false,
            cost: false,
        };
        while let Some(word) = words.next() {
            match word {
                b"--framing" => {
                    let name = core::str::from_utf8(words.next()?).ok()?;
                    parsed.options.framing = Framing::from_name(name)?;
                }
                b"--announce" => parsed.options.announce = true,
                b"--measure-stack" => parsed.measure_stack = true,
                b"--cost" => parsed.cost = true,
                _ => return None,
            }
        }
        Some(parsed)
    }

    /// Parses a command line of words separated by spaces.
    pub fn parse_line(line: &[u8]) -> Option<Args> {
        Args::parse(line.split(|b| *b == b' ').filter(|w| !w.is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_option() {
        let args = Args::parse_line(b"--framing cobs  --announce --measure-stack --cost").unwrap();
        assert_eq!(args.options.framing, Framing::Cobs);
        assert!(args.options.announce && args.measure_stack && args.cost);
    }

    #[test]
    fn defaults_to_lines_and_nothing_else() {
        let args = Args::parse_line(b"").unwrap();
        assert_eq!(args.options.framing, Framing::Line);
        assert!(!args.options.announce && !args.measure_stack && !args.cost);
    }

    #[test]
    fn refuses_unknown_words_and_framings() {
        assert_eq!(Args::parse_line(b"--fast"), None);
        assert_eq!(Args::parse_line(b"--framing slip"), None);
        assert_eq!(Args::parse_line(b"--framing"), None);
    }
}
