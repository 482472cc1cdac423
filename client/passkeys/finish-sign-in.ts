import type { DomainGate } from '../domain-check/useDomainCheck.js'
import type { PageState } from '../page/usePageState.js'
import { revokeRefresh } from './passkey-calls.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { refusalText } from '../languages/messages.js'
import { signalSignedIn, type PasskeySignInOutcome } from './passkey-ceremonies.js'

/** What the end of a passkey sign-in uses of the page. */
type PasskeySignInPage = Pick<PageState, 'messages' | 'fail' | 'finishLogin'>

/**
 * How a passkey sign-in ends, after the accounts service's answer. With
 * the domain check, the account's email (known only now) is checked before
 * anything is stored; a refused domain shows the spec's message and the
 * refresh token (in the edge's cookie) is revoked, so no usable session is left. Otherwise the
 * password manager is told the account's passkeys and details, without
 * waiting, and the sign-in ends as every login does.
 */
export async function finishPasskeySignIn (outcome: PasskeySignInOutcome, page: PasskeySignInPage, gate: DomainGate, rpId: string): Promise<void> {
  if (outcome.kind === 'cancelled') return
  if (outcome.kind !== 'tokens') {
    page.fail(outcome.kind === 'error' ? refusalText(outcome, page.messages) : page.messages.text(ERROR_MESSAGE_KEYS.GENERIC))
    return
  }
  const refusal = await gate(outcome.email)
  if (refusal !== null) {
    page.fail(refusal)
    void revokeRefresh()
    return
  }
  signalSignedIn(rpId, outcome)
  page.finishLogin(outcome)
}
