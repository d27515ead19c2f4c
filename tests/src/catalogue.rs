//! What a fixture application lists, built once as a `const` ([`Catalogue`]) and served by
//! the [`Registry`](snodo_core::server::Registry) impl [`registry!`](crate::registry) writes
//! from it; and the handler-run counter the fixtures share ([`Runs`]).

use core::sync::atomic::{AtomicUsize, Ordering};

use snodo_core::server::{Prompt, Resource, ResourceTemplate, Tool};

/// A fixture's tools, resources, templates and prompts, and whether it completes arguments.
///
/// ```
/// use snodo_core::server::Tool;
/// use snodo_tests::catalogue::Catalogue;
///
/// const TOOLS: &[Tool<'static>] = &[Tool::new("noop")];
/// const CATALOGUE: Catalogue = Catalogue::new().tools(TOOLS).with_completions();
/// assert_eq!(CATALOGUE.tools.len(), 1);
/// assert!(CATALOGUE.resources.is_empty() && CATALOGUE.completions);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Catalogue {
    /// Tools, in list order.
    pub tools: &'static [Tool<'static>],
    /// Resources with fixed URIs.
    pub resources: &'static [Resource<'static>],
    /// Resource templates.
    pub templates: &'static [ResourceTemplate<'static>],
    /// Prompts.
    pub prompts: &'static [Prompt<'static>],
    /// Whether `completion/complete` is offered.
    pub completions: bool,
}

impl Catalogue {
    /// Nothing listed, no completions.
    pub const fn new() -> Self {
        Catalogue {
            tools: &[],
            resources: &[],
            templates: &[],
            prompts: &[],
            completions: false,
        }
    }

    /// With these tools.
    pub const fn tools(self, tools: &'static [Tool<'static>]) -> Self {
        Catalogue { tools, ..self }
    }

    /// With these fixed resources.
    pub const fn resources(self, resources: &'static [Resource<'static>]) -> Self {
        Catalogue { resources, ..self }
    }

    /// With these resource templates.
    pub const fn templates(self, templates: &'static [ResourceTemplate<'static>]) -> Self {
        Catalogue { templates, ..self }
    }

    /// With these prompts.
    pub const fn prompts(self, prompts: &'static [Prompt<'static>]) -> Self {
        Catalogue { prompts, ..self }
    }

    /// Offering `completion/complete`.
    pub const fn with_completions(self) -> Self {
        Catalogue {
            completions: true,
            ..self
        }
    }
}

impl Default for Catalogue {
    fn default() -> Self {
        Catalogue::new()
    }
}

/// Implements [`Registry`](snodo_core::server::Registry) for an application type from a
/// [`Catalogue`] (a `const` or any expression of that type): `registry!(App => CATALOGUE);`,
/// with the core's default capabilities (each family that has entries). An application whose
/// tool list changes at run time and that advertises capabilities of its own names both:
/// `registry!(App => CATALOGUE, tools(app) = app.tools_now(), capabilities = CAPABILITIES);`.
#[macro_export]
macro_rules! registry {
    ($app:ty => $catalogue:expr) => {
        $crate::registry!(@impl $app => $catalogue, tools(_app) = $catalogue.tools, {});
    };
    ($app:ty => $catalogue:expr, tools($this:ident) = $tools:expr, capabilities = $caps:expr) => {
        $crate::registry!(@impl $app => $catalogue, tools($this) = $tools, {
            fn capabilities(&self) -> ::snodo_core::server::ServerCapabilities {
                $caps
            }
        });
    };
    (@impl $app:ty => $catalogue:expr, tools($this:ident) = $tools:expr, { $($more:tt)* }) => {
        impl ::snodo_core::server::Registry for $app {
            fn tools(&self) -> &[::snodo_core::server::Tool<'_>] {
                let $this = self;
                $tools
            }

            fn resources(&self) -> &[::snodo_core::server::Resource<'_>] {
                $catalogue.resources
            }

            fn resource_templates(&self) -> &[::snodo_core::server::ResourceTemplate<'_>] {
                $catalogue.templates
            }

            fn prompts(&self) -> &[::snodo_core::server::Prompt<'_>] {
                $catalogue.prompts
            }

            fn completions(&self) -> bool {
                $catalogue.completions
            }

            $($more)*
        }
    };
}

/// How many times a fixture's handlers have run, so a test can prove that the core refused
/// a request before any handler ran.
#[derive(Debug, Default)]
pub struct Runs(AtomicUsize);

impl Runs {
    /// No runs yet.
    pub const fn new() -> Self {
        Runs(AtomicUsize::new(0))
    }

    /// Counts one run.
    pub fn ran(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    /// The runs so far.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}
