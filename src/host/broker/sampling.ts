/**
 * The host side of sampling (MCP `client/sampling`; 2026-07-28 through `inputRequests`, deprecated by
 * SEP-2577 but still answered): a `sampling/createMessage` becomes a form prompt with one string field,
 * `reply`, whose message shows the conversation. The broker runs it through its usual pipeline (policy
 * limits, presenter, answer deadline, cancellation, validation, audit) with prefill and "remember" off.
 * @module
 */
import { DEFAULT_LIMITS } from '../../schema/index.js';
import type { SamplingView } from '../presenter.js';

/** Messages shown at most; the rest are counted in `omittedMessages`. */
export const MAX_SAMPLING_MESSAGES = 100;
/** Characters of the rendered conversation shown at most (then `… (N more characters)`). */
export const MAX_SAMPLING_SHOWN_CHARS = 20_000;
/** Longest reply a person may send, characters (the form's `maxLength`). */
export const MAX_SAMPLING_REPLY_CHARS = 100_000;
/** The `model` of every result: a person wrote it. */
export const SAMPLING_MODEL = 'parley/person';

import type { SamplingResult } from '../servers/handlers.js';
export type { SampleAnswer, SamplingResult } from '../servers/handlers.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One content block as text. Bounded: a text is cut at `room` characters. */
function blockText(b: unknown, room: number): string {
  if (!isRecord(b)) return '[?]';
  const cut = (s: string) => (s.length > room ? `${s.slice(0, room)}…` : s);
  switch (b.type) {
    case 'text':
      return cut(typeof b.text === 'string' ? b.text : '');
    case 'image':
    case 'audio':
      return `[${b.type} ${typeof b.mimeType === 'string' ? b.mimeType.slice(0, 100) : ''}]`;
    case 'tool_use':
      return cut(`[tool call ${typeof b.name === 'string' ? b.name.slice(0, 200) : '?'} ${JSON.stringify(b.input ?? {}).slice(0, room)}]`);
    case 'tool_result':
      return `[tool result${
        Array.isArray(b.content)
          ? ': ' +
            b.content
              .slice(0, 20)
              .map((c) => blockText(c, room))
              .join(' ')
          : ''
      }]`;
    default:
      return `[${typeof b.type === 'string' ? b.type.slice(0, 50) : '?'}]`;
  }
}

/**
 * Checks `sampling/createMessage` params and builds what the person sees.
 * @returns the view and the prompt message, or `{error}` naming the bad field (answered -32602).
 */
export function samplingPrompt(params: unknown, server: string): { view: SamplingView; message: string } | { error: string } {
  if (!isRecord(params)) return { error: 'sampling/createMessage params must be an object' };
  if (!Array.isArray(params.messages)) return { error: 'sampling/createMessage params.messages must be an array' };
  if (typeof params.maxTokens !== 'number' || !Number.isFinite(params.maxTokens))
    return { error: 'sampling/createMessage params.maxTokens must be a number' };
  let room = MAX_SAMPLING_SHOWN_CHARS;
  const messages: SamplingView['messages'] = [];
  for (const m of params.messages.slice(0, MAX_SAMPLING_MESSAGES)) {
    if (!isRecord(m) || typeof m.role !== 'string') return { error: 'each sampling/createMessage message needs a role and content' };
    const blocks = Array.isArray(m.content) ? m.content.slice(0, 50) : [m.content];
    const text = blocks.map((b) => blockText(b, Math.max(room, 0))).join('\n');
    room -= text.length;
    messages.push({ role: m.role.slice(0, 20), text });
  }
  const view: SamplingView = {
    messages,
    maxTokens: params.maxTokens,
    modelHints:
      isRecord(params.modelPreferences) && Array.isArray(params.modelPreferences.hints)
        ? params.modelPreferences.hints
            .slice(0, 10)
            .map((h) => (isRecord(h) && typeof h.name === 'string' ? h.name.slice(0, 100) : ''))
            .filter(Boolean)
        : [],
    tools: Array.isArray(params.tools)
      ? params.tools.slice(0, 50).map((t) => (isRecord(t) && typeof t.name === 'string' ? t.name.slice(0, 100) : '?'))
      : [],
    omittedMessages: Math.max(0, params.messages.length - MAX_SAMPLING_MESSAGES),
  };
  if (typeof params.systemPrompt === 'string') view.systemPrompt = params.systemPrompt.slice(0, 4000);
  const lines = [`${server} asks for a model reply (sampling). Write the reply, or decline.`];
  if (view.systemPrompt) lines.push(`[system] ${view.systemPrompt}`);
  for (const m of messages) lines.push(`[${m.role}] ${m.text}`);
  if (view.omittedMessages) lines.push(`(${view.omittedMessages} more messages not shown)`);
  // The prompt's message is a summary within the broker's message cap (limits.messageChars); the whole
  // conversation (up to MAX_SAMPLING_SHOWN_CHARS) travels in the view, which presenters show.
  const cap = DEFAULT_LIMITS.messageChars - 100;
  let message = lines.join('\n');
  if (message.length > cap)
    message = `${message.slice(0, cap)}… (${message.length - cap} more characters; the whole conversation is shown above the reply box)`;
  return { view, message };
}

/** The form a sampling prompt asks: one required string `reply`. */
export function samplingSchema(maxTokens: number): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      reply: {
        type: 'string',
        title: 'Reply',
        description: `Sent to the server as the model's answer (it asked for at most ${maxTokens} tokens).`,
        minLength: 1,
        maxLength: MAX_SAMPLING_REPLY_CHARS,
      },
    },
    required: ['reply'],
  };
}

/** The result for an accepted reply. */
export const samplingResult = (reply: string): SamplingResult => ({
  role: 'assistant',
  content: { type: 'text', text: reply },
  model: SAMPLING_MODEL,
  stopReason: 'endTurn',
});
