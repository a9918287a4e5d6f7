// policyc ordinary sample: an everyday Rust binary (clap derive, tokio, anyhow, tracing).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/rust/ to measure rule breadth.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, ValueEnum};
use tracing::{info, warn};

mod check;
mod config;
mod report;

use crate::check::{check_site, Outcome};
use crate::config::Config;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Find broken links in a static site.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Folder with the built site
    #[arg(default_value = "public")]
    root: PathBuf,

    /// Also check links to other sites
    #[arg(long)]
    external: bool,

    /// How many requests run at once
    #[arg(short, long, default_value_t = 16)]
    jobs: usize,

    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// Configuration file
    #[arg(long, default_value = "linkcheck.toml")]
    config: PathBuf,
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();

    match run(Cli::parse()).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> Result<bool> {
    let config = if cli.config.exists() {
        Config::load(&cli.config).with_context(|| format!("reading {}", cli.config.display()))?
    } else {
        Config::default()
    };
    if !cli.root.is_dir() {
        anyhow::bail!("{} is not a folder; build the site first", cli.root.display());
    }

    info!(root = %cli.root.display(), jobs = cli.jobs, "checking links");
    let outcomes = check_site(&cli.root, cli.external, cli.jobs, &config).await?;
    let broken: Vec<&Outcome> = outcomes.iter().filter(|o| o.is_broken()).collect();
    if broken.len() > 50 {
        warn!(count = broken.len(), "many broken links; is the site root right?");
    }

    match cli.format {
        Format::Text => report::print_text(&outcomes),
        Format::Json => report::print_json(&outcomes)?,
    }
    Ok(broken.is_empty())
}
