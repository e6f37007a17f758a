/**
 * Heuristic detection of fields that ask for secrets.
 *
 * Spec: 2025-06-18 elicitation §Security Considerations ("Servers MUST NOT use elicitation to
 * request sensitive information"); 2025-11-25 §User Interaction Model l.30-38 (form mode MUST NOT be
 * used for passwords, API keys, access tokens, payment credentials; name, email and username are not
 * categorically sensitive).
 *
 * How a text is read (`fold.ts`): NFKC, default-ignorable characters removed, look-alike Cyrillic /
 * Greek / Armenian letters mapped to Latin and accents dropped, then split into words (camelCase,
 * snake_case, `APIKey`, `2FA`); runs of three or more one-letter words are read as one word
 * (`p-a-s-s-w-o-r-d`), and a text with look-alike digits inside words (`passw0rd`, `p4ssword`,
 * `S3CR3T`: 0→o 1→i 3→e 4→a 5→s 7→t) is judged a second time with them read as letters. Latin-script phrases (English, German, French, Spanish) are looked up
 * word by word in a phrase table; Russian words in their own table; Chinese, Japanese and Korean
 * terms are found in the canonical text. Every step is linear in the text's length: there is no
 * backtracking regular expression over untrusted text.
 *
 * Besides the words, a property the server marks as secret is a hit (rule `marked-secret`):
 * `format: "password"`, `writeOnly: true`, `"x-sensitive": true` or `"x-secret": true`.
 * @module
 */
import { LRUCache } from 'lru-cache';
import { fold, type Folded } from './fold.js';
import { pointer } from './pointer.js';

/** One hit: which field, where, which rule, and the text that matched. */
export interface SensitiveHit {
  field: string;
  /** JSON pointer of the property in the schema. */
  path: string;
  /** Rule id, e.g. `'password'`, `'api-key'`, `'zh-password'`, `'marked-secret'`. */
  rule: string;
  /** The text that matched (from the name, title or description), or the mark. */
  matched: string;
  /** Which part of the property matched. */
  where: 'name' | 'title' | 'description' | 'mark';
}

/** Latin-script phrases (words after folding, lower case, accents dropped) by rule. */
const LATIN: Record<string, string[]> = {
  password: [
    'password',
    'passwords',
    'passwd',
    'pwd',
    'pw',
    'passcode',
    'passwort',
    'passworter',
    'kennwort',
    'mot de passe',
    'mdp',
    'contrasena',
    'contrasenya',
    'senha',
    'clave',
    'login password',
  ],
  passphrase: [
    'passphrase',
    'pass phrase',
    'seed phrase',
    'recovery phrase',
    'secret phrase',
    'mnemonic',
    'mnemonic phrase',
    'seed words',
    'phrase secrete',
    'frase semilla',
  ],
  secret: ['secret', 'secrets', 'client secret', 'shared secret', 'app secret', 'api secret', 'geheimnis', 'secreto'],
  'access-token': [
    'access token',
    'refresh token',
    'api token',
    'auth token',
    'bearer token',
    'session token',
    'id token',
    'oauth token',
    'personal access token',
    'github token',
    'slack token',
    'jwt token',
    'csrf token',
    'zugriffstoken',
    'jeton',
    'jeton d acces',
    'jeton dacces',
    'token de acceso',
    'token d acces',
  ],
  token: ['token'],
  bearer: ['bearer', 'jwt', 'authorization header', 'authorization'],
  cookie: ['cookie', 'cookies', 'session cookie'],
  'api-key': [
    'api key',
    'api keys',
    'apikey',
    'x api key',
    'access key',
    'secret key',
    'license key',
    'subscription key',
    'api schlussel',
    'api schluessel',
    'cle api',
    'cle d api',
    'clave api',
    'clave de api',
    'clave secreta',
    'clave de acceso',
    'cle secrete',
    'geheimer schlussel',
  ],
  'private-key': ['private key', 'privkey', 'ssh key', 'signing key', 'privater schlussel', 'cle privee', 'clave privada'],
  credential: [
    'credential',
    'credentials',
    'connection string',
    'conn string',
    'dsn',
    'session id',
    'sessionid',
    'session key',
    'zugangsdaten',
    'anmeldedaten',
    'identifiants',
    'credenciales',
  ],
  'bank-account': [
    'iban',
    'bank account',
    'bank account number',
    'routing number',
    'account number',
    'kontonummer',
    'numero de compte',
    'numero de cuenta',
  ],
  'card-number': [
    'card number',
    'card numbers',
    'card no',
    'card num',
    'credit card',
    'debit card',
    'credit card number',
    'pan number',
    'cc number',
    'cc num',
    'ccnum',
    'kreditkartennummer',
    'kreditkarte',
    'kartennummer',
    'numero de carte',
    'carte bancaire',
    'carte de credit',
    'numero de tarjeta',
    'tarjeta de credito',
  ],
  cvv: [
    'cvv',
    'cvv2',
    'cvc',
    'cvc2',
    'csc',
    'cvn',
    'card security code',
    'security code',
    'sicherheitscode',
    'prufnummer',
    'pruefnummer',
    'cryptogramme',
    'code de securite',
    'codigo de seguridad',
  ],
  pin: ['pin', 'pins', 'pin code', 'pin number', 'pincode', 'geheimzahl', 'code pin', 'numero pin', 'nip', 'code nip', 'numero nip'],
  'one-time-code': [
    'one time code',
    'onetime code',
    'one time password',
    'one time passcode',
    'one time pin',
    'otp',
    'totp',
    'hotp',
    '2fa',
    '2fa code',
    'two factor code',
    'two factor auth code',
    'two factor authentication code',
    'two factor token',
    '2 factor code',
    'second factor code',
    'tfa code',
    'tfa token',
    'mfa token',
    'authenticator',
    'authenticator app',
    'authenticator code',
    'mfa',
    'mfa code',
    'verification code',
    'auth code',
    'authentication code',
    'authorization code',
    'sms code',
    'recovery code',
    'recovery codes',
    'backup code',
    'backup codes',
    'tan',
    'einmalpasswort',
    'einmalkennwort',
    'bestatigungscode',
    'bestaetigungscode',
    'verifizierungscode',
    'code de verification',
    'code de confirmation',
    'codigo de verificacion',
    'codigo de confirmacion',
  ],
  'security-answer': [
    'security answer',
    'security question answer',
    'secret answer',
    'secret question answer',
    'answer to security question',
    'answer to your security question',
  ],
  ssn: [
    'ssn',
    'social security',
    'social security number',
    'national insurance number',
    'tax id',
    'sozialversicherungsnummer',
    'steuer id',
    'steueridentifikationsnummer',
    'numero de securite sociale',
    'numero de seguro social',
  ],
};

/** Parts of one Latin word that make it a hit on their own (compounds: `newpassword`, `Benutzerpasswort`). */
const LATIN_STEMS: Array<[string, string]> = [
  ['password', 'password'],
  ['passwort', 'password'],
  ['kennwort', 'password'],
  ['passwd', 'password'],
  ['contrasena', 'password'],
  ['passphrase', 'passphrase'],
  ['apikey', 'api-key'],
  ['secretkey', 'api-key'],
  ['privatekey', 'private-key'],
  ['clientsecret', 'secret'],
  ['accesstoken', 'access-token'],
  ['authtoken', 'access-token'],
  ['refreshtoken', 'access-token'],
  ['apitoken', 'access-token'],
  ['kreditkarte', 'card-number'],
  ['creditcard', 'card-number'],
  ['geheimzahl', 'pin'],
];
/** Words that contain a stem but ask for no secret. */
const STEM_GUARD = new Set(['passwordless', 'passwortlos']);
/** What may follow a stem inside one word and make it metadata (German compounds: "Passwortlänge"). */
const STEM_EXEMPT_REST = new Set(['laenge', 'richtlinie', 'starke', 'staerke', 'regeln', 'hinweis']);

/** Russian phrases (Cyrillic words, lower case) by rule. */
const RUSSIAN: Record<string, string[]> = {
  'ru-password': ['пароль', 'пароля', 'паролю', 'паролем', 'пароле', 'кодовое слово'],
  'ru-pin': ['пин', 'пин код', 'пинкод'],
  'ru-one-time-code': ['код подтверждения', 'одноразовый код', 'одноразовый пароль', 'код из смс', 'смс код', 'проверочный код'],
  'ru-secret-key': ['секретный ключ', 'api ключ', 'ключ api', 'закрытый ключ', 'приватный ключ'],
  'ru-token': ['токен', 'токена', 'токен доступа'],
  'ru-card-number': ['номер карты', 'номер банковской карты'],
  'ru-id-number': ['снилс', 'инн', 'номер паспорта'],
  'ru-credential': ['учетные данные', 'учётные данные'],
};

/** Chinese, Japanese and Korean terms (found anywhere in the canonical lower-case text) by rule. */
const CJK: Array<[string, RegExp]> = [
  ['zh-password', /密码|密碼|口令/],
  ['zh-secret-key', /密钥|密鑰|私钥|私鑰|秘钥|助记词|助記詞/],
  ['zh-token', /令牌(?!数|數|用量|限额|限額)/],
  ['zh-one-time-code', /验证码|驗證碼|动态码|動態碼|校验码|校驗碼|短信码|短信碼|授权码|授權碼|安全码|安全碼/],
  ['zh-pin', /(?:pin|cvv|cvc) ?[码碼]/],
  ['zh-id-number', /身份证|身份證/],
  ['zh-card-number', /银行卡号|信用卡号|卡号|銀行卡號|信用卡號|卡號/],
  ['ja-password', /パスワード|暗証番号|パスコード|合言葉/],
  ['ja-secret-key', /秘密鍵|api ?キー|シークレット/],
  ['ja-token', /トークン(?!数|量)/],
  ['ja-one-time-code', /認証コード|確認コード|ワンタイム/],
  ['ja-card-number', /カード番号|セキュリティコード/],
  ['ja-id-number', /マイナンバー/],
  ['ko-password', /비밀번호|패스워드|암호(?!화)/],
  ['ko-one-time-code', /인증 ?번호|인증 ?코드|보안 ?코드/],
  ['ko-card-number', /카드 ?번호/],
  ['ko-id-number', /주민등록번호|주민번호/],
  ['ko-token', /토큰(?! ?수)/],
  ['ko-secret-key', /api ?키|비밀 ?키|개인 ?키|시크릿/],
];

/** A word right after a hit that makes it metadata about a secret, not the secret ("password length"). */
const EXEMPT_AFTER = new Set([
  'length',
  'count',
  'counts',
  'limit',
  'limits',
  'policy',
  'strength',
  'minimum',
  'maximum',
  'min',
  'max',
  'type',
  'types',
  'expiry',
  'expires',
  'expiration',
  'hint',
  'santa',
  'budget',
  'usage',
  'estimate',
  'total',
  'consent',
  'banner',
  'lange',
  'longueur',
  'longitud',
]);
/** A word right before a hit that does the same ("minimum password length", "design token"). */
const EXEMPT_BEFORE = new Set(['min', 'max', 'minimum', 'maximum', 'design']);
/** Extra words after `token` that make it a quantity ("token number" is a count in LLM settings). */
const TOKEN_EXEMPT_AFTER = new Set(['number', 'numbers', 'id', 'ids']);
/** Words in a description, up to {@link NEGATION_REACH} words before a hit, that deny the request. */
const NEGATIONS = new Set(['never', 'not', 'dont', 'don', 'without', 'nie', 'niemals', 'nicht', 'jamais', 'nunca', 'не', 'никогда']);
const NEGATION_REACH = 6;
/** Words in the title or description that explain `pwd` as a directory, not a password. */
const PWD_CONTEXT = new Set(['directory', 'folder', 'path', 'cwd', 'dir', 'verzeichnis', 'dossier', 'carpeta']);

/** Longest phrase in words. */
const MAX_PHRASE = 5;

function table(src: Record<string, string[]>): Map<string, string> {
  const m = new Map<string, string>();
  for (const [rule, phrases] of Object.entries(src)) for (const p of phrases) m.set(p, rule);
  return m;
}
const LATIN_TABLE = table(LATIN);
const RUSSIAN_TABLE = table(RUSSIAN);

interface Match {
  rule: string;
  matched: string;
}

/**
 * The first phrase of `table` in `ws` (longest match at each position), skipping hits whose next or
 * previous word makes them metadata, and (`negatable`) hits a negation shortly before denies.
 */
function findPhrase(ws: string[], tab: Map<string, string>, negatable: boolean): Match | undefined {
  for (let i = 0; i < ws.length; i++) {
    let phrase = '';
    let best: { rule: string; end: number; text: string } | undefined;
    for (let n = 1; n <= MAX_PHRASE && i + n <= ws.length; n++) {
      phrase = n === 1 ? ws[i] : `${phrase} ${ws[i + n - 1]}`;
      const rule = tab.get(phrase);
      if (rule) best = { rule, end: i + n, text: phrase };
    }
    if (!best) continue;
    const next = ws[best.end];
    if (next !== undefined && (EXEMPT_AFTER.has(next) || (best.rule === 'token' && TOKEN_EXEMPT_AFTER.has(next)))) continue;
    if (i > 0 && EXEMPT_BEFORE.has(ws[i - 1])) continue;
    if (negatable && negatedBefore(ws, i)) continue;
    return { rule: best.rule, matched: best.text };
  }
  return undefined;
}

function negatedBefore(ws: string[], i: number): boolean {
  for (let j = Math.max(0, i - NEGATION_REACH); j < i; j++) if (NEGATIONS.has(ws[j])) return true;
  return false;
}

function findStem(ws: string[]): Match | undefined {
  for (const w of ws) {
    if (w.length < 6 || STEM_GUARD.has(w)) continue;
    for (const [stem, rule] of LATIN_STEMS) {
      const at = w.length > stem.length ? w.indexOf(stem) : -1;
      if (at < 0) continue;
      const rest = w.slice(at + stem.length);
      if (EXEMPT_AFTER.has(rest) || STEM_EXEMPT_REST.has(rest)) continue; // "Passwortlänge", "passwordpolicy"
      return { rule, matched: w };
    }
  }
  return undefined;
}

function findCjk(text: string): Match | undefined {
  for (const [rule, re] of CJK) {
    const m = re.exec(text);
    if (m) return { rule, matched: m[0] };
  }
  return undefined;
}

/** Fewest single letters in a row that are read as one word ("p-a-s-s-w-o-r-d", "P I N"). */
const SPELLED_MIN = 3;

/**
 * `ws` with every run of at least {@link SPELLED_MIN} one-letter words joined into one word, so a
 * word spelled out with separators is read as the word. One pass: linear.
 */
function joinSpelled(ws: string[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length >= SPELLED_MIN) out.push(run.join(''));
    else out.push(...run);
    run = [];
  };
  for (const w of ws) {
    if (w.length === 1 && w >= 'a' && w <= 'z') run.push(w);
    else {
      flush();
      out.push(w);
    }
  }
  flush();
  return out;
}

/** Digits that stand for letters inside a word ("passw0rd", "p4ssword", "s3cr3t"). */
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't' };
const isAsciiLetter = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));

/**
 * `text` with each look-alike digit next to a letter (or next to such a digit: "pa55word") read as
 * that letter (upper case between capitals), or `undefined` when there is none. `2` stays (`2FA`, `cvv2`). One pass: linear.
 */
function unleet(text: string): string | undefined {
  let out = '';
  let changed = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const l = LEET[c];
    const prevMapped = changed && out.length === i && l !== undefined && LEET[text[i - 1]] !== undefined;
    if (l !== undefined && (isAsciiLetter(text[i - 1]) || isAsciiLetter(text[i + 1]) || prevMapped)) {
      // Upper case only between capitals ("S3CR3T", "PA55WORD"), so camelCase stays as written ("userP4ssword").
      const before = isAsciiLetter(out[i - 1]) ? out[i - 1] : undefined;
      const after = isAsciiLetter(text[i + 1]) ? text[i + 1] : undefined;
      const upper = (c: string | undefined) => c === undefined || (c >= 'A' && c <= 'Z');
      out += (before ?? after) !== undefined && upper(before) && upper(after) ? l.toUpperCase() : l;
      changed = true;
    } else out += c;
  }
  return changed ? out : undefined;
}

/** Judges one text: as written, then with look-alike digits read as letters. */
function judgeText(text: string, negatable: boolean): Match | undefined {
  const m = judge(foldMemo(text), negatable);
  if (m) return m;
  const alt = unleet(text);
  return alt === undefined ? undefined : judge(fold(alt), negatable);
}

/** Judges one folded text. `negatable`: a description, where "we never ask for your password" is no hit. */
function judge(f: Folded, negatable: boolean): Match | undefined {
  const latin = joinSpelled(f.latin);
  return (
    findPhrase(latin, LATIN_TABLE, negatable) ?? findStem(latin) ?? findPhrase(f.native, RUSSIAN_TABLE, negatable) ?? findCjk(f.nativeText)
  );
}

/** Longest text whose verdicts are memoised (characters); longer ones are judged every time. */
export const MEMO_TEXT_MAX = 256;
/** Most memoised texts per verdict; beyond it the least recently used is forgotten (lru-cache). */
export const MEMO_SIZE = 2_048;

/**
 * A bounded memo of a pure function of one text. A server sends the same field names, titles and
 * descriptions with every request. Results are shared: frozen.
 */
function memo<R>(fn: (text: string) => R): (text: string) => R {
  // Boxed: lru-cache holds no `undefined`, and "no match" is a result worth keeping.
  const seen = new LRUCache<string, { r: R }>({ max: MEMO_SIZE });
  return (text) => {
    if (text.length > MEMO_TEXT_MAX) return fn(text);
    const hit = seen.get(text);
    if (hit) return hit.r;
    const r = fn(text);
    seen.set(text, { r: typeof r === 'object' && r !== null ? Object.freeze(r) : r });
    return r;
  };
}

const foldMemo = memo(fold);
const judgePlain = memo((text: string) => judgeText(text, false));
const judgeDescription = memo((text: string) => judgeText(text, true));

/**
 * The lower-case words a text is judged by (Latin-folded), e.g. `'2FA-Code'` → `['2fa', 'code']`.
 * Exposed for tests and for callers that want to show why a field was flagged.
 */
export function normaliseWords(text: string): string {
  return ' ' + fold(text).latin.join(' ') + ' ';
}

/** Whether the server marks the property as a secret, and how. */
function secretMark(prop: Record<string, unknown>): string | undefined {
  if (prop.format === 'password') return 'format: password';
  if (prop.writeOnly === true) return 'writeOnly: true';
  if (prop['x-sensitive'] === true) return 'x-sensitive: true';
  if (prop['x-secret'] === true) return 'x-secret: true';
  return undefined;
}

/**
 * Properties of a `requestedSchema` whose name, title or description looks like a request for a
 * secret, or that the server marks as secret (`format: "password"`, `writeOnly: true`,
 * `"x-sensitive": true`, `"x-secret": true`). Accepts any value; a non-object schema has no hits.
 * English, German, French, Spanish, Russian, Chinese (simplified and traditional), Japanese and
 * Korean; abbreviations (pwd, passwd, PIN, NIP, OTP, 2FA, TFA code, CVV, CVN, SSN), two-factor and
 * authenticator-app codes, security-question answers; look-alike letters, look-alike digits inside
 * words, separators between single letters and invisible characters are folded away first. Unmarked booleans and fixed-choice fields are skipped (they cannot
 * carry a secret); quantities and metadata ("password length", "token type", "max tokens", 令牌数量),
 * negated descriptions and ordinary fields (name, email, username, token counts) give no hits.
 * Time is linear in the total length of the names, titles and descriptions.
 */
export function detectSensitiveFields(schema: unknown): SensitiveHit[] {
  const hits: SensitiveHit[] = [];
  const props = (schema as { properties?: unknown } | null)?.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return hits;
  for (const [field, raw] of Object.entries(props as Record<string, unknown>)) {
    const prop = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const path = pointer('properties', field);
    const mark = secretMark(prop);
    if (mark) {
      hits.push({
        field,
        path,
        rule: mark === 'format: password' ? 'password' : 'marked-secret',
        matched: mark,
        where: mark === 'format: password' ? 'name' : 'mark',
      });
      continue;
    }
    // A yes/no answer or a choice among fixed options cannot carry a secret.
    if (prop.type === 'boolean' || Array.isArray(prop.enum) || Array.isArray(prop.oneOf) || prop.type === 'array') continue;
    const parts: Array<[SensitiveHit['where'], unknown]> = [
      ['name', field],
      ['title', prop.title],
      ['description', prop.description],
    ];
    for (const [where, text] of parts) {
      if (typeof text !== 'string') continue;
      const m = where === 'description' ? judgeDescription(text) : judgePlain(text);
      if (!m) continue;
      if (m.matched === 'pwd' && explainsDirectory(prop)) continue;
      hits.push({ field, path, rule: m.rule, matched: m.matched, where });
      break;
    }
  }
  return hits;
}

/** `pwd` next to "directory"/"path"/… in the title or description is the working directory. */
function explainsDirectory(prop: Record<string, unknown>): boolean {
  for (const t of [prop.title, prop.description])
    if (typeof t === 'string' && foldMemo(t).latin.some((w) => PWD_CONTEXT.has(w))) return true;
  return false;
}
