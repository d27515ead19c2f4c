//! Results the core writes from the registry alone: `server/discover` and the four lists.
//!
//! Cursors are the decimal index of the next item: opaque to clients, checked on the way in.

use super::verified::Verified;
use super::{Config, Registry, ServerCapabilities};
use crate::json::{ObjectWriter, Value, Writer, view_accepted};
use crate::protocol::{Method, SUPPORTED_VERSIONS};

/// A cursor that is not one this server issued.
pub(crate) struct BadCursor;

/// The start index named by `params.cursor` (0 without one).
pub(crate) fn cursor(cursor: Option<Value<'_>>) -> Result<usize, BadCursor> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    let mut buf = [0u8; 16];
    let text = cursor
        .as_str()
        .and_then(|s| s.decode_into(&mut buf))
        .ok_or(BadCursor)?;
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadCursor);
    }
    text.parse().map_err(|_| BadCursor)
}

/// How many entries the list of `method` has.
pub(crate) fn len<A: Registry + ?Sized>(app: &A, method: Method) -> usize {
    match method {
        Method::ToolsList => app.tools().len(),
        Method::ResourcesList => app.resources().len(),
        Method::ResourceTemplatesList => app.resource_templates().len(),
        _ => app.prompts().len(),
    }
}

/// Writes the members of a `DiscoverResult` (without the trailer).
pub(crate) fn discover(
    w: &mut Writer<'_>,
    config: &Config<'_>,
    caps: ServerCapabilities,
    tasks: bool,
) {
    w.raw(b"\"supportedVersions\":");
    w.array(|a| {
        for v in SUPPORTED_VERSIONS {
            a.str(v);
        }
    });
    w.raw(b",\"capabilities\":");
    caps.write(w, tasks);
    if let Some(instructions) = config.instructions {
        w.raw(b",\"instructions\":");
        w.str(instructions);
    }
    w.raw(b",");
}

/// Writes one page of a list (without the trailer). An index past the end is an empty page;
/// [`cursor`] has already refused anything that is not a number.
pub(crate) fn page<A: Registry + ?Sized>(
    w: &mut Writer<'_>,
    config: &Config<'_>,
    app: &A,
    verified: &Verified,
    method: Method,
    start: usize,
) {
    match method {
        Method::ToolsList => items(w, config, "tools", app.tools(), start, |o, index, t| {
            o.str("name", t.name);
            if let Some(title) = t.title {
                o.str("title", title);
            }
            if let Some(d) = t.description {
                o.str("description", d);
            }
            // An input schema a call has already found to parse is not scanned again.
            if verified.input_schema(index, t) {
                o.value("inputSchema", view_accepted(t.input_schema.as_bytes()));
            } else if json_member(o, "inputSchema", t.input_schema, config) {
                verified.set_input_schema(index, t);
            }
            if let Some(s) = t.output_schema {
                json_member(o, "outputSchema", s, config);
            }
            extras(o, config, t.annotations, t.icons, t.meta);
        }),
        Method::ResourcesList => {
            items(w, config, "resources", app.resources(), start, |o, _, r| {
                o.str("uri", r.uri).str("name", r.name);
                optional(o, "title", r.title);
                optional(o, "description", r.description);
                optional(o, "mimeType", r.mime_type);
                if let Some(size) = r.size {
                    o.u64("size", size);
                }
                extras(o, config, r.annotations, r.icons, r.meta);
            })
        }
        Method::ResourceTemplatesList => items(
            w,
            config,
            "resourceTemplates",
            app.resource_templates(),
            start,
            |o, _, t| {
                o.str("uriTemplate", t.uri_template).str("name", t.name);
                optional(o, "title", t.title);
                optional(o, "description", t.description);
                optional(o, "mimeType", t.mime_type);
                extras(o, config, t.annotations, t.icons, t.meta);
            },
        ),
        _ => items(w, config, "prompts", app.prompts(), start, |o, _, p| {
            o.str("name", p.name);
            optional(o, "title", p.title);
            optional(o, "description", p.description);
            if !p.arguments.is_empty() {
                o.array("arguments", |a| {
                    for arg in p.arguments {
                        a.object(|o| {
                            o.str("name", arg.name);
                            optional(o, "title", arg.title);
                            optional(o, "description", arg.description);
                            o.bool("required", arg.required);
                        });
                    }
                });
            }
            extras(o, config, None, p.icons, p.meta);
        }),
    }
}

fn items<T>(
    w: &mut Writer<'_>,
    config: &Config<'_>,
    key: &str,
    all: &[T],
    start: usize,
    item: impl Fn(&mut ObjectWriter<'_, '_>, usize, &T),
) {
    let page = all.get(start..).unwrap_or(&[]);
    let size = config.page_size.max(1);
    let shown = page.len().min(size);
    w.str(key);
    w.raw(b":");
    w.array(|a| {
        for (i, t) in page.iter().take(shown).enumerate() {
            a.object(|o| item(o, start + i, t));
        }
    });
    w.raw(b",");
    if shown < page.len() {
        w.raw(b"\"nextCursor\":\"");
        w.u64((start + shown) as u64);
        w.raw(b"\",");
    }
}

fn optional(o: &mut ObjectWriter<'_, '_>, key: &str, v: Option<&str>) {
    if let Some(v) = v {
        o.str(key, v);
    }
}

/// The JSON members every kind of definition may carry: `annotations`, `icons`, `_meta`.
fn extras(
    o: &mut ObjectWriter<'_, '_>,
    config: &Config<'_>,
    annotations: Option<&str>,
    icons: Option<&str>,
    meta: Option<&str>,
) {
    if let Some(a) = annotations {
        json_member(o, "annotations", a, config);
    }
    if let Some(i) = icons {
        copy_json(o, "icons", i, config, b"[]");
    }
    if let Some(m) = meta {
        json_member(o, "_meta", m, config);
    }
}

/// Copies a JSON object member of a definition (see [`copy_json`]). Whether it parsed.
fn json_member(o: &mut ObjectWriter<'_, '_>, key: &str, json: &str, config: &Config<'_>) -> bool {
    copy_json(o, key, json, config, b"{}")
}

/// Copies a JSON member of a definition; [`super::Server::check`] has verified it parses, and
/// one that does not is written as `fallback` (an empty object or array) rather than as
/// broken JSON. Whether it parsed.
fn copy_json(
    o: &mut ObjectWriter<'_, '_>,
    key: &str,
    json: &str,
    config: &Config<'_>,
    fallback: &[u8],
) -> bool {
    match crate::json::parse(json.as_bytes(), &config.limits) {
        Ok(v) => {
            o.value(key, v);
            true
        }
        Err(_) => {
            o.raw(key, fallback);
            false
        }
    }
}
