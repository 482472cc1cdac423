import useSWRMutation from 'swr/mutation'
import { resetPasswordRequest } from '../api/accounts.js'
import { ERROR_MESSAGES, SUCCESS_MESSAGES } from '../lib/messages.js'
import type { PageState } from './usePageState.js'

/** The password reset request, for the email on the page. */
export function useResetPassword (page: PageState) {
  const { trigger, isMutating } = useSWRMutation('threshold/reset-password', (_key: string, { arg }: { arg: { email: string } }) => resetPasswordRequest(arg))
  return {
    isMutating,
    submit (): void {
      page.clearNotice()
      if (page.localMode) {
        page.fail(ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED)
        return
      }
      void trigger({ email: page.email }, { onSuccess: (answer) => page.finishWithSuccess(answer, SUCCESS_MESSAGES.RESET_REQUESTED) })
    }
  }
}
