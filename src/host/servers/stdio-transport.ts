/**
 * parley's stdio client transport (issue 12 item 5): the SDK `StdioClientTransport`'s process handling
 * (spawn through `cross-spawn`, the SDK's default environment, stderr piped, stdin-EOF → SIGTERM →
 * SIGKILL on close) with parley reading stdout itself (`stdio-lines.ts`), so that nothing a server
 * writes is dropped without an answer:
 *
 * - a request whose `params` is `null`, an array or a value (or whose `_meta` is not an object) is
 *   wrapped as over HTTP (`wire-repair.ts`), reaches the screen and the broker, and is answered -32602
 *   naming the rule, told to the person and audited;
 * - a line that is not JSON: -32700 with `"id": null` (the id cannot be known; JSON-RPC 2.0 §5),
 *   reported (`refused`) with a bounded excerpt;
 * - a JSON array (a batch: MCP removed JSON-RPC batching in 2025-06-18, and parley speaks no earlier
 *   revision): one -32600 with `"id": null` saying batches are not supported, reported; a response to
 *   parley inside it ends that request with an error at once;
 * - JSON that is not JSON-RPC 2.0: a request is answered -32600 with its id (`null` when it has no
 *   usable one) and reported; a response ends parley's request of that id with a -32600 error instead
 *   of leaving it to time out;
 * - a message nesting arrays/objects deeper than `MAX_JSON_DEPTH` (128; valid JSON, but `JSON.stringify`
 *   and `structuredClone` overflow the stack on it, so the gateway could never pass such a result on): a
 *   request is answered -32600 with its id, a response ends parley's request of that id with a -32600
 *   error, a notification is ignored; each is reported;
 * - a line over `maxMessageBytes` (default 16 MiB) is not read: a request whose id and method show in its
 *   first or last 4 KiB is answered -32602, a response ends parley's request with an error, and every
 *   such line is reported; reading goes on with the next line (the SDK closes the connection instead).
 *
 * Valid messages are checked with the SDK's own `parseJSONRPCMessage`, exactly as the SDK transport does.
 * parley's own error replies are skipped while more than {@link MAX_QUEUED_REPLY_BYTES} wait on the
 * child's stdin (a server that does not read cannot grow the host's memory); log lines about a
 * server's output, and error replies without an id (a server that answers each of them with another
 * non-JSON line must not start an endless exchange), are each limited to {@link LOG_BURST} at once,
 * refilled one per second. Reports (`refused`: one audit row and one notice each) are limited to
 * {@link REFUSED_PER_WINDOW} per {@link REFUSED_WINDOW_MS} window; the rest of a window are counted and
 * reported as one summary when it ends (or when the transport closes).
 *
 * The SDK's `'auto'` version negotiation probes `server/discover` in place on this transport (it uses a
 * throw-away sibling process only for the SDK's own class), so the era is found on the one process.
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Stream } from 'node:stream';
import spawn from 'cross-spawn';
import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  PARSE_ERROR,
  SdkError,
  SdkErrorCode,
  parseJSONRPCMessage,
  serializeMessage,
} from '@modelcontextprotocol/client';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { LineReader, MAX_STDIO_MESSAGE_BYTES, PEEK_BYTES, excerpt, peekMembers, type Line } from './stdio-lines.js';
import { TOO_DEEP, repairMessage } from './wire-repair.js';
import { RefusedReports } from './refused-reports.js';
import { MAX_JSON_DEPTH, overDeepAt } from '../../schema/json-depth.js';

/** Bytes waiting on the child's stdin above which parley sends no error replies of its own. */
export const MAX_QUEUED_REPLY_BYTES = 1024 * 1024;

/** Log lines about one server's output, and id-less error replies, allowed at once (then one per second each). */
export const LOG_BURST = 10;

export { REFUSED_PER_WINDOW, REFUSED_WINDOW_MS } from './refused-reports.js';

/** A token bucket: `LOG_BURST` at once, one more per second. */
class Budget {
  #tokens = LOG_BURST;
  #since = Date.now();
  /** Skipped since the last allowed one. */
  skipped = 0;
  take(): boolean {
    const now = Date.now();
    const earned = Math.floor((now - this.#since) / 1000);
    if (earned > 0) {
      this.#tokens = Math.min(LOG_BURST, this.#tokens + earned);
      this.#since += earned * 1000;
    }
    if (this.#tokens <= 0) {
      this.skipped++;
      return false;
    }
    this.#tokens--;
    return true;
  }
}

/** How long `close()` waits after ending stdin, and again after SIGTERM, before the next step, ms (as the SDK). */
const CLOSE_STEP_MS = 2_000;

export interface StdioParams {
  command: string;
  args?: string[];
  /** Added to the SDK's default environment (`getDefaultEnvironment()`), as the SDK transport does. */
  env?: Record<string, string>;
  cwd?: string;
  /** Largest message (one stdout line, UTF-8 bytes) read. @default {@link MAX_STDIO_MESSAGE_BYTES} (16 MiB) */
  maxMessageBytes?: number;
}

export interface StdioTransportHooks {
  /**
   * A message from the server that parley could not pass on (for the person and the audit log):
   * `detail` says what it was and what parley did; of its content at most a 200-character JSON-quoted
   * excerpt. At most {@link REFUSED_PER_WINDOW} calls per {@link REFUSED_WINDOW_MS}, plus one summary;
   * `count` is how many messages the call stands for (1, or the summary's count).
   */
  refused?(detail: string, count: number): void;
  log?(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
}

type Id = string | number;

export class ParleyStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #proc: ChildProcess | undefined;
  #started = false;
  #exited = false;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly #stderr = new PassThrough();
  readonly #reader: LineReader;
  readonly #cap: number;
  readonly #logBudget = new Budget();
  readonly #replyBudget = new Budget();
  readonly #reports: RefusedReports;

  constructor(
    readonly params: StdioParams,
    private readonly hooks: StdioTransportHooks = {},
  ) {
    this.#cap = params.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
    this.#reader = new LineReader(this.#cap, PEEK_BYTES);
    this.#reports = new RefusedReports((detail, count) => this.hooks.refused?.(detail, count));
  }

  /** The child's stderr (piped; available before `start()`). */
  get stderr(): Stream {
    return this.#stderr;
  }

  /** The child's pid once started, else `null`. */
  get pid(): number | null {
    return this.#proc?.pid ?? null;
  }

  /** The child has exited (or could not be spawned). */
  get exited(): boolean {
    return this.#exited;
  }

  /** How the child ended (its exit code, or the signal that ended it), once it has; else `undefined`. */
  get exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    if (this.#started) throw new Error('ParleyStdioTransport already started');
    this.#started = true;
    return new Promise((resolve, reject) => {
      const p = this.params;
      const proc = spawn(p.command, p.args ?? [], {
        env: { ...getDefaultEnvironment(), ...p.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: process.platform === 'win32',
        ...(p.cwd ? { cwd: p.cwd } : {}),
      });
      this.#proc = proc;
      proc.on('error', (err) => {
        this.#exited = true;
        reject(err);
        this.onerror?.(err);
      });
      proc.on('spawn', () => resolve());
      proc.on('exit', (code, signal) => {
        this.#exited = true;
        this.#exit = { code, signal };
      });
      proc.on('close', () => {
        this.#exited = true;
        this.#proc = undefined;
        this.#reader.clear();
        this.#reports.flush();
        this.onclose?.();
      });
      proc.stdin?.on('error', (err) => this.onerror?.(err));
      proc.stdout?.on('data', (chunk: Buffer) => this.#reader.push(chunk, (line) => this.#line(line)));
      proc.stdout?.on('error', (err) => this.onerror?.(err));
      proc.stderr?.pipe(this.#stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#proc?.stdin;
      if (!stdin) return reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const proc = this.#proc;
    this.#proc = undefined;
    if (proc) {
      const closed = new Promise<void>((r) => proc.once('close', () => r()));
      const wait = () => Promise.race([closed, new Promise<void>((r) => setTimeout(r, CLOSE_STEP_MS).unref())]);
      try {
        proc.stdin?.end();
      } catch {
        /* already closed */
      }
      await wait();
      if (proc.exitCode === null && proc.signalCode === null) {
        try {
          proc.kill('SIGTERM');
        } catch {
          /* gone */
        }
        await wait();
      }
      if (proc.exitCode === null && proc.signalCode === null)
        try {
          proc.kill('SIGKILL');
        } catch {
          /* gone */
        }
    }
    this.#reader.clear();
    this.#reports.flush();
  }

  #line(line: Line): void {
    if (line.kind === 'oversized') return this.#oversized(line);
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      this.#reply(null, PARSE_ERROR, 'Parse error: a line the server wrote to stdout is not JSON');
      this.#refused(`a line that is not JSON: ${excerpt(line.text)}; parley answered -32700`);
      return;
    }
    // Nesting deeper than MAX_JSON_DEPTH takes at least twice as many characters.
    if (line.text.length > 2 * MAX_JSON_DEPTH && overDeepAt(line.text, MAX_JSON_DEPTH) >= 0) return this.#tooDeep(value);
    if (!Array.isArray(value)) return this.#message(value);
    this.#batch(value, line.text);
  }

  /** A message nesting deeper than MAX_JSON_DEPTH (see the module comment); its top level is read as is. */
  #tooDeep(value: unknown): void {
    if (Array.isArray(value)) return this.#batch(value, '(a batch nesting too deeply)');
    const o = isPlain(value) ? value : {};
    const id = isId(o.id) ? o.id : undefined;
    const method = typeof o.method === 'string' ? o.method : undefined;
    if (method === undefined && id !== undefined) return this.#failResponse(id, `the server's response ${TOO_DEEP}`);
    if (method !== undefined && id !== undefined) {
      this.#reply(id, INVALID_REQUEST, `Invalid Request: the ${q(method)} request ${TOO_DEEP}`);
      return this.#refused(`a ${q(method)} request (id ${JSON.stringify(id)}) that ${TOO_DEEP}; parley answered -32600`);
    }
    this.#refused(`${method !== undefined ? `a ${q(method)} notification` : 'a message'} that ${TOO_DEEP}; parley ignored it`);
  }

  /**
   * A JSON array: a JSON-RPC batch, which MCP removed in 2025-06-18 (the earliest revision parley
   * speaks). One -32600 with `"id": null` for the whole array, never one per element; a response to
   * parley inside it fails that request now rather than at its timeout.
   */
  #batch(value: unknown[], text: string): void {
    this.#reply(
      null,
      INVALID_REQUEST,
      'Invalid Request: JSON-RPC batches are not supported (MCP removed batching in 2025-06-18); send one message per line',
    );
    this.#refused(
      `a JSON-RPC batch of ${value.length} element(s), which MCP does not support: ${excerpt(text)}; parley answered -32600 once`,
    );
    for (const m of value)
      if (isPlain(m) && m.method === undefined && isId(m.id))
        this.#failResponse(m.id, "the server's response came inside a JSON-RPC batch, which MCP does not support", false);
  }

  #message(value: unknown): void {
    let msg: JSONRPCMessage;
    try {
      msg = parseJSONRPCMessage(repairMessage(value) ?? value);
    } catch {
      return this.#invalid(value);
    }
    this.#deliver(msg);
  }

  #deliver(msg: JSONRPCMessage): void {
    try {
      this.onmessage?.(msg);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** JSON that is not a JSON-RPC 2.0 message. */
  #invalid(value: unknown): void {
    const o = isPlain(value) ? value : {};
    const id = isId(o.id) ? o.id : undefined;
    const method = typeof o.method === 'string' ? o.method : undefined;
    const why = whatIsWrong(o);
    if (method !== undefined && id !== undefined) {
      this.#reply(id, INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 request (${why})`);
      this.#refused(`a ${q(method)} request (id ${JSON.stringify(id)}) that is not valid JSON-RPC 2.0 (${why}); parley answered -32600`);
    } else if (method !== undefined && 'id' in o) {
      this.#reply(null, INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 request (${why})`);
      this.#refused(`a ${q(method)} request whose id cannot be used (${why}); parley answered -32600 with id null`);
    } else if (method !== undefined) {
      this.#refused(`a ${q(method)} notification that is not valid JSON-RPC 2.0 (${why}); parley ignored it`);
    } else if (id !== undefined) {
      this.#failResponse(id, `the server's response is not valid JSON-RPC 2.0 (${why})`);
    } else {
      this.#reply(null, INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 message (${why})`);
      this.#refused(`JSON that is not a JSON-RPC 2.0 message (${why}): ${excerpt(JSON.stringify(value) ?? '')}; parley answered -32600`);
    }
  }

  #oversized(line: Extract<Line, { kind: 'oversized' }>): void {
    const { id, method } = peekMembers(line.head, line.tail);
    const size = `${line.bytes} bytes, over parley's stdio message cap of ${this.#cap} bytes (maxMessageBytes)`;
    if (method !== undefined && id !== undefined) {
      this.#reply(id, INVALID_PARAMS, `Invalid params: the ${q(method)} request has ${size}; parley did not read it`);
      this.#refused(`a ${q(method)} request (id ${JSON.stringify(id)}) of ${size}; parley answered -32602 without reading it`);
    } else if (method !== undefined) {
      this.#refused(`a ${q(method)} notification of ${size}; parley ignored it`);
    } else if (id !== undefined) {
      this.#failResponse(id, `the server's response has ${size}; parley did not read it`);
    } else {
      this.#refused(
        `a message of ${size} whose id and method could not be read from its first and last ${PEEK_BYTES} bytes; parley ignored it`,
      );
    }
  }

  /** Ends parley's own request `id` with an error now (the SDK Client ignores an unknown id). */
  #failResponse(id: Id, message: string, report = true): void {
    if (report) this.#refused(`a response parley could not read: ${message} (request id ${JSON.stringify(id)} fails with -32600)`);
    else this.#log('warn', `${message} (request id ${JSON.stringify(id)} fails with -32600)`);
    this.#deliver({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } } as JSONRPCMessage);
  }

  /** Reports a refused line (at most REFUSED_PER_WINDOW per window, then a summary: `refused-reports.ts`). */
  #refused(detail: string): void {
    this.#log('warn', `the server sent ${detail}`);
    this.#reports.add(detail);
  }

  /** A JSON-RPC error reply of parley's own; `id` is `null` when it cannot be known (JSON-RPC 2.0 §5). */
  #reply(id: Id | null, code: number, message: string): void {
    const stdin = this.#proc?.stdin;
    if (!stdin || !stdin.writable) return;
    if (id === null && !this.#replyBudget.take()) return;
    if (stdin.writableLength > MAX_QUEUED_REPLY_BYTES) {
      this.#log('warn', `not answering ${code}: ${stdin.writableLength} bytes already wait on the server's stdin`);
      return;
    }
    stdin.write(serializeMessage({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage));
  }

  #log(level: 'warn' | 'info', message: string): void {
    if (!this.#logBudget.take()) return;
    const more = this.#logBudget.skipped ? ` (${this.#logBudget.skipped} similar line(s) not logged)` : '';
    this.#logBudget.skipped = 0;
    this.hooks.log?.(level, message + more);
  }
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is Id {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

const q = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

const MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/** What makes `o` no JSON-RPC 2.0 message, in a few words (the SDK schema's union error says only "Invalid input"). */
function whatIsWrong(o: Record<string, unknown>): string {
  if (o.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in o && !isId(o.id)) return '"id" must be a string or an integer';
  const extra = Object.keys(o).find((k) => !MEMBERS.has(k));
  if (extra !== undefined) return `unexpected member ${q(extra)}`;
  if ('method' in o) {
    if (typeof o.method !== 'string') return '"method" must be a string';
    return '"params" must be an object';
  }
  if ('result' in o && 'error' in o) return 'a response has "result" or "error", not both';
  if ('result' in o) return '"result" must be an object';
  if ('error' in o) {
    const e = o.error as { code?: unknown; message?: unknown } | null;
    if (!isPlain(e) || !Number.isInteger(e.code)) return '"error.code" must be an integer';
    if (typeof e.message !== 'string') return '"error.message" must be a string';
  }
  return 'not a request, notification or response';
}
