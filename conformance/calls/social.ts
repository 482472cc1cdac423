import { notRefusal, type ReadableAnswer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { NO_CONTEXT, randomName } from './login-context.js'

/*
 * The social connections' calls (docs/social-sign-in.md), as far as they
 * can be checked without a real provider: the start for each connection the
 * operator names answers the provider's URL with a state and PKCE (S256)
 * and binds the sign-in to the browser with the social_state cookie; an
 * unknown provider and malformed bodies are refused; a completion with an
 * id the backend never issued is refused. Run only with --social.
 */

const START = 'auth/login/social'
const COMPLETE = 'v2/auth/login'
const startRows = rowsFor(`POST ${START}`)
const completeRows = rowsFor(`POST ${COMPLETE}`)
/** The binding cookie's name, the one the edge passes on to these calls (server/edge/upstream/accounts-proxy.ts). */
const STATE_COOKIE = 'social_state'

const STARTED = '200 with a "url" (https, or http on a loopback host) carrying state, code_challenge and code_challenge_method=S256, and the social_state cookie'
const MALFORMED = '400 with an "error" text'
const MADE_UP = '401 with an "error" text, and no tokens'
const NOT_ASKED = 'not asked: give --social with the ids of the connections the backend serves (SOCIAL_CONNECTIONS)'

const stateOf = (answer: ReadableAnswer): string | undefined => answer.setCookies.find((pair) => pair.startsWith(`${STATE_COOKIE}=`) && pair.length > STATE_COOKIE.length + 1)

/** Why an answer is not a start the page can follow, bound to the browser, or null. */
function notStarted (answer: ReadableAnswer): string | null {
  if (answer.status !== 200) return `status ${answer.status}, not 200`
  if (typeof answer.body.url !== 'string') return 'no "url"'
  let url: URL
  try {
    url = new URL(answer.body.url)
  } catch {
    return '"url" is not an absolute URL'
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return `"url" is ${url.protocol}, not https: the page does not follow it`
  if (url.username !== '' || url.password !== '') return '"url" carries credentials'
  if (url.searchParams.get('state') === null) return 'the provider\'s URL has no state: its answer cannot be tied to this sign-in'
  if (url.searchParams.get('code_challenge') === null || url.searchParams.get('code_challenge_method') !== 'S256') return 'the provider\'s URL has no PKCE code_challenge with code_challenge_method=S256'
  if (stateOf(answer) === undefined) return `no ${STATE_COOKIE} cookie: the return is bound to no browser, so anyone's answer could sign this browser in (login CSRF)`
  return null
}

function notStatus (status: number) {
  return (answer: ReadableAnswer): string | null => notRefusal(answer) ?? (answer.status === status ? null : `status ${answer.status}, not ${status}`)
}

/** The rows of the social connections, or skipped rows without --social. */
export async function socialRows (probe: Probe): Promise<Row[]> {
  const providers = probe.options.social ?? []
  const startCheck = (id: string): string => `the start for ${id} answers the provider's URL with state and PKCE, and binds the browser`
  const checks: Array<[typeof startRows, string, string]> = [
    [startRows, 'an unknown provider is refused', MALFORMED],
    [startRows, 'a start without a provider is refused', MALFORMED],
    [completeRows, 'a SOCIAL completion with an id the backend never issued is refused', MADE_UP],
    [completeRows, 'a SOCIAL completion with a malformed id is refused', MALFORMED]
  ]
  if (providers.length === 0) {
    return [startRows.skip(startCheck('each connection'), STARTED, NOT_ASKED), ...checks.map(([rows, check, expected]) => rows.skip(check, expected, NOT_ASKED))]
  }
  const out: Row[] = []
  let cookie: string | undefined
  for (const provider of providers) {
    const started = await checkCall(probe, { path: START, body: { provider, source: 'login', redirect: null, ...NO_CONTEXT } }, startCheck(provider), STARTED, notStarted)
    out.push(started.row)
    if (cookie === undefined && started.answer?.readable === true) cookie = stateOf(started.answer)
  }
  // An id no connection may take (RESERVED_SOCIAL_IDS), so the row holds on every backend.
  out.push((await checkCall(probe, { path: START, body: { provider: 'password', source: 'login', redirect: null, ...NO_CONTEXT } }, checks[0]![1], MALFORMED, notStatus(400))).row)
  out.push((await checkCall(probe, { path: START, body: { source: 'login', redirect: null, ...NO_CONTEXT } }, checks[1]![1], MALFORMED, notStatus(400))).row)
  // With the cookie of a start, when one set it: the id alone is refused, not the cookie's absence.
  const madeUpId = `${randomName()}${randomName()}${randomName()}`.replace(/[^\w-]/g, '').padEnd(43, 'x').slice(0, 43)
  const completion = (id: string) => ({ login_method: 'SOCIAL', provider: providers[0], id, ...NO_CONTEXT })
  out.push((await checkCall(probe, { path: COMPLETE, body: completion(madeUpId), ...(cookie === undefined ? {} : { cookie }) }, checks[2]![1], MADE_UP, notStatus(401))).row)
  out.push((await checkCall(probe, { path: COMPLETE, body: completion('not an id') }, checks[3]![1], MALFORMED, notStatus(400))).row)
  return out
}
