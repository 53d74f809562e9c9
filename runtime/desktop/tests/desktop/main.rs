//! The desktop under a real Xvfb and openbox: a test window's size and colours in
//! screenshots, clicks and typed text reaching it, windows moved and resized, bad input
//! named by its field, a dead X server reported and restarted, and nothing left running
//! after a stop. Needs Debian's `xvfb` and `openbox` (scripts/test.sh installs them).

use std::time::{Duration, Instant};

use agentplex_api::{
    DesktopClipboardQuery, DesktopClipboardWriteRequest, DesktopKeyRequest,
    DesktopKeyboardPressRequest, DesktopKeyboardTypeRequest, DesktopMouseClickRequest,
    DesktopMouseMoveRequest, DesktopRecordingStartRequest, DesktopRecordingStatus,
    DesktopRegionScreenshotQuery, DesktopScreenshotFormat, DesktopScreenshotQuery,
    DesktopSelection, DesktopStartRequest, DesktopState, DesktopWindowMoveRequest,
    DesktopWindowResizeRequest,
};
use agentplex_desktop::clipboard::Clipboard;
use agentplex_desktop::{Desktop, DesktopError};
use agentplex_test_window::{Received, TestWindow};

const BLUE: u32 = 0x3366cc;

/// A started 640x480 desktop with its logs in a temporary folder, and the variables
/// of a program on it.
async fn started() -> (Desktop, tempfile::TempDir, Vec<(String, String)>) {
    for program in ["Xvfb", "openbox"] {
        assert!(
            agentplex_desktop::deps::find(program).is_some(),
            "{program} is not installed: apt-get install -y xvfb openbox (scripts/test.sh does)"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let desktop = Desktop::new(dir.path().join("desktop"));
    let request = DesktopStartRequest {
        width: Some(640),
        height: Some(480),
        ..DesktopStartRequest::default()
    };
    let status = desktop.start(&request).await.expect("the desktop starts");
    assert_eq!(status.state, DesktopState::Active);
    let resolution = status.resolution.unwrap();
    assert_eq!((resolution.width, resolution.height), (640, 480));
    assert!(status.display.is_some());
    // What a program on the desktop gets: DISPLAY and XAUTHORITY (the cookie).
    let env = desktop.program_env().await.unwrap();
    (desktop, dir, env)
}

/// Waits until `done` holds of what the window received.
fn wait_for(window: &TestWindow, done: impl Fn(&Received) -> bool) -> Received {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let received = window.received();
        if done(&received) || Instant::now() > deadline {
            return received;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn field_of(error: DesktopError) -> &'static str {
    match error {
        DesktopError::Invalid { field, .. } => field,
        other => panic!("expected a field's error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_test_window_is_seen_clicked_typed_into_moved_and_resized() {
    let (desktop, _dir, env) = started().await;
    // Only clients with the display's cookie connect.
    let display = &env.iter().find(|(name, _)| name == "DISPLAY").unwrap().1;
    assert!(
        x11rb::connect(Some(display)).is_err(),
        "a client without the cookie connects"
    );
    let window = TestWindow::open(&env, "agentplex test window", 200, 150, BLUE);
    let id = window.id.to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    let listed = loop {
        let windows = desktop.windows().await.unwrap();
        if let Some(found) = windows.into_iter().find(|listed| listed.id == id) {
            break found;
        }
        assert!(Instant::now() < deadline, "the test window is never listed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(listed.title, "agentplex test window");
    assert_eq!((listed.width, listed.height), (200, 150));
    assert_eq!(listed.pid, Some(std::process::id()));

    // Its contents, pixel for pixel, in a region screenshot.
    let region = DesktopRegionScreenshotQuery {
        x: listed.x,
        y: listed.y,
        width: 200,
        height: 150,
        ..DesktopRegionScreenshotQuery::default()
    };
    let shot = desktop.region_screenshot(&region).await.unwrap();
    assert_eq!(shot.media_type, "image/png");
    let image = image::load_from_memory(&shot.bytes).unwrap().to_rgb8();
    assert_eq!(image.dimensions(), (200, 150));
    let other = image
        .enumerate_pixels()
        .find(|(_, _, pixel)| pixel.0 != [0x33, 0x66, 0xcc]);
    assert!(
        other.is_none(),
        "the window is not all blue: {other:?} in {listed:?}"
    );
    // The whole screen, as JPEG at half size.
    let query = DesktopScreenshotQuery {
        format: Some(DesktopScreenshotFormat::Jpeg),
        scale: Some(0.5),
        show_cursor: Some(true),
        ..DesktopScreenshotQuery::default()
    };
    let shot = desktop.screenshot(&query).await.unwrap();
    assert_eq!(shot.media_type, "image/jpeg");
    let image = image::load_from_memory(&shot.bytes).unwrap();
    assert_eq!((image.width(), image.height()), (320, 240));

    // A click in the middle of the window reaches it there.
    let (x, y) = (listed.x + 100, listed.y + 75);
    let position = desktop
        .mouse_click(DesktopMouseClickRequest {
            x,
            y,
            button: None,
            click_count: None,
        })
        .await
        .unwrap();
    assert_eq!((position.x, position.y), (x, y));
    assert_eq!(position.window.as_deref(), Some(id.as_str()));
    let received = wait_for(&window, |received| !received.clicks.is_empty());
    assert_eq!(received.clicks, vec![(1, 100, 75)]);

    // Typed text, characters the layout lacks included, and keys by name.
    desktop.focus_window(id.clone()).await.unwrap();
    let text = "Hello, wörld € 🙂!";
    desktop
        .type_text(DesktopKeyboardTypeRequest {
            text: text.into(),
            delay_ms: None,
        })
        .await
        .unwrap();
    desktop
        .press(DesktopKeyboardPressRequest {
            key: "Return".into(),
            modifiers: None,
        })
        .await
        .unwrap();
    desktop
        .press(DesktopKeyboardPressRequest {
            key: "ctrl+s".into(),
            modifiers: None,
        })
        .await
        .unwrap();
    let expected = format!("{text}\n");
    let received = wait_for(&window, |received| {
        received.text == expected && !received.with_control.is_empty()
    });
    assert_eq!(received.text, expected);
    assert_eq!(received.with_control, vec!['s']);

    let moved = desktop
        .move_window(id.clone(), DesktopWindowMoveRequest { x: 50, y: 60 })
        .await
        .unwrap();
    assert_eq!((moved.x, moved.y), (50, 60));
    let resized = desktop
        .resize_window(
            id.clone(),
            DesktopWindowResizeRequest {
                width: 300,
                height: 200,
            },
        )
        .await
        .unwrap();
    assert_eq!((resized.width, resized.height), (300, 200));
    assert!(desktop.focused_window().await.unwrap().is_active);
    desktop.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_is_refused_naming_the_field() {
    let (desktop, _dir, _display) = started().await;
    let click = |x, y| DesktopMouseClickRequest {
        x,
        y,
        button: None,
        click_count: None,
    };
    assert_eq!(
        field_of(desktop.mouse_click(click(640, 0)).await.unwrap_err()),
        "x"
    );
    assert_eq!(
        field_of(desktop.mouse_click(click(0, -1)).await.unwrap_err()),
        "y"
    );
    let mut triple = click(1, 1);
    triple.click_count = Some(4);
    assert_eq!(
        field_of(desktop.mouse_click(triple).await.unwrap_err()),
        "clickCount"
    );
    let press = DesktopKeyboardPressRequest {
        key: "NoSuchKey".into(),
        modifiers: None,
    };
    assert_eq!(field_of(desktop.press(press).await.unwrap_err()), "key");
    let down = DesktopKeyRequest {
        key: "hyper+x".into(),
    };
    assert_eq!(field_of(desktop.key(down, true).await.unwrap_err()), "key");
    let region = DesktopRegionScreenshotQuery {
        x: 600,
        y: 0,
        width: 100,
        height: 10,
        ..Default::default()
    };
    assert_eq!(
        field_of(desktop.region_screenshot(&region).await.err().unwrap()),
        "width"
    );
    let move_to = DesktopWindowMoveRequest { x: 0, y: 0 };
    assert!(matches!(
        desktop.move_window("4242".into(), move_to).await,
        Err(DesktopError::WindowNotFound(id)) if id == "4242"
    ));
    assert!(matches!(
        desktop.focus_window("not-a-window".into()).await,
        Err(DesktopError::WindowNotFound(_))
    ));
    let huge = DesktopStartRequest {
        width: Some(100_000),
        ..Default::default()
    };
    assert_eq!(
        field_of(
            Desktop::new(_dir.path().join("other"))
                .start(&huge)
                .await
                .unwrap_err()
        ),
        "width"
    );
    desktop.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dead_x_server_is_reported_and_the_next_start_restarts_it() {
    let (desktop, _dir, _display) = started().await;
    let status = desktop.status().await;
    let pids: Vec<u32> = status
        .processes
        .iter()
        .filter_map(|process| process.pid)
        .collect();
    assert!(status
        .processes
        .iter()
        .any(|process| process.name == "xvfb" && process.running));
    assert!(status
        .processes
        .iter()
        .any(|process| process.name == "openbox" && process.running));
    let xvfb = status
        .processes
        .iter()
        .find(|process| process.name == "xvfb")
        .unwrap()
        .pid
        .unwrap();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(xvfb as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let moved = desktop
        .mouse_move(DesktopMouseMoveRequest { x: 1, y: 1 })
        .await;
    assert!(matches!(moved, Err(DesktopError::Died(_))), "{moved:?}");
    let status = desktop.status().await;
    assert_eq!(status.state, DesktopState::Failed);
    assert_eq!(status.last_error.unwrap().code, "x_server_exited");
    // What it ran is gone with it.
    for pid in pids {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "{pid} still runs"
        );
    }

    let status = desktop
        .start(&DesktopStartRequest::default())
        .await
        .unwrap();
    assert_eq!(status.state, DesktopState::Active);
    assert!(desktop
        .mouse_move(DesktopMouseMoveRequest { x: 1, y: 1 })
        .await
        .is_ok());
    let stopped = desktop.stop().await.unwrap();
    assert_eq!(stopped.state, DesktopState::Inactive);
    assert!(stopped.processes.is_empty());
    assert!(matches!(
        desktop.mouse_position().await,
        Err(DesktopError::NotRunning)
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_clipboard_goes_both_ways_with_another_program() {
    let (desktop, _dir, _env) = started().await;
    let query = |selection| DesktopClipboardQuery { selection };
    assert_eq!(desktop.clipboard(query(None)).await.unwrap().text, "");
    let text = "copied from the API: ünïcode ✓";
    let write = DesktopClipboardWriteRequest {
        text: text.into(),
        selection: None,
    };
    desktop.set_clipboard(write).await.unwrap();
    assert_eq!(
        desktop
            .clipboard(query(Some(DesktopSelection::Clipboard)))
            .await
            .unwrap()
            .text,
        text
    );
    // Another program on the desktop pastes it, then copies its own.
    let running = desktop.running().await.unwrap();
    let (display, authority) = (running.display().to_owned(), running.authority().clone());
    let program =
        tokio::task::spawn_blocking(move || Clipboard::start(&display, &authority).unwrap())
            .await
            .unwrap();
    let program = std::sync::Arc::new(program);
    let pasting = program.clone();
    let pasted = tokio::task::spawn_blocking(move || pasting.get(DesktopSelection::Clipboard))
        .await
        .unwrap();
    assert_eq!(pasted.unwrap(), text);
    let copying = program.clone();
    tokio::task::spawn_blocking(move || {
        copying.set(DesktopSelection::Primary, "the program's selection".into())
    })
    .await
    .unwrap()
    .unwrap();
    let read = desktop
        .clipboard(query(Some(DesktopSelection::Primary)))
        .await
        .unwrap();
    assert_eq!(
        (read.selection, read.text.as_str()),
        (DesktopSelection::Primary, "the program's selection")
    );
    desktop.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recording_plays_for_as_long_as_it_ran() {
    let (desktop, _dir, env) = started().await;
    let _window = TestWindow::open(&env, "recorded", 100, 100, BLUE);
    let started_at = Instant::now();
    let recording = desktop
        .start_recording(DesktopRecordingStartRequest { fps: Some(10) })
        .await
        .unwrap();
    assert_eq!(recording.status, DesktopRecordingStatus::Recording);
    let again = desktop
        .start_recording(DesktopRecordingStartRequest::default())
        .await;
    assert!(matches!(again, Err(DesktopError::Conflict(_))), "{again:?}");
    assert!(matches!(
        desktop.recordings().file(&recording.id),
        Err(DesktopError::Conflict(_))
    ));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let stopped = desktop.recordings().stop().await.unwrap();
    let ran = started_at.elapsed().as_secs_f64();
    assert_eq!(stopped.status, DesktopRecordingStatus::Completed);
    assert!(stopped.bytes > 0);
    assert_eq!(desktop.recordings().list(), vec![stopped.clone()]);

    let file = desktop.recordings().file(&stopped.id).unwrap();
    let probe = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "format=duration:stream=codec_name,width,height",
            "-of",
            "default=nw=1",
        ])
        .arg(&file)
        .output()
        .expect("ffprobe runs");
    let report = String::from_utf8_lossy(&probe.stdout);
    assert!(
        probe.status.success(),
        "{report} {}",
        String::from_utf8_lossy(&probe.stderr)
    );
    assert!(
        report.contains("codec_name=h264")
            && report.contains("width=640")
            && report.contains("height=480"),
        "{report}"
    );
    let duration: f64 = report
        .lines()
        .find_map(|line| line.strip_prefix("duration="))
        .and_then(|seconds| seconds.parse().ok())
        .expect("a duration");
    assert!(
        duration > 1.5 && duration <= ran + 0.2,
        "{duration} s recorded in {ran} s"
    );

    desktop.recordings().delete(&stopped.id).unwrap();
    assert!(!file.exists());
    assert!(matches!(
        desktop.recordings().get(&stopped.id),
        Err(DesktopError::RecordingNotFound(_))
    ));
    assert!(matches!(
        desktop.recordings().stop().await,
        Err(DesktopError::Conflict(_))
    ));
    desktop.shutdown().await;
}
