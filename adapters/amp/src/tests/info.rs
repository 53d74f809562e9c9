//! Static facts: info, install plan, version parsing.

use sandbox_agent_adapter_kit::prelude::*;

use crate::Amp;

#[test]
fn info_names_the_agent_and_its_credentials() {
    let info = <Amp as Adapter>::info();
    assert_eq!(info.id, "amp");
    assert_eq!(
        info.credential_env,
        [CredentialVariable::new(
            "AMP_API_KEY",
            "amp",
            CredentialKind::ApiKey
        )]
    );
    assert_eq!(info.default_mode, "build");
    assert!(
        Capabilities::from_names(&info.capabilities).resume
            && Capabilities::from_names(&info.capabilities).cancel
    );
    assert!(
        !Capabilities::from_names(&info.capabilities).permissions
            && !Capabilities::from_names(&info.capabilities).streaming_deltas
    );
    assert!(!info.builtin);
}

#[test]
fn version_is_read_from_the_real_version_output() {
    let output = "0.0.1790142911-g7618fb (released 2026-09-23T05:55:11.000Z, 2mo ago)\nnpm package: @ampcode/cli\n";
    assert_eq!(
        <Amp as Adapter>::parse_version(output.to_owned()).as_deref(),
        Some("0.0.1790142911-g7618fb")
    );
    let old = "0.0.1767830505-ga62310 (released 2026-01-08T00:07:21.653Z, 10mo ago)";
    assert_eq!(
        <Amp as Adapter>::parse_version(old.to_owned()).as_deref(),
        Some("0.0.1767830505-ga62310")
    );
    assert_eq!(
        <Amp as Adapter>::parse_version("1.2.3\n".to_owned()).as_deref(),
        Some("1.2.3")
    );
    assert_eq!(<Amp as Adapter>::parse_version("Amp CLI".to_owned()), None);
    assert_eq!(
        <Amp as Adapter>::version_args(),
        Some(vec!["--version".to_owned()])
    );
}

#[test]
fn install_plan_names_the_platform_package_and_binary() {
    let linux = Platform {
        os: Os::Linux,
        arch: Arch::X8664,
        libc: Some(Libc::Gnu),
    };
    let recipe = <Amp as Adapter>::install_plan(linux, None).unwrap();
    assert_eq!(recipe.binary_name, "amp");
    assert_eq!(
        recipe.npm_package.as_deref(),
        Some("@ampcode/cli-linux-x64")
    );
    assert_eq!(recipe.npm_binary_path.as_deref(), Some("amp"));
    assert!(recipe.sources[0].url.ends_with("/{version}/amp-linux-x64"));
    let mac = Platform {
        os: Os::Macos,
        arch: Arch::Aarch64,
        libc: None,
    };
    let recipe = <Amp as Adapter>::install_plan(mac, None).unwrap();
    assert_eq!(
        recipe.npm_package.as_deref(),
        Some("@ampcode/cli-darwin-arm64")
    );
    let musl = Platform {
        os: Os::Linux,
        arch: Arch::X8664,
        libc: Some(Libc::Musl),
    };
    assert_eq!(<Amp as Adapter>::install_plan(musl, None), None);
}
