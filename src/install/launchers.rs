//! The installs a launcher makes itself (npx, uvx), into its own cache: what the client's
//! launcher installs, with the same choices, and found complete by a later sweep.

use super::*;

impl InstallCache {
    /// npx installs the package into its own cache with a no-op run, unless a complete
    /// install of it is there already (npx marks one with `_npx` in its package.json).
    pub(super) async fn through_npx(
        &self,
        install: &Install,
        env: &[(String, String)],
        started: Instant,
    ) -> Installed {
        let dir = npx_dir(env, &install.package.spec);
        if npx_complete(&dir, install) {
            return resolve_npx(install, &dir, InstallFacts::none_ran(true, false));
        }
        // npx reads the project in its working directory first: an empty one of our own.
        if let Err(e) = std::fs::create_dir_all(&self.root) {
            let why = format!("cannot create the install directory: {e}");
            let facts = InstallFacts::directory_error(why.clone());
            return failed(Code::InstallFailed, "io", &why, facts);
        }
        let argv = [
            "npm".to_string(),
            "exec".into(),
            "--yes".into(),
            // npm names each lifecycle script it runs and shows its output, so a failed
            // one is named with its own words (npx alone says nothing of it).
            "--loglevel=info".into(),
            "--foreground-scripts".into(),
            format!("--package={}", install.package.spec),
            "--".into(),
            "true".into(),
        ];
        let facts = match self
            .run_all(install, &[argv.to_vec()], &self.root, env, started)
            .await
        {
            Ok((facts, _)) => facts,
            Err(failure) => return failure,
        };
        if dir.join("package.json").is_file() {
            return resolve_npx(install, &dir, facts);
        }
        // npm's cache is set elsewhere (an `.npmrc`): where npm itself says it is.
        let ask = ["npm", "config", "get", "cache"].map(String::from).to_vec();
        match self
            .run_all(install, &[ask], &self.root, env, started)
            .await
        {
            Ok((_, out)) => match out.lines().map(str::trim).rfind(|l| !l.is_empty()) {
                Some(cache) => resolve_npx(
                    install,
                    &npx_dir_in(Path::new(cache), &install.package.spec),
                    facts,
                ),
                None => resolve_npx(install, &dir, facts),
            },
            Err(_) => resolve_npx(install, &dir, facts),
        }
    }

    /// uvx installs the package into its own cache with a run of the package's Python that
    /// prints the console scripts the package itself declares; the server then starts with
    /// the entry's own `uvx` command, offline (`UV_OFFLINE`), from that cache.
    pub(super) async fn through_uvx(
        &self,
        install: &Install,
        env: &[(String, String)],
        started: Instant,
    ) -> Installed {
        if let Err(e) = std::fs::create_dir_all(&self.root) {
            let why = format!("cannot create the install directory: {e}");
            let facts = InstallFacts::directory_error(why.clone());
            return failed(Code::InstallFailed, "io", &why, facts);
        }
        let name = &install.package.name;
        let snippet = format!(
            "import json, importlib.metadata as m; print(json.dumps(sorted(e.name for e in m.distribution({}).entry_points if e.group == 'console_scripts')))",
            python_string(name)
        );
        let argv = [
            "uvx".to_string(),
            "--from".into(),
            install.package.spec.clone(),
            "python".into(),
            "-c".into(),
            snippet,
        ];
        let (mut facts, output) = match self
            .run_all(install, &[argv.to_vec()], &self.root, env, started)
            .await
        {
            Ok(done) => done,
            Err(failure) => return failure,
        };
        let own: Vec<String> = output
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l.trim()).ok())
            .unwrap_or_default();
        if own.iter().any(|s| s == name) {
            facts.set_duration(started.elapsed());
            return Installed::Ready {
                program: PathBuf::from(name),
                facts,
                launcher_env: Some(vec![("UV_OFFLINE".into(), "1".into())]),
                runtime_unmet: None,
            };
        }
        // What uvx itself says of it: its list and its suggestion.
        let suggestion = self.uvx_words(install, env, started).await;
        // uvx's own suggestion first: it is what a reader acts on.
        let declared = if own.is_empty() {
            format!("{name} declares no console script")
        } else {
            format!(
                "its own scripts: {}",
                own.iter().take(10).cloned().collect::<Vec<_>>().join(", ")
            )
        };
        let evidence = match suggestion {
            Some(s) => format!("uvx: {s} No script named {name}; {declared}"),
            None => format!("no script named {name}; {declared}"),
        };
        let message = message(Code::InstallNoExecutable, install, Duration::ZERO);
        failed(Code::InstallNoExecutable, "no-executable", &evidence, facts).with_message(message)
    }

    /// uvx's suggestion for a package without the executable asked for (`Use `uvx --from X
    /// y` instead.`), from a run that finds the package in its cache and nothing to start.
    async fn uvx_words(
        &self,
        install: &Install,
        env: &[(String, String)],
        started: Instant,
    ) -> Option<String> {
        let mut env = env.to_vec();
        env.push(("UV_OFFLINE".into(), "1".into()));
        let argv = vec!["uvx".to_string(), install.package.spec.clone()];
        let out = match self
            .run_all(install, &[argv], &self.root, &env, started)
            .await
        {
            Ok((_, out)) => out,
            // A failing run is expected: its words are in its output's end.
            Err(Installed::Failed { facts, .. }) => facts.output_tail().unwrap_or_default(),
            Err(Installed::Ready { .. }) => String::new(),
        };
        out.lines()
            .map(str::trim)
            .find(|l| l.starts_with("Use `uvx --from"))
            .map(str::to_string)
    }
}

/// `text` as a Python string literal.
fn python_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "''".into())
}

/// npx's cache directory for `spec`: `_npx/` under npm's cache, named by the first 16 hex
/// digits of the SHA-512 of the package list (libnpmexec), here the one spec.
fn npx_dir(env: &[(String, String)], spec: &str) -> PathBuf {
    let var = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let cache = var("npm_config_cache")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| Path::new(&h).join(".npm")))
        .unwrap_or_else(|| PathBuf::from(".npm"));
    npx_dir_in(&cache, spec)
}

/// npx's directory for `spec` under npm's cache `cache`.
fn npx_dir_in(cache: &Path, spec: &str) -> PathBuf {
    use sha2::Digest;
    let digest = sha2::Sha512::digest(spec.as_bytes());
    let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    cache.join("_npx").join(hash)
}

/// npx finished installing `install` into `dir`: it wrote its `_npx` mark after the install,
/// and the package there is the version asked for.
fn npx_complete(dir: &Path, install: &Install) -> bool {
    let read = |path: PathBuf| -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    };
    let marked = read(dir.join("package.json")).is_some_and(|p| p.get("_npx").is_some());
    let version = read(
        dir.join("node_modules")
            .join(&install.package.name)
            .join("package.json"),
    )
    .and_then(|p| p.get("version").and_then(Value::as_str).map(str::to_string));
    marked && version.as_deref() == Some(install.version())
}

/// The server starts with the entry's own `npx` command, preferring npm's cache to the
/// network, so the guard's deadline covers the start and not a second look-up.
fn resolve_npx(install: &Install, dir: &Path, facts: InstallFacts) -> Installed {
    match resolve(install, dir, facts) {
        Installed::Ready { program, facts, .. } => Installed::Ready {
            program,
            facts,
            launcher_env: Some(vec![("npm_config_prefer_offline".into(), "true".into())]),
            runtime_unmet: program::node_engine_unmet(dir, &install.package.name),
        },
        failed => failed,
    }
}
