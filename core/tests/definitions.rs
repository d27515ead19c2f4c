//! `Server::new` checks the JSON members every kind of definition may carry: a malformed one is
//! refused at start-up, naming the definition and the member, rather than sent on the wire.

use snodo_core::server::{
    Config, DefinitionError, Prompt, Registry, Resource, ResourceTemplate, Server, Tool,
};

#[derive(Default)]
struct Catalogue {
    tools: Vec<Tool<'static>>,
    resources: Vec<Resource<'static>>,
    templates: Vec<ResourceTemplate<'static>>,
    prompts: Vec<Prompt<'static>>,
}

impl Registry for Catalogue {
    fn tools(&self) -> &[Tool<'_>] {
        &self.tools
    }
    fn resources(&self) -> &[Resource<'_>] {
        &self.resources
    }
    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        &self.templates
    }
    fn prompts(&self) -> &[Prompt<'_>] {
        &self.prompts
    }
}

fn check(catalogue: Catalogue) -> Result<(), (String, &'static str)> {
    match Server::new(Config::new("defs", "1"), catalogue) {
        Ok(server) => {
            assert_eq!(server.check(), Ok(()), "a made server checks again");
            Ok(())
        }
        Err(refused) => {
            let DefinitionError { name, problem } = refused.error();
            assert_eq!(refused.to_string(), format!("{name}: {problem}"));
            Err((name.to_owned(), problem))
        }
    }
}

const ICONS: &str = r#"[{"src":"https://example.com/a.png","mimeType":"image/png"}]"#;
const META: &str = r#"{"example.com/x":1}"#;

#[test]
fn well_formed_members_of_every_kind_pass() {
    let catalogue = Catalogue {
        tools: vec![
            Tool::new("t")
                .output_schema(r#"{"type":"object"}"#)
                .annotations(r#"{"readOnlyHint":true}"#)
                .icons(ICONS)
                .meta(META),
        ],
        resources: vec![
            Resource::new("x://r", "r")
                .size(12)
                .annotations(r#"{"priority":1}"#)
                .icons("[]")
                .meta(META),
        ],
        templates: vec![
            ResourceTemplate::new("x://{id}", "tpl")
                .annotations("{}")
                .icons(ICONS),
        ],
        prompts: vec![Prompt::new("p").icons(ICONS).meta(META)],
    };
    assert_eq!(check(catalogue), Ok(()));
}

#[test]
fn each_malformed_member_is_refused_naming_its_definition() {
    let icons = "icons must be a JSON array of objects with a string src";
    let cases: Vec<(Catalogue, &str, &str)> = vec![
        (
            Catalogue {
                tools: vec![Tool::new("t").output_schema("[]")],
                ..Catalogue::default()
            },
            "t",
            "outputSchema must be a JSON object",
        ),
        (
            Catalogue {
                tools: vec![Tool::new("t").icons(r#"{"src":"a"}"#)],
                ..Catalogue::default()
            },
            "t",
            icons,
        ),
        (
            Catalogue {
                tools: vec![Tool::new("t").meta("not json")],
                ..Catalogue::default()
            },
            "t",
            "_meta must be a JSON object",
        ),
        (
            Catalogue {
                resources: vec![Resource::new("x://r", "r").annotations("[1]")],
                ..Catalogue::default()
            },
            "r",
            "annotations must be a JSON object",
        ),
        (
            Catalogue {
                resources: vec![Resource::new("x://r", "r").icons(r#"[{"src":7}]"#)],
                ..Catalogue::default()
            },
            "r",
            icons,
        ),
        (
            Catalogue {
                templates: vec![ResourceTemplate::new("x://{id}", "tpl").meta("1")],
                ..Catalogue::default()
            },
            "tpl",
            "_meta must be a JSON object",
        ),
        (
            Catalogue {
                prompts: vec![Prompt::new("p").icons(r#"[{"mimeType":"image/png"}]"#)],
                ..Catalogue::default()
            },
            "p",
            icons,
        ),
    ];
    for (catalogue, name, problem) in cases {
        assert_eq!(check(catalogue), Err((name.to_owned(), problem)));
    }
}
