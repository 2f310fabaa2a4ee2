/**
 * Keeps credentials out of everything this process writes (logs, recorded errors): one
 * process-wide registry of the configuration's secret values, plus patterns for the shapes in
 * which providers, gateways and drivers quote credentials.
 */
/** Configured secret values (API keys, passwords) that redactSecrets removes wherever they appear. */
const knownSecrets = new Set<string>();

/** Values this short are not worth hunting for (and would blank out ordinary words). */
const MIN_SECRET_LENGTH = 6;

/**
 * Registers the secret values of this process's configuration (API keys, passwords), so that
 * redactSecrets removes them from any text, whatever shape they take there: a provider's error
 * body echoing the request headers, a driver error quoting a command's arguments...
 */
export function registerSecrets(...values: (string | undefined)[]): void {
  for (const value of values) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    knownSecrets.add(value);
    // The same value as it appears inside a URL and inside a JSON string.
    knownSecrets.add(encodeURIComponent(value));
    knownSecrets.add(JSON.stringify(value).slice(1, -1));
  }
}

const CENSOR = '***';

// Each rule keeps what names the secret and replaces the secret itself. The value classes stop
// at quotes and backslashes, so the rules are also safe on JSON text (a log line).
const RULES: [RegExp, string][] = [
  // A password in a connection string (redis://user:pw@host, mongodb://user:pw@host, http://u:p@host).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s"'\\]*:)[^@\s/?#"'\\]+@/gi, `$1${CENSOR}@`],
  // Authorization header values.
  [/(\bBearer\s+)[\w.~+/-]+=*/gi, `$1${CENSOR}`],
  [/(\bBasic\s+)[A-Za-z0-9+/]{8,}=*/g, `$1${CENSOR}`],
  // API-key-looking strings (OpenAI, Anthropic and most compatible providers).
  [/\b(sk|pk|rk)-[\w-]{8,}/g, `$1-${CENSOR}`],
  // A quoted key-value pair naming a credential, as an error body echoing headers would carry it.
  [
    /(["'](?:x-api-key|api[-_]?key|authorization|proxy-authorization|cookie|password|secret|token|access[-_]?token)\\?["']\s*:\s*\\?["'])[^"'\\]+/gi,
    `$1${CENSOR}`,
  ],
  // The same in header or query-string form: "x-api-key: ...", "?api_key=...".
  [/(\bx-api-key\s*:\s*)[^\s"'\\,;]+/gi, `$1${CENSOR}`],
  [/([?&](?:api[-_]?key|key|token|access[-_]?token|password)=)[^&\s"'\\#]+/gi, `$1${CENSOR}`],
];

/**
 * Removes credentials from text that may quote them (error messages, URLs, log lines): the
 * registered secret values, passwords in connection strings, authorization header values,
 * API-key-looking strings and credential-named key-value pairs.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of knownSecrets) if (out.includes(secret)) out = out.split(secret).join(CENSOR);
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
