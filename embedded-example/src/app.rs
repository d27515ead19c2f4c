//! The device application: a bench instrument with sensors and relays, as MCP tools.
//!
//! Definitions are `const` data, so they live in flash; the handlers read the board through
//! [`Board`] and write their results straight into the output buffer. Readings are fixed
//! point ([`Reading::milli`]) and written without float formatting.

use snodo_core::json::{Limits, Value, Writer};
use snodo_core::server::{Config, Done, Error, Handler, Registry, Tool, ToolCall, ToolReply};

use crate::board::{Board, Reading};

/// Sensor channels the schema admits (`0..SENSOR_CHANNELS`); a board may fit fewer.
pub const SENSOR_CHANNELS: u8 = 4;
/// Relay channels the schema admits (`0..RELAY_CHANNELS`).
pub const RELAY_CHANNELS: u8 = 2;
/// Most samples one `read_sensor` call averages.
pub const MAX_SAMPLES: u8 = 16;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("read_sensor")
        .title("Read a sensor")
        .description(
            "Reads sensor channel 0-3 (0 temperature, 1 relative humidity, 2 supply voltage), \
             averaging up to 16 samples. Reports progress per sample when asked.",
        )
        .input_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":3},"samples":{"type":"integer","minimum":1,"maximum":16}},"required":["channel"],"additionalProperties":false}"#,
        )
        .output_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer"},"quantity":{"type":"string"},"value":{"type":"number"},"unit":{"type":"string"},"samples":{"type":"integer","minimum":1}},"required":["channel","quantity","value","unit","samples"]}"#,
        )
        .annotations(r#"{"readOnlyHint":true,"idempotentHint":true}"#),
    Tool::new("set_relay")
        .title("Switch a relay")
        .description("Switches relay channel 0 or 1 on or off and tells its previous state.")
        .input_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":1},"on":{"type":"boolean"}},"required":["channel","on"],"additionalProperties":false}"#,
        )
        .output_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer"},"on":{"type":"boolean"},"was":{"type":"boolean"}},"required":["channel","on","was"]}"#,
        )
        .annotations(r#"{"destructiveHint":false,"idempotentHint":true}"#),
];

/// The server configuration of the device: its identity and device-sized JSON limits.
pub const fn config() -> Config<'static> {
    Config::new("snodo-bench-instrument", env!("CARGO_PKG_VERSION"))
        .with_limits(Limits::DEVICE)
        .with_instructions(
            "A bench instrument: read_sensor measures, set_relay switches an output.",
        )
}

/// The bench instrument application over a board.
#[derive(Debug)]
pub struct Instrument<B> {
    board: B,
}

impl<B: Board> Instrument<B> {
    /// The application on `board`.
    pub const fn new(board: B) -> Self {
        Instrument { board }
    }

    /// The board.
    pub fn board(&self) -> &B {
        &self.board
    }

    fn read_sensor(&self, call: &ToolCall<'_>, mut reply: ToolReply<'_>) -> Result<Done, Error> {
        let channel = small_int(call.argument("channel"), SENSOR_CHANNELS - 1).ok_or(
            Error::invalid_params("channel must be an integer from 0 to 3"),
        )?;
        let samples =
            match call.argument("samples") {
                None => 1,
                some => small_int(some, MAX_SAMPLES).filter(|&n| n >= 1).ok_or(
                    Error::invalid_params("samples must be an integer from 1 to 16"),
                )?,
            };
        let mut first: Option<Reading> = None;
        let mut sum = 0i64;
        for n in 1..=samples {
            let reading = self
                .board
                .read_sensor(channel)
                .map_err(|f| Error::failure(f.message()))?;
            sum += i64::from(reading.milli);
            first.get_or_insert(reading);
            if samples > 1 {
                reply
                    .progress(f64::from(n), Some(f64::from(samples)), None)
                    .map_err(|_| Error::internal("no room for a progress notification"))?;
            }
        }
        let reading = first.ok_or(Error::internal("no sample taken"))?;
        let mean = (sum / i64::from(samples)) as i32;
        Ok(reply.structured(|w| {
            w.object(|o| {
                o.u64("channel", channel.into());
                o.str("quantity", reading.quantity);
                write_milli(o.key("value"), mean);
                o.str("unit", reading.unit);
                o.u64("samples", samples.into());
            });
        }))
    }

    fn set_relay(&self, call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
        let channel = small_int(call.argument("channel"), RELAY_CHANNELS - 1)
            .ok_or(Error::invalid_params("channel must be 0 or 1"))?;
        let on = call
            .argument("on")
            .and_then(|v| v.as_bool())
            .ok_or(Error::invalid_params("on must be a boolean"))?;
        let was = self
            .board
            .set_relay(channel, on)
            .map_err(|f| Error::failure(f.message()))?;
        Ok(reply.structured(|w| {
            w.object(|o| {
                o.u64("channel", channel.into());
                o.bool("on", on);
                o.bool("was", was);
            });
        }))
    }
}

impl<B: Board> Registry for Instrument<B> {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

impl<B: Board> Handler for Instrument<B> {
    fn call_tool(&self, call: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
        match call.name() {
            "read_sensor" => self.read_sensor(call, reply),
            "set_relay" => self.set_relay(call, reply),
            _ => Err(Error::internal("tool without a handler")),
        }
    }
}

/// An integer argument in `0..=max`. The schema admitted it, and JSON Schema counts `1.0` as an
/// integer, so integral floats are accepted too.
fn small_int(value: Option<Value<'_>>, max: u8) -> Option<u8> {
    let number = value?.as_number()?;
    let n = match number.as_u64() {
        Some(n) => n,
        None if number.is_integral() => {
            let f = number.as_f64()?;
            if !(0.0..=255.0).contains(&f) {
                return None;
            }
            f as u64
        }
        None => return None,
    };
    u8::try_from(n).ok().filter(|&n| n <= max)
}

/// Writes milli-units as a JSON number with three decimals (`23125` as `23.125`).
fn write_milli(w: &mut Writer<'_>, milli: i32) {
    let abs = milli.unsigned_abs();
    if milli < 0 {
        w.raw(b"-");
    }
    w.u64(u64::from(abs / 1000));
    let frac = abs % 1000;
    w.raw(&[
        b'.',
        b'0' + (frac / 100) as u8,
        b'0' + (frac / 10 % 10) as u8,
        b'0' + (frac % 10) as u8,
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milli_units_are_written_with_three_decimals() {
        for (milli, text) in [
            (23125, "23.125"),
            (0, "0.000"),
            (-500, "-0.500"),
            (3300, "3.300"),
            (i32::MIN, "-2147483.648"),
        ] {
            let mut buf = [0u8; 32];
            let mut w = Writer::new(&mut buf);
            write_milli(&mut w, milli);
            let n = w.finish().unwrap();
            assert_eq!(&buf[..n], text.as_bytes());
        }
    }
}
