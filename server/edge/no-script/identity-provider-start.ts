import type { JsonAnswer, SsoStartAnswer } from '../../../common/http/accounts-answers.js'
import { isProviderUrl } from '../../../common/http/provider-url.js'
import { failureStatus } from './answer-status.js'
import { refusalText, refused, type FormOutcome } from './form-outcome.js'
import type { FormPost } from './form-post.js'

/** A provider's URL this edge will not send a visitor to is an answer it cannot use, as the status table says (docs/no-script.md). */
const UNSAFE_PROVIDER_STATUS = 502

/**
 * How a start posted without scripts ends, single sign-on's (`form=sso`) and a social connection's
 * (`form=social`) alike: a page that sends the visitor on to the identity provider
 * (identity-provider-page.ts) when the answer names a URL it may go to, which must be an absolute https URL
 * without credentials, or http on a loopback host (a provider on the developer's machine); otherwise the
 * view's form again, with what went wrong above it.
 */
export function identityProviderOutcome (post: Pick<FormPost, 'messages'>, view: 'login' | 'register', email: string, raw: JsonAnswer, answer: SsoStartAnswer): FormOutcome {
  if (answer.kind === 'redirect') {
    if (isProviderUrl(answer.url)) return { kind: 'identity-provider', location: answer.url }
    return refused(UNSAFE_PROVIDER_STATUS, view, email, post.messages.text('error.GENERIC'))
  }
  return refused(failureStatus(raw), view, email, answer.kind === 'error' ? refusalText(answer, post.messages) : post.messages.text('error.GENERIC'))
}
