//! The application's side of input requests: a handler per kind, each optional.

use super::{
    Abort, Answer, Answered, Ask, FormRequest, InputKind, InputRequest, RootsRequest,
    SamplingRequest, UrlRequest,
};
use crate::protocol::ClientCapabilities;

/// Answers input requests, one method per kind. Every method is optional; [`installed`]
/// names the ones implemented, and only those are declared as client capabilities, so a
/// conforming server never asks for the others. (An input request of a kind not installed is
/// [`ClientError::MissingHandler`](super::ClientError::MissingHandler) before any method is
/// called.)
///
/// [`Handlers`] builds one from closures and computes [`installed`] itself.
///
/// [`installed`]: InputHandler::installed
pub trait InputHandler {
    /// The capabilities the implemented methods answer: any of
    /// [`ClientCapabilities::ELICITATION_FORM`], [`ClientCapabilities::ELICITATION_URL`],
    /// [`ClientCapabilities::SAMPLING`] (with `SAMPLING_TOOLS` or `SAMPLING_CONTEXT` when the
    /// sampling handler supports them) and [`ClientCapabilities::ROOTS`].
    fn installed(&self) -> ClientCapabilities;

    /// Answers a form elicitation: [`Answer::accept`], [`Answer::decline`] or
    /// [`Answer::cancel`].
    fn elicit_form(
        &mut self,
        request: &FormRequest<'_>,
        answer: Answer<'_, '_>,
    ) -> Result<Answered, Abort> {
        let _ = (request, answer);
        Err(NOT_INSTALLED)
    }

    /// Answers a URL elicitation: [`Answer::consent`], [`Answer::decline`] or
    /// [`Answer::cancel`]. Consent is not completion: the server checks the outcome of the
    /// external interaction itself.
    fn elicit_url(
        &mut self,
        request: &UrlRequest<'_>,
        answer: Answer<'_, '_>,
    ) -> Result<Answered, Abort> {
        let _ = (request, answer);
        Err(NOT_INSTALLED)
    }

    /// Answers a sampling request, e.g. [`Answer::sampled_text`].
    fn create_message(
        &mut self,
        request: &SamplingRequest<'_>,
        answer: Answer<'_, '_>,
    ) -> Result<Answered, Abort> {
        let _ = (request, answer);
        Err(NOT_INSTALLED)
    }

    /// Answers a roots request: [`Answer::roots`].
    fn list_roots(
        &mut self,
        request: &RootsRequest<'_>,
        answer: Answer<'_, '_>,
    ) -> Result<Answered, Abort> {
        let _ = (request, answer);
        Err(NOT_INSTALLED)
    }
}

const NOT_INSTALLED: Abort = Abort::new("no handler is installed for this kind of input");

/// No handlers: declares no capability (right for lists, discovery and any operation that
/// must not ask for input).
impl InputHandler for () {
    fn installed(&self) -> ClientCapabilities {
        ClientCapabilities::NONE
    }
}

impl<H: InputHandler + ?Sized> InputHandler for &mut H {
    fn installed(&self) -> ClientCapabilities {
        (**self).installed()
    }
    fn elicit_form(&mut self, r: &FormRequest<'_>, a: Answer<'_, '_>) -> Result<Answered, Abort> {
        (**self).elicit_form(r, a)
    }
    fn elicit_url(&mut self, r: &UrlRequest<'_>, a: Answer<'_, '_>) -> Result<Answered, Abort> {
        (**self).elicit_url(r, a)
    }
    fn create_message(
        &mut self,
        r: &SamplingRequest<'_>,
        a: Answer<'_, '_>,
    ) -> Result<Answered, Abort> {
        (**self).create_message(r, a)
    }
    fn list_roots(&mut self, r: &RootsRequest<'_>, a: Answer<'_, '_>) -> Result<Answered, Abort> {
        (**self).list_roots(r, a)
    }
}

/// Calls the method of `handler` for `request`'s kind.
pub(crate) fn dispatch(
    handler: &mut (impl InputHandler + ?Sized),
    request: &InputRequest<'_>,
    answer: Answer<'_, '_>,
) -> Result<Answered, Abort> {
    match &request.ask {
        Ask::Form(r) => handler.elicit_form(r, answer),
        Ask::Url(r) => handler.elicit_url(r, answer),
        Ask::Sampling(r) => handler.create_message(r, answer),
        Ask::Roots(r) => handler.list_roots(r, answer),
    }
}

/// The place of a kind that has no handler in [`Handlers`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Unset;

/// One kind's place in [`Handlers`]: [`Unset`], or a closure answering that kind.
pub trait Slot<R> {
    /// Whether a handler is installed here.
    const INSTALLED: bool;
    /// Calls the handler.
    fn answer(&mut self, request: &R, answer: Answer<'_, '_>) -> Result<Answered, Abort>;
}

impl<R> Slot<R> for Unset {
    const INSTALLED: bool = false;
    fn answer(&mut self, _: &R, _: Answer<'_, '_>) -> Result<Answered, Abort> {
        Err(NOT_INSTALLED)
    }
}

macro_rules! slot {
    ($request:ident) => {
        impl<F> Slot<$request<'_>> for F
        where
            F: FnMut(&$request<'_>, Answer<'_, '_>) -> Result<Answered, Abort>,
        {
            const INSTALLED: bool = true;
            fn answer(
                &mut self,
                request: &$request<'_>,
                answer: Answer<'_, '_>,
            ) -> Result<Answered, Abort> {
                self(request, answer)
            }
        }
    };
}

slot!(FormRequest);
slot!(UrlRequest);
slot!(SamplingRequest);
slot!(RootsRequest);

/// An [`InputHandler`] made of closures, each kind optional; it declares exactly the kinds
/// that have one.
///
/// ```
/// use snodo_core::client::{Handlers, InputHandler, ClientCapabilities};
///
/// let handlers = Handlers::new()
///     .form(|_request, answer| Ok(answer.accept(|c| { c.str("color", "teal"); })))
///     .roots(|_request, answer| Ok(answer.roots(|r| { r.root("file:///work", None); })));
/// assert_eq!(
///     handlers.installed(),
///     ClientCapabilities::ELICITATION_FORM.union(ClientCapabilities::ROOTS)
/// );
/// ```
#[derive(Clone, Copy, Default)]
pub struct Handlers<F = Unset, U = Unset, S = Unset, R = Unset> {
    form: F,
    url: U,
    sampling: S,
    sampling_extra: ClientCapabilities,
    roots: R,
}

impl<F, U, S, R> core::fmt::Debug for Handlers<F, U, S, R>
where
    Self: InputHandler,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Handlers")
            .field("installed", &self.installed())
            .finish()
    }
}

impl Handlers {
    /// No handlers yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<F, U, S, R> Handlers<F, U, S, R> {
    /// Answers form elicitations with `f`.
    pub fn form<G>(self, f: G) -> Handlers<G, U, S, R>
    where
        G: FnMut(&FormRequest<'_>, Answer<'_, '_>) -> Result<Answered, Abort>,
    {
        Handlers {
            form: f,
            url: self.url,
            sampling: self.sampling,
            sampling_extra: self.sampling_extra,
            roots: self.roots,
        }
    }

    /// Answers URL elicitations with `f`.
    pub fn url<G>(self, f: G) -> Handlers<F, G, S, R>
    where
        G: FnMut(&UrlRequest<'_>, Answer<'_, '_>) -> Result<Answered, Abort>,
    {
        Handlers {
            form: self.form,
            url: f,
            sampling: self.sampling,
            sampling_extra: self.sampling_extra,
            roots: self.roots,
        }
    }

    /// Answers sampling requests with `f` (plain sampling: no tools, no context; see
    /// [`Handlers::sampling_supports`]).
    pub fn sampling<G>(self, f: G) -> Handlers<F, U, G, R>
    where
        G: FnMut(&SamplingRequest<'_>, Answer<'_, '_>) -> Result<Answered, Abort>,
    {
        Handlers {
            form: self.form,
            url: self.url,
            sampling: f,
            sampling_extra: self.sampling_extra,
            roots: self.roots,
        }
    }

    /// Answers roots requests with `f`.
    pub fn roots<G>(self, f: G) -> Handlers<F, U, S, G>
    where
        G: FnMut(&RootsRequest<'_>, Answer<'_, '_>) -> Result<Answered, Abort>,
    {
        Handlers {
            form: self.form,
            url: self.url,
            sampling: self.sampling,
            sampling_extra: self.sampling_extra,
            roots: f,
        }
    }

    /// Also declares `sampling.tools` and/or `sampling.context` (only those two count) when
    /// a sampling handler is installed.
    #[must_use]
    pub fn sampling_supports(mut self, extra: ClientCapabilities) -> Self {
        self.sampling_extra = extra.intersection(
            ClientCapabilities::SAMPLING_TOOLS.union(ClientCapabilities::SAMPLING_CONTEXT),
        );
        self
    }
}

impl<F, U, S, R> InputHandler for Handlers<F, U, S, R>
where
    F: for<'r> Slot<FormRequest<'r>>,
    U: for<'r> Slot<UrlRequest<'r>>,
    S: for<'r> Slot<SamplingRequest<'r>>,
    R: for<'r> Slot<RootsRequest<'r>>,
{
    fn installed(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::NONE;
        if <F as Slot<FormRequest<'static>>>::INSTALLED {
            caps = caps.union(InputKind::Form.capability());
        }
        if <U as Slot<UrlRequest<'static>>>::INSTALLED {
            caps = caps.union(InputKind::Url.capability());
        }
        if <S as Slot<SamplingRequest<'static>>>::INSTALLED {
            caps = caps
                .union(InputKind::Sampling.capability())
                .union(self.sampling_extra);
        }
        if <R as Slot<RootsRequest<'static>>>::INSTALLED {
            caps = caps.union(InputKind::Roots.capability());
        }
        caps
    }

    fn elicit_form(&mut self, r: &FormRequest<'_>, a: Answer<'_, '_>) -> Result<Answered, Abort> {
        self.form.answer(r, a)
    }

    fn elicit_url(&mut self, r: &UrlRequest<'_>, a: Answer<'_, '_>) -> Result<Answered, Abort> {
        self.url.answer(r, a)
    }

    fn create_message(
        &mut self,
        r: &SamplingRequest<'_>,
        a: Answer<'_, '_>,
    ) -> Result<Answered, Abort> {
        self.sampling.answer(r, a)
    }

    fn list_roots(&mut self, r: &RootsRequest<'_>, a: Answer<'_, '_>) -> Result<Answered, Abort> {
        self.roots.answer(r, a)
    }
}
