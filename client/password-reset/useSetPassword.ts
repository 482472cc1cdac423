import { useState } from 'react'
import useSWRMutation from 'swr/mutation'
import { setPassword, type SetPasswordPayload } from './password-reset-calls.js'
import { updateSearchParams } from '../page/address-bar.js'
import { SUCCESS_MESSAGE_KEYS } from '../../common/languages/page-texts.js'
import type { PageState } from '../page/usePageState.js'

/** What the end of a reset uses of the page. */
export type SetPasswordPage = Pick<PageState, 'params' | 'messages' | 'clearNotice' | 'succeed' | 'finishWithSuccess'>

/**
 * The end of a password reset: the new password, with the token from the
 * emailed link. When the answer lists what was added to the account lately,
 * the view stays, done, and lists it for removal (`review`); otherwise on to
 * the login view.
 */
export function useSetPassword (page: SetPasswordPage) {
  const { trigger, isMutating } = useSWRMutation('threshold/set-password', (_key: string, { arg }: { arg: SetPasswordPayload }) => setPassword(arg))
  const [review, setReview] = useState<Readonly<Record<string, unknown>> | null>(null)
  return {
    submitting: isMutating,
    review,
    submit (password: string, confirmation: string): void {
      page.clearNotice()
      void trigger({ token: page.params.resetToken ?? '', password, confirm_password: confirmation }, {
        onSuccess: (answer) => {
          const defaultText = page.messages.text(SUCCESS_MESSAGE_KEYS.PASSWORD_SET)
          if (answer.review === undefined) page.finishWithSuccess(answer, defaultText)
          else {
            page.succeed(answer.kind === 'success' && answer.message !== '' ? answer.message : defaultText)
            setReview(answer.review)
          }
          // The token is spent: it has no business in the address any more.
          if (answer.kind === 'success') updateSearchParams((query) => query.delete('token'), { replace: true })
        }
      })
    }
  }
}
