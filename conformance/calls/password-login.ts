import { EMAIL_NOT_VERIFIED_REASON } from '../../common/page/page-notices.js'
import { describe, notRefusal, notTokens, type Answer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row, type TestAccount } from '../rows.js'
import { NO_CONTEXT, randomName, unknownAddress } from './login-context.js'

const PATH = 'v2/login'
const CALL = `POST ${PATH}`
const rows = rowsFor(CALL)

const TOKENS = '2xx with non-empty "auth" and "refresh" (or a second-factor challenge)'
const REFUSAL = '4xx with an "error" text, no tokens'
const ORGANISATION_REFUSAL = '403 with an "error" text, no tokens'
const NEEDS_ACCOUNT = 'needs a test account'

/** A one-sample timing difference this large is worth telling the operator about (not a proof either way). */
const TELLING_TIME_RATIO = 4
const TELLING_TIME_MIN_MS = 50

/** The rows of the email and password login. */
export async function passwordLoginRows (probe: Probe): Promise<Row[]> {
  const out: Row[] = []
  const { account } = probe
  const login = (body: unknown): { path: string, body: unknown } => ({ path: PATH, body })

  let wrongPassword: Answer | null = null
  if (account === null) {
    out.push(rows.skip('the test account signs in', TOKENS, `${NEEDS_ACCOUNT}: ${probe.noAccountReason}`))
    out.push(rows.skip('a login naming an organisation the account is not in is refused', ORGANISATION_REFUSAL, `${NEEDS_ACCOUNT}: ${probe.noAccountReason}`))
    out.push(rows.skip('a wrong password is refused', REFUSAL, `${NEEDS_ACCOUNT}: ${probe.noAccountReason}`))
  } else {
    const signIn = await checkCall(probe, login({ email: account.email, password: account.password, ...NO_CONTEXT }),
      'the test account signs in', TOKENS, notTokens)
    if (signIn.answer !== null && signIn.answer.readable && signIn.answer.status === 403 && signIn.answer.body.reason === EMAIL_NOT_VERIFIED_REASON) {
      // The optional refusal of docs/accounts-api.md: the rows that need tokens cannot run with this account.
      const why = 'the backend requires a verified address (403 "email_not_verified"): name a verified account with --email and --password'
      out.push(rows.skip('the test account signs in', TOKENS, why))
      out.push(rows.skip('a login naming an organisation the account is not in is refused', ORGANISATION_REFUSAL, why))
    } else {
      out.push(signIn.row)
      out.push(await organisationRow(probe, account))
    }
    const wrong = await checkCall(probe, login({ email: account.email, password: `${account.password}-wrong`, ...NO_CONTEXT }),
      'a wrong password is refused', REFUSAL, notRefusal)
    out.push(wrong.row)
    wrongPassword = wrong.answer
  }

  const unknown = await checkCall(probe, login({ email: unknownAddress(), password: `Conformance-${randomName()}`, ...NO_CONTEXT }),
    'an unknown address is refused', REFUSAL, notRefusal)
  out.push(unknown.row)
  out.push(...alikeRows(probe, wrongPassword, unknown.answer))

  out.push((await checkCall(probe, login({ email: account?.email ?? unknownAddress(), ...NO_CONTEXT }),
    'a login without a password is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, login({ email: 42, password: 'Conformance-password', ...NO_CONTEXT }),
    'a login whose email is not text is refused', REFUSAL, notRefusal)).row)
  // With the right password: a backend that skipped a list it cannot read would hand out tokens past the organisation check.
  const malformedOrgs = 'a login whose organisation list is not a list of names is refused'
  if (account === null) out.push(rows.skip(malformedOrgs, REFUSAL, `${NEEDS_ACCOUNT}: ${probe.noAccountReason}`))
  else {
    out.push((await checkCall(probe, login({ email: account.email, password: account.password, ...NO_CONTEXT, insecure_allowed_orgs: { name: `conformance-org-${randomName()}` } }),
      malformedOrgs, REFUSAL, notRefusal)).row)
  }
  out.push((await checkCall(probe, login({}), 'an empty body is refused', REFUSAL, notRefusal)).row)

  const blocked = probe.options.blockedAccount
  if (blocked === null) {
    out.push(rows.skip('an account in a blocked domain is refused', REFUSAL,
      'needs --blocked-email and --blocked-password: the domain check may be the edge\'s (DOMAIN_CHECK_ENFORCED) or the domain-check service\'s, not this backend\'s'))
  } else {
    out.push((await checkCall(probe, login({ email: blocked.email, password: blocked.password, ...NO_CONTEXT }),
      'an account in a blocked domain is refused', REFUSAL, notRefusal)).row)
  }
  return out
}

/** A login naming an organisation the account is not in: the backend must refuse it (403), not trust the page's address. */
async function organisationRow (probe: Probe, account: TestAccount): Promise<Row> {
  const organisation = `conformance-org-${randomName()}`
  const { row } = await checkCall(probe, { path: PATH, body: { email: account.email, password: account.password, ...NO_CONTEXT, insecure_allowed_orgs: [organisation] } },
    'a login naming an organisation the account is not in is refused', ORGANISATION_REFUSAL, (answer) => {
      const problem = notRefusal(answer)
      if (problem !== null) return problem
      return answer.status === 403 ? null : `status ${answer.status}: docs/accounts-api.md asks for 403`
    })
  return row
}

/** The unknown address and the wrong password must read alike; their timing is reported as advice. */
function alikeRows (probe: Probe, wrongPassword: Answer | null, unknown: Answer | null): Row[] {
  const check = 'an unknown address and a wrong password answer alike (status and text)'
  const expected = 'the same status and "error" text'
  if (probe.account === null) return [rows.skip(check, expected, `${NEEDS_ACCOUNT}: ${probe.noAccountReason}`)]
  if (wrongPassword === null || unknown === null) return [rows.skip(check, expected, probe.stoppedReason())]
  if (!wrongPassword.readable || !unknown.readable) return [rows.skip(check, expected, 'one of the two answers was unreadable (its row says why)')]
  if (wrongPassword.status === 429 || unknown.status === 429) return [rows.skip(check, expected, 'one of the two answers was rate limited (its row says why)')]
  const got = `wrong password: ${describe(wrongPassword)}; unknown address: ${describe(unknown)}`
  const alike = wrongPassword.status === unknown.status && wrongPassword.body.error === unknown.body.error
  const out = [alike ? rows.pass(check, expected, got) : rows.fail(check, expected, `${got} — the difference tells which addresses have accounts`)]

  const timing = 'an unknown address takes about as long as a wrong password'
  const slow = Math.max(wrongPassword.elapsedMs, unknown.elapsedMs)
  const fast = Math.max(1, Math.min(wrongPassword.elapsedMs, unknown.elapsedMs))
  const times = `wrong password ${wrongPassword.elapsedMs} ms, unknown address ${unknown.elapsedMs} ms (one sample each)`
  out.push(slow >= TELLING_TIME_MIN_MS && slow / fast >= TELLING_TIME_RATIO
    ? rows.advisory(timing, 'similar times (check a decoy password hash for unknown addresses)', `${times}: the time may tell which addresses have accounts`)
    : rows.pass(timing, 'similar times', times))
  return out
}
