//! The platform install plans are asked for: OS, CPU and, on Linux, the C library
//! (glibc or musl), detected from the ELF interpreter of `/bin/sh`, or named by
//! `--install-platform` (`linux-x64`, `linux-x64-musl`, `linux-arm64`, `darwin-arm64`...).

use std::path::Path;

use agentplex_host::{Arch, Libc, Os, Platform};

/// The machine the daemon runs on.
pub fn detect() -> Platform {
    let os = match std::env::consts::OS {
        "macos" => Os::Macos,
        "windows" => Os::Windows,
        _ => Os::Linux,
    };
    let arch = match std::env::consts::ARCH {
        "aarch64" => Arch::Aarch64,
        _ => Arch::X8664,
    };
    let libc = (os == Os::Linux).then(detect_libc);
    Platform { os, arch, libc }
}

/// The C library of this Linux system: what the shell's dynamic loader is, or, when
/// that cannot be read, whether `/lib` has only a musl loader.
fn detect_libc() -> Libc {
    if let Some(libc) = std::fs::read("/bin/sh")
        .ok()
        .and_then(|elf| elf_interpreter(&elf))
        .map(|interpreter| libc_of_interpreter(&interpreter))
    {
        return libc;
    }
    libc_of_lib_dir(Path::new("/lib"))
}

/// musl's loader is `ld-musl-<arch>.so.1`; glibc's is `ld-linux-*.so.N`.
fn libc_of_interpreter(interpreter: &str) -> Libc {
    if interpreter.contains("ld-musl-") {
        Libc::Musl
    } else {
        Libc::Gnu
    }
}

/// musl when the folder holds a musl loader and no glibc one (Debian's `musl`
/// package adds a musl loader next to glibc's).
fn libc_of_lib_dir(dir: &Path) -> Libc {
    let names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let musl = names.iter().any(|name| name.starts_with("ld-musl-"));
    let glibc = names.iter().any(|name| name.starts_with("ld-linux"));
    if musl && !glibc {
        Libc::Musl
    } else {
        Libc::Gnu
    }
}

/// The `PT_INTERP` path of a 64-bit little-endian ELF file, if it has one.
fn elf_interpreter(elf: &[u8]) -> Option<String> {
    const PT_INTERP: u32 = 3;
    if elf.get(..4)? != b"\x7fELF" || *elf.get(4)? != 2 || *elf.get(5)? != 1 {
        return None;
    }
    let u16_at = |at: usize| Some(u16::from_le_bytes(elf.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(elf.get(at..at + 4)?.try_into().ok()?));
    let u64_at =
        |at: usize| usize::try_from(u64::from_le_bytes(elf.get(at..at + 8)?.try_into().ok()?)).ok();
    let table = u64_at(0x20)?;
    let entry_size = usize::from(u16_at(0x36)?);
    let count = usize::from(u16_at(0x38)?);
    (0..count).find_map(|index| {
        let header = table.checked_add(index.checked_mul(entry_size)?)?;
        if u32_at(header)? != PT_INTERP {
            return None;
        }
        let offset = u64_at(header + 0x08)?;
        let size = u64_at(header + 0x20)?;
        let bytes = elf.get(offset..offset.checked_add(size)?)?;
        let path = bytes.split(|b| *b == 0).next()?;
        Some(String::from_utf8_lossy(path).into_owned())
    })
}

/// A platform name that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvalidPlatform {
    /// The first part is no known OS.
    #[error("unknown OS in platform {0:?}")]
    Os(String),
    /// The second part is no known CPU.
    #[error("unknown CPU in platform {0:?}")]
    Cpu(String),
    /// The rest is no C library this OS has.
    #[error("unknown C library in platform {0:?}")]
    Libc(String),
}

/// Parses a platform name: `<os>-<arch>[-musl]` with os `linux`, `darwin`/`macos`,
/// `windows`/`win32` and arch `x64`/`x86_64`, `arm64`/`aarch64`.
pub fn parse(name: &str) -> Result<Platform, InvalidPlatform> {
    let mut parts = name.split('-');
    let (os, arch, libc) = (parts.next(), parts.next(), parts.next());
    let os = match os {
        Some("linux") => Os::Linux,
        Some("darwin" | "macos") => Os::Macos,
        Some("windows" | "win32") => Os::Windows,
        _ => return Err(InvalidPlatform::Os(name.to_owned())),
    };
    let arch = match arch {
        Some("x64" | "x86_64" | "amd64") => Arch::X8664,
        Some("arm64" | "aarch64") => Arch::Aarch64,
        _ => return Err(InvalidPlatform::Cpu(name.to_owned())),
    };
    let libc = match (os, libc, parts.next()) {
        (Os::Linux, None | Some("gnu"), None) => Some(Libc::Gnu),
        (Os::Linux, Some("musl"), None) => Some(Libc::Musl),
        (_, None, None) => None,
        _ => return Err(InvalidPlatform::Libc(name.to_owned())),
    };
    Ok(Platform { os, arch, libc })
}

/// The platform's name in the form [`parse`] reads.
pub fn name(platform: &Platform) -> String {
    let os = match platform.os {
        Os::Linux => "linux",
        Os::Macos => "darwin",
        Os::Windows => "windows",
    };
    let arch = match platform.arch {
        Arch::X8664 => "x64",
        Arch::Aarch64 => "arm64",
    };
    match platform.libc {
        Some(Libc::Musl) => format!("{os}-{arch}-musl"),
        _ => format!("{os}-{arch}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 file whose only program header is `PT_INTERP` = `interpreter`.
    fn elf_with_interpreter(interpreter: &str) -> Vec<u8> {
        let mut elf = vec![0u8; 64 + 56];
        elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
        elf[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        elf[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        elf[0x38..0x3a].copy_from_slice(&1u16.to_le_bytes());
        let path = format!("{interpreter}\0");
        elf[64..68].copy_from_slice(&3u32.to_le_bytes());
        elf[64 + 8..64 + 16].copy_from_slice(&(120u64).to_le_bytes());
        elf[64 + 32..64 + 40].copy_from_slice(&(path.len() as u64).to_le_bytes());
        elf.extend_from_slice(path.as_bytes());
        elf
    }

    #[test]
    fn the_shell_interpreter_tells_musl_from_glibc() {
        let musl = elf_with_interpreter("/lib/ld-musl-x86_64.so.1");
        let glibc = elf_with_interpreter("/lib64/ld-linux-x86-64.so.2");
        assert_eq!(
            elf_interpreter(&musl).as_deref(),
            Some("/lib/ld-musl-x86_64.so.1")
        );
        assert_eq!(
            libc_of_interpreter(&elf_interpreter(&musl).unwrap()),
            Libc::Musl
        );
        assert_eq!(
            libc_of_interpreter(&elf_interpreter(&glibc).unwrap()),
            Libc::Gnu
        );
    }

    #[test]
    fn a_truncated_or_foreign_file_has_no_interpreter() {
        let elf = elf_with_interpreter("/lib/ld-musl-aarch64.so.1");
        assert_eq!(elf_interpreter(&elf[..100]), None);
        assert_eq!(elf_interpreter(b"#!/bin/sh\n"), None);
        assert_eq!(elf_interpreter(&[]), None);
    }

    #[test]
    fn a_lib_dir_is_musl_only_without_a_glibc_loader() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ld-musl-x86_64.so.1"), "").unwrap();
        assert_eq!(libc_of_lib_dir(dir.path()), Libc::Musl);
        std::fs::write(dir.path().join("ld-linux-x86-64.so.2"), "").unwrap();
        assert_eq!(libc_of_lib_dir(dir.path()), Libc::Gnu);
        assert_eq!(libc_of_lib_dir(&dir.path().join("missing")), Libc::Gnu);
    }

    #[test]
    fn platform_names_round_trip() {
        for name in [
            "linux-x64",
            "linux-x64-musl",
            "linux-arm64",
            "linux-arm64-musl",
            "darwin-arm64",
            "darwin-x64",
            "windows-x64",
        ] {
            assert_eq!(super::name(&parse(name).unwrap()), name);
        }
        assert_eq!(parse("linux-x64-gnu").unwrap().libc, Some(Libc::Gnu));
        assert_eq!(parse("macos-aarch64").unwrap().arch, Arch::Aarch64);
        assert!(parse("darwin-x64-musl").is_err());
        assert!(parse("plan9-x64").is_err());
        assert!(parse("linux-riscv").is_err());
    }

    #[test]
    fn detection_names_a_libc_on_linux_only() {
        let platform = detect();
        assert_eq!(platform.libc.is_some(), platform.os == Os::Linux);
    }
}
