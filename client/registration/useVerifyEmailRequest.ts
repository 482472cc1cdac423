import useSWRMutation from 'swr/mutation'
import { verifyEmailRequest } from './registration-calls.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { SUCCESS_MESSAGE_KEYS } from '../../common/languages/page-texts.js'
import { refusalText } from '../languages/messages.js'
import type { PageState } from '../page/usePageState.js'

/** What the request for a new link uses of the page. */
type VerifyEmailRequestPage = Pick<PageState, 'messages' | 'email' | 'verificationLinkOffered' | 'fail' | 'succeed'>

/**
 * A new verification link, offered after a login refused because the address
 * is not verified yet, for the address in the email field. A refusal (a rate
 * limit, an address the service does not take) keeps the offer, so the
 * visitor can try again; once the link is sent, the offer ends.
 */
export function useVerifyEmailRequest (page: VerifyEmailRequestPage) {
  const { trigger, isMutating } = useSWRMutation('threshold/verify-email-request', (_key: string, { arg }: { arg: { email: string } }) => verifyEmailRequest(arg))
  return {
    offered: page.verificationLinkOffered,
    sending: isMutating,
    /** Sends the link; `onSent` runs once it is sent, when the offer (and its button) goes. */
    send (onSent: () => void): void {
      void trigger({ email: page.email }, {
        onSuccess: (answer) => {
          if (answer.kind !== 'success') {
            page.fail(answer.kind === 'error' ? refusalText(answer, page.messages) : page.messages.text(ERROR_MESSAGE_KEYS.GENERIC))
            return
          }
          page.succeed(answer.message === '' ? page.messages.text(SUCCESS_MESSAGE_KEYS.VERIFICATION_LINK_SENT) : answer.message)
          onSent()
        }
      })
    }
  }
}
