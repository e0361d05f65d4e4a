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
  // wire is every message as the transport read it, in order: the SDK
  // calls a transport's own onmessage before its handlers.
  const wire = [];
  transport.onmessage = (m) => wire.push(m);
  await client.connect(transport);
  const tools = await client.listTools();
  for (const t of ['lint', 'test']) {
    const paths = tools.tools.find((x) => x.name === t)?.inputSchema?.properties?.paths;
    check(paths && paths.type === 'array' && paths.items?.type === 'string' && paths.minItems === 1,
      `${name}: ${t}.paths is {"type":"array","items":{"type":"string"},"minItems":1}: ${JSON.stringify(paths)}`);
  }

  // Progress: prose sends one notification per call of the run (the
  // ratchet makes 10), all before it answers the run call, under the
  // call's token, with progress increasing. That is asserted on the wire.
  // onprogress may miss the last ones: the SDK hands a notification to
  // its handler a microtask later but takes a response at once, so when
  // one read of stdio brings both the notification and the response, the
  // response removes the handler first and the notification is reported as
  // one "for an unknown token" (a machine under load is enough). Those
  // notifications, and only those, are excused below: onprogress must get
  // the others, in order.
  const notes = [];
  const from = wire.length;
  const ran = await client.callTool({ name: 'run', arguments: slowRatchet }, CallToolResultSchema, {
    onprogress: (p) => notes.push(p),
    timeout: 120000,
  });
  check(!ran.isError && ran.structuredContent?.status === 'ok', `${name}: run with wait_seconds ends ok: ${JSON.stringify(ran.structuredContent)}`);
  const seen = wire.slice(from);
  const answer = seen.findIndex((m) => m.id !== undefined && m.method === undefined && m.result?.structuredContent?.run_id === ran.structuredContent?.run_id);
  check(answer >= 0, `${name}: the run call's response is on the wire`);
  const token = seen[answer].id;
  const sent = seen.filter((m) => m.method === 'notifications/progress' && m.params?.progressToken === token);
  check(sent.length === 10, `${name}: 10 progress notifications sent for the run call, got ${sent.length}`);
  check(sent.every((m) => seen.indexOf(m) < answer), `${name}: every progress notification sent before the run call's response`);
  check(sent.every((m, i) => i === 0 || m.params.progress > sent[i - 1].params.progress), `${name}: progress increases`);
  const late = sent.slice(notes.length);
  check(notes.every((n, i) => n.progress === sent[i].params.progress && n.message === sent[i].params.message),
    `${name}: onprogress got the notifications sent, in order: ${notes.length} of ${sent.length}`);
  for (const m of late) {
    const i = errors.findIndex((e) => e.includes('unknown token') && e.includes(JSON.stringify(m.params.message)));
    check(i >= 0, `${name}: a notification onprogress missed was read with the response: ${JSON.stringify(m.params)}`);
    errors.splice(i, 1);
  }
  if (late.length > 0) console.log(`note ${name}: the SDK dropped ${late.length} progress notification(s) read with the response`);

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
