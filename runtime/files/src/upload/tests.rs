use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use tar::EntryType;

use super::*;

/// One entry of a test archive: (path, type, data or link target). Paths are
/// written into the header raw, so hostile names can be built too.
type Spec<'a> = (&'a str, EntryType, &'a [u8]);

fn archive(entries: &[Spec]) -> Vec<u8> {
    let mut out = tar::Builder::new(Vec::new());
    for (path, kind, data) in entries {
        let mut header = tar::Header::new_gnu();
        header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_entry_type(*kind);
        header.set_mode(if *kind == EntryType::Directory {
            0o755
        } else {
            0o644
        });
        let body: &[u8] = if matches!(kind, EntryType::Symlink | EntryType::Link) {
            header
                .set_link_name(std::str::from_utf8(data).unwrap())
                .unwrap();
            &[]
        } else {
            data
        };
        header.set_size(body.len() as u64);
        header.set_cksum();
        out.append(&header, body).unwrap();
    }
    out.into_inner().unwrap()
}

fn limits(max_bytes: u64) -> UploadLimits {
    UploadLimits {
        max_bytes,
        max_entries: 10_000,
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Every path under `dir`, relative, sorted (the staging folder would show up here).
fn tree(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(next) = stack.pop() {
        for entry in fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            found.push(path.strip_prefix(dir).unwrap().display().to_string());
            if fs::symlink_metadata(&path).unwrap().is_dir() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

const FILES: &[Spec] = &[
    ("./", EntryType::Directory, b""),
    ("./src/", EntryType::Directory, b""),
    ("./src/main.rs", EntryType::Regular, b"fn main() {}"),
    ("./README", EntryType::Regular, b"hi"),
    ("./src/link", EntryType::Symlink, b"main.rs"),
];

#[test]
fn a_plain_or_gzipped_archive_unpacks_and_lists_its_entries_in_order() {
    for body in [archive(FILES), gzip(&archive(FILES))] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        let answer = unpack_from(&target, body.as_slice(), limits(1 << 20)).unwrap();
        let expected: Vec<_> = ["src", "src/main.rs", "README", "src/link"]
            .iter()
            .map(|p| target.join(p).display().to_string())
            .collect();
        assert_eq!(answer.paths, expected);
        assert!(!answer.truncated);
        assert_eq!(
            fs::read_to_string(target.join("src/link")).unwrap(),
            "fn main() {}"
        );
        assert_eq!(tree(&target), ["README", "src", "src/link", "src/main.rs"]);
    }
}

#[test]
fn an_archive_merges_into_existing_directories_and_replaces_files() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/keep.rs"), "kept").unwrap();
    fs::write(dir.path().join("README"), "old").unwrap();
    unpack_from(dir.path(), archive(FILES).as_slice(), limits(1 << 20)).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("src/keep.rs")).unwrap(),
        "kept"
    );
    assert_eq!(fs::read_to_string(dir.path().join("README")).unwrap(), "hi");
}

#[test]
fn hostile_entries_are_refused_and_nothing_is_written() {
    let hostile: &[&[Spec]] = &[
        &[
            ("ok", EntryType::Regular, b"1"),
            ("../escape", EntryType::Regular, b"x"),
        ],
        &[
            ("ok", EntryType::Regular, b"1"),
            ("/tmp/abs", EntryType::Regular, b"x"),
        ],
        &[
            ("ok", EntryType::Regular, b"1"),
            ("a/../../x", EntryType::Regular, b"x"),
        ],
        &[
            ("ok", EntryType::Regular, b"1"),
            ("link", EntryType::Symlink, b"/etc"),
        ],
        &[
            ("ok", EntryType::Regular, b"1"),
            ("d/link", EntryType::Symlink, b"../../etc"),
        ],
        &[
            ("ok", EntryType::Regular, b"1"),
            ("hard", EntryType::Link, b"../outside"),
        ],
        &[
            ("ok", EntryType::Regular, b"1"),
            ("fifo", EntryType::Fifo, b""),
        ],
    ];
    for entries in hostile {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t");
        let error = unpack_from(&target, archive(entries).as_slice(), limits(1 << 20)).unwrap_err();
        assert!(matches!(error, FsError::BadPath(_)), "{entries:?}: {error}");
        assert!(
            tree(&target).is_empty(),
            "{entries:?} left {:?}",
            tree(&target)
        );
        assert_eq!(tree(dir.path()), ["t"]);
    }
}

#[test]
fn an_existing_symbolic_link_out_of_the_target_is_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let target = dir.path().join("t");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(&target).unwrap();
    std::os::unix::fs::symlink(&outside, target.join("src")).unwrap();
    let error = unpack_from(&target, archive(FILES).as_slice(), limits(1 << 20)).unwrap_err();
    assert!(matches!(error, FsError::Conflict(_)), "{error}");
    assert!(tree(&outside).is_empty());
    assert_eq!(tree(&target), ["src"]);
}

#[test]
fn links_inside_the_archive_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let entries: &[Spec] = &[
        ("a/f", EntryType::Regular, b"data"),
        ("b/up", EntryType::Symlink, b"../a/f"),
        ("hard", EntryType::Link, b"a/f"),
    ];
    unpack_from(dir.path(), archive(entries).as_slice(), limits(1 << 20)).unwrap();
    assert_eq!(fs::read_to_string(dir.path().join("b/up")).unwrap(), "data");
    assert_eq!(fs::read_to_string(dir.path().join("hard")).unwrap(), "data");
}

#[test]
fn bodies_and_unpacked_sizes_over_the_limit_are_refused() {
    let big = vec![0u8; 64 << 10];
    let entries: &[Spec] = &[("zeros", EntryType::Regular, &big)];
    let dir = tempfile::tempdir().unwrap();
    let error = unpack_from(dir.path(), archive(entries).as_slice(), limits(16 << 10)).unwrap_err();
    assert!(matches!(error, FsError::TooLarge(_)), "{error}");
    // Compressed it is small, but it unpacks beyond the limit.
    let error = unpack_from(
        dir.path(),
        gzip(&archive(entries)).as_slice(),
        limits(16 << 10),
    )
    .unwrap_err();
    assert!(matches!(error, FsError::TooLarge(_)), "{error}");
    assert!(tree(dir.path()).is_empty());
}

#[test]
fn garbage_is_not_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let error = unpack_from(
        dir.path(),
        &b"not a tar archive at all"[..],
        limits(1 << 20),
    )
    .unwrap_err();
    assert!(matches!(error, FsError::BadPath(_)), "{error}");
    assert!(tree(dir.path()).is_empty());
}

#[test]
fn long_archives_list_a_bounded_number_of_paths() {
    let names: Vec<String> = (0..FS_UPLOAD_LISTED_PATHS + 5)
        .map(|i| format!("f{i}"))
        .collect();
    let entries: Vec<Spec> = names
        .iter()
        .map(|n| (n.as_str(), EntryType::Regular, &b""[..]))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let answer = unpack_from(dir.path(), archive(&entries).as_slice(), limits(1 << 20)).unwrap();
    assert_eq!(answer.paths.len(), FS_UPLOAD_LISTED_PATHS);
    assert!(answer.truncated);
    assert_eq!(tree(dir.path()).len(), FS_UPLOAD_LISTED_PATHS + 5);
}

/// A raw extension header (`L`, `K`, `x` or `g`) holding `data`.
fn extension(kind: EntryType, data: &[u8]) -> Vec<u8> {
    let mut header = tar::Header::new_gnu();
    header.as_old_mut().name[..13].copy_from_slice(b"././@LongLink");
    header.set_entry_type(kind);
    header.set_mode(0o644);
    header.set_size(data.len() as u64);
    header.set_cksum();
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

fn refused(body: &[u8]) -> FsError {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t");
    let error = unpack_from(&target, body, limits(1 << 24)).unwrap_err();
    assert!(
        tree(&target).is_empty(),
        "{error}: left {:?}",
        tree(&target)
    );
    error
}

#[test]
fn chains_of_links_that_resolve_outside_are_refused() {
    let chains: &[&[Spec]] = &[
        &[
            ("l", EntryType::Symlink, b"."),
            ("l/l/l/out", EntryType::Symlink, b"../../../etc/passwd"),
        ],
        &[
            ("l", EntryType::Symlink, b"."),
            ("a", EntryType::Symlink, b"l/.."),
        ],
        // The same, the other way round: the link resolves outside only once `l` exists.
        &[
            ("a", EntryType::Symlink, b"l/.."),
            ("l", EntryType::Symlink, b"."),
        ],
        &[
            ("d/", EntryType::Directory, b""),
            ("d/up", EntryType::Symlink, b".."),
            ("x", EntryType::Symlink, b"d/up/.."),
        ],
        &[("loop", EntryType::Symlink, b"loop/x")],
    ];
    for entries in chains {
        let error = refused(&archive(entries));
        assert!(matches!(error, FsError::BadPath(_)), "{entries:?}: {error}");
    }
    // A member under one of the archive's links is never written through it.
    let through: &[Spec] = &[
        ("l", EntryType::Symlink, b"."),
        ("l/f", EntryType::Regular, b"x"),
    ];
    assert!(matches!(refused(&archive(through)), FsError::BadPath(_)));
}

#[test]
fn a_link_through_an_existing_link_of_the_target_is_checked_too() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t");
    fs::create_dir_all(target.join("deep/er")).unwrap();
    std::os::unix::fs::symlink("deep/er", target.join("in")).unwrap();
    let bad: &[Spec] = &[("x", EntryType::Symlink, b"in/../../..")];
    let error = unpack_from(&target, archive(bad).as_slice(), limits(1 << 20)).unwrap_err();
    assert!(matches!(error, FsError::BadPath(_)), "{error}");
    let good: &[Spec] = &[("x", EntryType::Symlink, b"in/../..")];
    unpack_from(&target, archive(good).as_slice(), limits(1 << 20)).unwrap();
    assert!(fs::symlink_metadata(target.join("x")).unwrap().is_symlink());
}

#[test]
fn hard_links_join_only_files_of_the_archive() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("existing"), "x").unwrap();
    let cases: &[&[Spec]] = &[
        &[("hard", EntryType::Link, b"existing")],
        &[
            ("d/", EntryType::Directory, b""),
            ("hard", EntryType::Link, b"d"),
        ],
        &[
            ("l", EntryType::Symlink, b"."),
            ("hard", EntryType::Link, b"l"),
        ],
    ];
    for entries in cases {
        let error =
            unpack_from(dir.path(), archive(entries).as_slice(), limits(1 << 20)).unwrap_err();
        assert!(matches!(error, FsError::BadPath(_)), "{entries:?}: {error}");
    }
}

#[test]
fn modes_lose_setuid_bits_and_follow_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let mut out = tar::Builder::new(Vec::new());
    for (name, mode) in [("suid", 0o6777), ("plain", 0o640)] {
        let mut header = tar::Header::new_gnu();
        header.set_size(1);
        header.set_mode(mode);
        header.set_cksum();
        out.append_data(&mut header, name, &b"x"[..]).unwrap();
    }
    unpack_from(
        dir.path(),
        out.into_inner().unwrap().as_slice(),
        limits(1 << 20),
    )
    .unwrap();
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let umask = status
        .lines()
        .find_map(|line| line.strip_prefix("Umask:"))
        .map(|mask| u32::from_str_radix(mask.trim(), 8).unwrap())
        .unwrap();
    let mode = |name: &str| {
        fs::metadata(dir.path().join(name))
            .unwrap()
            .permissions()
            .mode()
    };
    assert_eq!(mode("suid") & 0o7777, 0o777 & !umask);
    assert_eq!(mode("plain") & 0o7777, 0o640 & !umask);
}

#[test]
fn extension_headers_are_capped_and_applied() {
    let huge = vec![b'a'; MAX_EXTENSION_BYTES as usize + 1];
    for kind in [
        EntryType::GNULongName,
        EntryType::GNULongLink,
        EntryType::XHeader,
        EntryType::XGlobalHeader,
    ] {
        let mut body = extension(kind, &huge);
        body.extend(archive(&[("f", EntryType::Regular, b"x")]));
        let error = refused(&body);
        assert!(matches!(error, FsError::TooLarge(_)), "{kind:?}: {error}");
    }
    // A long name and a PAX path are honoured.
    let long = format!("{}/f", "d".repeat(200));
    let mut body = extension(EntryType::GNULongName, format!("{long}\0").as_bytes());
    let first = archive(&[("short", EntryType::Regular, b"1")]);
    body.extend(&first[..first.len() - 1024]);
    let record = format!("{} path=p\n", 9 + 1);
    body.extend(extension(EntryType::XHeader, record.as_bytes()));
    body.extend(archive(&[("ignored", EntryType::Regular, b"2")]));
    let dir = tempfile::tempdir().unwrap();
    unpack_from(dir.path(), body.as_slice(), limits(1 << 20)).unwrap();
    assert_eq!(fs::read_to_string(dir.path().join(&long)).unwrap(), "1");
    assert_eq!(fs::read_to_string(dir.path().join("p")).unwrap(), "2");
    // A PAX size that disagrees with the header is refused.
    let mut body = extension(EntryType::XHeader, b"12 size=100\n");
    body.extend(archive(&[("f", EntryType::Regular, b"x")]));
    assert!(matches!(refused(&body), FsError::BadPath(_)));
}

#[test]
fn entries_past_the_cap_and_bytes_past_the_limit_are_refused() {
    let names: Vec<String> = (0..11).map(|i| format!("f{i}")).collect();
    let entries: Vec<Spec> = names
        .iter()
        .map(|n| (n.as_str(), EntryType::Regular, &b""[..]))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let capped = UploadLimits {
        max_bytes: 1 << 20,
        max_entries: 10,
    };
    let error = unpack_from(dir.path(), archive(&entries).as_slice(), capped).unwrap_err();
    assert!(matches!(error, FsError::TooLarge(_)), "{error}");
    // Headers count as unpacked bytes: eleven empty files are 11 * 512 bytes and more.
    let error = unpack_from(dir.path(), archive(&entries).as_slice(), limits(4096)).unwrap_err();
    assert!(matches!(error, FsError::TooLarge(_)), "{error}");
    assert!(tree(dir.path()).is_empty());
}
