import useSWRMutation from 'swr/mutation'
import { register, type RegisterPayload } from './registration-calls.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { SUCCESS_MESSAGE_KEYS } from '../../common/languages/page-texts.js'
import type { PageState } from '../page/usePageState.js'

/** What a registration uses of the page. */
export type RegisterPage = Pick<PageState, 'messages' | 'localMode' | 'setEmail' | 'clearNotice' | 'fail' | 'finishWithSuccess'>

/** Registration with email and password; the registered email stays for the login that follows. */
export function useRegister (page: RegisterPage) {
  const { trigger, isMutating } = useSWRMutation('threshold/register', (_key: string, { arg }: { arg: RegisterPayload }) => register(arg))
  return {
    submitting: isMutating,
    submit (payload: RegisterPayload): void {
      page.clearNotice()
      if (page.localMode) {
        page.fail(page.messages.text(ERROR_MESSAGE_KEYS.LOCAL_ACCOUNTS_NOT_SUPPORTED))
        return
      }
      void trigger(payload, {
        onSuccess: (answer) => {
          page.finishWithSuccess(answer, page.messages.text(SUCCESS_MESSAGE_KEYS.REGISTERED))
          if (answer.kind === 'success') page.setEmail(payload.email)
        }
      })
    }
  }
}
