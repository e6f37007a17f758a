/**
 * Remembered answers as a person manages them: list every answer the host may recall for a scope,
 * mark one "answer automatically next time" or "prefill only", and forget one. An optional part of the
 * {@link Store} (see {@link RememberedAnswerList}); the SQLite store implements it on the `answers` table
 * with the columns of migration 4 (`auto`, `label`).
 * @module
 */
import type Database from 'better-sqlite3';
import type { RememberedAnswerEntry, Scope } from './types.js';
import { parseJson, requireText, scopeParams } from './scope.js';

/** Longest stored label (the form's message), in characters; longer ones are cut. */
export const ANSWER_LABEL_MAX = 200;

/** Migration 4: whether a remembered answer is submitted without asking, and the form's message. */
export const ANSWERS_AUTO_MIGRATION = {
  version: 5,
  description: 'answers.auto (answer automatically next time) and answers.label (the form message, for the list of remembered answers)',
  sql: `
    ALTER TABLE answers ADD COLUMN auto INTEGER NOT NULL DEFAULT 0 CHECK (auto IN (0, 1));
    ALTER TABLE answers ADD COLUMN label TEXT;
  `,
} as const;

interface Row {
  tenant: string;
  user: string;
  session: string | null;
  server: string;
  schema_hash: string;
  remember: 'session' | 'always';
  content: string;
  updated_at: number;
  auto: number;
  label: string | null;
}

function fromRow(r: Row): RememberedAnswerEntry {
  return {
    scope: { tenant: r.tenant, user: r.user, session: r.session },
    server: r.server,
    schemaHash: r.schema_hash,
    content: parseJson(r.content, `remembered answer for ${r.server}`) as RememberedAnswerEntry['content'],
    remember: r.remember,
    updatedAt: r.updated_at,
    auto: r.auto === 1,
    ...(r.label !== null ? { label: r.label } : {}),
  };
}

/** Statements of the list/mode/forget-one operations, prepared once per store. */
export function answerListTable(db: Database.Database) {
  // What `recall` may return in a session: the user's 'always' rows and this session's rows.
  const VISIBLE = 'tenant = @tenant AND user = @user AND (session IS NULL OR session IS @session)';
  const list = db.prepare(`SELECT * FROM answers WHERE ${VISIBLE} ORDER BY server, updated_at DESC, rowid DESC`);
  const one = db.prepare(
    `SELECT * FROM answers WHERE ${VISIBLE} AND server = @server AND schema_hash = @schemaHash ORDER BY updated_at DESC, rowid DESC LIMIT 1`,
  );
  const mode = db.prepare(
    `UPDATE answers SET auto = @auto, label = COALESCE(@label, label) WHERE ${VISIBLE} AND server = @server AND schema_hash = @schemaHash`,
  );
  const del = db.prepare(`DELETE FROM answers WHERE ${VISIBLE} AND server = @server AND schema_hash = @schemaHash`);
  const key = (scope: Scope, server: string, schemaHash: string, where: string) => ({
    ...scopeParams(scope, where),
    server: requireText(server, 'server', where),
    schemaHash: requireText(schemaHash, 'schemaHash', where),
  });
  return {
    list: (scope: Scope): RememberedAnswerEntry[] => (list.all(scopeParams(scope, 'listAnswers')) as Row[]).map(fromRow),
    recall(scope: Scope, server: string, schemaHash: string): RememberedAnswerEntry | undefined {
      const r = one.get(key(scope, server, schemaHash, 'recallEntry')) as Row | undefined;
      return r && fromRow(r);
    },
    setMode(scope: Scope, server: string, schemaHash: string, auto: boolean, label?: string): boolean {
      if (typeof auto !== 'boolean') throw new TypeError('setAnswerMode: auto must be a boolean');
      const l = typeof label === 'string' && label !== '' ? label.slice(0, ANSWER_LABEL_MAX) : null;
      return mode.run({ ...key(scope, server, schemaHash, 'setAnswerMode'), auto: auto ? 1 : 0, label: l }).changes > 0;
    },
    forgetOne: (scope: Scope, server: string, schemaHash: string): boolean =>
      del.run(key(scope, server, schemaHash, 'forgetAnswer')).changes > 0,
  };
}
