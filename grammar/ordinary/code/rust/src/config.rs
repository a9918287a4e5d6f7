// policyc ordinary sample: an everyday Rust module (serde config, errors, tests).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/rust/ to measure rule breadth.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("could not read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid config in {path}: {source}")]
    Parse {
        path: PathBuf,
        #[source]
        source: toml::de::Error,
    },
    #[error("`workers` must be between 1 and 64, got {0}")]
    Workers(usize),
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub listen: String,
    pub workers: usize,
    pub request_timeout_ms: u64,
    pub log_level: String,
    pub database_url: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".to_string(),
            workers: 4,
            request_timeout_ms: 30_000,
            log_level: "info".to_string(),
            database_url: None,
        }
    }
}

impl Config {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|source| ConfigError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
        config.validate()?;
        Ok(config)
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=64).contains(&self.workers) {
            return Err(ConfigError::Workers(self.workers));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_gives_defaults() {
        let config = Config::parse("", Path::new("app.toml")).unwrap();
        assert_eq!(config, Config::default());
    }

    #[test]
    fn fields_override_defaults() {
        let config = Config::parse("workers = 8\nlog_level = \"debug\"", Path::new("app.toml")).unwrap();
        assert_eq!(config.workers, 8);
        assert_eq!(config.log_level, "debug");
        assert_eq!(config.request_timeout(), Duration::from_secs(30));
    }

    #[test]
    fn zero_workers_is_rejected() {
        let err = Config::parse("workers = 0", Path::new("app.toml")).unwrap_err();
        assert!(matches!(err, ConfigError::Workers(0)));
    }

    #[test]
    fn unknown_fields_are_errors() {
        let err = Config::parse("colour = \"blue\"", Path::new("app.toml")).unwrap_err();
        assert!(err.to_string().contains("app.toml"));
    }
}
