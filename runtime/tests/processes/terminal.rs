//! PTY terminals over a real WebSocket client: a shell computing `6*7`, resize
//! seen by `stty size`, several viewers, the scrollback replayed on reconnect, the
//! exit frame, frames that are not control frames closing the socket with a
//! reason, and the `access_token` query for browsers.

use std::time::{Duration, Instant};

use agentplex_client::tungstenite::protocol::frame::coding::CloseCode;
use agentplex_client::tungstenite::Message;
use agentplex_client::{
    Client, ProcessCreateRequest, TerminalClientFrame, TerminalServerFrame, TerminalSocket,
};
use futures::{SinkExt, StreamExt};

use super::common::Options;
use super::*;

/// An interactive shell ignores SIGTERM: the daemon's stop at the end of a test
/// kills it after this grace.
const QUICK_STOP: &[&str] = &["--process-stop-grace-ms", "300"];

/// A shell in a terminal, with a plain prompt.
async fn shell(client: &Client) -> String {
    let request = ProcessCreateRequest {
        command: "sh".into(),
        tty: true,
        env: [("PS1".to_owned(), "$ ".to_owned())].into(),
        ..ProcessCreateRequest::default()
    };
    client.start_process(&request).await.unwrap().id
}

/// Sends a control frame.
async fn send(socket: &mut TerminalSocket, frame: TerminalClientFrame) {
    let text = serde_json::to_string(&frame).unwrap();
    socket
        .send(Message::text(text))
        .await
        .expect("sending a frame");
}

/// Types a line into the terminal.
async fn type_line(socket: &mut TerminalSocket, line: &str) {
    let data = format!("{line}\r");
    send(
        socket,
        TerminalClientFrame::Input {
            data,
            encoding: None,
        },
    )
    .await;
}

/// What a viewer received: the terminal's output and the daemon's JSON frames.
#[derive(Default)]
struct Screen {
    output: String,
    frames: Vec<TerminalServerFrame>,
    closed: Option<(CloseCode, String)>,
}

/// Reads until the output holds `needle` (or the socket closes); fails after 10 s.
async fn read_until(socket: &mut TerminalSocket, screen: &mut Screen, needle: &str) {
    read_until_after(socket, screen, 0, needle).await;
}

/// Reads until the output after byte `from` holds `needle` (or the socket closes).
async fn read_until_after(
    socket: &mut TerminalSocket,
    screen: &mut Screen,
    from: usize,
    needle: &str,
) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !screen.output[from..].contains(needle) && screen.closed.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = tokio::time::timeout(left, socket.next())
            .await
            .unwrap_or_else(|_| panic!("{needle:?} never came; got {:?}", screen.output));
        match message {
            Some(Ok(Message::Binary(bytes))) => {
                screen.output.push_str(&String::from_utf8_lossy(&bytes))
            }
            Some(Ok(Message::Text(text))) => screen
                .frames
                .push(serde_json::from_str(&text).expect("a server frame")),
            Some(Ok(Message::Close(frame))) => {
                screen.closed = Some(frame.map_or((CloseCode::Status, String::new()), |f| {
                    (f.code, f.reason.to_string())
                }));
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => screen.closed = Some((CloseCode::Abnormal, String::new())),
        }
    }
}

/// Reads until the socket closes.
async fn read_to_close(socket: &mut TerminalSocket, screen: &mut Screen) -> (CloseCode, String) {
    read_until(socket, screen, "\u{0}never printed\u{0}").await;
    screen.closed.clone().expect("closed")
}

#[test]
fn a_shell_computes_six_times_seven_and_sees_its_new_size() {
    let daemon = daemon(QUICK_STOP);
    let client = client(&daemon);
    block_on(async {
        let id = shell(&client).await;
        let mut socket = client.terminal(&id).await.unwrap();
        let mut screen = Screen::default();
        type_line(&mut socket, "echo $((6*7))").await;
        // The result's own line: after the echoed input, or after the first
        // prompt when the shell starts after the line was typed ("$ 42").
        read_until(&mut socket, &mut screen, "42\r\n").await;
        assert_eq!(
            screen.frames[0],
            TerminalServerFrame::Ready {
                process_id: id.clone()
            }
        );

        send(
            &mut socket,
            TerminalClientFrame::Resize {
                cols: 100,
                rows: 33,
            },
        )
        .await;
        type_line(&mut socket, "stty size").await;
        read_until(&mut socket, &mut screen, "33 100").await;
        client.resize_terminal(&id, 120, 40).await.unwrap();
        type_line(&mut socket, "stty size").await;
        read_until(&mut socket, &mut screen, "40 120").await;

        // PTY echo round trip: a keystroke out, its echo back.
        let mut trips = Vec::new();
        for i in 0..50 {
            let key = char::from(b'a' + (i % 26) as u8).to_string();
            let before = screen.output.len();
            let started = Instant::now();
            send(
                &mut socket,
                TerminalClientFrame::Input {
                    data: key.clone(),
                    encoding: None,
                },
            )
            .await;
            read_until_after(&mut socket, &mut screen, before, &key).await;
            trips.push(started.elapsed());
        }
        println!(
            "PTY echo round trip over the WebSocket: median {:?} over 50",
            median(trips)
        );

        type_line(&mut socket, "\u{15}exit 3").await;
        let (code, _) = read_to_close(&mut socket, &mut screen).await;
        assert_eq!(code, CloseCode::Normal);
        assert_eq!(
            screen.frames.last(),
            Some(&TerminalServerFrame::Exit {
                exit_code: Some(3),
                signal: None
            })
        );
    });
}

#[test]
fn several_viewers_share_a_terminal_and_a_new_one_gets_the_scrollback() {
    let daemon = daemon(QUICK_STOP);
    let client = client(&daemon);
    block_on(async {
        let id = shell(&client).await;
        let mut first = client.terminal(&id).await.unwrap();
        let mut second = client.terminal(&id).await.unwrap();
        let (mut first_screen, mut second_screen) = (Screen::default(), Screen::default());
        type_line(&mut first, "echo viewers-$((20+3))").await;
        read_until(&mut first, &mut first_screen, "viewers-23").await;
        read_until(&mut second, &mut second_screen, "viewers-23").await;
        // Input from either reaches the one terminal.
        type_line(&mut second, "echo second-$((1+1))").await;
        read_until(&mut first, &mut first_screen, "second-2").await;
        send(&mut first, TerminalClientFrame::Close {}).await;
        let (code, reason) = read_to_close(&mut first, &mut first_screen).await;
        assert_eq!(
            (code, reason.as_str()),
            (CloseCode::Normal, "closed by the client")
        );
        drop(second);

        // A viewer that comes back gets the recent screen before typing anything.
        let mut again = client.terminal(&id).await.unwrap();
        let mut screen = Screen::default();
        read_until(&mut again, &mut screen, "second-2").await;
        assert!(screen.output.contains("viewers-23"), "{:?}", screen.output);
        // The process went on without viewers.
        assert_eq!(
            client.get_process(&id).await.unwrap().status,
            ProcessState::Running
        );
    });
    daemon.stop();
}

#[test]
fn frames_that_are_not_control_frames_close_the_socket_with_a_reason() {
    let daemon = daemon(&["--process-input-bytes", "4", QUICK_STOP[0], QUICK_STOP[1]]);
    let client = client(&daemon);
    block_on(async {
        let id = shell(&client).await;

        let mut socket = client.terminal(&id).await.unwrap();
        let mut screen = Screen::default();
        socket
            .send(Message::text("{\"type\":\"dance\"}"))
            .await
            .unwrap();
        let (code, reason) = read_to_close(&mut socket, &mut screen).await;
        assert_eq!(code, CloseCode::Invalid);
        assert!(reason.starts_with("invalid control frame"), "{reason}");

        let mut socket = client.terminal(&id).await.unwrap();
        let mut screen = Screen::default();
        socket.send(Message::text("not json")).await.unwrap();
        let (code, _) = read_to_close(&mut socket, &mut screen).await;
        assert_eq!(code, CloseCode::Invalid);

        let mut socket = client.terminal(&id).await.unwrap();
        let mut screen = Screen::default();
        socket
            .send(Message::binary(b"ls\r".to_vec()))
            .await
            .unwrap();
        let (code, reason) = read_to_close(&mut socket, &mut screen).await;
        assert_eq!(code, CloseCode::Unsupported);
        assert!(
            reason.contains("binary frames are not accepted"),
            "{reason}"
        );

        // A control frame that cannot be carried out is answered, the socket stays.
        let mut socket = client.terminal(&id).await.unwrap();
        let mut screen = Screen::default();
        send(
            &mut socket,
            TerminalClientFrame::Input {
                data: "too long".into(),
                encoding: None,
            },
        )
        .await;
        send(
            &mut socket,
            TerminalClientFrame::Resize { cols: 0, rows: 10 },
        )
        .await;
        type_line(&mut socket, "id").await;
        read_until(&mut socket, &mut screen, "uid=").await;
        let errors: Vec<_> = screen
            .frames
            .iter()
            .filter(|f| matches!(f, TerminalServerFrame::Error { .. }))
            .collect();
        assert_eq!(errors.len(), 2, "{:?}", screen.frames);
    });
    daemon.stop();
}

#[test]
fn a_browser_sends_the_token_as_a_query_parameter_on_this_route_only() {
    let token = "terminal-token";
    let daemon = Daemon::start_with(Options {
        token: Some(token.into()),
        args: QUICK_STOP.iter().map(|a| a.to_string()).collect(),
        ..Options::default()
    });
    let client = client(&daemon);
    block_on(async {
        let id = shell(&client).await;
        let url = |query: &str| {
            format!(
                "ws://127.0.0.1:{}/v1/processes/{id}/terminal/ws{query}",
                daemon.port
            )
        };
        let (mut socket, _) =
            tokio_tungstenite::connect_async(&url(&format!("?access_token={token}")))
                .await
                .unwrap();
        let mut screen = Screen::default();
        type_line(&mut socket, "echo token-$((2*4))").await;
        read_until(&mut socket, &mut screen, "token-8").await;

        let refused = tokio_tungstenite::connect_async(&url("?access_token=wrong"))
            .await
            .unwrap_err();
        assert!(refused.to_string().contains("401"), "{refused}");
        let refused = tokio_tungstenite::connect_async(&url(""))
            .await
            .unwrap_err();
        assert!(refused.to_string().contains("401"), "{refused}");
        // A page of another origin cannot open it, even with the token; the daemon's own can.
        let from_page = |origin: &str| {
            use tokio_tungstenite::tungstenite::client::IntoClientRequest;
            let mut request = url(&format!("?access_token={token}"))
                .into_client_request()
                .unwrap();
            request
                .headers_mut()
                .insert("origin", origin.parse().unwrap());
            request
        };
        let refused = tokio_tungstenite::connect_async(from_page("http://evil.example"))
            .await
            .unwrap_err();
        assert!(refused.to_string().contains("403"), "{refused}");
        let own = format!("http://127.0.0.1:{}", daemon.port);
        tokio_tungstenite::connect_async(from_page(&own))
            .await
            .unwrap();
        let other_route = reqwest::get(format!(
            "{}/v1/processes?access_token={token}",
            daemon.endpoint
        ))
        .await
        .unwrap();
        assert_eq!(other_route.status(), 401);
    });
    daemon.stop();
}
