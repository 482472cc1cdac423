import { describe, notRefusal, type ReadableAnswer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { randomName } from './login-context.js'

/*
 * SSO found by the address (docs/sso.md, "Found by the address"): the answer
 * follows the address's domain alone, and never tells whether an address has
 * an account. Run only with --sso-discovery: a backend answers the call only
 * where its operator turns SSO_DISCOVERY on; `--sso-domain` names a domain
 * with a connection for the row that expects `{sso: true}`.
 */

const DISCOVER = 'auth/sso/discover'
const rows = rowsFor(`POST ${DISCOVER}`)

const MALFORMED = '400 with an "error" text'
const NO_SSO = '200 {"sso": false}'
const SSO = '200 {"sso": true, "required": true or false}'
const ALIKE = 'the same answer'

const NOT_ASKED = 'not asked: give --sso-discovery where the backend answers auth/sso/discover (SSO_DISCOVERY=true)'

function notMalformedRefusal (answer: ReadableAnswer): string | null {
  return notRefusal(answer) ?? (answer.status === 400 ? null : `status ${answer.status}, not 400`)
}

function notNoSso (answer: ReadableAnswer): string | null {
  if (answer.status !== 200) return `status ${answer.status}, not 200`
  return answer.body.sso === false ? null : `"sso" is ${JSON.stringify(answer.body.sso)}, not false: no backend has a connection for a made-up domain`
}

function notSso (answer: ReadableAnswer): string | null {
  if (answer.status !== 200) return `status ${answer.status}, not 200`
  if (answer.body.sso !== true) return `"sso" is ${JSON.stringify(answer.body.sso)}, not true: the page would ask for a password`
  return typeof answer.body.required === 'boolean' ? null : '"required" is not true or false'
}

/** The rows of `auth/sso/discover`, or one skipped row each without --sso-discovery. */
export async function ssoDiscoveryRows (probe: Probe): Promise<Row[]> {
  const checks = {
    empty: 'a body without an address is refused',
    invalid: 'an invalid address is refused',
    none: 'an address of a domain without a connection gets no single sign-on',
    alike: 'two addresses of one domain, one with an account, answer alike',
    sso: 'an address of the --sso-domain gets single sign-on'
  }
  if (probe.options.ssoDiscovery !== true) {
    return [[checks.empty, MALFORMED], [checks.invalid, MALFORMED], [checks.none, NO_SSO], [checks.alike, ALIKE], [checks.sso, SSO]]
      .map(([check, expected]) => rows.skip(check!, expected!, NOT_ASKED))
  }
  const out: Row[] = []
  out.push((await checkCall(probe, { path: DISCOVER, body: {} }, checks.empty, MALFORMED, notMalformedRefusal)).row)
  out.push((await checkCall(probe, { path: DISCOVER, body: { email: 'not an address' } }, checks.invalid, MALFORMED, notMalformedRefusal)).row)
  out.push((await checkCall(probe, { path: DISCOVER, body: { email: `someone@no-sso-${randomName()}.example` } }, checks.none, NO_SSO, notNoSso)).row)

  if (probe.account === null) out.push(rows.skip(checks.alike, ALIKE, `needs a test account: ${probe.noAccountReason}`))
  else {
    const domain = probe.account.email.slice(probe.account.email.lastIndexOf('@') + 1)
    const known = await probe.call(DISCOVER, { email: probe.account.email })
    const unknown = await probe.call(DISCOVER, { email: `conformance-unknown-${randomName()}@${domain}` })
    if (known === null || unknown === null) out.push(rows.skip(checks.alike, ALIKE, probe.stoppedReason()))
    else if (!known.readable || !unknown.readable) out.push(rows.fail(checks.alike, ALIKE, `known: ${describe(known)}; unknown: ${describe(unknown)}`))
    else {
      const got = `known: ${describe(known)}; unknown: ${describe(unknown)}`
      const same = known.status === unknown.status && JSON.stringify(known.body) === JSON.stringify(unknown.body)
      out.push(same ? rows.pass(checks.alike, ALIKE, got) : rows.fail(checks.alike, ALIKE, `${got} — the difference tells which addresses have accounts`))
    }
  }

  const ssoDomain = probe.options.ssoDomain ?? null
  if (ssoDomain === null) out.push(rows.skip(checks.sso, SSO, 'needs --sso-domain (a domain the backend has single sign-on for)'))
  else out.push((await checkCall(probe, { path: DISCOVER, body: { email: `someone@${ssoDomain}` } }, checks.sso, SSO, notSso)).row)
  return out
}
