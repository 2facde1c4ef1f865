//! Opening a session: `initialize` (with its `initialized` notification), `server/discover`
//! under 2026-07-28, or the stdio rule of `--protocol auto` that tries one, then the other.

use super::transcript::{Era, Outcome, Phase, Purpose};
use super::Session;
use crate::protocol::jsonrpc;
use crate::protocol::versions;
use serde_json::{json, Value};

impl Session {
    /// Opens the session the way the requested protocol says; returns the server's
    /// capabilities when the server can be used.
    pub async fn handshake(&mut self) -> Option<Value> {
        self.phase = Phase::Initialize;
        let requested = self.plan.protocol.clone();
        if requested == "auto" {
            return self.auto_handshake().await;
        }
        if requested == versions::MODERN_VERSION {
            let capabilities = self.discover(&requested).await;
            if capabilities.is_some() {
                self.t.era = Some(Era::Modern);
            }
            return capabilities;
        }
        self.initialize(&requested).await
    }

    /// The stdio backward-compatibility rule: try `server/discover`; on any error that is not
    /// a recognised modern error, fall back to `initialize`.
    async fn auto_handshake(&mut self) -> Option<Value> {
        let index = self.discover_exchange(versions::MODERN_VERSION).await;
        match self.t.exchanges[index].outcome.clone() {
            Outcome::Result(Value::Object(r)) => {
                self.t.era = Some(Era::Modern);
                self.modern_version = Some(versions::MODERN_VERSION.into());
                self.phase = Phase::Operations;
                Some(r.get("capabilities").cloned().unwrap_or(Value::Null))
            }
            Outcome::Error(e) if e.code == jsonrpc::UNSUPPORTED_PROTOCOL_VERSION => {
                // A modern server without our version: use the newest legacy one it lists.
                let supported = e.data.as_ref().and_then(|d| d.get("supported"));
                let legacy = supported
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter(|v| versions::INITIALIZE_VERSIONS.contains(v))
                    .max()
                    .map(str::to_string);
                self.t.era = Some(Era::Modern);
                let version = legacy?;
                self.initialize(&version).await
            }
            _ if self.stream_end.is_some() => None,
            _ => {
                self.t.era = Some(Era::Legacy);
                self.initialize(versions::DEFAULT_VERSION).await
            }
        }
    }

    async fn initialize(&mut self, version: &str) -> Option<Value> {
        if self.t.era.is_none() {
            self.t.era = Some(Era::Legacy);
        }
        let params = json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": self.plan.client_name, "version": self.plan.client_version},
        });
        let init = self
            .request("initialize", Some(params), Purpose::Initialize)
            .await;
        let Outcome::Result(Value::Object(result)) = &self.t.exchanges[init].outcome else {
            return None;
        };
        let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        self.phase = Phase::Operations;
        if !self.notify("notifications/initialized", None).await {
            return None;
        }
        Some(capabilities)
    }

    async fn discover_exchange(&mut self, version: &str) -> usize {
        self.modern_version = Some(version.to_string());
        let index = self
            .request("server/discover", None, Purpose::Discover)
            .await;
        self.modern_version = None;
        index
    }

    async fn discover(&mut self, version: &str) -> Option<Value> {
        let index = self.discover_exchange(version).await;
        let Outcome::Result(Value::Object(result)) = &self.t.exchanges[index].outcome else {
            return None;
        };
        let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        self.modern_version = Some(version.to_string());
        self.phase = Phase::Operations;
        Some(capabilities)
    }

    /// Per-request metadata the 2026-07-28 revision requires.
    pub(super) fn with_meta(&self, params: Option<Value>) -> Option<Value> {
        let Some(version) = &self.modern_version else {
            return params;
        };
        let mut params = params.unwrap_or_else(|| json!({}));
        if let Some(obj) = params.as_object_mut() {
            obj.insert(
                "_meta".into(),
                json!({
                    "io.modelcontextprotocol/protocolVersion": version,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {
                        "name": self.plan.client_name, "version": self.plan.client_version},
                }),
            );
        }
        Some(params)
    }
}
