import { FRESH_PROOF_REQUIRED_REASON, SESSION_ENDED_REASON, SIGNED_OUT_REASON } from '../../common/account-changes/account-changes.js'
import type { ReadableAnswer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { NO_CONTEXT } from './login-context.js'

/*
 * The `account-changes` duty (docs/account-changes.md): a bearer auth token
 * alone never changes how an account signs in. The check holds no cookie, so
 * its calls are those of someone who read the token and nothing else.
 */

const REFUSED = '401 or 403 with an "error" text, and nothing of what was asked'
const REASONS = new Set([FRESH_PROOF_REQUIRED_REASON, SESSION_ENDED_REASON, SIGNED_OUT_REASON])

/** A refusal that hands out nothing: `asked` names the field a success would carry. */
function notRefusedWithout (asked: string) {
  return (answer: ReadableAnswer): string | null => {
    if (answer.status !== 401 && answer.status !== 403) return `status ${answer.status}: a bearer token alone must be refused (401 or 403)`
    if (typeof answer.body.error !== 'string' || answer.body.error === '') return 'no "error" text'
    if (asked in answer.body) return `the refusal still carries "${asked}"`
    const reason = answer.body.reason
    if (reason !== undefined && !(typeof reason === 'string' && REASONS.has(reason))) return `an unknown "reason": ${typeof reason === 'string' ? reason : JSON.stringify(reason)}`
    return null
  }
}

/** The rows of the account changes, for a backend that serves passkey registration or the second factor's enrolment. */
export async function accountChangeRows (probe: Probe): Promise<Row[]> {
  const checks = [
    { path: 'passkeys/register/options', body: { conditional: false }, check: 'a bearer auth token alone cannot start a passkey registration', asked: 'options' },
    { path: 'passkeys/register/options', body: { conditional: true }, check: 'nor a prompt-less one', asked: 'options' },
    { path: 'second-factor/enrol/start', body: {}, check: 'a bearer auth token alone cannot start an authenticator enrolment', asked: 'secret' }
  ]
  const skipAll = (why: string): Row[] => checks.map(({ path, check }) => rowsFor(`POST ${path}`).skip(check, REFUSED, why))
  if (probe.account === null) return skipAll(`needs a test account: ${probe.noAccountReason}`)
  const signIn = await probe.call('v2/login', { email: probe.account.email, password: probe.account.password, ...NO_CONTEXT })
  if (signIn === null) return skipAll(probe.stoppedReason())
  if (!signIn.readable || typeof signIn.body.auth !== 'string') return skipAll('needs the test account\'s auth token: its sign-in gave none (see the sign-in rows)')
  const bearer = signIn.body.auth
  const out: Row[] = []
  for (const { path, body, check, asked } of checks) {
    const { row, answer } = await checkCall(probe, { path, body, bearer }, check, REFUSED, notRefusedWithout(asked))
    // A backend without passkeys or a second factor serves neither call: nothing to check then.
    const notServed = answer !== null && answer.readable && (answer.status === 404 || answer.status === 405)
    out.push(notServed ? rowsFor(`POST ${path}`).skip(check, REFUSED, `not served (${answer.status}): the backend does not offer it`) : row)
  }
  return out
}
