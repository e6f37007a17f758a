/**
 * Heuristic detection of fields that ask for secrets.
 *
 * Spec: 2025-06-18 elicitation §Security Considerations ("Servers MUST NOT use elicitation to
 * request sensitive information"); 2025-11-25 §User Interaction Model l.30-38 (form mode MUST NOT be
 * used for passwords, API keys, access tokens, payment credentials; name, email and username are not
 * categorically sensitive).
 * @module
 */
import { pointer } from './pointer.js';

/** One hit: which field, where, which rule, and the text that matched. */
export interface SensitiveHit {
  field: string;
  /** JSON pointer of the property in the schema. */
  path: string;
  /** Rule id, e.g. `'password'`, `'api-key'`, `'zh-password'`. */
  rule: string;
  /** The text that matched (from the name, title or description). */
  matched: string;
  /** Which part of the property matched. */
  where: 'name' | 'title' | 'description';
}

interface Rule {
  id: string;
  re: RegExp;
}

// Rules run on text normalised to lowercase words separated by single spaces
// (camelCase, snake_case and kebab-case are split first), padded with spaces.
const RULES: Rule[] = [
  { id: 'password', re: / (password|passwd|passcode)s? / },
  { id: 'passphrase', re: / (passphrase|pass phrase|seed phrase|recovery phrase|mnemonic( phrase)?) / },
  { id: 'secret', re: / (client |shared |app |api )?secrets? (?!santa)/ },
  { id: 'access-token', re: / (access|refresh|api|auth|bearer|session|id|oauth|personal access|github|slack|jwt|csrf) tokens? / },
  { id: 'token', re: / token (?!count|counts|limit|limits|usage|budget|estimate|total|number|type|types)/ },
  { id: 'bearer', re: / (bearer|jwt|authorization header|authorization) / },
  { id: 'cookie', re: / (session )?cookies? / },
  { id: 'api-key', re: / (api ?key|apikey|x api key|access key|secret key|license key|subscription key)s? / },
  { id: 'private-key', re: / (private ?key|privkey|ssh key|signing key)s? / },
  { id: 'credential', re: / (credentials?|connection string|conn string|dsn|session id|sessionid|session key) / },
  { id: 'bank-account', re: / (iban|bank account( number)?|routing number|account number) / },
  { id: 'card-number', re: / ((credit|debit|bank|payment) )?card (number|no|num)s? | (credit|debit) card | pan number | cc ?(number|num) / },
  { id: 'cvv', re: / (cvv2?|cvc2?|csc|card security code|security code) / },
  { id: 'pin', re: / pin( code| number)?s? / },
  { id: 'one-time-code', re: / (one ?time (code|password|passcode|pin)|otp|totp|hotp|2fa( code)?|mfa( code)?|verification code|auth(entication|orization)? code|sms code|recovery codes?|backup codes?) / },
  { id: 'ssn', re: / (ssn|social security( number)?|national insurance number|tax id) / },
];

// Quantities and metadata about a secret are not the secret: "password length", "token type".
const EXEMPT = / (length|count|counts|limit|limits|policy|strength|minimum|maximum|min|max|type|types|expiry|expires|expiration|hint|santa|design) /;

const ZH_RULES: Rule[] = [
  { id: 'zh-password', re: /(密码|密碼|口令)/ },
  { id: 'zh-secret-key', re: /(密钥|密鑰|私钥|私鑰|秘钥|助记词|助記詞)/ },
  { id: 'zh-token', re: /令牌(?!数|數|用量|限额|限額)/ },
  { id: 'zh-one-time-code', re: /(验证码|驗證碼|动态码|動態碼|校验码|校驗碼|短信码|短信碼|授权码|授權碼|安全码|安全碼)/ },
  { id: 'zh-pin', re: /(pin|cvv|cvc)\s*(码|碼)/i },
  { id: 'zh-id-number', re: /(身份证号|身份证号码|身份证|身份證)/ },
  { id: 'zh-card-number', re: /(银行卡号|信用卡号|卡号|銀行卡號|信用卡號|卡號)/ },
];

/** Words in a description that deny a request ("we will never ask for your password"). */
const NEGATED = / (never|not|dont|don t|without|no longer) /;

/** Lowercase words separated by single spaces, padded: `apiKey` → ` api key `. */
export function normaliseWords(text: string): string {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9\u4e00-\u9fff]+/g, ' ')
    .trim();
  return ' ' + words + ' ';
}

/** Longest text whose verdicts are memoised (characters); longer ones are judged every time. */
export const MEMO_TEXT_MAX = 256;
/** Most memoised texts per verdict; beyond it the oldest is forgotten. */
export const MEMO_SIZE = 2_048;

/**
 * A bounded memo of a pure function of one text. A server sends the same field names, titles and
 * descriptions with every request, and judging one runs ~25 regular expressions (measured: the
 * largest share of a toolkit `ctx.elicit`'s own CPU before this memo). Results are shared: frozen.
 */
function memo<R>(fn: (text: string) => R): (text: string) => R {
  const seen = new Map<string, R>();
  return (text) => {
    if (text.length > MEMO_TEXT_MAX) return fn(text);
    if (seen.has(text)) return seen.get(text) as R;
    const r = fn(text);
    if (seen.size >= MEMO_SIZE) seen.delete(seen.keys().next().value as string);
    seen.set(text, typeof r === 'object' && r !== null ? Object.freeze(r) : r);
    return r;
  };
}

const matchText = memo(judgeText);
const negated = memo((text: string) => NEGATED.test(normaliseWords(text)));

function judgeText(text: string): { rule: string; matched: string } | undefined {
  const norm = normaliseWords(text);
  if (EXEMPT.test(norm)) return undefined;
  for (const r of RULES) {
    const m = r.re.exec(norm);
    if (m) return { rule: r.id, matched: m[0].trim() };
  }
  for (const r of ZH_RULES) {
    const m = r.re.exec(text);
    if (m) return { rule: r.id, matched: m[0] };
  }
  return undefined;
}

/**
 * Properties of a `requestedSchema` whose name, title or description looks like a request for a
 * secret. Accepts any value; a non-object schema has no hits. English and Chinese (simplified and
 * traditional). Booleans and fixed-choice fields are skipped (they cannot carry a secret); quantities
 * and metadata ("password length", "token type", 令牌数量) and negated descriptions give no hits, nor
 * do ordinary fields (name, email, username, token counts).
 */
export function detectSensitiveFields(schema: unknown): SensitiveHit[] {
  const hits: SensitiveHit[] = [];
  const props = (schema as { properties?: unknown } | null)?.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return hits;
  for (const [field, raw] of Object.entries(props as Record<string, unknown>)) {
    const prop = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    // A yes/no answer or a choice among fixed options cannot carry a secret.
    if (prop.type === 'boolean' || Array.isArray(prop.enum) || Array.isArray(prop.oneOf) || prop.type === 'array') continue;
    if (prop.format === 'password') {
      hits.push({ field, path: pointer('properties', field), rule: 'password', matched: 'format: password', where: 'name' });
      continue;
    }
    const parts: Array<[SensitiveHit['where'], unknown]> = [
      ['name', field],
      ['title', prop.title],
      ['description', prop.description],
    ];
    for (const [where, text] of parts) {
      if (typeof text !== 'string') continue;
      if (where === 'description' && negated(text)) continue;
      const m = matchText(text);
      if (m) {
        hits.push({ field, path: pointer('properties', field), rule: m.rule, matched: m.matched, where });
        break;
      }
    }
  }
  return hits;
}
