//! One name for "the Linux backend is compiled in": Linux, unless the `portable-only`
//! feature asks for exactly what macOS builds.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(subreaper)");
    println!("cargo::rerun-if-changed=build.rs");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    let portable_only = std::env::var_os("CARGO_FEATURE_PORTABLE_ONLY").is_some();
    if linux && !portable_only {
        println!("cargo::rustc-cfg=subreaper");
    }
}
