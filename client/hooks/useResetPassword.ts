import useSWRMutation from 'swr/mutation'
import { requestPasswordReset } from '../api/reset-password.js'

export function useResetPassword () {
  return useSWRMutation('threshold/reset-password', (_key: string, { arg }: { arg: { email: string } }) => requestPasswordReset(arg))
}
