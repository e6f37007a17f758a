/**
 * The host's server runtime: live servers, their SDK v2 connections, tool calls with pausable clocks.
 * @module
 */
export type { InputContext, InputHandlers, ElicitAnswer, SampleAnswer, SamplingResult } from './handlers.js';
export { DEFAULT_STOP } from './shutdown.js';
export { ServerManager, type ServerManagerOptions, type ConnectionInfo } from './manager.js';
export { type ServerState, type ServerStatus, type ServerEvents, ServerUnavailableError, UnknownServerError } from './state.js';
export { ToolCallTimeoutError } from './tool-clock.js';
export { DEFAULT_RESTART_POLICY, backoffDelay, type RestartPolicy } from './backoff.js';
export { STDERR_MAX_LINES, STDERR_MAX_BYTES, STDERR_MAX_LINE_BYTES } from './stderr-ring.js';
export { SDK_TIMEOUT_SLACK_MS, URL_COMPLETE_WAIT_MS } from './tool-call.js';
export type { Clock } from './clock.js';
export type { Era } from './connection.js';
