//! Running one case through a fresh session of the component.

use std::sync::Arc;

use agentplex_host::LoadedAdapter;

use super::input::Case;
use super::render;

/// Feeds the case's inputs in order and returns the rendered output, one line each
/// (headers included). A fatal failure (constructor included) ends the case there.
pub(super) fn replay(adapter: &Arc<LoadedAdapter>, case: Case) -> Vec<String> {
    let mut out = Vec::new();
    let config = case.create.resolve(&adapter.info().default_mode);
    let mut session = match adapter.new_session(config) {
        Ok(session) => {
            if let Some(line) = case.create_line {
                out.push(render::header(line, "create"));
            }
            session
        }
        Err(error) => {
            // Line 0 stands for the implicit `create` of a case without one.
            out.push(render::header(case.create_line.unwrap_or(0), "create"));
            out.push(render::failure(&error).0);
            return out;
        }
    };
    for step in case.steps {
        out.push(render::header(step.line, &step.kind));
        match session.handle(step.input) {
            Ok(actions) => out.extend(render::actions(&actions)),
            Err(error) => {
                let (line, fatal) = render::failure(&error);
                out.push(line);
                if fatal {
                    break;
                }
            }
        }
    }
    out
}
