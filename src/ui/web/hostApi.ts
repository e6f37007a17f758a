/**
 * The narrow view of the host runtime that the web console needs. The host's runtime object adapts
 * to this interface; the console never reaches past it. Every method may answer synchronously or
 * with a promise. Errors thrown by a method become HTTP 400 (`HostApiError`) or 500 (anything else)
 * with the error's message; the console never crashes on them.
 * @module
 */
import type { AuditRecord } from '../../host/store/types.js';
import type { RootHealth } from '../../host/roots/health.js';

type Awaitable<T> = T | Promise<T>;

/** Life-cycle state of one configured server. */
export type ServerState = 'starting' | 'ready' | 'restarting' | 'failed' | 'stopped';

/** One configured MCP server as the console shows it. */
export interface ServerInfo {
  name: string;
  state: ServerState;
  /** Negotiated protocol revision, once initialised (e.g. `'2025-11-25'`). */
  revision?: string;
  /** Capabilities the server declared in `initialize` (or per request on 2026-07-28). */
  capabilities?: Record<string, unknown>;
  /** Last lines the server wrote to stderr, oldest first (the host bounds how many). */
  stderr: string[];
  /** Why the server is `failed`, for a person. */
  error?: string;
  /** `'stdio' | 'http'`, for display. */
  transport?: string;
  /** Starts on first use (config `lazy`); shown as "not started (lazy)" while `stopped`, as `parley servers` does. */
  lazy?: boolean;
}

/** One tool of one server (`tools/list` entry plus the server's name). */
export interface ToolInfo {
  server: string;
  name: string;
  title?: string;
  description?: string;
  /** The tool's JSON Schema for `arguments` (an object schema). */
  inputSchema: Record<string, unknown>;
}

/** One content block of a `CallToolResult` (text, image, and anything else shown as JSON). */
export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: string; [k: string]: unknown };

/** `tools/call` result (spec `CallToolResult`). */
export interface CallToolResult {
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** One root as the console shows it. `lifetime` is its scope. */
export interface RootInfo {
  uri: string;
  name?: string;
  lifetime: 'app' | 'session' | 'request';
  source: string;
  /** Last health check; absent until checked. */
  health?: RootHealth;
}

/** A saved preset, summarised. */
export interface PresetInfo {
  name: string;
  /** Epoch ms. */
  updatedAt: number;
  roots: number;
  /** Servers with saved answers. */
  servers: string[];
  /** `'store'`: saved (console, `parley presets save`/`import`); `'config'`: the configuration's `presets` (read only; `updatedAt` 0). */
  source?: 'store' | 'config';
  /** The preset loaded now (at most one): the console offers to unload it. */
  active?: boolean;
}

/** One remembered answer, for the list of remembered answers (console and `parley answers`). */
export interface RememberedInfo {
  server: string;
  /** Identifies the form (`schemaHash` of its `requestedSchema`). */
  schemaHash: string;
  /** The form's message when it was remembered. */
  label?: string;
  /** Remembered field values (sensitive fields are never remembered). */
  content: Record<string, unknown>;
  /** `'always'` (every session) or `'session'` (this one). */
  remember: 'session' | 'always';
  /** `true`: answered automatically next time; `false`: prefill only. */
  auto: boolean;
  /** Epoch ms. */
  updatedAt: number;
}

/** Filters of the audit view; all optional and combined with AND. */
export interface AuditFilter {
  server?: string;
  kind?: string;
  action?: string;
  /** Maximum rows, newest first. @default 200 */
  limit?: number;
}

/** Something changed in the host; the console tells the browsers so they refresh that panel. */
export type HostEvent =
  | { type: 'servers'; server?: string }
  | { type: 'tools'; server?: string }
  | { type: 'roots' }
  | { type: 'presets' }
  | { type: 'answers' }
  | { type: 'audit' };

/** An error caused by the request (unknown server, bad URI, …); the console answers 400 with its message. */
export class HostApiError extends Error {
  constructor(
    message: string,
    readonly code = 'BAD_REQUEST',
  ) {
    super(message);
    this.name = 'HostApiError';
  }
}

/** What the console calls on the host. */
export interface HostApi {
  listServers(): Awaitable<ServerInfo[]>;
  /** Restarts one server. @throws HostApiError for an unknown server. */
  restartServer(name: string): Awaitable<void>;
  listTools(): Awaitable<ToolInfo[]>;
  /** Calls a tool; tool errors come back as `isError: true`, not as throws. */
  callTool(server: string, tool: string, args: Record<string, unknown>): Awaitable<CallToolResult>;
  listRoots(): Awaitable<RootInfo[]>;
  /** Adds a root (health-checked before any server sees it). @throws HostApiError for a bad URI. */
  addRoot(root: { uri: string; name?: string; lifetime?: 'app' | 'session' }): Awaitable<RootInfo>;
  removeRoot(uri: string): Awaitable<boolean>;
  listPresets(): Awaitable<PresetInfo[]>;
  /** Saves the current roots and remembered answers under `name`. */
  savePreset(name: string): Awaitable<void>;
  /**
   * Applies a preset (its roots and answers). Returns its answers per server (open forms take them).
   * @throws HostApiError when there is no such preset.
   */
  loadPreset(name: string): Awaitable<{ answers: Record<string, Record<string, unknown>> }>;
  /**
   * Unloads the loaded preset: the roots it added leave, its answers stop prefilling forms.
   * @returns its name (absent when none was loaded) and the roots removed.
   */
  unloadPreset(): Awaitable<{ name?: string; removedRoots: string[] }>;
  /** Every preset as a JSON document (the `parley-presets` format). */
  exportPresets(): Awaitable<string>;
  /** Remembered answers this console's person can recall. Empty when the store cannot list them. */
  listAnswers(): Awaitable<RememberedInfo[]>;
  /** "Answer automatically next time" (`true`) or "prefill only". @throws HostApiError when there is no such answer. */
  setAnswerMode(server: string, schemaHash: string, auto: boolean): Awaitable<void>;
  /** Forgets one remembered answer. @returns whether one was removed. */
  forgetAnswer(server: string, schemaHash: string): Awaitable<boolean>;
  queryAudit(filter: AuditFilter): Awaitable<AuditRecord[]>;
  /** Subscribes to host events; returns the unsubscribe function. */
  subscribe(listener: (event: HostEvent) => void): () => void;
}
