// The ts-sdk-1 driver of scripts/client-impact: drives one session with the TypeScript SDK's
// Client as a host does (connect, tools/list, prompts/list and resources/list where advertised,
// call the first tool, close) and prints one JSON object on stdout, after progress lines.
//
// Usage: node ts_driver.mjs --stdio PROGRAM ARGS... | --url URL | --sse URL
// (--url: Streamable HTTP; --sse: the legacy HTTP+SSE transport, SSEClientTransport, URL the
// stream's GET)
// CLIENT_IMPACT_TS_DIR names the directory whose node_modules holds @modelcontextprotocol/sdk.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.CLIENT_IMPACT_TS_DIR ?? '.', 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const excerpt = (text) => String(text).replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 200);
// The error, and the cause beneath it when there is one (fetch's TypeError carries the reason there).
const describe = (error) => {
  if (!(error instanceof Error)) return excerpt(`${typeof error}: ${JSON.stringify(error)}`);
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : '';
  return excerpt(`${error.name}: ${error.message}${cause}`);
};

const steps = [];
const reported = [];
let closing = false;
let closedSeen = false;

const progress = (step) => process.stdout.write(`${JSON.stringify({ progress: step })}\n`);

// What a host would see crash it: recorded as reported, and the session goes on.
process.on('uncaughtException', (error) => reported.push(excerpt(`uncaughtException: ${describe(error)}`)));
process.on('unhandledRejection', (error) => reported.push(excerpt(`unhandledRejection: ${describe(error)}`)));

// A value of each required property's type, as a host filling a form would.
function argumentsFor(schema) {
  const args = {};
  const properties = (schema && typeof schema.properties === 'object' && schema.properties) || {};
  const required = Array.isArray(schema?.required) ? schema.required : [];
  for (const name of required) {
    if (typeof name !== 'string') continue;
    let kind = properties[name]?.type;
    if (Array.isArray(kind)) kind = kind[0];
    args[name] =
      kind === 'number' || kind === 'integer' ? 1
        : kind === 'boolean' ? true
          : kind === 'object' ? {}
            : kind === 'array' ? []
              : 'x';
  }
  return args;
}

async function step(name, action) {
  progress(name);
  try {
    const value = await action();
    steps.push({ step: name, ok: true });
    return { ok: true, value };
  } catch (error) {
    steps.push({ step: name, ok: false, error: describe(error) });
    return { ok: false };
  }
}

function transportFor(argv) {
  if (argv[0] === '--stdio' && argv.length > 1) {
    const env = { ...getDefaultEnvironment() };
    if (process.env.MCPCHECK_CLIENT_IMPACT_TAG) env.MCPCHECK_CLIENT_IMPACT_TAG = process.env.MCPCHECK_CLIENT_IMPACT_TAG;
    return new StdioClientTransport({ command: argv[1], args: argv.slice(2), env, stderr: 'ignore' });
  }
  if (argv[0] === '--url' && argv.length === 2) return new StreamableHTTPClientTransport(new URL(argv[1]));
  if (argv[0] === '--sse' && argv.length === 2) {
    // Deprecated in 1.x in favour of Streamable HTTP, still shipped for servers not yet moved.
    const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js');
    return new SSEClientTransport(new URL(argv[1]));
  }
  process.stderr.write('usage: ts_driver.mjs --stdio PROGRAM ARGS... | --url URL | --sse URL\n');
  process.exit(2);
}

function finish() {
  const line = JSON.stringify({ steps, reported, closed: closedSeen });
  process.stdout.write(`${line}\n`, () => process.exit(0));
}

async function main() {
  const client = new Client({ name: 'client-impact', version: '1.0.0' }, { capabilities: {} });
  client.onerror = (error) => {
    reported.push(excerpt(`onerror: ${describe(error)}`));
  };
  client.onclose = () => {
    if (!closing) closedSeen = true;
  };
  const transport = transportFor(process.argv.slice(2));
  const completed = await (async () => {
    if (!(await step('connect', () => client.connect(transport))).ok) return false;
    const capabilities = client.getServerCapabilities() ?? {};
    const tools = await step('tools/list', () => client.listTools());
    if (!tools.ok) return false;
    if (capabilities.prompts && !(await step('prompts/list', () => client.listPrompts())).ok) return false;
    if (capabilities.resources && !(await step('resources/list', () => client.listResources())).ok) return false;
    const first = Array.isArray(tools.value?.tools) ? tools.value.tools[0] : undefined;
    if (first) {
      const call = () => client.callTool({ name: first.name, arguments: argumentsFor(first.inputSchema) });
      if (!(await step('tools/call', call)).ok) return false;
    }
    return true;
  })();
  if (completed) {
    closing = true;
    await step('close', () => client.close());
  } else {
    closing = true;
    try {
      await client.close();
    } catch {
      // The session already failed; how it closes adds nothing.
    }
  }
  finish();
}

main().catch((error) => {
  steps.push({ step: 'driver', ok: false, error: describe(error) });
  finish();
});
