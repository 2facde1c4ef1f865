//! Reports in every format, their schemas and their snapshots (`src/report/`).

mod formats;
mod schemas;
mod secrets;
mod snapshots_reports;
mod sweep_changes;
mod sweep_html;
