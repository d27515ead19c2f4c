//! Multi round-trip flows as straight-line code.
//!
//! A [`Flow`] keeps the handler's typed partial answers in sealed state and remembers, in the
//! same token, which questions the last round asked. [`Flow::ask`] then returns an answer only
//! to a question that was asked (an answer sent early, or without state, is not taken) and
//! otherwise stops the handler with an `input_required` result asking it, carrying the state
//! as it is at that moment. Each leg runs the handler from the top: what earlier legs learned
//! is in [`Flow::state`].

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use snodo_core::server::Error;

use super::context::{Ask, Cx, Stop};
use super::question::Question;

/// The member of the sealed data that lists the questions the last round asked.
const ASKED: &str = "$asked";

/// The member of the sealed data that tells this flow from another with the same state,
/// arguments and caller started in the same second, so their tokens differ (see
/// [`Flow::once`]).
const FLOW: &str = "$flow";

/// A flow over typed state `S` (serialized as a JSON object; `()` for a flow that keeps
/// nothing but what it asked, or an `Option` of an object that is `None` until it is set;
/// `Default` on the first leg).
///
/// ```
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use snodo_std::typed::{questions, Cx, Elicited, Flow, Form, NoArgs, Stop};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Color { color: String }
/// #[derive(Deserialize, JsonSchema)]
/// struct Style { style: String }
///
/// questions! {
///     static COLOR: Form<Color> = Form::new("color", "Choose a color");
///     static STYLE: Form<Style> = Form::new("style", "Choose a style");
/// }
///
/// #[derive(Default, Serialize, Deserialize)]
/// struct Chosen { color: Option<String> }
///
/// async fn preview(_: NoArgs, cx: Cx<'_>) -> Result<String, Stop> {
///     let mut flow = Flow::<Chosen>::open(cx)?;
///     if flow.state().color.is_none() {
///         match flow.ask(&COLOR)? {
///             Elicited::Accepted(c) => flow.state_mut().color = Some(c.color),
///             refused => return Ok(refused.action().name().to_owned()),
///         }
///     }
///     match flow.ask(&STYLE)? {
///         Elicited::Accepted(s) => Ok(format!("{:?} {}", flow.state().color, s.style)),
///         refused => Ok(refused.action().name().to_owned()),
///     }
/// }
/// ```
#[derive(Debug)]
pub struct Flow<'a, S> {
    cx: Cx<'a>,
    state: S,
    asked: Vec<String>,
    flow: u64,
    resumed: bool,
}

impl<'a, S: Serialize + DeserializeOwned + Default> Flow<'a, S> {
    /// Opens the state the request carries (the one -32602 "Invalid request state" if it does
    /// not open for this request), or starts with `S::default()`.
    pub fn open(cx: Cx<'a>) -> Result<Self, Error> {
        let opened = cx.open_with(|bytes| {
            let Framework { asked, flow } = serde_json::from_slice(bytes).ok()?;
            let mut data: Map<String, Value> = serde_json::from_slice(bytes).ok()?;
            data.remove(ASKED);
            data.remove(FLOW);
            // A state that serialized as `null` (`()`, or `None`) was sealed as an empty
            // object: read it back as `null` first, so `None` does not come back `Some`.
            let null = data
                .is_empty()
                .then(|| serde_json::from_value(Value::Null).ok());
            let state = null
                .flatten()
                .or_else(|| serde_json::from_value(Value::Object(data)).ok())?;
            Some((state, asked, flow))
        })?;
        let resumed = opened.is_some();
        let (state, asked, flow) = opened.unwrap_or_else(|| (S::default(), Vec::new(), new_flow()));
        Ok(Flow {
            cx,
            state,
            asked,
            flow,
            resumed,
        })
    }

    /// The partial answers so far.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The partial answers, to record one (sealed when the flow next asks).
    pub fn state_mut(&mut self) -> &mut S {
        &mut self.state
    }

    /// Whether the request carried this flow's state (not the first leg).
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// Whether this leg's token is used for the first time (see [`Cx::once`]): call it on
    /// the leg whose effect must run once, after its last answer is in.
    pub fn once(&self) -> Result<super::Once, Error> {
        // `open` has checked the token already.
        self.cx.consume()
    }

    /// The request's context (time, principal, progress).
    pub fn cx(&mut self) -> &mut Cx<'a> {
        &mut self.cx
    }

    /// The answer to `question` if the last round asked it and the client answered; otherwise
    /// stops with `input_required` asking it, with the state sealed. An answer that does not
    /// fit is the generic -32602.
    pub fn ask<Q: Question>(&self, question: &Q) -> Result<Q::Answer, Stop> {
        if self.was_asked(question.key()) {
            if let Some(answer) = self.cx.answer(question)? {
                return Ok(answer);
            }
        }
        Err(self.asking(Ask::new().question(question), &[question.key()]))
    }

    /// Like [`Flow::ask`] for several questions asked in one round: all their answers, or
    /// `input_required` asking all of them again.
    pub fn ask_all<Q: Questions>(&self, questions: Q) -> Result<Q::Answers, Stop> {
        let keys = questions.keys();
        if keys.iter().all(|k| self.was_asked(k)) {
            if let Some(answers) = questions.read(&self.cx)? {
                return Ok(answers);
            }
        }
        Err(self.asking(questions.ask(Ask::new()), &keys))
    }

    /// Stops with state only, asking nothing: the client retries at once with the state.
    pub fn continue_with_state(&self) -> Stop {
        self.asking(Ask::new(), &[])
    }

    fn was_asked(&self, key: &str) -> bool {
        self.asked.iter().any(|k| k == key)
    }

    fn asking(&self, ask: Ask, keys: &[&str]) -> Stop {
        ask.seal_bytes(self.sealed_data(keys)).into()
    }

    /// The state's JSON object with the framework's member added.
    fn sealed_data(&self, keys: &[&str]) -> Result<Vec<u8>, Error> {
        const NOT_AN_OBJECT: Error = Error::internal("flow state must serialize to a JSON object");
        let mut data = serde_json::to_vec(&self.state).map_err(|_| NOT_AN_OBJECT)?;
        if data == b"null" {
            // `()`: nothing of the handler's to keep.
            data = b"{}".to_vec();
        }
        if data.first() != Some(&b'{') || data.pop() != Some(b'}') {
            return Err(NOT_AN_OBJECT);
        }
        if data.len() > 1 {
            data.push(b',');
        }
        data.extend_from_slice(b"\"$asked\":");
        serde_json::to_writer(&mut data, keys).map_err(|_| NOT_AN_OBJECT)?;
        data.extend_from_slice(b",\"$flow\":");
        serde_json::to_writer(&mut data, &self.flow).map_err(|_| NOT_AN_OBJECT)?;
        data.push(b'}');
        Ok(data)
    }
}

/// A new flow's identity: random, or 0 if the system gives no randomness (then two flows
/// started in the same second with the same state share tokens, and `once` sees the second
/// as a replay: the safe side).
fn new_flow() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_or(0, |()| u64::from_le_bytes(bytes))
}

/// The framework's members of the sealed data.
#[derive(Deserialize)]
struct Framework {
    #[serde(rename = "$asked", default)]
    asked: Vec<String>,
    #[serde(rename = "$flow", default)]
    flow: u64,
}

/// Several questions asked in one round: tuples of two or three `&Question`s.
///
/// ```
/// use snodo_std::typed::{questions, Questions, RootsRequest, Sampling};
///
/// questions! {
///     static ROOTS: RootsRequest = RootsRequest::new("roots");
///     static SUGGEST: Sampling = Sampling::new(
///         "suggestion",
///         r#"{"messages":[{"role":"user","content":{"type":"text","text":"A color?"}}],"maxTokens":8}"#,
///     );
/// }
/// assert_eq!((&SUGGEST, &ROOTS).keys(), ["suggestion", "roots"]);
/// ```
pub trait Questions {
    /// The answers, in the same order.
    type Answers;

    /// The keys, in order.
    fn keys(&self) -> Vec<&'static str>;

    /// Adds every question to `ask`.
    fn ask(&self, ask: Ask) -> Ask;

    /// All answers, or `None` if any is missing.
    fn read(&self, cx: &Cx<'_>) -> Result<Option<Self::Answers>, Error>;
}

macro_rules! questions_tuple {
    ($($q:ident $i:tt),+) => {
        impl<$($q: Question),+> Questions for ($(&$q,)+) {
            type Answers = ($($q::Answer,)+);

            fn keys(&self) -> Vec<&'static str> {
                vec![$(self.$i.key()),+]
            }

            fn ask(&self, ask: Ask) -> Ask {
                ask$(.question(self.$i))+
            }

            fn read(&self, cx: &Cx<'_>) -> Result<Option<Self::Answers>, Error> {
                Ok(Some(($(
                    match cx.answer(self.$i)? {
                        Some(answer) => answer,
                        None => return Ok(None),
                    },
                )+)))
            }
        }
    };
}

questions_tuple!(A 0, B 1);
questions_tuple!(A 0, B 1, C 2);
