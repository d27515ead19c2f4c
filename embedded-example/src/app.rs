//! The device application: a bench instrument with sensors and relays, as MCP tools, a
//! resource and a prompt.
//!
//! Definitions are `const` data, so they live in flash; handlers read the board through
//! [`Board`] and write their results straight into the output buffer. Readings are fixed
//! point ([`Reading::milli`]) and written without float formatting.
//!
//! # The flows
//!
//! - `read_sensor` answers at once (with progress per sample when asked).
//! - `set_relay` never switches on the first call: it returns `input_required` with a form
//!   elicitation asking the user to confirm, and sealed state. The relay switches only on a
//!   retry that carries both a state token that opens — it is bound by the core to the
//!   method, the exact arguments and the caller, so it cannot be replayed for another relay or
//!   the other direction — and an accepted answer with `confirm: true`.
//! - `calibrate` takes three legs: ask for a reference value; read the sensor, compute the
//!   offset and ask to store it (the offset travels in sealed state, so what is stored is
//!   exactly what the user was shown); store it.

use core::cell::Cell;

use snodo_core::json::{Limits, Value, Writer};
use snodo_core::mrtr::{Action, BuildError, ElicitAnswer, Elicitation, FormSchema, Response};
use snodo_core::server::{
    Config, Done, Error, Handler, INVALID_STATE, Prompt, PromptArgument, PromptGet, PromptReply,
    Registry, Resource, ResourceRead, ResourceReply, Tool, ToolCall, ToolReply,
};
use snodo_core::state::open_scratch_len;

use crate::board::{Board, Reading};
use crate::log;
use crate::text::{FixedText, MAX_UNITS, Milli, milli_of, small_int, write_milli};

/// Sensor channels the schema admits (`0..SENSOR_CHANNELS`); a board may fit fewer.
pub const SENSOR_CHANNELS: u8 = 4;
/// Relay channels the schema admits (`0..RELAY_CHANNELS`).
pub const RELAY_CHANNELS: u8 = 2;
/// Most samples one `read_sensor` call averages.
pub const MAX_SAMPLES: u8 = 16;
/// Bytes for an elicitation message formatted at run time.
pub const MESSAGE_LEN: usize = 128;
/// Bytes for the state data a handler seals (JSON text).
pub const STATE_DATA_LEN: usize = 128;
/// Bytes for the device-info document.
pub const INFO_LEN: usize = 384;

/// The URI of the device-info resource.
pub const INFO_URI: &str = "device://info";

const TOOLS: &[Tool<'static>] = &[
    Tool::new("read_sensor")
        .title("Read a sensor")
        .description(
            "Reads sensor channel 0-3 (0 temperature, 1 relative humidity, 2 supply voltage), \
             averaging up to 16 samples, with the stored calibration offset applied. Reports \
             progress per sample when asked.",
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
        .description(
            "Switches relay channel 0 or 1 on or off, after the user confirms it through a \
             form. Tells whether it switched and the relay's previous state.",
        )
        .input_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":1},"on":{"type":"boolean"}},"required":["channel","on"],"additionalProperties":false}"#,
        )
        .output_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer"},"on":{"type":"boolean"},"switched":{"type":"boolean"},"was":{"type":"boolean"},"action":{"type":"string"}},"required":["channel","on","switched"]}"#,
        )
        .annotations(r#"{"destructiveHint":true,"idempotentHint":true}"#),
    Tool::new("calibrate")
        .title("Calibrate a sensor")
        .description(
            "Calibrates the offset of sensor channel 0-2 against a reference the user reads \
             off a trusted instrument: asks for the reference, then asks to store the \
             computed offset.",
        )
        .input_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":2}},"required":["channel"],"additionalProperties":false}"#,
        )
        .output_schema(
            r#"{"type":"object","properties":{"channel":{"type":"integer"},"stored":{"type":"boolean"},"offset":{"type":"number"},"unit":{"type":"string"},"action":{"type":"string"}},"required":["channel","stored"]}"#,
        ),
];

/// The arguments of `set_relay`.
#[derive(serde::Deserialize)]
struct RelayArgs {
    channel: u8,
    on: bool,
}

const RESOURCES: &[Resource<'static>] = &[Resource::new(INFO_URI, "device-info")
    .description("The instrument's identity, uptime, relay states and calibration offsets")
    .mime_type("application/json")];

const PROMPT_ARGUMENTS: &[PromptArgument<'static>] = &[PromptArgument::optional("focus")
    .description("What to pay attention to, e.g. \"supply voltage\"")];

const PROMPTS: &[Prompt<'static>] = &[Prompt::new("bench_check")
    .description("Check the bench: read every sensor and report anything unusual")
    .arguments(PROMPT_ARGUMENTS)];

const CONFIRM_SCHEMA: &str = r#"{"type":"object","properties":{"confirm":{"type":"boolean","title":"Switch the relay","description":"Check to switch the relay as asked"}},"required":["confirm"]}"#;
const REFERENCE_SCHEMA: &str = r#"{"type":"object","properties":{"reference":{"type":"number","title":"Reference value","description":"What the trusted instrument reads, in the sensor's unit"}},"required":["reference"]}"#;
const STORE_SCHEMA: &str = r#"{"type":"object","properties":{"store":{"type":"boolean","title":"Store the offset"}},"required":["store"]}"#;

/// Tools, resources or prompts per page of a list: one, so that every page fits a 2 KiB
/// message however long a definition's schemas are (clients follow `nextCursor`).
pub const PAGE_SIZE: usize = 1;

/// The server configuration of the device: its identity, device-sized JSON limits and list
/// pages. The state keys are added at boot (by the device module's `run`). A constant, built at
/// compile time, so that reading it costs no stack.
pub const CONFIG: Config<'static> = {
    let mut config = Config::new("snodo-bench-instrument", env!("CARGO_PKG_VERSION"))
        .with_limits(Limits::DEVICE)
        .with_instructions(
            "A bench instrument: read_sensor measures, set_relay switches an output after the \
             user confirms, calibrate sets a sensor's offset against a reference.",
        );
    config.page_size = PAGE_SIZE;
    config
};

/// The forms the device asks with, checked once at boot rather than on every round.
#[derive(Clone, Copy, Debug)]
struct Forms {
    confirm: FormSchema<'static>,
    reference: FormSchema<'static>,
    store: FormSchema<'static>,
}

/// The bench instrument application over a board.
#[derive(Debug)]
pub struct Instrument<B> {
    board: B,
    forms: Forms,
    /// Calibration offsets in milli-units, per sensor channel (kept in RAM: a real board would
    /// also write them to flash).
    offsets: Cell<[i32; SENSOR_CHANNELS as usize]>,
}

impl<B: Board> Instrument<B> {
    /// The application on `board`, its form schemas checked (an error is a firmware bug,
    /// caught at boot).
    pub fn new(board: B) -> Result<Self, BuildError> {
        Ok(Instrument {
            board,
            forms: Forms {
                confirm: FormSchema::new(CONFIRM_SCHEMA)?,
                reference: FormSchema::new(REFERENCE_SCHEMA)?,
                store: FormSchema::new(STORE_SCHEMA)?,
            },
            offsets: Cell::new([0; SENSOR_CHANNELS as usize]),
        })
    }

    /// The board.
    pub fn board(&self) -> &B {
        &self.board
    }

    fn offset(&self, channel: u8) -> i32 {
        self.offsets
            .get()
            .get(usize::from(channel))
            .copied()
            .unwrap_or(0)
    }

    /// One calibrated reading.
    fn read(&self, channel: u8) -> Result<Reading, Error> {
        let mut reading = self
            .board
            .read_sensor(channel)
            .map_err(|f| Error::failure(f.message()))?;
        reading.milli = reading.milli.saturating_add(self.offset(channel));
        Ok(reading)
    }

    fn read_sensor<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
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
            let reading = self.read(channel)?;
            sum += i64::from(reading.milli);
            first.get_or_insert(reading);
            if samples > 1 {
                reply
                    .progress(n, Some(samples), None)
                    .map_err(|_| Error::internal("no room for a progress notification"))?;
            }
        }
        let reading = first.ok_or(Error::internal("no sample taken"))?;
        let mean = sum / i64::from(samples);
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

    fn set_relay<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        // Typed arguments, decoded without a heap (the input schema already bounds them).
        let RelayArgs { channel, on } = call.arguments_as()?;
        if channel >= RELAY_CHANNELS {
            return Err(Error::invalid_params("channel must be 0 or 1"));
        }
        let mut message = [0u8; MESSAGE_LEN];
        let message = FixedText::format(
            &mut message,
            format_args!("Switch relay {channel} {}?", if on { "on" } else { "off" }),
        )?;
        let ask = Elicitation::with_form(message, self.forms.confirm);
        // The state opens only for this method, these exact arguments and this caller; a
        // tampered token, or one issued for other arguments, is -32602 before anything else.
        let state = sealed(call, |state| {
            stage(state, "confirm").then_some(()).ok_or(INVALID_STATE)
        })?;
        let answer = match (state, call.response("confirm", &ask)?) {
            (Some(()), Response::Answered(answer)) => answer,
            // A first call, or an answer without the state that asked for it, or state
            // without an answer: ask (again). Nothing has been switched.
            _ => {
                log::info!("set_relay: asking to confirm");
                return reply
                    .input_required()
                    .request("confirm", ask)
                    .seal(br#"{"stage":"confirm"}"#);
            }
        };
        let confirmed =
            answer.accepted() && answer.get("confirm").and_then(|v| v.as_bool()) == Some(true);
        if !confirmed {
            log::info!("set_relay: not confirmed");
            return Ok(reply.structured(|w| {
                w.object(|o| {
                    o.u64("channel", channel.into());
                    o.bool("on", on);
                    o.bool("switched", false);
                    o.str("action", action_name(&answer));
                });
            }));
        }
        let was = self
            .board
            .set_relay(channel, on)
            .map_err(|f| Error::failure(f.message()))?;
        log::info!("set_relay: switched");
        Ok(reply.structured(|w| {
            w.object(|o| {
                o.u64("channel", channel.into());
                o.bool("on", on);
                o.bool("switched", true);
                o.bool("was", was);
            });
        }))
    }

    fn calibrate<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        let channel = small_int(call.argument("channel"), 2)
            .ok_or(Error::invalid_params("channel must be 0, 1 or 2"))?;
        let state = sealed(call, Calibration::read)?;
        let mut message = [0u8; MESSAGE_LEN];
        let mut data = [0u8; STATE_DATA_LEN];
        let not_stored = |reply: ToolReply<'o>, answer: &ElicitAnswer<'_>| -> Done<'o> {
            reply.structured(|w| {
                w.object(|o| {
                    o.u64("channel", channel.into());
                    o.bool("stored", false);
                    o.str("action", action_name(answer));
                });
            })
        };
        // Leg 1: ask for the reference.
        let Some(state) = state else {
            let reading = self.read(channel)?;
            let ask = reference_form(&mut message, self.forms.reference, channel, &reading)?;
            return reply
                .input_required()
                .request("reference", ask)
                .seal(br#"{"stage":"reference"}"#);
        };
        if let Calibration::Reference = state {
            let reading = self.read(channel)?;
            let ask = reference_form(&mut message, self.forms.reference, channel, &reading)?;
            let answer = match call.response("reference", &ask)? {
                Response::Missing => {
                    return reply
                        .input_required()
                        .request("reference", ask)
                        .seal(br#"{"stage":"reference"}"#);
                }
                Response::Answered(answer) => answer,
            };
            if !answer.accepted() {
                return Ok(not_stored(reply, &answer));
            }
            let reference = answer
                .get("reference")
                .and_then(milli_of)
                .ok_or(Error::invalid_params("the reference is out of range"))?;
            // Leg 2: the offset from the raw reading, shown and sealed.
            let raw = i64::from(reading.milli) - i64::from(self.offset(channel));
            let offset = reference - raw;
            if i32::try_from(offset).is_err() {
                return Err(Error::invalid_params("the reference is out of range"));
            }
            let store = self.forms.store;
            let ask = store_form(
                &mut message,
                store,
                channel,
                raw,
                reference,
                offset,
                reading.unit,
            )?;
            let data = sealed_offset(&mut data, raw, reference, offset)?;
            return reply.input_required().request("store", ask).seal(data);
        }
        let Calibration::Store {
            raw,
            reference,
            offset,
        } = state
        else {
            return Err(INVALID_STATE);
        };
        let unit = self.read(channel)?.unit;
        let shown = i64::from(offset);
        let store = self.forms.store;
        let ask = store_form(&mut message, store, channel, raw, reference, shown, unit)?;
        let answer = match call.response("store", &ask)? {
            Response::Missing => {
                let data = sealed_offset(&mut data, raw, reference, shown)?;
                return reply.input_required().request("store", ask).seal(data);
            }
            Response::Answered(answer) => answer,
        };
        let store =
            answer.accepted() && answer.get("store").and_then(|v| v.as_bool()) == Some(true);
        if !store {
            return Ok(not_stored(reply, &answer));
        }
        let mut offsets = self.offsets.get();
        if let Some(slot) = offsets.get_mut(usize::from(channel)) {
            *slot = offset;
        }
        self.offsets.set(offsets);
        log::info!("calibrate: offset stored");
        Ok(reply.structured(|w| {
            w.object(|o| {
                o.u64("channel", channel.into());
                o.bool("stored", true);
                write_milli(o.key("offset"), i64::from(offset));
                o.str("unit", unit);
            });
        }))
    }

    fn device_info<'o>(&self, reply: ResourceReply<'o>) -> Result<Done<'o>, Error> {
        let mut buf = [0u8; INFO_LEN];
        let mut w = Writer::new(&mut buf);
        w.object(|o| {
            o.str("model", CONFIG.info.name);
            o.str("firmware", CONFIG.info.version);
            o.u64("uptimeSeconds", self.board.uptime_secs());
            o.u64("maxMessageBytes", Limits::DEVICE.max_size as u64);
            o.array("relays", |a| {
                for channel in 0..RELAY_CHANNELS {
                    match self.board.relay(channel) {
                        Some(on) => a.item().bool(on),
                        None => a.item().null(),
                    };
                }
            });
            o.array("offsets", |a| {
                for offset in self.offsets.get() {
                    write_milli(a.item(), i64::from(offset));
                }
            });
        });
        let n = w
            .finish()
            .map_err(|_| Error::internal("device info does not fit"))?;
        let text = core::str::from_utf8(&buf[..n])
            .map_err(|_| Error::internal("device info is not UTF-8"))?;
        Ok(reply.text(Some("application/json"), text))
    }
}

fn reference_form<'m>(
    buf: &'m mut [u8],
    schema: FormSchema<'static>,
    channel: u8,
    reading: &Reading,
) -> Result<Elicitation<'m>, Error> {
    let message = FixedText::format(
        buf,
        format_args!(
            "Calibrating sensor {channel} ({}): hold it at a known reference and enter what \
             a trusted instrument reads, in {}.",
            reading.quantity, reading.unit
        ),
    )?;
    Ok(Elicitation::with_form(message, schema))
}

fn store_form<'m>(
    buf: &'m mut [u8],
    schema: FormSchema<'static>,
    channel: u8,
    raw: i64,
    reference: i64,
    offset: i64,
    unit: &str,
) -> Result<Elicitation<'m>, Error> {
    let message = FixedText::format(
        buf,
        format_args!(
            "Sensor {channel} read {} {unit} against {} {unit}. Store an offset of {} {unit}?",
            Milli(raw),
            Milli(reference),
            Milli(offset)
        ),
    )?;
    Ok(Elicitation::with_form(message, schema))
}

fn sealed_offset(buf: &mut [u8], raw: i64, reference: i64, offset: i64) -> Result<&[u8], Error> {
    let mut w = Writer::new(buf);
    w.object(|o| {
        o.str("stage", "store");
        o.i64("raw", raw);
        o.i64("reference", reference);
        o.i64("offset", offset);
    });
    let n = w
        .finish()
        .map_err(|_| Error::internal("state does not fit"))?;
    Ok(&buf[..n])
}

/// Opens this request's state and reads what the handler needs from it, in a frame of its
/// own: the decoding scratch, sized for the device's own state data ([`STATE_DATA_LEN`]),
/// is gone from the stack before the handler goes on to write its reply or seal new state.
/// `None` on a first call.
#[inline(never)]
fn sealed<T>(
    call: &ToolCall<'_>,
    read: impl FnOnce(Value<'_>) -> Result<T, Error>,
) -> Result<Option<T>, Error> {
    let mut scratch = [0u8; open_scratch_len(STATE_DATA_LEN)];
    match call.open_state(&mut scratch)? {
        Some(state) => read(state).map(Some),
        None => Ok(None),
    }
}

/// Where a calibration stands, from its sealed state.
#[derive(Clone, Copy, Debug)]
enum Calibration {
    /// Waiting for the reference value.
    Reference,
    /// Waiting for the user to store the offset computed from these.
    Store {
        raw: i64,
        reference: i64,
        offset: i32,
    },
}

impl Calibration {
    fn read(state: Value<'_>) -> Result<Calibration, Error> {
        if stage(state, "reference") {
            return Ok(Calibration::Reference);
        }
        if !stage(state, "store") {
            return Err(INVALID_STATE);
        }
        let number = |key: &str| {
            state
                .get(key)
                .and_then(|v| v.as_i64())
                .filter(|n| n.abs() <= MAX_UNITS * 1000)
                .ok_or(INVALID_STATE)
        };
        Ok(Calibration::Store {
            raw: number("raw")?,
            reference: number("reference")?,
            offset: i32::try_from(number("offset")?).map_err(|_| INVALID_STATE)?,
        })
    }
}

/// Whether opened state is at `name`.
fn stage(state: Value<'_>, name: &str) -> bool {
    state
        .get("stage")
        .and_then(|v| v.as_str())
        .is_some_and(|s| s.eq_str(name))
}

/// What the user did, for a result that did not act: `accept` here means "accepted but
/// unchecked".
fn action_name(answer: &ElicitAnswer<'_>) -> &'static str {
    match answer.action() {
        Action::Accept => "accept",
        other => other.name(),
    }
}

impl<B: Board> Registry for Instrument<B> {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        RESOURCES
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        PROMPTS
    }
}

impl<B: Board> Handler for Instrument<B> {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        match call.name() {
            "read_sensor" => self.read_sensor(call, reply),
            "set_relay" => self.set_relay(call, reply),
            "calibrate" => self.calibrate(call, reply),
            _ => Err(Error::internal("tool without a handler")),
        }
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        match call.uri() {
            INFO_URI => self.device_info(reply),
            _ => Ok(reply.not_found()),
        }
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let focus = call.argument("focus").and_then(|f| f.as_plain());
        Ok(reply.messages(Some("Check the bench instrument"), |m| {
            m.user(
                "Read sensors 0, 1 and 2 of the bench instrument with read_sensor (4 samples \
                 each), read device://info, and report any value that looks out of range for \
                 a lab bench (temperature 15-35 Cel, humidity 20-80 %, supply 3.0-3.6 V).",
            );
            if let Some(focus) = focus {
                m.text(
                    snodo_core::server::Role::User,
                    format_args!("Pay particular attention to: {focus}"),
                );
            }
        }))
    }
}
