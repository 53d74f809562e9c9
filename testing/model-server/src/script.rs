//! The script: what the model answers, decided from the conversation alone.
//!
//! Each wire protocol parses its request into a [`Conversation`]; [`reply`] picks
//! the answer from the latest user text (`run: echo hi`, `think: x`...) or, when the
//! agent is reporting a tool's result, finishes the turn (a tool search's result
//! does not: the model goes on to call a tool it found). Protocol modules then
//! render the [`Reply`] in their own streaming format.

use serde_json::Value;

use crate::tools::{self, Tool};

/// What the model was asked, independent of the wire protocol.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    /// The text the user typed last (agents' own reminders and context removed).
    pub user_text: String,
    /// The output of the tool the model called, when the request reports one.
    pub tool_output: Option<String>,
    /// The tools the agent offers.
    pub tools: Vec<Tool>,
    /// The tools a tool search found, when the request reports the search's result
    /// (which, unlike a tool's output, does not finish the turn).
    pub found_tools: Option<Vec<Tool>>,
    /// The agent's working directory, when its context names it (for tools that
    /// want absolute paths, as a real model would write them).
    pub working_dir: Option<String>,
    /// The skills the agent's context lists with the path of their file, as
    /// (name, path) (for agents whose model reads a skill's file itself).
    pub skill_files: Vec<(String, String)>,
}

/// The working directory an agent's context names (`I'm currently working in the
/// directory: /path`, as Gemini CLI and its forks put it in their first message).
pub fn working_dir(body: &Value) -> Option<String> {
    const MARKER: &str = "working in the directory: ";
    let text = body.to_string();
    let start = text.find(MARKER)? + MARKER.len();
    let rest = &text[start..];
    let end = rest.find(['\\', '"', ' ']).unwrap_or(rest.len());
    let dir = &rest[..end];
    dir.starts_with('/').then(|| dir.to_owned())
}

/// The skills an agent's context lists by name and file (`<name>greet</name>` then
/// `<location>/skills/greet/SKILL.md</location>`, as Pi writes them in its system
/// prompt): (name, path).
pub fn skill_files(body: &Value) -> Vec<(String, String)> {
    let text = body.to_string();
    let between = |text: &str, open: &str, close: &str| -> Option<String> {
        let start = text.find(open)? + open.len();
        let end = text[start..].find(close)?;
        Some(text[start..start + end].to_owned())
    };
    text.split("<name>")
        .skip(1)
        .filter_map(|skill| {
            let name = skill.split("</name>").next()?.to_owned();
            let location = between(skill, "<location>", "</location>")?;
            Some((name, location))
        })
        .collect()
}

/// One block of the model's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Reasoning text.
    Reasoning(String),
    /// Assistant text, streamed as these chunks.
    Text(Vec<String>),
    /// A call of one of the agent's tools.
    ToolCall(ToolCall),
}

/// A tool call the model makes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call id (`call_1`...).
    pub id: String,
    /// The tool's name, as the agent offered it.
    pub name: String,
    /// The namespace the agent offered the tool in, if any.
    pub namespace: Option<String>,
    /// Arguments: a JSON object for function tools and tool searches, or the raw
    /// text for free-form (custom) tools.
    pub input: ToolInput,
}

/// The arguments of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq)]
pub enum ToolInput {
    /// JSON arguments of a function tool.
    Json(Value),
    /// The free-form input of a custom tool (Codex's `apply_patch`).
    Text(String),
    /// The JSON arguments of a built-in tool search (Codex's `tool_search`).
    Search(Value),
}

/// The model's whole answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Stream these blocks; wait `chunk_delay_ms` between text chunks.
    Blocks {
        blocks: Vec<Block>,
        chunk_delay_ms: u64,
    },
    /// Fail the request with an API error (HTTP 400).
    Error(String),
}

impl Reply {
    fn text(text: impl Into<String>) -> Self {
        Reply::Blocks {
            blocks: vec![Block::Text(split(&text.into()))],
            chunk_delay_ms: 0,
        }
    }

    fn say_then_call(text: &str, call: Option<ToolCall>, action: &str) -> Self {
        match call {
            Some(call) => Reply::Blocks {
                blocks: vec![Block::Text(vec![text.to_owned()]), Block::ToolCall(call)],
                chunk_delay_ms: 0,
            },
            None => Reply::text(format!("No tool to {action} with.")),
        }
    }

    /// Whether the answer ends with a tool call (the turn goes on).
    pub fn calls_tool(&self) -> bool {
        matches!(self, Reply::Blocks { blocks, .. } if matches!(blocks.last(), Some(Block::ToolCall(_))))
    }
}

/// Token counts reported with every answer that does not ask for others.
pub const USAGE: Usage = Usage {
    input_tokens: 100,
    output_tokens: 10,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
};

/// Token counts of one answer, each kind apart: each wire protocol adds them up
/// as its vendor does (OpenAI's input includes cached tokens, Anthropic's does
/// not; every vendor but Google counts reasoning in the output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens read neither from nor into a prompt cache.
    pub input_tokens: u64,
    /// Output tokens, reasoning left out.
    pub output_tokens: u64,
    /// Input tokens read from a prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to a prompt cache.
    pub cache_write_tokens: u64,
    /// Reasoning tokens.
    pub reasoning_tokens: u64,
}

/// The token counts to report: [`USAGE`], with the counts a `usage:` line of
/// the user's text sets (`usage: cache_read=20 cache_write=30 reasoning=7`, on
/// any line, so it goes with any directive).
pub fn usage(conversation: &Conversation) -> Usage {
    let mut usage = USAGE;
    let knobs = conversation
        .user_text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("usage:"))
        .flat_map(str::split_whitespace)
        .filter_map(|pair| pair.split_once('='))
        .filter_map(|(name, count)| Some((name, count.parse::<u64>().ok()?)));
    for (name, count) in knobs {
        match name {
            "cache_read" => usage.cache_read_tokens = count,
            "cache_write" => usage.cache_write_tokens = count,
            "reasoning" => usage.reasoning_tokens = count,
            _ => {}
        }
    }
    usage
}

/// The milliseconds a `pace: MS` line of the user's text asks between the
/// streamed pieces of the answer's text (as a model's tokens come), if any.
pub fn pace(conversation: &Conversation) -> Option<u64> {
    conversation
        .user_text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("pace:"))
        .find_map(|ms| ms.trim().parse().ok())
}

/// The answer to a conversation. `call_number` makes tool call ids unique.
pub fn reply(conversation: &Conversation, call_number: u64) -> Reply {
    if conversation.tool_output.is_some() {
        return Reply::text("done");
    }
    let call_id = format!("call_{call_number}");
    let text = conversation.user_text.trim();
    // Some agents quote the user's words (`opencode run`).
    let text = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    // A request without tools is the agent's own side task (a title, a summary):
    // it gets no tool call.
    let side_task = conversation.tools.is_empty();
    let directive = directive(text).filter(|(command, _)| {
        !(side_task
            && [
                "run", "write", "read", "ask", "plan", "mcp", "skill", "batch",
            ]
            .contains(command))
    });
    let Some((command, argument)) = directive else {
        return Reply::text(format!("Echo: {text}"));
    };
    let tools = &conversation.tools;
    match command {
        "run" => Reply::say_then_call(
            "I'll run the command.",
            tools::shell(tools, &call_id, argument),
            "run commands",
        ),
        "write" => {
            let (path, content) = argument.split_once(": ").unwrap_or((argument, ""));
            Reply::say_then_call(
                "I'll write the file.",
                tools::write(
                    tools,
                    &call_id,
                    path.trim(),
                    content,
                    conversation.working_dir.as_deref(),
                ),
                "write files",
            )
        }
        "read" => Reply::say_then_call(
            "I'll read the file.",
            tools::read(tools, &call_id, argument),
            "read files",
        ),
        "ask" => Reply::say_then_call(
            "I have a question.",
            tools::ask(tools, &call_id, argument),
            "ask questions",
        ),
        "plan" => Reply::say_then_call(
            "Here is my plan.",
            tools::exit_plan(tools, &call_id, argument),
            "present plans",
        ),
        "mcp" => mcp(conversation, &call_id, argument),
        "batch" => batch(conversation, &call_id, argument),
        "skill" => {
            // The agent's skill tool, or else its read tool on the skill's file.
            let read_file = || {
                let (_, path) = conversation
                    .skill_files
                    .iter()
                    .find(|(name, _)| name == argument)?;
                tools::read(tools, &call_id, path)
            };
            Reply::say_then_call(
                "I'll use the skill.",
                tools::skill(tools, &call_id, argument).or_else(read_file),
                "use skills",
            )
        }
        "think" => Reply::Blocks {
            blocks: vec![
                Block::Reasoning(format!("Let me think about {argument}.")),
                Block::Text(split(&format!("Thought about {argument}."))),
            ],
            chunk_delay_ms: 0,
        },
        "slow" => {
            let ticks = argument.parse::<u64>().unwrap_or(20).min(10_000);
            Reply::Blocks {
                blocks: vec![Block::Text(
                    (1..=ticks).map(|i| format!("tick {i} ")).collect(),
                )],
                chunk_delay_ms: 250,
            }
        }
        "fail" => Reply::Error(argument.to_owned()),
        _ => Reply::text(format!("Echo: {text}")),
    }
}

/// `mcp: TOOL {JSON}`: a call of the MCP tool `TOOL`. An agent that defers MCP tools
/// behind a tool search gets a search for `TOOL` first, then, once the search's
/// result is reported, the call.
fn mcp(conversation: &Conversation, call_id: &str, argument: &str) -> Reply {
    let (name, arguments) = argument.split_once(' ').unwrap_or((argument, "{}"));
    let arguments = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let tools = &conversation.tools;
    let found = conversation.found_tools.as_deref().unwrap_or_default();
    let action = format!("call the MCP tool {name}");
    if let Some(call) = tools::mcp(tools, found, call_id, name, arguments) {
        return Reply::say_then_call("I'll use the MCP tool.", Some(call), &action);
    }
    // One search only: a search that found nothing is not repeated.
    let search = match conversation.found_tools {
        None => tools::search(tools, call_id, name),
        Some(_) => None,
    };
    Reply::say_then_call("I'll look for the MCP tool.", search, &action)
}

/// `batch: ["run: ls", "read: a.txt", "write: b.txt: hi", "mcp: add {}"]`: one
/// answer calling a tool for each directive of the JSON list, in order (ids
/// `call_N_0`, `call_N_1`...), as a model making parallel tool calls does. A
/// directive the agent has no tool for is left out; MCP tools are called only when
/// the agent offers them directly (no tool search in a batch).
fn batch(conversation: &Conversation, call_id: &str, argument: &str) -> Reply {
    let Ok(directives) = serde_json::from_str::<Vec<String>>(argument) else {
        return Reply::Error(format!("batch: not a JSON list of strings: {argument}"));
    };
    let tools = &conversation.tools;
    let calls: Vec<Block> = directives
        .iter()
        .enumerate()
        .filter_map(|(index, directive_text)| {
            let id = format!("{call_id}_{index}");
            let (command, argument) = whole_directive(directive_text)?;
            match command {
                "run" => tools::shell(tools, &id, argument),
                "read" => tools::read(tools, &id, argument),
                "write" => {
                    let (path, content) = argument.split_once(": ").unwrap_or((argument, ""));
                    let dir = conversation.working_dir.as_deref();
                    tools::write(tools, &id, path.trim(), content, dir)
                }
                "mcp" => {
                    let (name, arguments) = argument.split_once(' ').unwrap_or((argument, "{}"));
                    let arguments = serde_json::from_str(arguments).unwrap_or(Value::Null);
                    tools::mcp(tools, &[], &id, name, arguments)
                }
                _ => None,
            }
        })
        .map(Block::ToolCall)
        .collect();
    if calls.is_empty() {
        return Reply::text("No tool for any of those.");
    }
    let mut blocks = vec![Block::Text(vec!["I'll do all of these.".to_owned()])];
    blocks.extend(calls);
    Reply::Blocks {
        blocks,
        chunk_delay_ms: 0,
    }
}

/// `("run", "echo hi")` from `run: echo hi`, for the known directives. Only the
/// first line counts (agents may append their own notes to the user's text).
fn directive(text: &str) -> Option<(&str, &str)> {
    let (command, argument) = whole_directive(text.lines().next()?)?;
    Some((command, argument.trim()))
}

/// `("run", "ls\nrm x")` from `run: ls\nrm x`: a directive whose argument may span
/// lines and keeps its spaces but the one after the colon (a batch's).
fn whole_directive(text: &str) -> Option<(&str, &str)> {
    let (command, argument) = text.split_once(':')?;
    let known = [
        "run", "write", "read", "ask", "plan", "think", "slow", "fail", "mcp", "skill", "batch",
    ];
    known
        .contains(&command)
        .then(|| (command, argument.strip_prefix(' ').unwrap_or(argument)))
}

/// Splits text into a few chunks on word boundaries, so agents see several deltas.
fn split(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    let per_chunk = words.len().div_ceil(3).max(1);
    words.chunks(per_chunk).map(|c| c.concat()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn asked(text: &str, tools: &[&str]) -> Reply {
        let conversation = Conversation {
            user_text: text.to_owned(),
            tool_output: None,
            tools: tools
                .iter()
                .map(|name| Tool::function(name, json!({})))
                .collect(),
            found_tools: None,
            working_dir: None,
            skill_files: Vec::new(),
        };
        reply(&conversation, 1)
    }

    #[test]
    fn a_usage_line_sets_cache_and_reasoning_counts() {
        let asked = |text: &str| {
            usage(&Conversation {
                user_text: text.to_owned(),
                ..Default::default()
            })
        };
        assert_eq!(asked("hello"), USAGE);
        let set = asked("think: x\nusage: cache_read=20 cache_write=30 reasoning=7 bogus=1");
        assert_eq!(
            (
                set.cache_read_tokens,
                set.cache_write_tokens,
                set.reasoning_tokens
            ),
            (20, 30, 7)
        );
        assert_eq!(set.input_tokens, USAGE.input_tokens);
    }

    #[test]
    fn the_working_directory_is_read_from_the_context() {
        let body = json!({"messages": [{"role": "user", "content":
            "My operating system is: linux\nI'm currently working in the directory: /tmp/ws\nHere"}]});
        assert_eq!(working_dir(&body).as_deref(), Some("/tmp/ws"));
        assert_eq!(working_dir(&json!({"messages": []})), None);
    }

    #[test]
    fn a_batch_calls_a_tool_for_each_directive_in_order() {
        let text = r#"batch: ["run:   rm   x  ", "run: ls\nrm y", "read: a.txt", "skill: s"]"#;
        let Reply::Blocks { blocks, .. } = asked(text, &["Bash", "Read"]) else {
            panic!()
        };
        let calls: Vec<(String, Value)> = blocks
            .iter()
            .filter_map(|block| match block {
                Block::ToolCall(ToolCall {
                    id,
                    input: ToolInput::Json(input),
                    ..
                }) => Some((id.clone(), input.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 3, "{blocks:?}");
        assert_eq!(calls[0].0, "call_1_0");
        assert_eq!(calls[0].1["command"], "  rm   x  ");
        assert_eq!(calls[1].1["command"], "ls\nrm y");
        assert_eq!(
            (calls[2].0.as_str(), &calls[2].1["file_path"]),
            ("call_1_2", &json!("a.txt"))
        );
        assert!(matches!(asked("batch: nope", &["Bash"]), Reply::Error(_)));
    }

    #[test]
    fn plain_text_is_echoed_in_several_chunks() {
        let Reply::Blocks { blocks, .. } = asked("hello there my friend", &[]) else {
            panic!()
        };
        let [Block::Text(chunks)] = &blocks[..] else {
            panic!("{blocks:?}")
        };
        assert!(chunks.len() > 1);
        assert_eq!(chunks.concat(), "Echo: hello there my friend");
    }

    #[test]
    fn run_calls_the_shell_tool_and_a_tool_result_finishes() {
        let reply = asked("run: echo hello", &["Read", "Bash"]);
        assert!(reply.calls_tool(), "{reply:?}");
        let conversation = Conversation {
            tool_output: Some("hello".into()),
            ..Default::default()
        };
        assert_eq!(super::reply(&conversation, 2), Reply::text("done"));
    }

    #[test]
    fn a_missing_tool_is_said_not_invented() {
        let reply = asked("run: ls", &["Read"]);
        assert_eq!(reply, Reply::text("No tool to run commands with."));
    }

    #[test]
    fn side_requests_without_tools_and_quoted_text_are_echoed() {
        assert_eq!(asked("run: ls", &[]), Reply::text("Echo: run: ls"));
        assert!(asked("\"run: ls\"", &["bash"]).calls_tool());
    }

    #[test]
    fn mcp_calls_the_server_tool_under_the_agents_name_for_it() {
        for offered in ["mcp__calc__add", "calc_add", "add"] {
            let Reply::Blocks { blocks, .. } =
                asked(r#"mcp: add {"a": 2, "b": 3}"#, &["Bash", offered])
            else {
                panic!()
            };
            let Some(Block::ToolCall(call)) = blocks.last() else {
                panic!("{blocks:?}")
            };
            assert_eq!(call.name, offered);
            assert_eq!(call.input, ToolInput::Json(json!({"a": 2, "b": 3})));
        }
        assert_eq!(
            asked("mcp: add {}", &["Bash"]),
            Reply::text("No tool to call the MCP tool add with.")
        );
    }

    #[test]
    fn a_deferred_mcp_tool_is_searched_for_once() {
        let Reply::Blocks { blocks, .. } = asked("mcp: add {}", &["Bash", "tool_search"]) else {
            panic!()
        };
        let Some(Block::ToolCall(call)) = blocks.last() else {
            panic!("{blocks:?}")
        };
        assert_eq!(call.name, "tool_search");
        assert_eq!(call.input, ToolInput::Json(json!({"query": "add"})));

        // A search that found nothing is not repeated.
        let conversation = Conversation {
            user_text: "mcp: add {}".into(),
            tools: vec![Tool::function("tool_search", json!({}))],
            found_tools: Some(vec![]),
            ..Default::default()
        };
        assert_eq!(
            reply(&conversation, 2),
            Reply::text("No tool to call the MCP tool add with.")
        );
    }

    #[test]
    fn a_skill_without_a_skill_tool_is_read_from_the_file_the_context_lists() {
        let body = json!({"system": [{"text": "<available_skills>\n  <skill>\n    <name>greet</name>\n    <description>Greets.</description>\n    <location>/skills/greet/SKILL.md</location>\n  </skill>\n</available_skills>"}]});
        let skills = skill_files(&body);
        assert_eq!(
            skills,
            [("greet".to_owned(), "/skills/greet/SKILL.md".to_owned())]
        );
        let conversation = Conversation {
            user_text: "skill: greet".into(),
            tools: vec![Tool::function("read", json!({"properties": {"path": {}}}))],
            skill_files: skills,
            ..Default::default()
        };
        let Reply::Blocks { blocks, .. } = reply(&conversation, 1) else {
            panic!()
        };
        let Some(Block::ToolCall(call)) = blocks.last() else {
            panic!("{blocks:?}")
        };
        assert_eq!(call.name, "read");
        assert_eq!(
            call.input,
            ToolInput::Json(json!({"path": "/skills/greet/SKILL.md"}))
        );
    }

    #[test]
    fn fail_is_an_api_error() {
        assert_eq!(asked("fail: boom", &[]), Reply::Error("boom".into()));
    }
}
