//! The session vocabulary's plain types (`agentplex_adapter_types`) converted to
//! and from the 0.5.0 contract's generated ones: inputs on their way into a guest,
//! actions on their way out.

use agentplex_adapter_types as plain;

use super::v0_5::{actions as wit, guest};

use guest::{MessagePart as WitPart, PermissionReply as WitReply};
use plain::{MessagePart as PlainPart, PermissionReply as PlainReply};

// Host to guest.
same_record!(plain::Attachment => guest::Attachment { path, mime, filename });
same_enum!(PlainPart => WitPart (Text, Image, File));
same_enum!(PlainReply => WitReply { Once, Always, Reject });
same_record!(plain::ExitStatus => wit::ExitStatus { code, signal });
same_record!(plain::HttpResponse => wit::HttpResponse { request_id, status, headers, body });
same_record!(plain::SseEvent => wit::SseEvent { stream_id, event, data, id });

// Guest to host (the actions' records; `convert` checks and converts the rest).
same_record!(wit::SpawnRequest => plain::SpawnRequest { process_id, argv, env, cwd, share_key });
same_record!(wit::StdinWrite => plain::StdinWrite { process_id, data });
same_record!(wit::HttpRequest => plain::HttpRequest { request_id, method, url, headers, body, timeout_ms });
same_record!(wit::SseRequest => plain::SseRequest { stream_id, url, headers });
same_record!(wit::TimerRequest => plain::TimerRequest { timer_id, delay_ms });
same_record!(wit::FileWrite => plain::FileWrite { path, contents, executable });
