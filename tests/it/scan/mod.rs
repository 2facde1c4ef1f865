//! `mcpcheck scan`, `baseline`, `pin`, `inventory` and `surface`: configs and live listings (`src/scan/`).

mod baseline;
mod configs;
mod inventory;
mod live;
mod lock;
mod registry;
mod rules_launch;
mod rules_network;
mod rules_secrets;
mod surface;
mod surface_listing;
