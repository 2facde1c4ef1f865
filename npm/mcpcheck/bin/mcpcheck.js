#!/usr/bin/env node
// Starts the mcpcheck binary that npm installed for this platform, as an optional
// dependency (@mcpcheck/linux-<cpu>[-musl], @mcpcheck/darwin-<cpu>), with the same
// arguments, stdio and exit code.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

// Exit code for "the work was not done", as mcpcheck itself uses.
const NOT_RUN = 2;

function fail(message) {
  process.stderr.write(`mcpcheck: error: ${message}\n`);
  process.exit(NOT_RUN);
}

// glibc reports its version in the process report; musl does not.
function libc() {
  const report = process.report && process.report.getReport();
  return report && report.header && report.header.glibcVersionRuntime ? "glibc" : "musl";
}

function platformPackage() {
  const { platform, arch } = process;
  if (platform === "win32") {
    fail(`Windows is not supported (this is ${platform}-${arch}): use WSL, or the container image`);
  }
  if (platform === "darwin") {
    if (arch !== "x64" && arch !== "arm64") {
      fail(`no binary is built for macOS on ${arch}; supported: arm64 and x64`);
    }
    return `@mcpcheck/darwin-${arch}`;
  }
  if (platform !== "linux") {
    fail(
      `runs on Linux and macOS only (this is ${platform}-${arch}): use a Linux or macOS ` +
        "machine or CI runner, or the container image"
    );
  }
  if (arch !== "x64" && arch !== "arm64") {
    fail(`no binary is built for Linux on ${arch}; supported: x64 and arm64 (glibc or musl)`);
  }
  return `@mcpcheck/linux-${arch}${libc() === "musl" ? "-musl" : ""}`;
}

function binaryPath(pkg) {
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", "mcpcheck");
  } catch {
    fail(
      `the platform package ${pkg} is not installed; reinstall mcpcheck without ` +
        "--omit=optional (or --no-optional) so npm installs it"
    );
  }
}

const pkg = platformPackage();
const child = spawn(binaryPath(pkg), process.argv.slice(2), { stdio: "inherit" });

// Signals sent to the launcher alone (a CI timeout, kill PID) reach mcpcheck too, which
// then stops its servers; Ctrl-C reaches both through the terminal's process group.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
for (const signal of forwarded) {
  process.on(signal, () => child.kill(signal));
}

child.on("error", (err) => fail(`could not start ${pkg}'s binary: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what mcpcheck saw.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? NOT_RUN : code);
});
