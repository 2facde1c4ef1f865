//! The sticky pull-request comment: one comment per pull request, found again by the hidden
//! marker on its first line, created on the first run and updated on every later one.

use crate::report::markdown::COMMENT_MARKER;
use octocrab::models::issues::Comment;
use octocrab::Octocrab;
use std::time::Duration;

/// Pages of comments searched for the marker (100 comments each).
const MAX_PAGES: usize = 30;

/// Where the comment goes.
#[derive(Debug, Clone)]
pub struct Target {
    pub api_url: String,
    pub token: String,
    pub owner: String,
    pub repo: String,
    pub pull_request: u64,
}

/// What became of the comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentOutcome {
    Created(u64),
    Updated(u64),
    /// It could not be posted; the text says why and is shown as a warning.
    Failed(String),
}

/// Creates the sticky comment, or updates the one an earlier run left.
pub async fn upsert(target: &Target, body: &str) -> CommentOutcome {
    match try_upsert(target, body).await {
        Ok(outcome) => outcome,
        Err(e) => CommentOutcome::Failed(describe(&e)),
    }
}

async fn try_upsert(target: &Target, body: &str) -> octocrab::Result<CommentOutcome> {
    let crab = Octocrab::builder()
        .base_uri(target.api_url.as_str())?
        .personal_token(target.token.clone())
        .set_connect_timeout(Some(Duration::from_secs(15)))
        .set_read_timeout(Some(Duration::from_secs(30)))
        .build()?;
    // The token's own login, when it has one (GITHUB_TOKEN has none: GET /user is refused).
    let viewer = crab.current().user().await.ok().map(|u| u.login);
    let issues = crab.issues(&target.owner, &target.repo);
    let mut page = issues
        .list_comments(target.pull_request)
        .per_page(100)
        .send()
        .await?;
    let mut existing: Option<Comment> = None;
    for _ in 0..MAX_PAGES {
        existing = page
            .items
            .iter()
            .find(|c| is_ours(c, viewer.as_deref()))
            .cloned();
        if existing.is_some() {
            break;
        }
        match crab.get_page::<Comment>(&page.next).await? {
            Some(next) => page = next,
            None => break,
        }
    }
    Ok(match existing {
        Some(comment) => {
            let updated = issues.update_comment(comment.id, body).await?;
            CommentOutcome::Updated(updated.id.into_inner())
        }
        None => {
            let created = issues.create_comment(target.pull_request, body).await?;
            CommentOutcome::Created(created.id.into_inner())
        }
    })
}

/// Our comment starts with the marker and was written by this token's user or by a bot
/// (`github-actions[bot]` for GITHUB_TOKEN), so a person quoting the marker is left alone.
fn is_ours(comment: &Comment, viewer: Option<&str>) -> bool {
    let marked = comment
        .body
        .as_deref()
        .is_some_and(|b| b.starts_with(COMMENT_MARKER));
    let author = &comment.user;
    marked && (viewer == Some(author.login.as_str()) || author.r#type == "Bot")
}

fn describe(e: &octocrab::Error) -> String {
    match e {
        octocrab::Error::GitHub { source, .. } if source.status_code.as_u16() == 403 => format!(
            "the pull-request comment was not posted: the token may not write comments (HTTP 403: {}). On pull requests from forks GITHUB_TOKEN is read-only; give the job `permissions: pull-requests: write`, or set `comment: false`.",
            crate::finding::excerpt(&source.message, 200)
        ),
        octocrab::Error::GitHub { source, .. } => format!(
            "the pull-request comment was not posted: GitHub answered HTTP {} ({}).",
            source.status_code.as_u16(),
            crate::finding::excerpt(&source.message, 200)
        ),
        other => format!(
            "the pull-request comment was not posted: {}.",
            crate::finding::excerpt(&other.to_string(), 300)
        ),
    }
}
