use std::io::Write;

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
        let answer = unpack_from(&target, body.as_slice(), 1 << 20).unwrap();
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
    unpack_from(dir.path(), archive(FILES).as_slice(), 1 << 20).unwrap();
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
        let error = unpack_from(&target, archive(entries).as_slice(), 1 << 20).unwrap_err();
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
    let error = unpack_from(&target, archive(FILES).as_slice(), 1 << 20).unwrap_err();
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
    unpack_from(dir.path(), archive(entries).as_slice(), 1 << 20).unwrap();
    assert_eq!(fs::read_to_string(dir.path().join("b/up")).unwrap(), "data");
    assert_eq!(fs::read_to_string(dir.path().join("hard")).unwrap(), "data");
}

#[test]
fn bodies_and_unpacked_sizes_over_the_limit_are_refused() {
    let big = vec![0u8; 64 << 10];
    let entries: &[Spec] = &[("zeros", EntryType::Regular, &big)];
    let dir = tempfile::tempdir().unwrap();
    let error = unpack_from(dir.path(), archive(entries).as_slice(), 16 << 10).unwrap_err();
    assert!(matches!(error, FsError::TooLarge(_)), "{error}");
    // Compressed it is small, but it unpacks beyond the limit.
    let error = unpack_from(dir.path(), gzip(&archive(entries)).as_slice(), 16 << 10).unwrap_err();
    assert!(matches!(error, FsError::TooLarge(_)), "{error}");
    assert!(tree(dir.path()).is_empty());
}

#[test]
fn garbage_is_not_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let error = unpack_from(dir.path(), &b"not a tar archive at all"[..], 1 << 20).unwrap_err();
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
    let answer = unpack_from(dir.path(), archive(&entries).as_slice(), 1 << 20).unwrap();
    assert_eq!(answer.paths.len(), FS_UPLOAD_LISTED_PATHS);
    assert!(answer.truncated);
    assert_eq!(tree(dir.path()).len(), FS_UPLOAD_LISTED_PATHS + 5);
}
