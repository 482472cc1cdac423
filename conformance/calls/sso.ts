import { notRefusal, notSsoStart, type ReadableAnswer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { NO_CONTEXT, randomName, unknownAddress } from './login-context.js'

const START = 'auth/login/sso'
const REFUSAL = '4xx with an "error" text, no tokens'

/** Either answer the page can read for a start: a refusal it shows, or an sso_url it follows. */
function notReadableStart (answer: ReadableAnswer): string | null {
  if (notRefusal(answer) === null || notSsoStart(answer) === null) return null
  return answer.status >= 200 && answer.status < 300 ? notSsoStart(answer) : notRefusal(answer)
}

/** The rows of single sign-on: its start, and the return calls refusing an id the backend never issued. */
export async function ssoRows (probe: Probe): Promise<Row[]> {
  const out: Row[] = []
  const startBody = (email: unknown): Record<string, unknown> => ({ email, source: 'login', redirect: null, ...NO_CONTEXT })
  out.push((await checkCall(probe, { path: START, body: startBody(unknownAddress()) },
    'a start for an address without single sign-on answers what the page can read', `${REFUSAL}, or 2xx with an http(s) "sso_url"`, notReadableStart)).row)

  const withSso = 'a start for an address with single sign-on answers its sso_url'
  const urlExpected = '2xx with an absolute http(s) "sso_url" without credentials'
  if (probe.options.ssoEmail === null) {
    out.push(rowsFor(`POST ${START}`).skip(withSso, urlExpected, 'needs --sso-email (an address in a domain the backend has single sign-on for)'))
  } else {
    out.push((await checkCall(probe, { path: START, body: startBody(probe.options.ssoEmail) }, withSso, urlExpected, notSsoStart)).row)
  }
  out.push((await checkCall(probe, { path: START, body: startBody(null) }, 'a start without an email is refused', REFUSAL, notRefusal)).row)

  const madeUpId = `conformance-${randomName()}${randomName()}`
  const email = probe.options.ssoEmail ?? probe.account?.email ?? unknownAddress()
  out.push((await checkCall(probe, { path: 'v2/auth/login', body: { email, login_method: 'SAML', id: madeUpId, ...NO_CONTEXT } },
    'an SSO return (SAML) with an id the backend never issued is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, { path: 'v2/auth/login', body: { email, login_method: 'OIDC', id: madeUpId, ...NO_CONTEXT } },
    'an SSO return (OIDC) with an id the backend never issued is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, { path: 'auth/register', body: { register_method: 'OIDC', id: madeUpId } },
    'an SSO registration with an id the backend never issued is refused', REFUSAL, notRefusal)).row)
  return out
}
