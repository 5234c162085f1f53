//! A scripted fake model API on 127.0.0.1 that records every request a real agent client
//! sends. It speaks Anthropic's Messages API (`/v1/messages`, streamed or not, and
//! `count_tokens`), OpenAI's Chat Completions (`/v1/chat/completions`) and Responses
//! (`/v1/responses`) APIs, streamed as server-sent events. A test gives it a script: a function
//! from the request (its dialect, path and JSON body) to the reply (text, or tool calls), and
//! reads back every request afterwards to assert what the model received.
//!
//! Plain HTTP/1.1 over `std::net`, one thread per connection, `Connection: close` after each
//! response: no crates beyond serde_json, nothing listening after the test drops it. Both test
//! binaries use this one fake: `tests/e2e` (Claude Code, MCP clients) and `tests/it/agents_e2e`
//! (every other agent client).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{json, Value};

/// Which API a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// OpenAI Chat Completions (`/v1/chat/completions`).
    Chat,
    /// OpenAI Responses (`/v1/responses`).
    Responses,
    /// Google Gemini (`/v1beta/models/<model>:generateContent` and its stream).
    Gemini,
    /// Anything else (`GET /`, a health check): answered 404 or `{}`.
    Other,
}

/// One request as the client sent it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub dialect: Dialect,
    pub body: Value,
}

impl Request {
    /// Every text the model receives in this request, in order: system prompt and
    /// instructions, message texts, tool results (Anthropic, Chat and Responses shapes).
    pub fn texts(&self) -> Vec<String> {
        let mut out = Vec::new();
        collect_texts(&self.body, &mut out);
        out
    }

    /// All of [`Request::texts`] joined.
    pub fn all_text(&self) -> String {
        self.texts().join("\n")
    }

    /// Whether the client offered the model tools (its main agent loop, not a side request
    /// such as a title or a compaction summary).
    pub fn has_tools(&self) -> bool {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty())
    }

    /// The names of the tools the request offers, in any dialect (Anthropic and Responses
    /// `name`, Chat `function.name`, Gemini `functionDeclarations[].name`).
    pub fn tool_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for t in self
            .body
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            names.extend(t.get("name").and_then(Value::as_str).map(str::to_owned));
            names.extend(
                t.pointer("/function/name")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            );
            let declared = t.get("functionDeclarations").and_then(Value::as_array);
            for d in declared.into_iter().flatten() {
                names.extend(d.get("name").and_then(Value::as_str).map(str::to_owned));
            }
        }
        names
    }

    /// Whether the conversation holds a tool's result anywhere (not only in its last message).
    pub fn holds_tool_result(&self) -> bool {
        self.tool_results() > 0
    }

    /// How many tool results the request carries, in any dialect.
    pub fn tool_results(&self) -> usize {
        fn walk(v: &Value) -> usize {
            match v {
                Value::Object(o) => {
                    let here = o.contains_key("functionResponse")
                        || matches!(
                            o.get("type").and_then(Value::as_str),
                            Some(
                                "function_call_output" | "custom_tool_call_output" | "tool_result"
                            )
                        )
                        || o.get("role").and_then(Value::as_str) == Some("tool");
                    usize::from(here) + o.values().map(walk).sum::<usize>()
                }
                Value::Array(a) => a.iter().map(walk).sum(),
                _ => 0,
            }
        }
        walk(&self.body)
    }

    /// The text of the last user turn (a prompt, not a tool result), if the last message is one.
    pub fn last_user_text(&self) -> Option<String> {
        let msgs = self
            .body
            .get("messages")
            .or_else(|| self.body.get("input"))?
            .as_array()?;
        let last = msgs.last()?;
        match last.get("content") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(blocks)) => {
                let texts: Vec<String> = blocks
                    .iter()
                    .filter(|b| {
                        matches!(
                            b.get("type").and_then(Value::as_str),
                            Some("text" | "input_text")
                        )
                    })
                    .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => None,
        }
    }

    /// Whether the last message carries tool results (the client ran the last tool call).
    pub fn ends_with_tool_result(&self) -> bool {
        let Some(msgs) = self
            .body
            .get("messages")
            .or_else(|| self.body.get("input"))
            .and_then(Value::as_array)
        else {
            return false;
        };
        let Some(last) = msgs.last() else {
            return false;
        };
        if last.get("role").and_then(Value::as_str) == Some("tool")
            || last.get("type").and_then(Value::as_str) == Some("function_call_output")
        {
            return true;
        }
        last.get("content")
            .and_then(Value::as_array)
            .is_some_and(|b| {
                b.iter()
                    .any(|x| x.get("type").and_then(Value::as_str) == Some("tool_result"))
            })
    }
}

fn collect_texts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    (
                        "text" | "content" | "instructions" | "system" | "output",
                        Value::String(s),
                    ) => out.push(s.clone()),
                    ("tools" | "input_schema" | "parameters", _) => {}
                    _ => collect_texts(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_texts(x, out)),
        _ => {}
    }
}

/// One tool call the model makes.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub name: String,
    pub input: Value,
    /// The Responses API's tool namespace the tool was offered in (Codex offers an MCP
    /// server's tools under `mcp__<server>`).
    pub namespace: Option<String>,
}

/// What the model answers.
#[derive(Debug, Clone)]
pub enum Reply {
    Text(String),
    Tools(Vec<ToolCall>),
}

impl Reply {
    pub fn tool(name: &str, input: Value) -> Reply {
        Reply::Tools(vec![ToolCall {
            name: name.to_owned(),
            input,
            namespace: None,
        }])
    }

    /// A call of a tool offered in a Responses API namespace.
    pub fn namespaced(namespace: &str, name: &str, input: Value) -> Reply {
        Reply::Tools(vec![ToolCall {
            name: name.to_owned(),
            input,
            namespace: Some(namespace.to_owned()),
        }])
    }
}

/// How many input tokens the reply reports (a client compacts its context when this nears
/// its window).
pub type Script = dyn Fn(&Request) -> (Reply, u64) + Send + Sync;

/// The running fake.
pub struct FakeApi {
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeApi {
    /// Listens on 127.0.0.1 (a free port) and answers with `script`.
    pub fn start(script: Box<Script>) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script: Arc<Script> = Arc::from(script);
        let ids = Arc::new(AtomicU64::new(1));
        let (r, s) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (r, script, ids) = (r.clone(), script.clone(), ids.clone());
                std::thread::spawn(move || {
                    let _ = serve(conn, &r, script.as_ref(), &ids);
                });
            }
        });
        FakeApi {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The requests that offered tools: the agent's own turns.
    pub fn turns(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(Request::has_tools)
            .collect()
    }

    /// Every request as one text, for failure messages.
    pub fn dump(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                let b: String = r.body.to_string().chars().take(3000).collect();
                format!("{} {}\n{b}\n", r.method, r.path)
            })
            .collect()
    }

    /// Forgets the requests so far.
    pub fn clear(&self) {
        self.requests.lock().unwrap().clear();
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    conn: TcpStream,
    requests: &Mutex<Vec<Request>>,
    script: &Script,
    ids: &AtomicU64,
) -> std::io::Result<()> {
    conn.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(());
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        let lower = h.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if n == 0 {
                let mut end = String::new();
                let _ = reader.read_line(&mut end);
                break;
            }
            let mut chunk = vec![0; n];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk);
            let mut crlf = [0u8; 2];
            reader.read_exact(&mut crlf)?;
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let dialect = if path.starts_with("/v1/messages") {
        Dialect::Anthropic
    } else if path.contains("/chat/completions") {
        Dialect::Chat
    } else if path.contains("/responses") {
        Dialect::Responses
    } else if path.contains(":generateContent") || path.contains(":streamGenerateContent") {
        Dialect::Gemini
    } else {
        Dialect::Other
    };
    let req = Request {
        method: method.clone(),
        path: path.clone(),
        dialect,
        body: json,
    };
    requests.lock().unwrap().push(req.clone());
    let mut out = conn;
    if path.contains(":countTokens") {
        return respond(
            &mut out,
            "application/json",
            &json!({"totalTokens": 1000}).to_string(),
        );
    }
    if path.contains("count_tokens") {
        return respond(
            &mut out,
            "application/json",
            &json!({"input_tokens": 1000}).to_string(),
        );
    }
    if dialect == Dialect::Other || method != "POST" {
        if path.contains("/models") {
            return respond(
                &mut out,
                "application/json",
                &json!({"object": "list", "models": [],
                    "data": [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]})
                .to_string(),
            );
        }
        return write_status(&mut out, 404, "{}");
    }
    let id = ids.fetch_add(1, Ordering::SeqCst);
    let (reply, tokens) = script(&req);
    let stream = req
        .body
        .get("stream")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let model = req
        .body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("fake-model")
        .to_owned();
    match (dialect, stream) {
        (Dialect::Anthropic, true) => respond(
            &mut out,
            "text/event-stream",
            &anthropic_sse(id, &model, &reply, tokens),
        ),
        (Dialect::Anthropic, false) => respond(
            &mut out,
            "application/json",
            &anthropic_message(id, &model, &reply, tokens).to_string(),
        ),
        (Dialect::Chat, true) => respond(
            &mut out,
            "text/event-stream",
            &chat_sse(id, &model, &reply, tokens),
        ),
        (Dialect::Chat, false) => respond(
            &mut out,
            "application/json",
            &chat_completion(id, &model, &reply, tokens).to_string(),
        ),
        (Dialect::Gemini, _) if path.contains(":streamGenerateContent") => respond(
            &mut out,
            "text/event-stream",
            &format!(
                "data: {}\r\n\r\n",
                gemini_response(&model_of_path(&path), &reply, tokens)
            ),
        ),
        (Dialect::Gemini, _) => respond(
            &mut out,
            "application/json",
            &gemini_response(&model_of_path(&path), &reply, tokens).to_string(),
        ),
        (Dialect::Responses, _) => respond(
            &mut out,
            "text/event-stream",
            &responses_sse(id, &model, &reply, tokens),
        ),
        (Dialect::Other, _) => write_status(&mut out, 404, "{}"),
    }
}

fn respond(out: &mut TcpStream, content_type: &str, body: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

fn write_status(out: &mut TcpStream, code: u16, body: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {code} Not Found\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

fn blocks(id: u64, reply: &Reply) -> Vec<Value> {
    match reply {
        Reply::Text(t) => vec![json!({"type": "text", "text": t})],
        Reply::Tools(calls) => calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                json!({"type": "tool_use", "id": format!("toolu_{id}_{i}"), "name": c.name, "input": c.input})
            })
            .collect(),
    }
}

fn stop_reason(reply: &Reply) -> &'static str {
    match reply {
        Reply::Text(_) => "end_turn",
        Reply::Tools(_) => "tool_use",
    }
}

fn anthropic_message(id: u64, model: &str, reply: &Reply, tokens: u64) -> Value {
    json!({
        "id": format!("msg_{id}"), "type": "message", "role": "assistant", "model": model,
        "content": blocks(id, reply), "stop_reason": stop_reason(reply), "stop_sequence": null,
        "usage": {"input_tokens": tokens, "output_tokens": 10}
    })
}

fn anthropic_sse(id: u64, model: &str, reply: &Reply, tokens: u64) -> String {
    let mut out = String::new();
    let mut ev = |name: &str, data: Value| {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    ev(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_{id}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": tokens, "output_tokens": 1}}}),
    );
    for (i, b) in blocks(id, reply).into_iter().enumerate() {
        if b["type"] == "text" {
            ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}),
            );
            ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}}),
            );
        } else {
            ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}),
            );
            ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": b["input"].to_string()}}),
            );
        }
        ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": i}),
        );
    }
    ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null}, "usage": {"output_tokens": 10}}),
    );
    ev("message_stop", json!({"type": "message_stop"}));
    out
}

fn chat_message(id: u64, reply: &Reply) -> Value {
    match reply {
        Reply::Text(t) => json!({"role": "assistant", "content": t}),
        Reply::Tools(calls) => {
            json!({"role": "assistant", "content": null, "tool_calls": calls.iter().enumerate().map(|(i, c)| json!({
            "id": format!("call_{id}_{i}"), "type": "function",
            "function": {"name": c.name, "arguments": c.input.to_string()}})).collect::<Vec<_>>()})
        }
    }
}

fn finish(reply: &Reply) -> &'static str {
    match reply {
        Reply::Text(_) => "stop",
        Reply::Tools(_) => "tool_calls",
    }
}

fn chat_completion(id: u64, model: &str, reply: &Reply, tokens: u64) -> Value {
    json!({
        "id": format!("chatcmpl-{id}"), "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": chat_message(id, reply), "finish_reason": finish(reply)}],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 10, "total_tokens": tokens + 10}
    })
}

fn chat_sse(id: u64, model: &str, reply: &Reply, tokens: u64) -> String {
    let chunk = |delta: Value, finish_reason: Value| {
        json!({"id": format!("chatcmpl-{id}"), "object": "chat.completion.chunk", "created": 0,
               "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
    };
    let mut out = String::new();
    let mut push = |v: Value| out.push_str(&format!("data: {v}\n\n"));
    push(chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    ));
    match reply {
        Reply::Text(t) => push(chunk(json!({"content": t}), Value::Null)),
        Reply::Tools(calls) => {
            for (i, c) in calls.iter().enumerate() {
                push(chunk(
                    json!({"tool_calls": [{"index": i, "id": format!("call_{id}_{i}"), "type": "function",
                        "function": {"name": c.name, "arguments": c.input.to_string()}}]}),
                    Value::Null,
                ));
            }
        }
    }
    let mut last = chunk(json!({}), json!(finish(reply)));
    last["usage"] =
        json!({"prompt_tokens": tokens, "completion_tokens": 10, "total_tokens": tokens + 10});
    push(last);
    out.push_str("data: [DONE]\n\n");
    out
}

fn responses_sse(id: u64, model: &str, reply: &Reply, tokens: u64) -> String {
    let rid = format!("resp_{id}");
    let items: Vec<Value> = match reply {
        Reply::Text(t) => vec![json!({"type": "message", "id": format!("msg_{id}"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": t, "annotations": []}]})],
        Reply::Tools(calls) => calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut item = json!({"type": "function_call", "id": format!("fc_{id}_{i}"), "call_id": format!("call_{id}_{i}"),
                    "name": c.name, "arguments": c.input.to_string(), "status": "completed"});
                if let Some(ns) = &c.namespace {
                    item["namespace"] = json!(ns);
                }
                item
            })
            .collect(),
    };
    let response = |status: &str, output: &[Value]| {
        json!({"id": rid, "object": "response", "created_at": 0, "model": model, "status": status,
               "output": output, "usage": {"input_tokens": tokens, "output_tokens": 10, "total_tokens": tokens + 10,
               "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}})
    };
    let mut out = String::new();
    let mut seq = 0;
    let mut ev = |name: &str, mut data: Value| {
        data["type"] = json!(name);
        data["sequence_number"] = json!(seq);
        seq += 1;
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    ev(
        "response.created",
        json!({"response": response("in_progress", &[])}),
    );
    for (i, item) in items.iter().enumerate() {
        ev(
            "response.output_item.added",
            json!({"output_index": i, "item": item}),
        );
        if let Some(t) = item["content"][0]["text"].as_str() {
            ev(
                "response.output_text.delta",
                json!({"output_index": i, "content_index": 0, "item_id": item["id"], "delta": t}),
            );
        }
        ev(
            "response.output_item.done",
            json!({"output_index": i, "item": item}),
        );
    }
    ev(
        "response.completed",
        json!({"response": response("completed", &items)}),
    );
    out
}

/// The model a Gemini API path names (`/v1beta/models/<model>:<method>`).
fn model_of_path(path: &str) -> String {
    path.split("/models/")
        .nth(1)
        .and_then(|m| m.split(':').next())
        .unwrap_or("gemini-fake")
        .to_owned()
}

fn gemini_response(model: &str, reply: &Reply, tokens: u64) -> Value {
    let parts: Vec<Value> = match reply {
        Reply::Text(t) => vec![json!({"text": t})],
        Reply::Tools(calls) => calls
            .iter()
            .map(|c| json!({"functionCall": {"name": c.name, "args": c.input}}))
            .collect(),
    };
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": tokens, "candidatesTokenCount": 10, "totalTokenCount": tokens + 10},
        "modelVersion": model
    })
}
