//! Attacks on the file routes, sent to the daemon binary: archive bombs (huge GNU long
//! names and PAX headers, too many entries), chains of links that resolve outside the
//! target, archive modes and the umask, FIFOs and `/proc` files. `--fs-root` has its
//! own file, `fs_root.rs`.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use super::common::api::*;
use super::common::{procfs, Daemon, Options};
use serde_json::Value;
use tar::EntryType;

fn daemon(home: &Path, args: &[&str], umask: Option<u32>) -> Daemon {
    Daemon::start_with(Options {
        env: vec![("HOME".into(), home.display().to_string())],
        args: args.iter().map(|a| a.to_string()).collect(),
        umask,
        ..Options::default()
    })
}

fn upload(api: &Api, query: &str, body: Vec<u8>) -> reqwest::blocking::Response {
    api.client()
        .post(api.daemon.url(&format!("/v1/fs/upload-batch?{query}")))
        .header("content-type", "application/x-tar")
        .timeout(Duration::from_secs(120))
        .body(body)
        .send()
        .expect("POST upload-batch")
}

/// A raw tar header: any name (written as it is), type and size.
fn header(name: &str, kind: EntryType, size: u64) -> Vec<u8> {
    let mut header = tar::Header::new_gnu();
    header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    header.set_entry_type(kind);
    header.set_mode(0o644);
    header.set_size(size);
    header.set_cksum();
    header.as_bytes().to_vec()
}

/// One member: its header, then `data` padded to the block size.
fn member(name: &str, kind: EntryType, data: &[u8]) -> Vec<u8> {
    let mut out = header(name, kind, data.len() as u64);
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

fn symlink(name: &str, target: &str) -> Vec<u8> {
    let mut header = tar::Header::new_gnu();
    header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    header.set_entry_type(EntryType::Symlink);
    header.set_link_name(target).unwrap();
    header.set_mode(0o777);
    header.set_size(0);
    header.set_cksum();
    header.as_bytes().to_vec()
}

/// The members, then the end of the archive.
fn archive(members: &[Vec<u8>]) -> Vec<u8> {
    let mut out = members.concat();
    out.extend_from_slice(&[0; 1024]);
    out
}

fn gzip(parts: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for part in parts {
        encoder.write_all(&part).unwrap();
    }
    encoder.finish().unwrap()
}

fn peak_rss_kib(pid: u32) -> u64 {
    procfs::status_field(pid, "VmHWM").expect("a live daemon has a VmHWM")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

const BOMB_BYTES: u64 = 256 << 20;

#[test]
fn a_gzip_bomb_of_a_long_name_or_a_pax_header_is_refused_at_its_header() {
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon(home.path(), &[], None);
    let api = Api::new(&daemon);
    let chunk = vec![b'a'; 1 << 20];
    let mut answers = Vec::new();
    for kind in [EntryType::GNULongName, EntryType::XHeader] {
        // 256 MiB of extension header, about 1 MiB once compressed.
        let body = {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder
                .write_all(&header("././@LongLink", kind, BOMB_BYTES))
                .unwrap();
            for _ in 0..BOMB_BYTES >> 20 {
                encoder.write_all(&chunk).unwrap();
            }
            encoder
                .write_all(&archive(&[member("f", EntryType::Regular, b"x")]))
                .unwrap();
            encoder.finish().unwrap()
        };
        let started = Instant::now();
        let response = upload(&api, "path=bomb", body);
        answers.push((kind, started.elapsed(), response));
    }
    // The memory first: an unbounded reader allocates the whole header.
    let peak = peak_rss_kib(daemon.pid());
    assert!(peak < 160 << 10, "the daemon peaked at {peak} KiB");
    for (kind, took, response) in answers {
        let problem = expect_problem(response, 413, "payload_too_large");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("extension header"),
            "{problem}"
        );
        assert!(took < Duration::from_secs(10), "{kind:?} took {took:?}");
    }
    assert!(listing(&home.path().join("bomb")).is_empty());
    ok_json(api.get("/v1/health"));
}

#[test]
fn archives_past_the_entry_cap_are_refused_and_write_nothing() {
    let home = tempfile::tempdir().unwrap();
    // The default cap, 100 000 members: one more is refused.
    let daemon = daemon(home.path(), &[], None);
    let api = Api::new(&daemon);
    let body = gzip(
        (0..100_001)
            .map(|i| member(&format!("d{}/f{i}", i / 1000), EntryType::Regular, b""))
            .chain([vec![0; 1024]]),
    );
    let problem = expect_problem(upload(&api, "path=many", body), 413, "payload_too_large");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("100000 entries"),
        "{problem}"
    );
    assert!(listing(&home.path().join("many")).is_empty());
    drop(daemon);
    // The flag sets it.
    let daemon = self::daemon(home.path(), &["--fs-max-entries", "10"], None);
    let api = Api::new(&daemon);
    let eleven: Vec<_> = (0..11)
        .map(|i| member(&format!("f{i}"), EntryType::Regular, b""))
        .collect();
    expect_problem(
        upload(&api, "path=few", archive(&eleven)),
        413,
        "payload_too_large",
    );
    ok_json(upload(&api, "path=few", archive(&eleven[..10])));
    assert_eq!(listing(&home.path().join("few")).len(), 10);
}

#[test]
fn chains_of_links_out_of_the_target_are_refused_and_write_nothing() {
    let home = tempfile::tempdir().unwrap();
    let outside = home.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let daemon = daemon(home.path(), &[], None);
    let api = Api::new(&daemon);
    let passwd = std::fs::read("/etc/passwd").unwrap();
    let chains: Vec<Vec<Vec<u8>>> = vec![
        vec![
            symlink("l", "."),
            symlink("l/l/l/out", "../../../etc/passwd"),
        ],
        vec![symlink("l", "."), symlink("a", "l/..")],
        vec![symlink("a", "l/.."), symlink("l", ".")],
        vec![
            symlink("l", "."),
            symlink("l/l/esc", "../../outside"),
            member("esc/pwned", EntryType::Regular, b"pwned"),
        ],
    ];
    for chain in chains {
        let problem = expect_problem(
            upload(&api, "path=t/target", archive(&chain)),
            400,
            "invalid_request",
        );
        assert!(
            listing(&home.path().join("t/target")).is_empty(),
            "{problem}: left {:?}",
            listing(&home.path().join("t/target"))
        );
        assert!(listing(&outside).is_empty());
        assert_eq!(std::fs::read("/etc/passwd").unwrap(), passwd);
    }
    // Links that stay inside are kept.
    let fine = archive(&[
        symlink("l", "."),
        member("d/f", EntryType::Regular, b"data"),
        symlink("d/up", "../l/d/f"),
    ]);
    ok_json(upload(&api, "path=t/target", fine));
    let up = home.path().join("t/target/d/up");
    assert_eq!(std::fs::read_to_string(up).unwrap(), "data");
}

#[test]
fn uploaded_files_lose_setuid_bits_and_follow_the_daemon_umask() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon(home.path(), &[], Some(0o077));
    let api = Api::new(&daemon);
    let mut members = Vec::new();
    for (name, kind, mode) in [
        ("suid", EntryType::Regular, 0o4755),
        ("open", EntryType::Regular, 0o777),
        ("dir/", EntryType::Directory, 0o777),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_path(name).unwrap();
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(0);
        header.set_cksum();
        members.push(header.as_bytes().to_vec());
    }
    ok_json(upload(&api, "path=up", archive(&members)));
    let mode = |name: &str| {
        let metadata = std::fs::metadata(home.path().join("up").join(name)).unwrap();
        metadata.permissions().mode() & 0o7777
    };
    assert_eq!(mode("suid"), 0o700);
    assert_eq!(mode("open"), 0o700);
    assert_eq!(mode("dir"), 0o700);
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

#[test]
fn fifos_sockets_and_devices_are_refused_at_once_and_listed_as_they_are() {
    let home = tempfile::tempdir().unwrap();
    mkfifo(&home.path().join("fifo"));
    let _socket = std::os::unix::net::UnixListener::bind(home.path().join("sock")).unwrap();
    std::fs::write(home.path().join("plain"), "plain").unwrap();
    let daemon = daemon(home.path(), &[], None);
    let api = Api::new(&daemon);
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let get = |path: &str| {
        client
            .get(daemon.url(&format!("/v1/fs/file?path={path}")))
            .send()
            .expect("an answer, not a hang")
    };
    for path in ["fifo", "sock", "/dev/null"] {
        let problem = expect_problem(get(path), 409, "path_conflict");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("regular files"),
            "{problem}"
        );
    }
    let put = client
        .put(daemon.url("/v1/fs/file?path=fifo"))
        .body("x")
        .send()
        .unwrap();
    expect_problem(put, 409, "path_conflict");
    // Many at once hold no thread: a plain read still answers.
    let readers: Vec<_> = (0..64)
        .map(|_| {
            let url = daemon.url("/v1/fs/file?path=fifo");
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(5))
                    .build()
                    .unwrap();
                client.get(url).send().map(|r| r.status().as_u16())
            })
        })
        .collect();
    for reader in readers {
        assert_eq!(reader.join().unwrap().expect("an answer"), 409);
    }
    assert_eq!(get("plain").text().unwrap(), "plain");
    // Listings keep `entryType` as 0.1.x has it and say what each entry is.
    let listed = ok_json(api.get("/v1/fs/entries"));
    let kind_of = |name: &str| -> (Value, Value) {
        let entry = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {listed}"));
        (entry["entryType"].clone(), entry["kind"].clone())
    };
    assert_eq!(kind_of("fifo"), ("file".into(), "fifo".into()));
    assert_eq!(kind_of("sock"), ("file".into(), "socket".into()));
    assert_eq!(kind_of("plain"), ("file".into(), "file".into()));
    let null = ok_json(api.get("/v1/fs/stat?path=/dev/null"));
    assert_eq!(null["kind"], "charDevice");
}

#[test]
fn proc_files_are_read_to_their_end() {
    let home = tempfile::tempdir().unwrap();
    let daemon = daemon(home.path(), &[], None);
    let api = Api::new(&daemon);
    let status = api.get(&format!("/v1/fs/file?path=/proc/{}/status", daemon.pid()));
    assert_eq!(status.status(), 200);
    let text = status.text().unwrap();
    assert!(
        text.starts_with("Name:") && text.contains("VmHWM:") && text.ends_with('\n'),
        "{text:?}"
    );
    let cpuinfo = api.get("/v1/fs/file?path=/proc/cpuinfo").text().unwrap();
    assert!(cpuinfo.contains("processor"), "{cpuinfo:?}");
    // A regular file still declares its length.
    std::fs::write(home.path().join("f"), "12345").unwrap();
    let file = api.get("/v1/fs/file?path=f");
    assert_eq!(file.content_length(), Some(5));
    assert_eq!(file.text().unwrap(), "12345");
}
