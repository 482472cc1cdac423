import type { JsonAnswer } from '../../../common/http/accounts-answers.js'
import { REFRESH_COOKIE } from '../../../common/sessions/session-cookies.js'
import { failureStatus } from './answer-status.js'
import type { FormHandler } from './form-post.js'

/**
 * Whether a `token/revoke` answer leaves nothing to end, as the page's
 * signed-in state reads it (client/sessions/this-session-calls.ts
 * endThisSession): revoked, or refused for a token the service does not
 * take (one it no longer knows); not when the call failed (no answer, a
 * server error, 429), where the session may live on.
 */
function nothingLeftToEnd (answer: JsonAnswer): boolean {
  return answer.kind === 'json' && answer.status < 500 && answer.status !== 429
}

/**
 * `form=logout`, the sign-out page's button (server/edge/sessions/sign-out-page.ts):
 * the session ends at the accounts service (`token/revoke`, which the edge's
 * proxy fills from the `refresh` cookie), then both token cookies go and the
 * visitor is sent to the address's `redirect` when it is safe, else to the
 * login view, told they are signed out. Without a refresh cookie there is
 * nothing to end at the service: the cookies go all the same. A failed call
 * keeps the cookies and shows the page again, saying so.
 */
export const logoutForm: FormHandler = async (post) => {
  if (post.cookie(REFRESH_COOKIE) !== undefined) {
    const answer = await post.callAccounts('token/revoke', {})
    if (!nothingLeftToEnd(answer)) return { kind: 'sign-out', status: failureStatus(answer), error: post.messages.text('signedIn.signOutFailed') }
  }
  return post.signOut(post.messages.text('signedIn.signedOut'))
}
