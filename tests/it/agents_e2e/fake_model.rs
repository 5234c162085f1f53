//! A scripted fake model API on 127.0.0.1 for the real-client tests: it speaks OpenAI's
//! Responses and Chat Completions, Gemini's generateContent and Anthropic's Messages (streamed
//! or not), records every request, and answers the first request that offers tools with one
//! call of a scripted tool, every later one with a short text. Std only; stops when dropped.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};

/// One request the fake model received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub body: String,
}

impl Request {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// Whether the request offers the model tools (a main agent turn, not a title or a
    /// classifier call).
    pub fn has_tools(&self) -> bool {
        tool_names(&self.json()).next().is_some()
    }
}

/// What the model does: call the first of `tools` (by name, with its arguments) the request
/// offers, once, then answer with text.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub tools: Vec<(String, Value)>,
}

struct Shared {
    requests: Mutex<Vec<Request>>,
    script: Script,
    calls: AtomicUsize,
    stop: AtomicBool,
}

pub struct FakeModel {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl FakeModel {
    pub fn start(script: Script) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            requests: Mutex::new(Vec::new()),
            script,
            calls: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let s = shared.clone();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = s.clone();
                std::thread::spawn(move || {
                    let _ = serve(conn, &s);
                });
            }
        });
        FakeModel {
            addr,
            shared,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
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
                let b: String = r.body.chars().take(3000).collect();
                format!("{} {}\n{b}\n", r.method, r.path)
            })
            .collect()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(conn: TcpStream, s: &Shared) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    if method.is_empty() {
        return Ok(());
    }
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
            let mut crlf = String::new();
            reader.read_line(&mut crlf)?;
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    let req = Request {
        method,
        path,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    s.requests.lock().unwrap().push(req.clone());
    let (content_type, out) = answer(&req, s);
    let mut conn = conn;
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        out.len()
    );
    conn.write_all(head.as_bytes())?;
    conn.write_all(out.as_bytes())?;
    conn.flush()
}

/// Tool names a request offers, in any of the four dialects.
fn tool_names(v: &Value) -> impl Iterator<Item = String> + '_ {
    v.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|t| {
            let mut names = Vec::new();
            if let Some(n) = t.get("name").and_then(Value::as_str) {
                names.push(n.to_owned());
            }
            if let Some(n) = t.pointer("/function/name").and_then(Value::as_str) {
                names.push(n.to_owned());
            }
            for d in t
                .get("functionDeclarations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(n) = d.get("name").and_then(Value::as_str) {
                    names.push(n.to_owned());
                }
            }
            names
        })
}

/// Whether the conversation already holds a tool's result.
fn has_tool_result(v: &Value) -> bool {
    match v {
        Value::Object(o) => {
            if o.contains_key("functionResponse") {
                return true;
            }
            if matches!(
                o.get("type").and_then(Value::as_str),
                Some("function_call_output" | "custom_tool_call_output" | "tool_result")
            ) || o.get("role").and_then(Value::as_str) == Some("tool")
            {
                return true;
            }
            o.values().any(has_tool_result)
        }
        Value::Array(a) => a.iter().any(has_tool_result),
        _ => false,
    }
}

fn answer(req: &Request, s: &Shared) -> (&'static str, String) {
    let v = req.json();
    let path = req.path.as_str();
    if req.method == "GET" {
        let models = json!({
            "object": "list",
            "data": [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}],
            "models": []
        });
        return ("application/json", models.to_string());
    }
    if path.contains(":countTokens") {
        return ("application/json", json!({"totalTokens": 10}).to_string());
    }
    if path.contains("count_tokens") {
        return ("application/json", json!({"input_tokens": 10}).to_string());
    }
    let offered: Vec<String> = tool_names(&v).collect();
    let call = if has_tool_result(&v) {
        None
    } else {
        s.script
            .tools
            .iter()
            .find(|(n, _)| offered.iter().any(|o| o == n))
            .cloned()
    };
    let n = s.calls.fetch_add(1, Ordering::SeqCst);
    let json_wanted = v
        .pointer("/generationConfig/responseMimeType")
        .and_then(Value::as_str)
        == Some("application/json");
    let text = if json_wanted {
        json!({"reasoning": "done", "next_speaker": "user", "complexity_reasoning": "simple", "complexity_score": 1})
            .to_string()
    } else {
        "done".to_owned()
    };
    let stream = v.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if path.contains("/responses") {
        return ("text/event-stream", responses(n, call.as_ref(), &text));
    }
    if path.contains("/chat/completions") {
        return if stream {
            ("text/event-stream", chat_stream(n, call.as_ref(), &text))
        } else {
            ("application/json", chat_json(n, call.as_ref(), &text))
        };
    }
    if path.contains(":streamGenerateContent") {
        return (
            "text/event-stream",
            format!("data: {}\r\n\r\n", gemini(call.as_ref(), &text)),
        );
    }
    if path.contains(":generateContent") {
        return ("application/json", gemini(call.as_ref(), &text).to_string());
    }
    if path.contains("/messages") {
        return if stream {
            (
                "text/event-stream",
                anthropic_stream(n, call.as_ref(), &text),
            )
        } else {
            ("application/json", anthropic_json(n, call.as_ref(), &text))
        };
    }
    ("application/json", "{}".to_owned())
}

fn sse(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

fn responses(n: usize, call: Option<&(String, Value)>, text: &str) -> String {
    let item = match call {
        Some((name, args)) => json!({
            "type": "function_call", "id": format!("fc_{n}"), "call_id": format!("call_{n}"),
            "name": name, "arguments": args.to_string(), "status": "completed"
        }),
        None => json!({
            "type": "message", "role": "assistant", "id": format!("msg_{n}"), "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]
        }),
    };
    let mut out = sse(
        "response.created",
        &json!({"type": "response.created", "response": {"id": format!("resp_{n}")}}),
    );
    out += &sse(
        "response.output_item.done",
        &json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
    );
    out += &sse(
        "response.completed",
        &json!({"type": "response.completed", "response": {"id": format!("resp_{n}"),
            "usage": {"input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                      "output_tokens_details": null, "total_tokens": 15}}}),
    );
    out
}

fn chat_stream(n: usize, call: Option<&(String, Value)>, text: &str) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": format!("chatcmpl-{n}"), "object": "chat.completion.chunk", "created": 0,
               "model": "fake-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let (delta, finish) = match call {
        Some((name, args)) => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": format!("call_{n}"),
                   "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}),
            "tool_calls",
        ),
        None => (json!({"role": "assistant", "content": text}), "stop"),
    };
    let mut last = chunk(json!({}), json!(finish));
    last["usage"] = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(delta, Value::Null),
        last
    )
}

fn chat_json(n: usize, call: Option<&(String, Value)>, text: &str) -> String {
    let (message, finish) = match call {
        Some((name, args)) => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("call_{n}"),
                   "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}),
            "tool_calls",
        ),
        None => (json!({"role": "assistant", "content": text}), "stop"),
    };
    json!({"id": format!("chatcmpl-{n}"), "object": "chat.completion", "created": 0, "model": "fake-model",
           "choices": [{"index": 0, "message": message, "finish_reason": finish}],
           "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
    .to_string()
}

fn gemini(call: Option<&(String, Value)>, text: &str) -> Value {
    let part = match call {
        Some((name, args)) => json!({"functionCall": {"name": name, "args": args}}),
        None => json!({"text": text}),
    };
    json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
           "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}})
}

fn anthropic_stream(n: usize, call: Option<&(String, Value)>, text: &str) -> String {
    let mut out = sse(
        "message_start",
        &json!({"type": "message_start", "message": {"id": format!("msg_{n}"), "type": "message",
            "role": "assistant", "model": "fake-model", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    let stop = match call {
        Some((name, args)) => {
            out += &sse(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0, "content_block":
                    {"type": "tool_use", "id": format!("toolu_{n}"), "name": name, "input": {}}}),
            );
            out += &sse(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": args.to_string()}}),
            );
            "tool_use"
        }
        None => {
            out += &sse(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            out += &sse(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            );
            "end_turn"
        }
    };
    out += &sse(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    );
    out += &sse(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 5}}),
    );
    out += &sse("message_stop", &json!({"type": "message_stop"}));
    out
}

fn anthropic_json(n: usize, call: Option<&(String, Value)>, text: &str) -> String {
    let (content, stop) = match call {
        Some((name, args)) => (
            json!([{"type": "tool_use", "id": format!("toolu_{n}"), "name": name, "input": args}]),
            "tool_use",
        ),
        None => (json!([{"type": "text", "text": text}]), "end_turn"),
    };
    json!({"id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": "fake-model",
           "content": content, "stop_reason": stop, "stop_sequence": null,
           "usage": {"input_tokens": 10, "output_tokens": 5}})
    .to_string()
}
