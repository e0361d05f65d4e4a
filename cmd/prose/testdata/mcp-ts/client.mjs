// Drives `prose mcp` with the official TypeScript MCP SDK client, as an
// agent host would: over stdio, then over streamable HTTP. Environment:
// PROSE_BIN (the prose binary), PROSE_ROOT (the directory the server
// starts in: the repository, for std/ and testdata/), PROSE_RUN_DIR, and
// MCP_TS_SDK (the directory npm installed @modelcontextprotocol/sdk into).
// Prints one line per check; exits 1 on the first failure.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = join(process.env.MCP_TS_SDK, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const load = (p) => import(pathToFileURL(join(sdk, p)).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { ElicitRequestSchema, CallToolResultSchema } = await load('types.js');

const bin = process.env.PROSE_BIN;
const root = process.env.PROSE_ROOT;
const runDir = process.env.PROSE_RUN_DIR;

function fail(msg) {
  console.log('FAIL ' + msg);
  process.exit(1);
}
function check(ok, msg) {
  if (!ok) fail(msg);
  console.log('ok   ' + msg);
}

// newClient is a host that takes elicitations: a gate's choice is "ship",
// an ask_user's answer "v1.2". Every client-side error (a progress
// notification for a token no active request holds, a result that breaks
// the schema) is kept and fails the test.
function newClient(errors, asked) {
  const client = new Client({ name: 'prose-ts-test', version: '0' }, { capabilities: { elicitation: { form: {} } } });
  client.onerror = (e) => errors.push(String(e && e.message ? e.message : e));
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    const props = req.params.requestedSchema?.properties ?? {};
    if (props.choice) return { action: 'accept', content: { choice: 'ship' } };
    return { action: 'accept', content: { answer: 'v1.2' } };
  });
  return client;
}

// A ratchet whose services take a little time, so that calls end while
// the run call waits.
const slowRatchet = {
  file: 'std/patterns/ratchet.prose.md',
  slots: {
    advancer: 'exec:sleep 0.05; exec testdata/run/advancer.sh',
    certifier: 'exec:sleep 0.05; exec testdata/run/certifier.sh',
  },
  inputs: { task_brief: 'ship release 1.2' },
  wait_seconds: 30,
};

async function scenario(name, transport) {
  const errors = [];
  const asked = [];
  const client = newClient(errors, asked);
  await client.connect(transport);
  const tools = await client.listTools();
  for (const t of ['lint', 'test']) {
    const paths = tools.tools.find((x) => x.name === t)?.inputSchema?.properties?.paths;
    check(paths && paths.type === 'array' && paths.items?.type === 'string' && paths.minItems === 1,
      `${name}: ${t}.paths is {"type":"array","items":{"type":"string"},"minItems":1}: ${JSON.stringify(paths)}`);
  }

  // Progress: every notification reaches onprogress while the run call
  // is active, one per call of the run (the ratchet makes 10).
  const notes = [];
  const ran = await client.callTool({ name: 'run', arguments: slowRatchet }, CallToolResultSchema, {
    onprogress: (p) => notes.push(p),
    timeout: 120000,
  });
  check(!ran.isError && ran.structuredContent?.status === 'ok', `${name}: run with wait_seconds ends ok: ${JSON.stringify(ran.structuredContent)}`);
  check(notes.length === 10, `${name}: 10 progress notifications delivered to onprogress during the run call, got ${notes.length}`);
  check(notes.every((n, i) => i === 0 || n.progress > notes[i - 1].progress), `${name}: progress increases`);

  // Two gates: one result call answers both through elicitations.
  const started = await client.callTool({ name: 'run', arguments: {
    file: 'testdata/gates/release.prose.md', slots: { shipper: 'exec:cat' } } });
  const id = started.structuredContent?.run_id;
  check(typeof id === "string" && id !== "", `${name}: run returns a run_id at once: ${JSON.stringify(started)}`);
  const res = await client.callTool({ name: 'result', arguments: { run_id: id, wait_seconds: 30 } }, CallToolResultSchema, { timeout: 120000 });
  check(!res.isError && res.structuredContent?.status === 'ok' &&
    JSON.stringify(res.structuredContent.value) === '{"choice":"ship","release":"v1.2"}',
    `${name}: one result call answers both gates: ${JSON.stringify(res)}`);
  check(asked.length === 2, `${name}: both gates asked as elicitations, got ${asked.length}`);

  // lint as the Inspector sends it: tools/call lint --tool-arg 'paths=["x"]'.
  const lx = await client.callTool({ name: 'lint', arguments: { paths: ['x'] } });
  const text = (lx.content ?? []).map((c) => c.text ?? '').join('');
  check(lx.isError && text.includes('x') && !text.includes('validating'), `${name}: lint paths=["x"] is taken and answered: ${text}`);
  const ok = await client.callTool({ name: 'lint', arguments: { paths: ['std/patterns/ratchet.prose.md'] } });
  check(!ok.isError && ok.structuredContent?.files === 1, `${name}: lint of a spec: ${JSON.stringify(ok.structuredContent)}`);

  check(errors.length === 0, `${name}: no client errors: ${JSON.stringify(errors)}`);
  await client.close();
}

await scenario('stdio', new StdioClientTransport({
  command: bin, args: ['mcp', '--run-dir', runDir], cwd: root, stderr: 'inherit',
}));

// Streamable HTTP: the address is the one prose prints. Runs with exec:
// slots over HTTP need a token; the client sends it as a bearer token.
const token = randomBytes(24).toString('hex');
const tokenFile = join(runDir, 'mcp-token');
mkdirSync(runDir, { recursive: true });
writeFileSync(tokenFile, token + '\n', { mode: 0o600 });
const server = spawn(bin, ['mcp', '--http', '127.0.0.1:0', '--token-file', tokenFile, '--run-dir', runDir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
const addr = await new Promise((resolve, reject) => {
  let buf = '';
  server.stderr.on('data', (d) => {
    buf += d;
    const m = buf.match(/at (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error('prose mcp --http exited ' + code + ': ' + buf)));
});
try {
  await scenario('http', new StreamableHTTPClientTransport(new URL(addr), {
    requestInit: { headers: { Authorization: 'Bearer ' + token } },
  }));
} finally {
  server.kill('SIGTERM');
}
console.log('PASS');
process.exit(0);
