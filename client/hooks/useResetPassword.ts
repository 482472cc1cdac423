import useSWRMutation from 'swr/mutation'
import { resetPasswordRequest } from '../api/accounts.js'

export function useResetPassword () {
  return useSWRMutation('threshold/reset-password', (_key: string, { arg }: { arg: { email: string } }) => resetPasswordRequest(arg))
}
