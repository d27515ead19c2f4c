//! A meeting-room booking server on the typed layer: a calendar in the server's state, a form,
//! a confirmation that books once however often its last leg is sent, a URL consent and a
//! resource. The same handlers serve 2026-07-28 and 2025-11-25 clients, on stdio and HTTP.

use std::sync::{Mutex, MutexGuard, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use snodo_std::typed::{
    Action, Cx, Elicited, Flow, Form, NoArgs, Once, Server, Stop, ToolError, TypedApp, UrlConsent,
    questions, resource, server as typed_server, tool,
};

const ROOMS: [&str; 3] = ["ada", "grace", "hopper"];

/// Every booking made: the application's state, given to the server once.
#[derive(Default)]
struct Calendar(Mutex<Vec<Booking>>);

#[derive(Serialize)]
struct Booking {
    room: String,
    day: String,
    #[serde(flatten)]
    details: Details,
}

impl Calendar {
    fn bookings(&self) -> MutexGuard<'_, Vec<Booking>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_booked(bookings: &[Booking], room: &str, day: &str) -> bool {
        bookings.iter().any(|b| b.room == room && b.day == day)
    }
}

#[derive(Deserialize, JsonSchema)]
struct RoomDay {
    /// One of ada, grace, hopper
    room: String,
    /// The day, as YYYY-MM-DD
    day: String,
}

/// The form's answer, kept in the flow's state until the booking.
#[derive(Clone, Default, Serialize, Deserialize, JsonSchema)]
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

/// Details, then a confirmation, then the booking: once per sealed token. The flow keeps the
/// details between legs (its state is sealed into the token the client sends back).
async fn book_room(RoomDay { room, day }: RoomDay, cx: Cx<'_>) -> Result<String, Stop> {
    let calendar = cx.data::<Calendar>()?;
    if !ROOMS.contains(&room.as_str()) {
        return Err(ToolError::new(format!("There is no room {room}.")).into());
    }
    let mut flow = Flow::<Option<Details>>::open(cx)?;
    if flow.state().is_none() {
        let Elicited::Accepted(details) = flow.ask(&DETAILS)? else {
            return Ok("Nothing was booked.".into());
        };
        *flow.state_mut() = Some(details);
    }
    let Elicited::Accepted(Confirm { confirm: true }) = flow.ask(&CONFIRM)? else {
        return Ok("Nothing was booked.".into());
    };
    // Every leg runs from the top: only what follows `once` is done at most once.
    if flow.once()? == Once::Replayed {
        return Ok(format!("This request already booked {room} on {day}."));
    }
    let details = flow.state().clone().unwrap_or_default();
    let Details { host, attendees } = &details;
    let done = format!("Booked {room} on {day} for {host} ({attendees} people).");
    let mut bookings = calendar.bookings();
    if Calendar::is_booked(&bookings, &room, &day) {
        return Err(ToolError::new(format!("{room} is taken on {day}.")).into());
    }
    bookings.push(Booking { room, day, details });
    Ok(done)
}

/// Asks consent to open the catering page: consent is not an order.
async fn order_catering(RoomDay { room, day }: RoomDay, cx: Cx<'_>) -> Result<String, Stop> {
    if !Calendar::is_booked(&cx.data::<Calendar>()?.bookings(), &room, &day) {
        return Err(ToolError::new(format!("{room} is not booked on {day}.")).into());
    }
    Ok(match Flow::<()>::open(cx)?.ask(&CATERING)? {
        Action::Accept => "The catering page is open; the order is made there.".into(),
        _ => "No catering.".into(),
    })
}

async fn bookings(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
    Ok(serde_json::to_string(&*cx.data::<Calendar>()?.bookings())?)
}

/// The booking server, with an empty calendar and the process's own state secret.
pub fn server() -> Server<'static, TypedApp> {
    typed_server("snodo-booking", env!("CARGO_PKG_VERSION"))
        .instructions("Book meeting rooms with book_room; see them in calendar://bookings.")
        .data(Calendar::default())
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
        .build()
        .unwrap_or_else(|e| panic!("the booking server's definitions are invalid: {e}"))
}
