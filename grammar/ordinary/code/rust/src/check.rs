// policyc ordinary sample: an everyday async Rust module (futures streams, enums, pattern matching, tests).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/rust/ to measure rule breadth.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Result;
use futures::stream::{self, StreamExt};
use scraper::{Html, Selector};
use url::Url;

use crate::config::Config;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Ok,
    Missing,
    Http(u16),
    Failed(String),
    Skipped,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub page: String,
    pub target: String,
    pub status: Status,
}

impl Outcome {
    pub fn is_broken(&self) -> bool {
        matches!(self.status, Status::Missing | Status::Http(_) | Status::Failed(_))
    }

    pub fn reason(&self) -> String {
        match &self.status {
            Status::Ok | Status::Skipped => String::new(),
            Status::Missing => "no such file".to_string(),
            Status::Http(code) => format!("HTTP {code}"),
            Status::Failed(message) => message.clone(),
        }
    }
}

pub fn links_in(html: &str) -> Vec<String> {
    let document = Html::parse_document(html);
    let selector = Selector::parse("a[href], link[href], img[src], script[src]").expect("valid selector");
    let mut seen = HashSet::new();
    document
        .select(&selector)
        .filter_map(|element| element.value().attr("href").or_else(|| element.value().attr("src")))
        .filter(|href| !href.starts_with('#') && !href.is_empty())
        .filter(|href| seen.insert(href.to_string()))
        .map(str::to_string)
        .collect()
}

fn local_target(root: &Path, page: &Path, href: &str) -> PathBuf {
    let path = href.split(['#', '?']).next().unwrap_or_default();
    let base = if path.starts_with('/') { root.to_path_buf() } else { page.parent().unwrap_or(root).to_path_buf() };
    let mut target = base.join(path.trim_start_matches('/'));
    if target.extension().is_none() {
        target.push("index.html");
    }
    target
}

pub async fn check_site(root: &Path, external: bool, jobs: usize, config: &Config) -> Result<Vec<Outcome>> {
    let client = reqwest::Client::builder().timeout(config.request_timeout()).build()?;
    let mut work = Vec::new();
    for entry in walkdir::WalkDir::new(root).into_iter().filter_map(Result::ok) {
        if entry.path().extension().is_some_and(|ext| ext == "html") {
            let html = tokio::fs::read_to_string(entry.path()).await?;
            for href in links_in(&html) {
                work.push((entry.path().to_path_buf(), href));
            }
        }
    }

    let outcomes = stream::iter(work)
        .map(|(page, href)| {
            let client = client.clone();
            async move {
                let status = match Url::parse(&href) {
                    Ok(url) if url.scheme().starts_with("http") => {
                        if !external {
                            Status::Skipped
                        } else {
                            match client.head(url).send().await {
                                Ok(response) if response.status().is_success() => Status::Ok,
                                Ok(response) => Status::Http(response.status().as_u16()),
                                Err(err) => Status::Failed(err.to_string()),
                            }
                        }
                    }
                    Ok(_) => Status::Skipped,
                    Err(_) if local_target(root, &page, &href).exists() => Status::Ok,
                    Err(_) => Status::Missing,
                };
                Outcome { page: page.display().to_string(), target: href, status }
            }
        })
        .buffer_unordered(jobs)
        .collect::<Vec<_>>()
        .await;
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_link_once_and_skips_anchors() {
        let html = r##"<a href="/a">A</a><a href="/a">again</a><a href="#top">top</a><img src="logo.png">"##;
        assert_eq!(links_in(html), vec!["/a", "logo.png"]);
    }

    #[test]
    fn folders_resolve_to_their_index() {
        let target = local_target(Path::new("public"), Path::new("public/blog/post.html"), "../about/");
        assert_eq!(target, PathBuf::from("public/blog/../about/index.html"));
    }
}
