//! Installing agents from the command line: the daemon's install flags, and
//! `agentplex agents install`, which follows the daemon's install as an event
//! stream and shows a progress bar on a terminal (plain lines otherwise).

use std::io::IsTerminal;
use std::path::PathBuf;

use agentplex_api::ProblemDetails;
use clap::builder::BoolishValueParser;
use clap::Args;
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};

use super::error::{CliError, LocalError};
use agentplex_install::{
    platform, registry::RegistrySource, InstallOutcome, InstallProgress, InstallSettings, Mirror,
    SourcePreference, Stage,
};

/// `agentplex server` flags about installing agents.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Never install an agent when a session is created: a missing agent (or a
    /// missing `agentVersion`) is `agent_not_installed`.
    #[arg(long, env = "AGENTPLEX_NO_INSTALL", value_parser = BoolishValueParser::new())]
    no_install: bool,
    /// Where agents are installed from: the vendors' release downloads then the npm
    /// package (`auto`), only the downloads (`release`) or only npm (`npm`).
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        env = "AGENTPLEX_INSTALL_SOURCE"
    )]
    install_source: SourcePreference,
    /// Fetch every release URL `https://HOST/PATH` from `MIRROR/HOST/PATH` instead.
    #[arg(long, value_name = "MIRROR", env = "AGENTPLEX_RELEASES_MIRROR")]
    releases_mirror: Option<String>,
    /// Install builds for this platform (`linux-x64`, `linux-x64-musl`,
    /// `linux-arm64`, `darwin-arm64`...) [default: detected].
    #[arg(long, value_name = "PLATFORM", env = "AGENTPLEX_INSTALL_PLATFORM")]
    install_platform: Option<String>,
    /// The ACP registry's index that `GET /v1/registry` lists and `agentplex agents
    /// add` installs from: a URL (fetched through the releases mirror, cached in the
    /// install dir for an hour, the cached copy used when a fetch fails) or a
    /// snapshot file for a sandbox that reaches no registry.
    #[arg(
        long,
        value_name = "URL_OR_FILE",
        env = "AGENTPLEX_ACP_REGISTRY",
        default_value = agentplex_install::registry::source::DEFAULT_URL
    )]
    acp_registry: String,
}

impl InstallArgs {
    /// The install settings for an install dir.
    pub fn into_settings(self, dir: PathBuf) -> Result<InstallSettings, LocalError> {
        if let Some(mirror) = &self.releases_mirror {
            if !(mirror.starts_with("http://") || mirror.starts_with("https://")) {
                return Err(LocalError::ReleasesMirror(mirror.clone()));
            }
        }
        let mut settings = InstallSettings::new(dir);
        settings.on_create = !self.no_install;
        settings.source = self.install_source;
        settings.mirror = Mirror::new(self.releases_mirror);
        settings.acp_registry = match RegistrySource::parse(&self.acp_registry) {
            RegistrySource::File(path) => {
                RegistrySource::File(std::path::absolute(&path).unwrap_or(path))
            }
            url => url,
        };
        if let Some(name) = &self.install_platform {
            settings.platform = platform::parse(name).map_err(LocalError::InstallPlatform)?;
        }
        Ok(settings)
    }
}

/// `agentplex agents install` and `agentplex agents add`: posts `request` to
/// `path` asking for an event stream of the install, shows its progress and
/// returns its outcome.
pub async fn follow(
    endpoint: &str,
    token: Option<&str>,
    path: &str,
    request: &impl serde::Serialize,
) -> Result<InstallOutcome, CliError> {
    let url = format!("{}{path}", endpoint.trim_end_matches('/'));
    let mut call = reqwest::Client::new()
        .post(&url)
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .json(request);
    if let Some(token) = token {
        call = call.bearer_auth(token);
    }
    let response = call
        .send()
        .await
        .map_err(|e| CliError::invalid(format!("cannot reach the daemon at {endpoint}: {e}")))?;
    if !response.status().is_success() {
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        return Err(match serde_json::from_str::<ProblemDetails>(&body) {
            Ok(problem) => CliError::Problem(Box::new(problem)),
            Err(_) => CliError::invalid(format!("{status}: {body}")),
        });
    }
    let mut display = Display::new();
    let mut events = eventsource_stream::EventStream::new(response.bytes_stream());
    while let Some(event) = events.next().await {
        let event =
            event.map_err(|e| CliError::invalid(format!("the install stream broke: {e}")))?;
        match event.event.as_str() {
            "progress" => {
                if let Ok(report) = serde_json::from_str::<InstallProgress>(&event.data) {
                    display.show(&report);
                }
            }
            "result" => {
                display.finish();
                return serde_json::from_str(&event.data).map_err(CliError::invalid);
            }
            "error" => {
                display.finish();
                let problem: ProblemDetails =
                    serde_json::from_str(&event.data).map_err(CliError::invalid)?;
                return Err(CliError::Problem(Box::new(problem)));
            }
            _ => {}
        }
    }
    display.finish();
    Err(CliError::invalid(
        "the daemon closed the install stream without a result",
    ))
}

/// Progress on stderr: a bar on a terminal, one line per step otherwise.
struct Display {
    bar: Option<ProgressBar>,
    last: Option<(Stage, String)>,
}

impl Display {
    fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
                )
                .expect("the template is valid")
                .progress_chars("=> "),
            );
            bar
        });
        Self { bar, last: None }
    }

    fn show(&mut self, report: &InstallProgress) {
        let step = (report.stage, report.target.clone());
        let new_step = self.last.as_ref() != Some(&step);
        self.last = Some(step);
        let label = format!("{:?} {}", report.stage, report.target).to_lowercase();
        match &self.bar {
            Some(bar) => {
                if new_step {
                    bar.set_message(label);
                    bar.set_position(0);
                }
                bar.set_length(report.bytes_total.unwrap_or(report.bytes_done));
                bar.set_position(report.bytes_done);
            }
            None if new_step => eprintln!("{label}"),
            None => {}
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
