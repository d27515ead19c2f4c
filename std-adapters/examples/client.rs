//! A terminal MCP client: connects to a server over stdio or Streamable HTTP, lists its
//! tools, or calls one and asks you in the terminal whenever the server asks for input (form
//! fields, consent to open a URL). Multi round-trip requests, sealed state included, are the
//! client's business; this file only talks to you.
//!
//! ```text
//! client (--stdio COMMAND... | --http URL) [--call TOOL [ARGUMENTS_JSON]]
//! ```
//!
//! For example, against the `preferences` example:
//!
//! ```text
//! cargo build -p snodo-std --examples
//! target/debug/examples/client --call preference_preview '{"subject":"desk lamp"}' \
//!     --stdio target/debug/examples/preferences --stdio
//! ```
//!
//! Questions go to standard error and answers are read from standard input, one line each,
//! so answers can also be piped in. At the first question of a form, an empty line accepts,
//! `decline` or `cancel` answer so; the end of input cancels.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use snodo_std::client::{
    Client, ClientBuilder, ClientError, ElicitResult, FormRequest, HandlerError, UrlRequest,
};
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};
use tokio::sync::Mutex;

const USAGE: &str =
    "usage: client (--stdio COMMAND... | --http URL) [--call TOOL [ARGUMENTS_JSON]]";

/// Where the server is.
enum Server {
    Stdio(Vec<String>),
    Http(String),
}

/// What to do there.
struct Args {
    server: Server,
    call: Option<(String, Value)>,
}

fn parse_args(mut args: Vec<String>) -> Result<Args, String> {
    let mut call = None;
    if let Some(at) = args.iter().position(|a| a == "--call") {
        let tool = args.get(at + 1).ok_or("--call needs a tool name")?.clone();
        let arguments = match args.get(at + 2).filter(|a| !a.starts_with("--")) {
            Some(text) => {
                let value: Value = serde_json::from_str(text)
                    .map_err(|e| format!("the arguments are not JSON: {e}"))?;
                args.remove(at + 2);
                value
            }
            None => Value::Object(Map::new()),
        };
        args.drain(at..at + 2);
        call = Some((tool, arguments));
    }
    let server = match args.first().map(String::as_str) {
        Some("--stdio") if args.len() > 1 => Server::Stdio(args.split_off(1)),
        Some("--http") if args.len() == 2 => Server::Http(args.swap_remove(1)),
        _ => return Err(USAGE.to_owned()),
    };
    Ok(Args { server, call })
}

/// Standard input, one answer per line, shared by the handlers.
type Answers = Arc<Mutex<Lines<BufReader<Stdin>>>>;

/// Asks `question` on standard error and reads one line (`None` at the end of input).
async fn ask(answers: &Answers, question: &str) -> Option<String> {
    eprint!("{question}");
    match answers.lock().await.next_line().await {
        Ok(Some(line)) => Some(line.trim().to_owned()),
        _ => None,
    }
}

/// Reads one field of a form as the JSON its schema asks for; `None` to leave it out.
fn field_value(schema: &Value, text: &str) -> Result<Option<Value>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let value = match schema["type"].as_str() {
        Some("integer") => json!(text.parse::<i64>().map_err(|_| "a whole number, please")?),
        Some("number") => json!(text.parse::<f64>().map_err(|_| "a number, please")?),
        Some("boolean") => match text {
            "y" | "yes" | "true" => json!(true),
            "n" | "no" | "false" => json!(false),
            _ => return Err("yes or no, please".into()),
        },
        Some("array") => json!(text.split(',').map(str::trim).collect::<Vec<_>>()),
        _ => json!(text),
    };
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(&value) {
            return Err(format!("one of {}, please", Value::Array(allowed.clone())));
        }
    }
    Ok(Some(value))
}

/// Fills in a form field by field.
async fn fill_form(answers: Answers, form: FormRequest) -> Result<ElicitResult, HandlerError> {
    eprintln!("\n{}", form.message);
    let start = ask(&answers, "[Enter to answer, or decline / cancel] ").await;
    match start.as_deref() {
        None | Some("cancel") => return Ok(ElicitResult::cancel()),
        Some("decline") => return Ok(ElicitResult::decline()),
        Some(_) => {}
    }
    let empty = Map::new();
    let properties = form.requested_schema["properties"]
        .as_object()
        .unwrap_or(&empty);
    let required: Vec<&str> = form.requested_schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new();
    for (name, schema) in properties {
        let label = schema["title"].as_str().unwrap_or(name);
        let kind = schema["type"].as_str().unwrap_or("string");
        let optional = if required.contains(&name.as_str()) {
            ""
        } else {
            ", optional"
        };
        loop {
            let question = format!("{label} ({kind}{optional}): ");
            let Some(text) = ask(&answers, &question).await else {
                return Ok(ElicitResult::cancel());
            };
            match field_value(schema, &text) {
                Ok(Some(value)) => {
                    content.insert(name.clone(), value);
                    break;
                }
                Ok(None) if optional.is_empty() => eprintln!("  {label} is required"),
                Ok(None) => break,
                Err(hint) => eprintln!("  {hint}"),
            }
        }
    }
    Ok(ElicitResult::accept(Value::Object(content)))
}

/// Asks for consent to open a URL (this client opens nothing itself).
async fn consent(answers: Answers, request: UrlRequest) -> Result<ElicitResult, HandlerError> {
    eprintln!("\n{}\n  {}", request.message, request.url);
    match ask(&answers, "Open it? [y/N] ").await.as_deref() {
        Some("y" | "yes") => Ok(ElicitResult::consent()),
        Some(_) => Ok(ElicitResult::decline()),
        None => Ok(ElicitResult::cancel()),
    }
}

fn connect(server: Server, answers: &Answers) -> Result<Client, ClientError> {
    let (forms, urls) = (Arc::clone(answers), Arc::clone(answers));
    let builder = ClientBuilder::new("snodo-terminal-client", env!("CARGO_PKG_VERSION"))
        .on_form(move |form| fill_form(Arc::clone(&forms), form))
        .on_url(move |request| consent(Arc::clone(&urls), request))
        .on_notification(|note| {
            if note["method"] == "notifications/progress" {
                let p = &note["params"];
                eprintln!("  progress {} of {}", p["progress"], p["total"]);
            }
        });
    match server {
        Server::Stdio(command) => {
            let mut process = tokio::process::Command::new(&command[0]);
            process.args(&command[1..]);
            builder.stdio(process)
        }
        Server::Http(url) => builder.http(&url),
    }
}

async fn run(args: Args) -> Result<(), ClientError> {
    let stdin = BufReader::new(tokio::io::stdin()).lines();
    let answers: Answers = Arc::new(Mutex::new(stdin));
    let client = connect(args.server, &answers)?;
    let outcome = match args.call {
        None => client.list_tools().await.map(|tools| {
            for tool in tools {
                let about = tool["description"].as_str().unwrap_or("");
                println!("{}\t{about}", tool["name"].as_str().unwrap_or("?"));
            }
        }),
        Some((tool, arguments)) => client.call_tool(&tool, arguments).await.map(|result| {
            for item in result["content"].as_array().into_iter().flatten() {
                match item["text"].as_str() {
                    Some(text) => println!("{text}"),
                    None => println!("{item}"),
                }
            }
            if result["isError"] == true {
                eprintln!("(the tool reported an error)");
            }
        }),
    };
    client.close().await;
    outcome
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1).collect()) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("client: {e}");
            ExitCode::FAILURE
        }
    }
}
