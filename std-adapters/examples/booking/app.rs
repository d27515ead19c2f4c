//! A meeting-room booking server on the typed layer: application state (a calendar the tools
//! read and write), a form, a confirmation whose effect runs once however often its last leg
//! is sent, a URL consent and a resource. The same handlers serve 2026-07-28 clients (MRTR
//! legs) and 2025-11-25 clients (`elicitation/create` requests), over stdio and HTTP.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::sync::{Mutex, MutexGuard, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use snodo_std::typed::{
    Action, Cx, Elicited, Flow, Form, NoArgs, Once, Server, Stop, ToolError, TypedApp, UrlConsent,
    questions, resource, server as typed_server, tool,
};

/// The rooms there are.
pub const ROOMS: [&str; 3] = ["ada", "grace", "hopper"];

/// Who booked which room on which day: the application's state, given to the server once.
#[derive(Debug, Default)]
pub struct Calendar(Mutex<BTreeMap<(String, String), Booking>>);

/// One booking.
#[derive(Clone, Debug, Serialize)]
pub struct Booking {
    room: String,
    day: String,
    #[serde(flatten)]
    details: Details,
}

impl Calendar {
    fn bookings(&self) -> MutexGuard<'_, BTreeMap<(String, String), Booking>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_booked(&self, room: &str, day: &str) -> bool {
        let key = (room.to_owned(), day.to_owned());
        self.bookings().contains_key(&key)
    }

    fn book(&self, booking: Booking) -> Result<(), ToolError> {
        let key = (booking.room.clone(), booking.day.clone());
        match self.bookings().entry(key) {
            Entry::Occupied(taken) => {
                let (room, day) = taken.key();
                Err(ToolError::new(format!("{room} is taken on {day}.")))
            }
            Entry::Vacant(free) => {
                free.insert(booking);
                Ok(())
            }
        }
    }
}

#[derive(Deserialize, JsonSchema)]
struct Day {
    /// The day, as YYYY-MM-DD
    day: String,
}

#[derive(Deserialize, JsonSchema)]
struct RoomDay {
    /// One of ada, grace, hopper
    room: String,
    /// The day, as YYYY-MM-DD
    day: String,
}

/// The form's answer, kept in the flow's state until the booking.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
struct Details {
    /// Who hosts the meeting
    #[schemars(length(min = 1, max = 64))]
    host: String,
    /// How many people attend
    #[schemars(range(min = 1, max = 20))]
    attendees: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Book the room
    confirm: bool,
}

questions! {
    static DETAILS: Form<Details> = Form::new("details", "Who hosts the meeting, and how many attend?");
    static CONFIRM: Form<Confirm> = Form::new("confirm", "Book the room?");
    static CATERING: UrlConsent = UrlConsent::new(
        "catering",
        "Order coffee on the catering page?",
        "https://catering.example.com/order",
    );
}

/// What the booking flow has learned so far, sealed between legs (a flow's state is an object).
#[derive(Default, Serialize, Deserialize)]
struct Draft {
    details: Option<Details>,
}

async fn find_rooms(args: Day, cx: Cx<'_>) -> Result<String, Stop> {
    let calendar = cx.data::<Calendar>()?;
    let free: Vec<&str> = ROOMS
        .into_iter()
        .filter(|room| !calendar.is_booked(room, &args.day))
        .collect();
    Ok(format!("Free on {}: {}", args.day, free.join(", ")))
}

/// Details, then a confirmation, then the booking: once per sealed token.
async fn book_room(args: RoomDay, cx: Cx<'_>) -> Result<String, Stop> {
    let calendar = cx.data::<Calendar>()?;
    if !ROOMS.contains(&args.room.as_str()) {
        return Err(ToolError::new(format!("There is no room {}.", args.room)).into());
    }
    let mut flow = Flow::<Draft>::open(cx)?;
    if flow.state().details.is_none() {
        let Elicited::Accepted(details) = flow.ask(&DETAILS)? else {
            return Ok("Nothing was booked.".into());
        };
        flow.state_mut().details = Some(details);
    }
    let Elicited::Accepted(Confirm { confirm: true }) = flow.ask(&CONFIRM)? else {
        return Ok("Nothing was booked.".into());
    };
    // Every leg runs from the top: only what follows `once` is done at most once.
    if flow.once()? == Once::Replayed {
        let (room, day) = (&args.room, &args.day);
        return Ok(format!("This request already booked {room} on {day}."));
    }
    let details = flow.state().details.clone().unwrap_or_default();
    let done = format!(
        "Booked {} on {} for {} ({} people).",
        args.room, args.day, details.host, details.attendees
    );
    let (room, day) = (args.room, args.day);
    calendar.book(Booking { room, day, details })?;
    Ok(done)
}

/// Asks consent to open the catering page: consent is not an order.
async fn order_catering(args: RoomDay, cx: Cx<'_>) -> Result<String, Stop> {
    if !cx.data::<Calendar>()?.is_booked(&args.room, &args.day) {
        return Err(ToolError::new(format!("{} is not booked on {}.", args.room, args.day)).into());
    }
    Ok(match Flow::<()>::open(cx)?.ask(&CATERING)? {
        Action::Accept => "The catering page is open; the order is made there.".into(),
        _ => "No catering.".into(),
    })
}

async fn bookings(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    let calendar = cx.data::<Calendar>()?;
    let all: Vec<Booking> = calendar.bookings().values().cloned().collect();
    Ok(serde_json::to_string(&all)?)
}

/// The booking server, with an empty calendar and the process's own state secret.
pub fn server() -> Server<'static, TypedApp> {
    let built = typed_server("snodo-booking", env!("CARGO_PKG_VERSION"))
        .instructions("Book meeting rooms: find_rooms, book_room, order_catering.")
        .data(Calendar::default())
        .tool(
            tool("find_rooms")
                .description("Lists the rooms free on a day.")
                .run(find_rooms),
        )
        .tool(
            tool("book_room")
                .description("Books a room on a day, asking who hosts and for a confirmation.")
                .run(book_room),
        )
        .tool(
            tool("order_catering")
                .description("Offers the catering page for a booked room.")
                .run(order_catering),
        )
        .resource(
            resource("calendar://bookings", "bookings")
                .mime_type("application/json")
                .read(bookings),
        )
        .build();
    built.unwrap_or_else(|e| panic!("the booking server's definitions are invalid: {e}"))
}
