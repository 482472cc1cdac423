import type { AccountsContract } from '../server/shared/accounts-contract.js'
import { MAX_ANSWER_BYTES, type Exchange } from './http-client.js'

/**
 * An exchange read as the edge and the page read it: only a JSON object
 * reaches the page (server/edge/upstream/json-answers.ts), and the page takes from it
 * what common/http/accounts-answers.ts takes. Every reason here is written for the
 * operator of the backend, with what the edge or the page would do instead.
 */

/** An answer the edge would pass on to the page. */
export interface ReadableAnswer {
  readonly readable: true
  readonly status: number
  readonly body: Readonly<Record<string, unknown>>
  /** The cookies the answer sets, as `name=value` (attributes left out): the browser would send them back. */
  readonly setCookies: readonly string[]
  readonly elapsedMs: number
}

/** Anything else: no answer, or one the edge would replace with its own 502/503/504. */
interface UnreadableAnswer {
  readonly readable: false
  readonly problem: string
  /** The backend did not answer in time: the suite stops calling a backend that keeps hanging. */
  readonly timedOut: boolean
  /** Nothing came back at all (no connection, a reset, a time-out), as opposed to an answer the edge would refuse. */
  readonly silent: boolean
  readonly elapsedMs: number
}

export type Answer = ReadableAnswer | UnreadableAnswer

const isJsonType = (contentType: string): boolean => {
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/** The start of a text, on one line, for a report. */
function excerpt (text: string, length = 60): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= length ? line : `${line.slice(0, length - 1)}…`
}

/** Reads an exchange as the edge would. */
export function readAnswer (exchange: Exchange): Answer {
  const unreadable = (problem: string): UnreadableAnswer => ({ readable: false, problem, timedOut: false, silent: false, elapsedMs: exchange.elapsedMs })
  if (exchange.kind === 'no-answer') return { readable: false, problem: exchange.reason, timedOut: exchange.timedOut, silent: true, elapsedMs: exchange.elapsedMs }
  const { status, headers, text, encoding } = exchange
  if (status >= 300 && status < 400) {
    const location = headers.location === undefined ? 'nowhere' : excerpt(withoutQuery(String(headers.location)), 80)
    return unreadable(`${status} redirect to ${location}: the edge does not follow redirects on a JSON call and would answer 502; answer the call itself`)
  }
  if (exchange.unreadable === 'larger than the limit') {
    return unreadable(`${status} with a body over ${MAX_ANSWER_BYTES / 1024} KiB${encoding === '' ? '' : ` once decoded from ${encoding}`}: the edge would answer 502 (unless ACCOUNTS_ANSWER_LIMIT_BYTES is raised)`)
  }
  if (exchange.unreadable !== null) {
    return unreadable(`${status} with Content-Encoding ${excerpt(encoding, 40)}, which the edge cannot read (${exchange.unreadable}): it would answer 502; send it uncoded (the edge asks for identity) or in gzip, deflate or br`)
  }
  const contentType = String(headers['content-type'] ?? '')
  if (!isJsonType(contentType)) {
    const what = contentType === '' ? 'no Content-Type' : `Content-Type ${excerpt(contentType, 40)}`
    // As server/edge/upstream/json-answers.ts does: a non-JSON 503 or 504 keeps its meaning, anything else is its 502.
    const edgeStatus = status === 503 || status === 504 ? status : 502
    return unreadable(`${status} with ${what}, not JSON (${text === '' ? 'empty body' : excerpt(text, 50)}): the edge would answer ${edgeStatus} instead`)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return unreadable(`${status} whose body is not valid JSON (${excerpt(text, 50)}): the edge would answer 502 instead`)
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return unreadable(`${status} whose JSON is not an object (${excerpt(text, 40)}): the page reads only objects`)
  }
  const setCookie = headers['set-cookie'] ?? []
  const setCookies = setCookie.map((line) => line.split(';', 1)[0]!.trim()).filter((pair) => pair.indexOf('=') > 0)
  return { readable: true, status, body: body as Record<string, unknown>, setCookies, elapsedMs: exchange.elapsedMs }
}

/** A URL without its query string and fragment (an identity provider's state and nonce, a SAML request): never reported whole. */
function withoutQuery (text: string): string {
  try {
    const url = new URL(text)
    return `${url.origin}${url.pathname}${url.search === '' && url.hash === '' ? '' : '?…'}`
  } catch {
    return text.replace(/[?#].*$/s, '?…')
  }
}

/** The fields that hold secrets: reported by their length only. */
const SECRET_FIELDS = new Set(['auth', 'refresh', 'challenge', 'token', 'id_token'])

/** A readable answer, for the "got" column: status and body, secrets hidden, cut to one line. */
export function describe (answer: Answer): string {
  if (!answer.readable) return answer.problem
  const shown = Object.fromEntries(Object.entries(answer.body).map(([name, value]) =>
    typeof value !== 'string' ? [name, value]
      : SECRET_FIELDS.has(name) ? [name, `<${value.length} characters>`]
        : name === 'sso_url' || name === 'url' ? [name, withoutQuery(value)] : [name, value]))
  return `${answer.status} ${excerpt(JSON.stringify(shown), 90)}`
}

const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value !== ''

/** Why an answer is not a login the page completes (both tokens, or a second-factor challenge), or null. */
export function notTokens (answer: ReadableAnswer): string | null {
  if (answer.status < 200 || answer.status >= 300) return `status ${answer.status}, not 2xx`
  if (nonEmptyString(answer.body.error)) return 'it carries an error, which the page shows instead'
  const { second_factor: step, challenge, expires_in: expiresIn } = answer.body
  if (step !== undefined || challenge !== undefined) {
    if (answer.body.auth !== undefined || answer.body.refresh !== undefined) return 'a second-factor challenge beside tokens: the page trusts neither'
    const valid = (step === 'code' || step === 'enrol') && nonEmptyString(challenge) && typeof expiresIn === 'number' && expiresIn > 0
    return valid ? null : 'a malformed second-factor challenge (second_factor "code" or "enrol", a challenge, a positive expires_in)'
  }
  if (!nonEmptyString(answer.body.auth)) return '"auth" is missing or not a non-empty string'
  if (!nonEmptyString(answer.body.refresh)) return '"refresh" is missing or not a non-empty string'
  return null
}

/** Whether an answer hands out tokens (or a second-factor step, which a refusal must not either). */
function grantsSomething (answer: ReadableAnswer): boolean {
  return nonEmptyString(answer.body.auth) || nonEmptyString(answer.body.refresh) || answer.body.second_factor !== undefined
}

/** Why an answer is not a refusal the page shows (4xx with a readable `error`), or null. */
export function notRefusal (answer: ReadableAnswer): string | null {
  if (grantsSomething(answer)) return `status ${answer.status} with tokens: the request was granted`
  if (answer.status >= 500) return `status ${answer.status}: a server failure, not a refusal (the page shows its generic message)`
  if (answer.status < 400) return `status ${answer.status}: accepted, not refused`
  if (!nonEmptyString(answer.body.error)) return 'no "error" text: the page can only show its generic message'
  return null
}

/** Why an answer is not a success the page shows (2xx with a `success` text), or null. */
export function notSuccess (answer: ReadableAnswer): string | null {
  if (answer.status < 200 || answer.status >= 300) return `status ${answer.status}, not 2xx`
  if (nonEmptyString(answer.body.error)) return 'it carries an error, which the page shows instead'
  if (!nonEmptyString(answer.body.success)) return 'no "success" text: the page would show an empty message'
  return null
}

/** Why an answer is not the start of single sign-on the page follows, or null. */
export function notSsoStart (answer: ReadableAnswer): string | null {
  if (answer.status < 200 || answer.status >= 300) return `status ${answer.status}, not 2xx`
  const ssoUrl = answer.body.sso_url
  if (typeof ssoUrl !== 'string') return 'no "sso_url"'
  try {
    const url = new URL(ssoUrl)
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '') return null
  } catch {
    // Not a URL: said below.
  }
  return '"sso_url" is not an absolute http(s) URL without credentials: the page does not follow it'
}

/**
 * Where a readable answer departs from the OpenAPI document (null when it
 * fits, or when the document describes no JSON answer for that status yet:
 * then the page's own reading, above, is all that is checked).
 */
export function contractProblem (contract: AccountsContract | null, path: string, answer: ReadableAnswer): string | null {
  if (contract === null) return null
  const check = contract.answerCheck('post', `/${path}`, answer.status)
  if (check === null) return null
  const problem = check(answer.body)
  return problem === null ? null : `does not fit docs/accounts-api.openapi.yaml: ${excerpt(problem, 120)}`
}
