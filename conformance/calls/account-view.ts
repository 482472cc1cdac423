import { SESSION_ENDED_REASON, SIGNED_OUT_REASON } from '../../common/account-changes/account-changes.js'
import type { ReadableAnswer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { NO_CONTEXT } from './login-context.js'

/*
 * The account view's calls (docs/account-changes.md), for a backend that
 * answers `account/overview`: each refuses a call without a live session,
 * ends only the account's own sessions, and deletes nothing on a bearer
 * token alone. The check holds no cookie, so its calls are those of someone
 * who read the auth token and nothing else.
 */

const OVERVIEW = 'the signed-in account\'s overview, with what the backend serves of the account view'
const CHECKS = [
  ['account/overview', OVERVIEW],
  ['account/overview', 'no overview without an auth token'],
  ['sessions/list', 'the account\'s sessions, the caller\'s marked current once'],
  ['sessions/end', 'a session id that is not the account\'s is refused'],
  ['activity/list', 'the account\'s recent security activity'],
  ['account/delete', 'a bearer auth token alone cannot delete the account'],
  ['sessions/end', 'the caller\'s own session ends, and its auth token reads nothing at once']
] as const

const isString = (value: unknown): value is string => typeof value === 'string' && value !== ''

/** A 2xx (`success` is optional: the page has its own text). */
function succeeded (answer: ReadableAnswer): string | null {
  return answer.status >= 200 && answer.status < 300 ? null : `status ${answer.status}, not 2xx`
}

/** A 2xx whose body has `field`. */
function answersWith (field: string) {
  return (answer: ReadableAnswer): string | null => {
    if (answer.status < 200 || answer.status >= 300) return `status ${answer.status}, not 2xx`
    return field in answer.body ? null : `no "${field}"`
  }
}

/** A refusal with `status` (any of them), an "error" text, and none of `withheld`. */
function refused (statuses: readonly number[], withheld: string) {
  return (answer: ReadableAnswer): string | null => {
    if (!statuses.includes(answer.status)) return `status ${answer.status}, not ${statuses.join(' or ')}`
    if (!isString(answer.body.error)) return 'no "error" text'
    return withheld in answer.body ? `the refusal still carries "${withheld}"` : null
  }
}

/** The rows of the account view, for a backend that serves it; skipped, each, for one that does not. */
export async function accountViewRows (probe: Probe): Promise<Row[]> {
  const skipAll = (why: string): Row[] => CHECKS.map(([path, check]) => rowsFor(`POST ${path}`).skip(check, 'as docs/accounts-api.openapi.yaml describes it', why))
  if (probe.account === null) return skipAll(`needs a test account: ${probe.noAccountReason}`)
  const signIn = await probe.call('v2/login', { email: probe.account.email, password: probe.account.password, ...NO_CONTEXT })
  if (signIn === null) return skipAll(probe.stoppedReason())
  if (!signIn.readable || !isString(signIn.body.auth)) return skipAll('needs the test account\'s auth token: its sign-in gave none (see the sign-in rows)')
  const bearer = signIn.body.auth

  const overview = await checkCall(probe, { path: 'account/overview', body: {}, bearer }, OVERVIEW, '2xx with "account", "secondFactor" and "features"', answersWith('features'))
  const { answer } = overview
  if (answer !== null && answer.readable && (answer.status === 404 || answer.status === 405)) {
    return skipAll(`not served (${answer.status}): the backend offers no account view, and the page offers none of it`)
  }
  const features = answer !== null && answer.readable && Array.isArray(answer.body.features) ? answer.body.features as unknown[] : []
  const serves = (feature: string): boolean => features.includes(feature)
  const out: Row[] = [overview.row]
  const call = async (path: string, check: string, expected: string, body: unknown, problemOf: (answer: ReadableAnswer) => string | null, withBearer = true) =>
    await checkCall(probe, { path, body, ...(withBearer ? { bearer } : {}) }, check, expected, problemOf)
  const notOffered = (path: string, check: string, feature: string): Row =>
    rowsFor(`POST ${path}`).skip(check, 'as documented', `"features" does not name ${feature}: the page offers none of it`)

  out.push((await call('account/overview', CHECKS[1][1], `401 with an "error" text (reason ${SIGNED_OUT_REASON})`, {}, refused([401], 'account'), false)).row)
  if (!serves('sessions')) {
    out.push(notOffered('sessions/list', CHECKS[2][1], 'sessions'), notOffered('sessions/end', CHECKS[3][1], 'sessions'))
  } else {
    const listed = await call('sessions/list', CHECKS[2][1], '2xx with "sessions", one of them "current"', {}, (listing) => {
      const problem = answersWith('sessions')(listing)
      if (problem !== null) return problem
      const sessions = Array.isArray(listing.body.sessions) ? listing.body.sessions as Array<Record<string, unknown>> : []
      const current = sessions.filter((session) => session.current === true).length
      return current === 1 ? null : `${current} sessions marked "current", not 1`
    })
    out.push(listed.row)
    out.push((await call('sessions/end', CHECKS[3][1], '404 with an "error" text', { id: 'conformance-no-such-session' }, refused([404], 'success'))).row)
  }
  out.push(serves('activity')
    ? (await call('activity/list', CHECKS[4][1], '2xx with "events"', {}, answersWith('events'))).row
    : notOffered('activity/list', CHECKS[4][1], 'activity'))
  out.push(serves('delete')
    ? (await call('account/delete', CHECKS[5][1], '401 or 403 with an "error" text, and the account kept', { confirmEmail: probe.account.email }, refused([401, 403], 'success'))).row
    : notOffered('account/delete', CHECKS[5][1], 'delete'))
  out.push(serves('sessions') ? await endOwnSession(probe, bearer) : notOffered('sessions/end', CHECKS[6][1], 'sessions'))
  return out
}

/** Ends the caller's own session (a sign-out), then reads with its token: refused at once. */
async function endOwnSession (probe: Probe, bearer: string): Promise<Row> {
  const check = CHECKS[6][1]
  const expected = `2xx, then 401 (reason ${SESSION_ENDED_REASON}) for sessions/list with the same token`
  const rows = rowsFor('POST sessions/end')
  const listing = await probe.call('sessions/list', {}, { bearer })
  if (listing === null) return rows.skip(check, expected, probe.stoppedReason())
  const sessions = listing.readable && Array.isArray(listing.body.sessions) ? listing.body.sessions as Array<Record<string, unknown>> : []
  const id = sessions.find((session) => session.current === true)?.id
  if (!isString(id)) return rows.skip(check, expected, 'needs the current session\'s id (see the sessions/list row)')
  const ended = await checkCall(probe, { path: 'sessions/end', body: { id }, bearer }, check, expected, succeeded)
  if (ended.row.result !== 'pass') return ended.row
  const after = await checkCall(probe, { path: 'sessions/list', body: {}, bearer }, check, expected, refused([401], 'sessions'))
  return after.row
}
