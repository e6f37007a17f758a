/**
 * parley's stdio client transport (issue 12 item 5): the SDK `StdioClientTransport`'s process handling
 * (spawn through `cross-spawn`, the SDK's default environment, stderr piped, stdin-EOF → SIGTERM →
 * SIGKILL on close) with parley reading stdout itself (`stdio-lines.ts`), so that nothing a server
 * writes is dropped without an answer:
 *
 * - a request whose `params` is `null`, an array or a value (or whose `_meta` is not an object) is
 *   wrapped as over HTTP (`wire-repair.ts`), reaches the screen and the broker, and is answered -32602
 *   naming the rule, told to the person and audited;
 * - a line that is not JSON: -32700 without an id (the id cannot be known), logged with a bounded
 *   excerpt;
 * - JSON that is not JSON-RPC 2.0: a request is answered -32600 with its id and reported (`refused`);
 *   a response ends parley's request of that id with a -32600 error instead of leaving it to time out;
 * - a line over `maxMessageBytes` (default 16 MiB) is not read: a request whose id and method show in its
 *   first or last 4 KiB is answered -32602, a response ends parley's request with an error, and every
 *   such line is reported; reading goes on with the next line (the SDK closes the connection instead).
 *
 * Valid messages are checked with the SDK's own `parseJSONRPCMessage`, exactly as the SDK transport does.
 * parley's own error replies are skipped while more than {@link MAX_QUEUED_REPLY_BYTES} wait on the
 * child's stdin (a server that does not read cannot grow the host's memory); log lines about a
 * server's output, and error replies without an id (a server that answers each of them with another
 * non-JSON line must not start an endless exchange), are each limited to {@link LOG_BURST} at once,
 * refilled one per second.
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
import { repairMessage } from './wire-repair.js';

/** Bytes waiting on the child's stdin above which parley sends no error replies of its own. */
export const MAX_QUEUED_REPLY_BYTES = 1024 * 1024;

/** Log lines about one server's output, and id-less error replies, allowed at once (then one per second each). */
export const LOG_BURST = 10;

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
   * `detail` says what it was and what parley did, never its content.
   */
  refused?(detail: string): void;
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
  readonly #stderr = new PassThrough();
  readonly #reader: LineReader;
  readonly #cap: number;
  readonly #logBudget = new Budget();
  readonly #replyBudget = new Budget();

  constructor(
    readonly params: StdioParams,
    private readonly hooks: StdioTransportHooks = {},
  ) {
    this.#cap = params.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
    this.#reader = new LineReader(this.#cap, PEEK_BYTES);
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
      proc.on('exit', () => {
        this.#exited = true;
      });
      proc.on('close', () => {
        this.#exited = true;
        this.#proc = undefined;
        this.#reader.clear();
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
  }

  #line(line: Line): void {
    if (line.kind === 'oversized') return this.#oversized(line);
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      this.#reply(undefined, PARSE_ERROR, 'Parse error: a line the server wrote to stdout is not JSON');
      this.#log('warn', `the server wrote a line to stdout that is not JSON (answered -32700): ${excerpt(line.text)}`);
      return;
    }
    if (!Array.isArray(value)) return this.#message(value);
    if (value.length === 0) {
      this.#reply(undefined, INVALID_REQUEST, 'Invalid Request: an empty batch');
      this.#log('warn', 'the server wrote an empty JSON-RPC batch (answered -32600)');
      return;
    }
    for (const m of value) this.#message(m); // read liberally: batches are gone since 2025-06-18
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
      this.#reply(undefined, INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 request (${why})`);
      this.#refused(`a ${q(method)} request whose id cannot be used (${why}); parley answered -32600 without an id`);
    } else if (method !== undefined) {
      this.#refused(`a ${q(method)} notification that is not valid JSON-RPC 2.0 (${why}); parley ignored it`);
    } else if (id !== undefined) {
      this.#failResponse(id, `the server's response is not valid JSON-RPC 2.0 (${why})`);
    } else {
      this.#reply(undefined, INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 message (${why})`);
      this.#log(
        'warn',
        `the server wrote JSON that is not a JSON-RPC 2.0 message (answered -32600): ${excerpt(JSON.stringify(value) ?? '')}`,
      );
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
  #failResponse(id: Id, message: string): void {
    this.#log('warn', `${message} (request id ${JSON.stringify(id)} fails with -32600)`);
    this.#deliver({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } } as JSONRPCMessage);
  }

  #refused(detail: string): void {
    this.#log('warn', `the server sent ${detail}`);
    try {
      this.hooks.refused?.(detail);
    } catch {
      /* a hook must not break reading */
    }
  }

  /** A JSON-RPC error reply of parley's own (no `id` when it cannot be known: the 2025-11-25 schema allows that). */
  #reply(id: Id | undefined, code: number, message: string): void {
    const stdin = this.#proc?.stdin;
    if (!stdin || !stdin.writable) return;
    if (id === undefined && !this.#replyBudget.take()) return;
    if (stdin.writableLength > MAX_QUEUED_REPLY_BYTES) {
      this.#log('warn', `not answering ${code}: ${stdin.writableLength} bytes already wait on the server's stdin`);
      return;
    }
    const error = { code, message };
    stdin.write(serializeMessage((id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error }) as JSONRPCMessage));
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
