import { parseSsoStartAnswer } from '../../../common/http/accounts-answers.js'
import { isLoopbackHost } from '../../../common/http/hosts.js'
import { failureStatus } from './answer-status.js'
import { refusalText, refused } from './form-outcome.js'
import { loginContextFields } from '../../../common/page/page-query.js'
import type { FormOutcome } from './form-outcome.js'
import type { FormHandler, FormPost } from './form-post.js'

/** An `sso_url` this edge will not send a visitor to is an answer it cannot use, as the status table says (docs/no-script.md). */
const UNSAFE_PROVIDER_STATUS = 502

/** Whether the visitor may be sent to `url`: https, or http to a loopback host only. */
function isSafeProviderUrl (url: string): boolean {
  const parsed = new URL(url)
  return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname))
}

/**
 * `form=sso`, the start of single sign-on, as client/sso/useSsoStart.ts:
 * the domain check first when the address asks for it, then `auth/login/sso`
 * with the view as its source, the address's `redirect` and the login
 * context; then a page that sends the visitor on to the answer's `sso_url`
 * (identity-provider-page.ts), with the service's state cookie set on the
 * way. The `sso_url` must be an absolute https URL without credentials, or
 * http on a loopback host (a provider on the developer's machine), or it is
 * a failure. A failure shows above the view's form (the page shows it in
 * its modal). Local-network mode offers no SSO.
 */
export const ssoStartForm: FormHandler = async (post) => {
  const email = post.fields.one('email')
  const view = post.view === 'register' ? 'register' : 'login'
  if (post.localAccounts.kind !== 'off') return refused(400, view, email, post.messages.text('error.LOCAL_ACCOUNTS_NOT_SUPPORTED'))
  const refusal = await post.domainGate(email)
  if (refusal !== null) return refused(refusal.status, view, email, post.messages.text(refusal.key))
  return await startSingleSignOn(post, email, view)
}

/**
 * The start itself, once the address may go on (local-network mode off, the
 * domain check passed): `auth/login/sso` from `view`, then the identity
 * provider's page. Also where the login and register forms send an address
 * whose domain SSO_DISCOVERY found (sso-discovery.ts).
 */
export async function startSingleSignOn (post: FormPost, email: string, view: 'login' | 'register'): Promise<FormOutcome> {
  const raw = await post.callAccounts('auth/login/sso', { email, source: view, redirect: post.context.redirect, ...loginContextFields(post.context) })
  const answer = parseSsoStartAnswer(raw)
  if (answer.kind === 'redirect') {
    if (isSafeProviderUrl(answer.url)) return { kind: 'identity-provider', location: answer.url }
    return refused(UNSAFE_PROVIDER_STATUS, view, email, post.messages.text('error.GENERIC'))
  }
  return refused(failureStatus(raw), view, email, answer.kind === 'error' ? refusalText(answer, post.messages) : post.messages.text('error.GENERIC'))
}
