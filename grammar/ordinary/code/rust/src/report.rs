// policyc ordinary sample: an everyday Rust module (iterators, grouping, serde_json, unit tests).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/rust/ to measure rule breadth.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::check::Outcome;

#[derive(Debug, Serialize, PartialEq)]
struct PageReport<'a> {
    page: &'a str,
    broken: Vec<BrokenLink<'a>>,
}

#[derive(Debug, Serialize, PartialEq)]
struct BrokenLink<'a> {
    target: &'a str,
    reason: String,
}

fn group(outcomes: &[Outcome]) -> Vec<PageReport<'_>> {
    let mut pages: BTreeMap<&str, Vec<BrokenLink<'_>>> = BTreeMap::new();
    for outcome in outcomes.iter().filter(|o| o.is_broken()) {
        pages.entry(outcome.page.as_str()).or_default().push(BrokenLink {
            target: outcome.target.as_str(),
            reason: outcome.reason(),
        });
    }
    pages
        .into_iter()
        .map(|(page, mut broken)| {
            broken.sort_by(|a, b| a.target.cmp(b.target));
            PageReport { page, broken }
        })
        .collect()
}

pub fn print_text(outcomes: &[Outcome]) {
    let pages = group(outcomes);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for page in &pages {
        let _ = writeln!(out, "{}", page.page);
        for link in &page.broken {
            let _ = writeln!(out, "  {} ({})", link.target, link.reason);
        }
    }
    let total: usize = pages.iter().map(|p| p.broken.len()).sum();
    let _ = writeln!(out, "{} links checked, {} broken on {} pages", outcomes.len(), total, pages.len());
}

pub fn print_json(outcomes: &[Outcome]) -> serde_json::Result<()> {
    let pages = group(outcomes);
    serde_json::to_writer_pretty(io::stdout().lock(), &pages)?;
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Status;

    fn outcome(page: &str, target: &str, status: Status) -> Outcome {
        Outcome { page: page.into(), target: target.into(), status }
    }

    #[test]
    fn groups_broken_links_by_page_in_order() {
        let outcomes = vec![
            outcome("b.html", "/z", Status::Missing),
            outcome("a.html", "/ok", Status::Ok),
            outcome("b.html", "/a", Status::Http(404)),
        ];

        let pages = group(&outcomes);

        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].page, "b.html");
        let targets: Vec<_> = pages[0].broken.iter().map(|l| l.target).collect();
        assert_eq!(targets, ["/a", "/z"]);
    }

    #[test]
    fn nothing_broken_means_no_pages() {
        let outcomes = vec![outcome("a.html", "/", Status::Ok)];
        assert!(group(&outcomes).is_empty());
    }
}
