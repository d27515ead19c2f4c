//! Checking the registry's definitions when a server is made, so that a bad one is found at
//! start-up rather than on the wire: a [`Server`] exists only once its definitions passed.

use super::{Registry, Server};
use crate::json::Limits;
use crate::schema::Options as SchemaOptions;

/// A definition in the registry that is not usable (found by [`Server::check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefinitionError<'r> {
    /// The name of the tool, resource or prompt.
    pub name: &'r str,
    /// What is wrong with it.
    pub problem: &'static str,
}

/// Which definition: its kind and its index in the registry's list of that kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Definition {
    Tool(usize),
    Resource(usize),
    Template(usize),
    Prompt(usize),
}

impl Definition {
    /// The definition's name in `app` (empty when a changing registry no longer has it).
    fn name(self, app: &impl Registry) -> &str {
        let name = match self {
            Definition::Tool(i) => app.tools().get(i).map(|t| t.name),
            Definition::Resource(i) => app.resources().get(i).map(|r| r.name),
            Definition::Template(i) => app.resource_templates().get(i).map(|t| t.name),
            Definition::Prompt(i) => app.prompts().get(i).map(|p| p.name),
        };
        name.unwrap_or("")
    }
}

/// What [`Server::new`] gives back when a definition is not usable: the application, with
/// which definition is wrong and why. It cannot serve.
pub struct Refused<A> {
    app: A,
    definition: Definition,
    problem: &'static str,
}

impl<A: Registry> Refused<A> {
    pub(super) fn new(app: A, definition: Definition, problem: &'static str) -> Self {
        Refused {
            app,
            definition,
            problem,
        }
    }

    /// The definition and what is wrong with it.
    pub fn error(&self) -> DefinitionError<'_> {
        DefinitionError {
            name: self.definition.name(&self.app),
            problem: self.problem,
        }
    }

    /// The application, to fix or to drop.
    pub fn into_app(self) -> A {
        self.app
    }
}

impl<A: Registry> core::fmt::Display for Refused<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let DefinitionError { name, problem } = self.error();
        write!(f, "{name}: {problem}")
    }
}

impl<A: Registry> core::fmt::Debug for Refused<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Refused")
            .field("definition", &self.error())
            .finish_non_exhaustive()
    }
}

impl<A: Registry> core::error::Error for Refused<A> {}

impl<A: Registry> Server<'_, A> {
    /// Verifies the registry (JSON members parse, schemas are objects). [`Server::new`] does
    /// it once; call it again when a registry that changes at run time has changed.
    pub fn check(&self) -> Result<(), DefinitionError<'_>> {
        match self.first_problem() {
            None => Ok(()),
            Some((definition, problem)) => Err(DefinitionError {
                name: definition.name(&self.app),
                problem,
            }),
        }
    }

    /// The first definition that is not usable, and why.
    pub(super) fn first_problem(&self) -> Option<(Definition, &'static str)> {
        let limits = &self.config.limits;
        for (index, tool) in self.app.tools().iter().enumerate() {
            let bad = |problem| (Definition::Tool(index), problem);
            let Ok(schema) = crate::json::parse(tool.input_schema.as_bytes(), limits) else {
                return Some(bad("inputSchema is not valid JSON"));
            };
            if schema.as_object().is_none() {
                return Some(bad("inputSchema must be a JSON object"));
            }
            self.verified.set_input_schema(index, tool);
            if crate::schema::check_schema(schema, &SchemaOptions::DEFAULT).is_err() {
                return Some(bad(
                    "inputSchema uses a keyword wrongly or an unresolvable $ref",
                ));
            }
            if crate::protocol::http::check_annotations(schema).is_err() {
                return Some(bad("inputSchema has an invalid x-mcp-header annotation"));
            }
            let output = tool.output_schema.map(|text| (OUTPUT_SCHEMA, text));
            if let Err(problem) =
                check_members(output, tool.annotations, tool.icons, tool.meta, limits)
            {
                return Some(bad(problem));
            }
        }
        let resources = self.app.resources().iter().enumerate().map(|(i, r)| {
            let members = (r.annotations, r.icons, r.meta);
            (Definition::Resource(i), members)
        });
        let templates = self.app.resource_templates().iter().enumerate();
        let templates =
            templates.map(|(i, t)| (Definition::Template(i), (t.annotations, t.icons, t.meta)));
        let prompts = self.app.prompts().iter().enumerate();
        let prompts = prompts.map(|(i, p)| (Definition::Prompt(i), (None, p.icons, p.meta)));
        resources.chain(templates).chain(prompts).find_map(
            |(definition, (annotations, icons, meta))| {
                check_members(None, annotations, icons, meta, limits)
                    .err()
                    .map(|problem| (definition, problem))
            },
        )
    }
}

/// A JSON member of a definition that must be an object, and what to say when it is not.
type ObjectMember<'t> = (&'static str, &'t str);

const OUTPUT_SCHEMA: &str = "outputSchema must be a JSON object";

/// Checks the JSON members a definition may carry: `extra` (a tool's output schema),
/// `annotations` and `_meta` must be objects, `icons` an array of objects with a string `src`.
fn check_members(
    extra: Option<ObjectMember<'_>>,
    annotations: Option<&str>,
    icons: Option<&str>,
    meta: Option<&str>,
    limits: &Limits,
) -> Result<(), &'static str> {
    let objects = [
        extra,
        annotations.map(|text| ("annotations must be a JSON object", text)),
        meta.map(|text| ("_meta must be a JSON object", text)),
    ];
    for (problem, text) in objects.into_iter().flatten() {
        let parsed = crate::json::parse(text.as_bytes(), limits).map_err(|_| problem)?;
        parsed.as_object().ok_or(problem)?;
    }
    if let Some(text) = icons {
        const ICONS: &str = "icons must be a JSON array of objects with a string src";
        let parsed = crate::json::parse(text.as_bytes(), limits).map_err(|_| ICONS)?;
        let all_have_src = parsed.as_array().ok_or(ICONS)?.iter().all(|icon| {
            icon.as_object()
                .and_then(|o| o.get("src"))
                .is_some_and(|src| src.as_str().is_some())
        });
        if !all_have_src {
            return Err(ICONS);
        }
    }
    Ok(())
}
