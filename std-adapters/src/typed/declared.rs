//! The questions of the whole binary: each one declared with [`questions!`](crate::questions)
//! is collected at link time, so [`ServerBuilder::build`](super::ServerBuilder::build) checks
//! every form, URL consent and sampling request a handler can ask, listed with `asks` or not.
//! A question cannot be made outside the macro: its constructors are not public API.

use crate::CheckError;

use super::question::Question;

/// A question's check, object-safe (a [`Question`]'s answer type keeps it from being `dyn`).
trait Checked: Sync {
    fn problem(&self) -> Option<String>;
}

impl<Q: Question> Checked for Q {
    fn problem(&self) -> Option<String> {
        Question::problem(self)
    }
}

/// One `static` declared with [`questions!`](crate::questions), and where: the file and line
/// of its `questions!` (a macro cannot see a token's own line) and its place in that block.
#[doc(hidden)]
pub struct Declared {
    question: &'static dyn Checked,
    name: &'static str,
    file: &'static str,
    line: u32,
    order: u32,
}

impl Declared {
    /// The entry `questions!` submits for the `static` `name`, `order`th in its block.
    pub const fn new<Q: Question + 'static>(
        question: &'static Q,
        name: &'static str,
        (file, line, order): (&'static str, u32, u32),
    ) -> Self {
        Declared {
            question,
            name,
            file,
            line,
            order,
        }
    }
}

impl std::fmt::Display for Declared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (questions! at {}:{})",
            self.name, self.file, self.line
        )
    }
}

impl std::fmt::Debug for Declared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

inventory::collect!(Declared);

/// The first (in source order) declared question that is not well formed, named by its
/// `static`, the `questions!` it is declared in, its key and the field at fault.
pub(crate) fn first_problem() -> Option<CheckError> {
    let mut refused: Vec<(&Declared, String)> = inventory::iter::<Declared>
        .into_iter()
        .filter_map(|declared| Some((declared, declared.question.problem()?)))
        .collect();
    refused.sort_by_key(|(declared, _)| (declared.file, declared.line, declared.order));
    let (declared, problem) = refused.into_iter().next()?;
    Some(CheckError {
        name: declared.to_string(),
        problem,
    })
}

/// Declares the questions handlers ask, as `static`s that every server's
/// [`build`](super::ServerBuilder::build) checks: a form whose type is not the protocol's
/// flat subset, a URL that is not `http(s)` or sampling params that do not parse make every
/// server in the binary refuse to build, naming the `static`, the file and line of its
/// `questions!`, the question's key and the field. Questions exist only through this macro,
/// so none escapes the check. (One binary's servers share its questions: a test that wants a
/// refused question keeps it in a test binary of its own.)
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use snodo_std::typed::{Form, Question, RootsRequest, UrlConsent, questions};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Color {
///     color: String,
/// }
///
/// questions! {
///     /// The color form.
///     static COLOR: Form<Color> = Form::new("color", "Choose a color");
///     pub static CONSENT: UrlConsent = UrlConsent::new("consent", "Open the page", "https://example.com");
///     static ROOTS: RootsRequest = RootsRequest::new("roots");
/// }
///
/// assert_eq!((COLOR.key(), CONSENT.key(), ROOTS.key()), ("color", "consent", "roots"));
/// ```
///
/// Outside the macro a question does not compile:
///
/// ```compile_fail
/// use snodo_std::typed::UrlConsent;
///
/// static CONSENT: UrlConsent = UrlConsent::new("consent", "Open the page", "https://example.com");
/// ```
#[macro_export]
macro_rules! questions {
    (@next $order:expr;) => {};
    (@next $order:expr;
        $(#[$attr:meta])*
        $vis:vis static $name:ident : $ty:ty = $kind:ident :: new ( $($arg:expr),* $(,)? );
        $($rest:tt)*
    ) => {
        $(#[$attr])*
        $vis static $name: $ty = $kind::__declared($($arg),*);
        $crate::typed::__private::inventory::submit! {
            $crate::typed::__private::Declared::new(
                &$name,
                stringify!($name),
                (file!(), line!(), $order),
            )
        }
        $crate::questions!(@next $order + 1; $($rest)*);
    };
    ($($questions:tt)*) => {
        $crate::questions!(@next 0; $($questions)*);
    };
}
