//! The signals of `tool-poisoning-instructions`: each a set of patterns over the folded,
//! lower-cased text, and for each pattern the words it cannot match without (its gate).

/// A kind of order aimed at the model.
pub struct Signal {
    pub detail: &'static str,
    /// What it means, for the message.
    pub what: &'static str,
    pub strong: bool,
    pub patterns: Vec<Pattern>,
}

/// One pattern: lower-case regex source (ASCII mode is added when built), whether it runs
/// on the cased text instead, and its gate (see `surface::gate`).
pub struct Pattern {
    pub source: String,
    pub cased: bool,
    pub gate: Vec<Vec<&'static str>>,
}

/// Credential stores: private SSH keys (not `~/.ssh/config`, `known_hosts` or `*.pub`),
/// cloud and package-registry credentials, MCP client configs. Reading them is never what
/// a tool's description should ask of the model.
const SECRET_STORES: &str = concat!(
    r#"(?:~|\$home|%userprofile%)[/\\]\.ssh(?:[/\\](?:authorized_keys|\*)|[/\\]?(?:$|[\s'"`),;:]|\.(?:\s|$)))"#,
    r#"|\.ssh[/\\](?:id_[a-z0-9_]+|authorized_keys)(?:$|[^.\w]|\.(?:\s|$))|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:$|[^.\w]|\.(?:\s|$))"#,
    r"|(?:~|\$home)/\.aws\b|\.aws/credentials\b",
    r"|(?:~|\$home)/\.(?:netrc|npmrc|pypirc|git-credentials|pgpass|docker|kube|gnupg|azure|config/gh|config/gcloud)\b",
    r"|\.git-credentials\b|/etc/(?:shadow|gshadow|sudoers)\b|/proc/self/environ\b",
    r"|\bmcp\.json\b|\bclaude_desktop_config\.json\b|(?:~|\$home)/\.(?:cursor|claude)\b",
);
const STORE_WORDS: &[&str] = &[
    ".ssh",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".aws",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".docker",
    ".kube",
    ".gnupg",
    ".azure",
    ".config/g",
    "/etc/",
    "/proc/self/environ",
    "mcp.json",
    "claude_desktop_config",
    ".cursor",
    ".claude",
];

/// Files that hold secrets but that honest tools do read (a dotenv manager reads `.env`).
const SECRET_FILES: &str = concat!(
    r#"(?:^|[\s'"`(/=:])\.env(?:\.(?:local|production|prod|development|dev|staging|test))?(?:$|[\s'"`),;:]|\.(?:\s|$))"#,
    r"|/etc/passwd\b",
);
const FILE_WORDS: &[&str] = &[".env", "/etc/passwd"];

/// Handing what was read to a tool: "pass its content", "as the 'sidenote' parameter".
const EXFIL: &str = r#"(?:\b(?:pass|send|include|provide|put|add|append|attach|paste|upload|forward|post|email|insert)\b[^\n]{0,40}?\b(?:it|its|them|their|the\s+(?:content|contents|file|key|keys|value|values|result|output)|contents?)\b|\bas\s+(?:an?\s+|the\s+)?['"`]?[\w-]+['"`]?\s+(?:parameter|argument|param|field|input)\b|\bsidenote\b)"#;

/// Verbs that move data somewhere, in the imperative.
const VERB: &str = r"\b(?:read|cat|open|load|send|include|pass|upload|attach|copy|paste|append|print|output|provide|fetch|access|extract|exfiltrate|collect|share|forward|post|leak|dump|email)\b";

/// What a data-moving order can be about that the model holds or can reach.
const USER_SECRETS: &str = r"(?:(?:the\s+)?user'?s\s+(?:credentials|passwords?|secrets|tokens|api\s+keys?|cookies|private\s+keys?|ssh\s+keys?)|(?:ssh|private)\s+keys?|ssh\s+private\s+keys?)";
const CONTEXT: &str = r"(?:(?:the|this|entire|full|whole|complete)\s+)+(?:conversation(?:\s+history)?|chat(?:\s+history)?|system\s+prompt|context\s+window|previous\s+messages)";

const NEGATIONS: &[&str] = &["not", "n't", "never"];

fn p(source: &str, gate: &[&[&'static str]]) -> Pattern {
    Pattern {
        source: source.to_string(),
        cased: false,
        gate: gate.iter().map(|g| g.to_vec()).collect(),
    }
}

fn signal(
    detail: &'static str,
    what: &'static str,
    strong: bool,
    patterns: Vec<Pattern>,
) -> Signal {
    Signal {
        detail,
        what,
        strong,
        patterns,
    }
}

pub fn signals() -> Vec<Signal> {
    let stores_and_files: Vec<&'static str> =
        STORE_WORDS.iter().chain(FILE_WORDS).copied().collect();
    let ignore = &["ignore", "disregard", "forget"][..];
    vec![
        signal(
            "override-instructions",
            "tells the model to override its instructions",
            true,
            vec![
                p(
                    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|preceding|former|original|system|safety|other|existing)\s+(?:instructions?|prompts?|directions?|rules|guidelines|guidance|commands|constraints|messages|policies)\b",
                    &[&["ignore", "disregard", "forget", "override", "bypass"]],
                ),
                p(
                    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+)?(?:above|previous|prior|preceding)(?:\s*[.,;:!]|\s+and\b|$)",
                    &[ignore],
                ),
                p(
                    r"\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:your|every)\s+(?:instructions|rules|guidelines|training|system\s+prompt)\b|\bforget\s+everything\s+you\s+(?:were|have\s+been)\s+told\b",
                    &[ignore],
                ),
                p(
                    r"\b(?:your|the)\s+new\s+(?:instructions|task|role|goal|objective)\s+(?:is|are)\b",
                    &[
                        &["new"],
                        &["instructions", "task", "role", "goal", "objective"],
                    ],
                ),
                p(
                    r"\byou\s+are\s+now\s+(?:in\s+)?(?:developer|god|admin|jailbreak|dan|unrestricted)\b",
                    &[
                        &["now"],
                        &[
                            "developer",
                            "god",
                            "admin",
                            "jailbreak",
                            "dan",
                            "unrestricted",
                        ],
                    ],
                ),
                p(r"\bsystem\s+override\b", &[&["override"]]),
            ],
        ),
        signal(
            "instruction-tag",
            "wraps orders in a tag aimed at the model",
            true,
            vec![
                p(
                    r"<\s*/?\s*(?:important|system|instructions?|admin|critical|secret|hidden|override|sudo|urgent|system[_-]?prompt|assistant[_-]?instructions?)\s*>",
                    &[
                        &["<"],
                        &[
                            "important",
                            "system",
                            "instruction",
                            "admin",
                            "critical",
                            "secret",
                            "hidden",
                            "override",
                            "sudo",
                            "urgent",
                        ],
                    ],
                ),
                Pattern {
                    source: r"\[\s*(?:SYSTEM|IMPORTANT|INST|ADMIN)\s*\]".to_string(),
                    cased: true,
                    gate: vec![vec!["["], vec!["system", "important", "inst", "admin"]],
                },
                p(
                    r"<<\s*sys\s*>>|<\|(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>",
                    &[&["<<", "<|"]],
                ),
            ],
        ),
        signal(
            "conceal-from-user",
            "asks the model to hide something from the user",
            true,
            vec![
                p(
                    r"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t)\s+(?:tell|inform|notify|alert|warn|(?:mention|reveal|disclose|explain)\s+(?:this\s+|it\s+|that\s+|anything\s+)?to)\s+(?:this\s+to\s+|it\s+to\s+)?(?:the\s+)?user\b",
                    &[
                        NEGATIONS,
                        &[
                            "tell", "inform", "notify", "alert", "warn", "mention", "reveal",
                            "disclose", "explain",
                        ],
                        &["user"],
                    ],
                ),
                p(
                    r"\bwithout\s+(?:telling|informing|notifying|alerting|warning)\s+(?:the\s+)?user\b",
                    &[&["without"], &["user"]],
                ),
                p(
                    r"\bwithout\s+the\s+user(?:'s)?\s+(?:knowing|knowledge|noticing|seeing|being\s+aware)\b",
                    &[&["without"], &["user"]],
                ),
                p(
                    r"\b(?:hide|conceal)\s+(?:this|it|that|these|the)\b[^.!?\n]{0,40}\bfrom\s+(?:the\s+)?user\b",
                    &[&["hide", "conceal"], &["user"]],
                ),
                p(
                    r"\bthe\s+user\s+(?:must|should|needs?\s+to)\s+(?:not|never)\s+(?:know|see|be\s+told|be\s+informed|be\s+aware|find\s+out|notice|learn)\b",
                    &[&["user"], &["not", "never"]],
                ),
                p(
                    r"\b(?:secretly|covertly)\s+[a-z]+",
                    &[&["secretly", "covertly"]],
                ),
                p(
                    r"\b(?:silently|quietly)\s+(?:send|forward|upload|exfiltrate|transmit|email|post|copy|leak)\b",
                    &[&["silently", "quietly"]],
                ),
            ],
        ),
        signal(
            "read-sensitive-file",
            "tells the model to read a credential file",
            true,
            vec![
                p(
                    &format!(r"{VERB}[^.!?\n]{{0,80}}?(?:{SECRET_STORES})"),
                    &[STORE_WORDS],
                ),
                p(
                    &format!(
                        r"{VERB}[^.!?\n]{{0,80}}?(?:{SECRET_STORES}|{SECRET_FILES})[^\n]{{0,160}}?{EXFIL}"
                    ),
                    &[&stores_and_files],
                ),
            ],
        ),
        signal(
            "move-user-secrets",
            "tells the model to hand over the user's keys or credentials",
            true,
            vec![p(
                &format!(r"{VERB}[^.!?\n]{{0,60}}?\b{USER_SECRETS}\b"),
                &[
                    &["user", "ssh", "private"],
                    &["credential", "password", "secret", "token", "key", "cookie"],
                ],
            )],
        ),
        signal(
            "sensitive-file",
            "names a credential file",
            false,
            vec![p(
                &format!("{SECRET_STORES}|{SECRET_FILES}"),
                &[&stores_and_files],
            )],
        ),
        signal(
            "credential-access",
            "asks for credentials",
            false,
            vec![p(
                r"\b(?:read|send|include|pass|upload|attach|copy|forward|exfiltrate|collect|share|provide|extract|dump|leak)\b[^.!?\n]{0,60}?\b(?:api\s+keys|credentials|passwords|secrets|access\s+tokens|environment\s+variables|cookies|session\s+tokens?)\b",
                &[&[
                    "api",
                    "credential",
                    "password",
                    "secret",
                    "access",
                    "environment",
                    "cookie",
                    "session",
                ]],
            )],
        ),
        signal(
            "context-leak",
            "asks for the conversation or system prompt",
            false,
            vec![
                p(
                    &format!(r"{VERB}[^.!?\n]{{0,40}}?\b{CONTEXT}\b"),
                    &[&["conversation", "chat", "system", "context", "previous"]],
                ),
                p(
                    &format!(r"\b(?:with|including|containing)\s+{CONTEXT}\b"),
                    &[
                        &["with", "including", "containing"],
                        &["conversation", "chat", "system", "context", "previous"],
                    ],
                ),
            ],
        ),
        signal(
            "call-tool-first",
            "makes the model call something before this tool",
            false,
            vec![
                p(
                    r"\bbefore\s+(?:using|calling|invoking|running|executing|answering|responding)\s+(?:this|any(?:\s+other)?|every|all)\s+(?:other\s+)?(?:tools?|requests?|questions?)\b",
                    &[&["before"], &["tool", "request", "question"]],
                ),
                p(
                    r"\b(?:always|must)\s+(?:first\s+)?(?:call|invoke|run|use|execute|read)\s+(?:the\s+)?`?[\w.-]+`?\s+(?:tool\s+)?(?:first|before)\b",
                    &[&["always", "must"], &["first", "before"]],
                ),
            ],
        ),
        signal(
            "coercion",
            "pressures the model",
            false,
            vec![
                p(
                    r"\botherwise\s+(?:the|this)\s+(?:tool|server|request|call|function)\s+(?:will\s+not|won'?t|cannot|can'?t|will\s+fail|fails|will\s+break)\b",
                    &[&["otherwise"]],
                ),
                p(
                    r"\b(?:very|extremely|critically|vitally)\s+important\b",
                    &[&["important"]],
                ),
                p(r"\bfrom\s+now\s+on\b", &[&["now"]]),
            ],
        ),
        signal(
            "discretion",
            "asks the model to keep quiet about what it does",
            false,
            vec![
                p(
                    r"\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose|say|explain|bring\s+up)\s+(?:that|this|it|anything|why)\b",
                    &[
                        NEGATIONS,
                        &["mention", "reveal", "disclose", "say", "explain", "bring"],
                    ],
                ),
                p(
                    r"\b(?:do\s+not|don'?t|never|without)\s+(?:ask|asking|request|requesting)\s+(?:the\s+user\s+)?(?:for\s+)?(?:confirmation|permission|approval|consent)\b",
                    &[&["confirmation", "permission", "approval", "consent"]],
                ),
                p(
                    r"\bkeep\s+(?:this|it|that)\s+(?:a\s+)?secret\b",
                    &[&["secret"]],
                ),
                p(
                    r"\b(?:silently|quietly)\s+(?:read|include|add|append|call|run|execute|collect|pass)\b",
                    &[&["silently", "quietly"]],
                ),
            ],
        ),
    ]
}
