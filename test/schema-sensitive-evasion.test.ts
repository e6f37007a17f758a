// Issue 12 item 13: sensitive-field detection cannot be evaded by look-alike letters, invisible
// characters, abbreviations, the digit/capital split, or another language; ordinary fields stay clear.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectSensitiveFields, normaliseWords } from '../src/schema/sensitive.js';

const fields = (props: Record<string, unknown>) => detectSensitiveFields({ type: 'object', properties: props }).map((h) => h.field);
const str = (extra: Record<string, unknown> = {}) => ({ type: 'string', ...extra });

test('look-alike letters, soft hyphens and zero-width characters do not hide a secret', () => {
  const hits = {
    a: str({ title: 'P\u0430ssword' }), // Cyrillic а
    b: str({ title: 'Pa\u00ADssword' }), // soft hyphen
    c: str({ title: 'Pass\u200Bword' }), // zero-width space
    d: str({ title: 'A\u200DPI k\u0435y' }), // zero-width joiner, Cyrillic е
    e: str({ title: '\uFF30\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44' }), // full-width
    f: str({ title: '\u{1D40F}assword' }), // mathematical bold P
    g: str({ title: 'Τoken' }), // Greek capital tau
    h: str({ title: 'pass\u2060word' }), // word joiner
    i: str({ title: 'ｾｷｭﾘﾃｨｺｰﾄﾞ' }), // half-width katakana
    j: str({ title: 'Pass\u202Eword' }), // right-to-left override
  };
  assert.deepEqual(fields(hits), Object.keys(hits));
});

test('abbreviations and the digit/capital split: pwd, passwd, PIN, OTP, 2FA code, CVV, SSN', () => {
  assert.equal(normaliseWords('2FA'), ' 2fa ', '2FA stays one word');
  assert.equal(normaliseWords('enter2FACode'), ' enter 2fa code ');
  assert.equal(normaliseWords('APIKey'), ' api key ');
  assert.equal(normaliseWords('cvv2'), ' cvv 2 ');
  const hits = {
    pwd: str(),
    user_passwd: str(),
    PIN: str(),
    userPIN: str(),
    OTP: str(),
    twofa: str({ title: '2FA code' }),
    enter2FACode: str(),
    CVV: str(),
    cvv2: str(),
    SSN: str(),
    mfaCode: str(),
    newPassword1: str(),
    benutzerpasswort: str(),
    totpSecret: str(),
  };
  assert.deepEqual(fields(hits), Object.keys(hits));
});

test('other languages: German, French, Spanish, Russian, Japanese, Korean (and Chinese)', () => {
  const hits = {
    de1: str({ title: 'Passwort' }),
    de2: str({ title: 'Kennwort' }),
    de3: str({ title: 'Geheimzahl' }),
    de4: str({ title: 'Bestätigungscode' }),
    de5: str({ title: 'Kreditkartennummer' }),
    de6: str({ title: 'API-Schlüssel' }),
    fr1: str({ title: 'Mot de passe' }),
    fr2: str({ title: 'Clé API' }),
    fr3: str({ title: 'Code de vérification' }),
    fr4: str({ title: 'Numéro de carte' }),
    es1: str({ title: 'Contraseña' }),
    es2: str({ title: 'Clave secreta' }),
    es3: str({ title: 'Código de verificación' }),
    es4: str({ title: 'Número de tarjeta' }),
    ru1: str({ title: 'Пароль' }),
    ru2: str({ title: 'Введите пароль' }),
    ru3: str({ title: 'Код подтверждения' }),
    ru4: str({ title: 'Секретный ключ' }),
    ru5: str({ title: 'Номер карты' }),
    ru6: str({ title: 'ПИН-код' }),
    ja1: str({ title: 'パスワード' }),
    ja2: str({ title: '暗証番号' }),
    ja3: str({ title: '認証コード' }),
    ja4: str({ title: 'APIキー' }),
    ja5: str({ title: 'アクセストークン' }),
    ko1: str({ title: '비밀번호' }),
    ko2: str({ title: '인증번호' }),
    ko3: str({ title: '카드 번호' }),
    ko4: str({ title: 'API 키' }),
    ko5: str({ title: '주민등록번호' }),
    zh1: str({ title: '密码' }),
    zh2: str({ title: '驗證碼' }),
  };
  assert.deepEqual(fields(hits), Object.keys(hits));
});

test('false-positive guard set: ordinary fields and metadata about secrets are no hits', () => {
  const clear = {
    username: str(),
    user_name: str(),
    userName: str(),
    email: str(),
    token_budget: { type: 'integer' },
    max_tokens: { type: 'integer' },
    maxTokens: { type: 'integer' },
    tokenCount: { type: 'integer' },
    tokenizer: str(),
    tokens: { type: 'integer' },
    pinned: str(),
    spinner: str(),
    opinion: str(),
    pinyin: str(),
    keyboard: str(),
    monkey: str(),
    passenger: str(),
    passport: str({ title: 'Passport number' }),
    secretary: str(),
    author: str(),
    authority: str(),
    compass: str(),
    bypass: str(),
    zip: str({ title: 'Postal code' }),
    country: str({ title: 'Country code' }),
    m: { type: 'integer', title: 'Minimum password length' },
    policy: str({ title: 'Password policy' }),
    tokenType: str(),
    designToken: str(),
    secretSanta: str(),
    dir: str({ title: 'pwd', description: 'Working directory' }),
    pwd: str({ title: 'Working directory' }),
    note: str({ description: 'We will never ask for your password.' }),
    cookieConsent: { type: 'boolean' },
    passwordless: str(),
    city: str({ title: '城市' }),
    ru: str({ title: 'Количество токенов' }),
    ja: { type: 'integer', title: 'トークン数' },
    ko: str({ title: '암호화 방식' }),
    de: str({ title: 'Passwortlänge' }),
    fr: str({ title: "Nom d'utilisateur" }),
    es: str({ title: 'Correo electrónico' }),
    mode: { type: 'string', enum: ['password', 'oauth'] },
  };
  assert.deepEqual(fields(clear), []);
});

test('fields the server marks as secret are hits whatever their names: format password, writeOnly, x-sensitive, x-secret', () => {
  const hits = detectSensitiveFields({
    type: 'object',
    properties: {
      a: str({ format: 'password' }),
      b: str({ writeOnly: true }),
      c: str({ 'x-sensitive': true }),
      d: str({ 'x-secret': true }),
      e: { type: 'boolean', writeOnly: true },
    },
  });
  assert.deepEqual(
    hits.map((h) => [h.field, h.rule, h.where]),
    [
      ['a', 'password', 'name'],
      ['b', 'marked-secret', 'mark'],
      ['c', 'marked-secret', 'mark'],
      ['d', 'marked-secret', 'mark'],
      ['e', 'marked-secret', 'mark'],
    ],
  );
});

// Issue 12 item 13: misses found in review. Each row: where the text is, the text, the rule it hits.
const WIDENED: Array<[where: 'name' | 'title' | 'description', text: string, rule: string]> = [
  ['name', 'twoFactorCode', 'one-time-code'],
  ['name', 'two_factor_code', 'one-time-code'],
  ['name', 'tfa_code', 'one-time-code'],
  ['title', '2FA code', 'one-time-code'],
  ['title', 'Two-factor authentication code', 'one-time-code'],
  ['description', 'Enter the code from your authenticator app', 'one-time-code'],
  ['name', 'passw0rd', 'password'],
  ['name', 'p4ssword', 'password'],
  ['name', 'pa55w0rd', 'password'],
  ['name', 'userP4ssword', 'password'],
  ['title', 'S3CR3T', 'secret'],
  ['name', 'api_k3y', 'api-key'],
  ['name', 'p-a-s-s-w-o-r-d', 'password'],
  ['title', 'P A S S W O R D', 'password'],
  ['name', 'p.i.n', 'pin'],
  ['name', 'clave', 'password'],
  ['title', 'Clave', 'password'],
  ['name', 'NIP', 'pin'],
  ['title', 'Code NIP', 'pin'],
  ['name', 'cvn', 'cvv'],
  ['name', 'security_question_answer', 'security-answer'],
  ['title', 'Secret answer', 'security-answer'],
];

test('widened detection: two-factor names, authenticator app, leetspeak, spelled-out words, clave, NIP, CVN, security answers', () => {
  for (const [where, text, rule] of WIDENED) {
    const prop = where === 'name' ? str() : str({ [where]: text });
    const hits = detectSensitiveFields({ type: 'object', properties: { [where === 'name' ? text : 'f']: prop } });
    assert.equal(hits.length, 1, `${where} ${JSON.stringify(text)} is a hit`);
    assert.equal(hits[0].rule, rule, `${where} ${JSON.stringify(text)} → ${rule}`);
    assert.equal(hits[0].where, where);
  }
});

test('widened detection keeps its false-positive guards: words that contain or resemble the new ones', () => {
  const clear = {
    clavier: str(),
    clavicle: str(),
    nipple: str(),
    snippet: str(),
    author: str(),
    authentication_method: str(),
    authenticator_type: str(),
    app_code_version: str(),
    two_factor_method: str(),
    tfa_enabled: str(),
    security_question: str(),
    mp3_bitrate: str(),
    ipv4_address: str(),
    h264_profile: str(),
    oauth2_scope: str(),
    x509_subject: str(),
    s3_bucket: str(),
    k8s_namespace: str(),
    i18n_key: str(),
    room_101: str(),
    choice: str({ description: 'Pick a, b, c or d' }),
    ab: str({ title: 'A B test group' }),
  };
  assert.deepEqual(fields(clear), []);
});
