//! The one table of provider credential shapes. Every engine that finds a credential and
//! every output that hides one reads it from here.

/// One credential shape. Rows are in precedence order: where two shapes overlap in a
/// value, the earlier row names the credential.
pub(super) struct Shape {
    /// Stable id, in masks (`[REDACTED github-token]`) and finding detail codes.
    pub kind: &'static str,
    /// What a person calls it, in messages and evidence.
    pub name: &'static str,
    /// The documented shape, exact enough that prose naming a prefix (`ghp_…`) never
    /// matches; looked for in free text. `None`: only the looser shape is known.
    pub exact: Option<&'static str>,
    /// Looser lengths and prefixes, looked for where a whole value is the credential
    /// (config values, arguments, logs); matches every text `exact` matches. `None`: as exact.
    pub loose: Option<&'static str>,
    /// Literals of which every match holds one, so a text without any is skipped unread.
    pub gate: &'static [&'static str],
    /// Starts distinctive enough that any long word beginning with one is masked in
    /// arguments and logs, whether or not it has the full shape.
    pub prefixes: &'static [&'static str],
}

/// Word boundaries are ASCII (`(?-u:\b)`): every boundary here touches an ASCII word
/// character, so they hold wherever a Unicode one would, and keep the automata small.
/// Long bodies are unbounded (`{n,}`) for the same reason.
pub(super) const SHAPES: &[Shape] = &[
    Shape {
        kind: "github-token",
        name: "GitHub fine-grained token",
        exact: Some(r"(?-u:\b)github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?-u:\b)"),
        loose: Some(r"(?-u:\b)github_pat_[A-Za-z0-9_]{50,255}"),
        gate: &["github_pat_"],
        prefixes: &["github_pat_"],
    },
    Shape {
        kind: "github-token",
        name: "GitHub token",
        exact: Some(r"(?-u:\b)(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}(?-u:\b)"),
        loose: Some(r"(?-u:\b)(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}(?-u:\b)"),
        gate: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        prefixes: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    },
    Shape {
        kind: "anthropic-key",
        name: "Anthropic API key",
        exact: Some(r"(?-u:\b)sk-ant-[a-z]{3,10}\d{2}-[A-Za-z0-9_-]{80,}"),
        // The prefix alone names the provider: 24 characters after it are a key (a
        // truncated or test one, perhaps), whatever the setting that holds it is called.
        loose: Some(r"(?-u:\b)sk-ant-[a-z]{3,10}\d{2}-[A-Za-z0-9_-]{24,}"),
        gate: &["sk-ant-"],
        prefixes: &["sk-"],
    },
    Shape {
        kind: "openai-key",
        name: "OpenAI API key",
        exact: Some(r"(?-u:\b)sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?-u:\b)"),
        loose: Some(
            r"(?-u:\b)sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
        ),
        gate: &["T3BlbkFJ"],
        prefixes: &["sk-"],
    },
    Shape {
        kind: "openai-key",
        name: "OpenAI API key",
        exact: Some(r"(?-u:\b)sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"),
        // As distinctive a prefix as Anthropic's, with the same minimum.
        loose: Some(r"(?-u:\b)sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{24,}"),
        gate: &["sk-proj-", "sk-svcacct-", "sk-admin-"],
        prefixes: &["sk-"],
    },
    Shape {
        kind: "openai-key",
        name: "OpenAI API key",
        exact: Some(r"(?-u:\b)sk-[A-Za-z0-9]{48}(?-u:\b)"),
        loose: None,
        gate: &["sk-"],
        prefixes: &["sk-"],
    },
    Shape {
        kind: "aws-access-key",
        name: "AWS access key ID",
        exact: Some(r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)"),
        loose: None,
        gate: &["AKIA", "ASIA", "ABIA", "ACCA"],
        prefixes: &["AKIA"],
    },
    Shape {
        kind: "slack-token",
        name: "Slack token",
        exact: Some(r"(?-u:\b)xox[abposr]-(?:\d+-)+[A-Za-z0-9]{20,40}(?-u:\b)"),
        loose: Some(r"(?-u:\b)xox[abposre]-[A-Za-z0-9-]{10,}"),
        gate: &["xox"],
        prefixes: &["xoxb-", "xoxp-"],
    },
    Shape {
        kind: "slack-token",
        name: "Slack app token",
        exact: None,
        loose: Some(r"(?-u:\b)xapp-\d-[A-Za-z0-9-]{10,}"),
        gate: &["xapp-"],
        prefixes: &[],
    },
    Shape {
        kind: "slack-webhook",
        name: "Slack webhook",
        exact: Some(
            r"https://hooks\.slack\.com/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24}",
        ),
        loose: Some(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}"),
        gate: &["hooks.slack.com"],
        prefixes: &[],
    },
    Shape {
        kind: "google-api-key",
        name: "Google API key",
        exact: Some(r"(?-u:\b)AIza[0-9A-Za-z_-]{35}(?:(?-u:\b)|$)"),
        loose: Some(r"(?-u:\b)AIza[0-9A-Za-z_-]{35}"),
        gate: &["AIza"],
        prefixes: &["AIza"],
    },
    Shape {
        kind: "stripe-live-key",
        name: "Stripe live key",
        exact: Some(r"(?-u:\b)(?:sk|rk)_live_[0-9A-Za-z]{24,}(?-u:\b)"),
        loose: Some(r"(?-u:\b)(?:sk|rk)_live_[0-9A-Za-z]{20,}"),
        gate: &["sk_live_", "rk_live_"],
        prefixes: &["sk_live_", "rk_live_"],
    },
    Shape {
        kind: "gitlab-token",
        name: "GitLab token",
        exact: Some(r"(?-u:\b)glpat-[0-9A-Za-z_-]{20,}"),
        loose: Some(r"(?-u:\b)gl(?:pat|dt|rt|ptt|cbt|ft|soat|oas)-[0-9A-Za-z_-]{20,}"),
        gate: &[
            "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glsoat-", "gloas-",
        ],
        prefixes: &["glpat-"],
    },
    Shape {
        kind: "npm-token",
        name: "npm token",
        exact: Some(r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)"),
        loose: None,
        gate: &["npm_"],
        prefixes: &["npm_"],
    },
    Shape {
        kind: "huggingface-token",
        name: "Hugging Face token",
        exact: Some(r"(?-u:\b)hf_[A-Za-z0-9]{34}(?-u:\b)"),
        loose: Some(r"(?-u:\b)(?:hf_|api_org_)[A-Za-z0-9]{30,}(?-u:\b)"),
        gate: &["hf_", "api_org_"],
        prefixes: &["hf_"],
    },
    Shape {
        kind: "jwt",
        name: "JSON Web Token",
        exact: Some(r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"),
        loose: Some(r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
        gate: &["eyJ"],
        prefixes: &["eyJ"],
    },
    Shape {
        kind: "private-key",
        name: "private key",
        // In free text a header alone is documentation; the key body must follow.
        exact: Some(
            r"-----BEGIN[A-Z ]{0,20} PRIVATE KEY(?: BLOCK)?-----(?:\s|\\n)*(?:[A-Za-z0-9-]+: [^\n]*(?:\s|\\n)*)*[A-Za-z0-9+/=]{40,}",
        ),
        loose: Some(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        gate: &["PRIVATE KEY"],
        prefixes: &[],
    },
];
