import useSWRMutation from 'swr/mutation'
import { resetPasswordRequest } from './password-reset-calls.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { SUCCESS_MESSAGE_KEYS } from '../../common/languages/page-texts.js'
import type { PageState } from '../page/usePageState.js'

/** What a reset request uses of the page. */
export type ResetRequestPage = Pick<PageState, 'messages' | 'localMode' | 'email' | 'clearNotice' | 'fail' | 'finishWithSuccess'>

/** The password reset request, for the email on the page. */
export function useResetPassword (page: ResetRequestPage) {
  const { trigger, isMutating } = useSWRMutation('threshold/reset-password', (_key: string, { arg }: { arg: { email: string } }) => resetPasswordRequest(arg))
  return {
    submitting: isMutating,
    submit (): void {
      page.clearNotice()
      if (page.localMode) {
        page.fail(page.messages.text(ERROR_MESSAGE_KEYS.LOCAL_ACCOUNTS_NOT_SUPPORTED))
        return
      }
      void trigger({ email: page.email }, { onSuccess: (answer) => page.finishWithSuccess(answer, page.messages.text(SUCCESS_MESSAGE_KEYS.RESET_REQUESTED)) })
    }
  }
}
