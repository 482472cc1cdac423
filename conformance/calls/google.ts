import { notRefusal, notTokens } from '../answers.js'
import { forgedGoogleToken, PLACEHOLDER_CLIENT_ID, unsignedGoogleToken } from '../forged-google-token.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { NO_CONTEXT, unknownAddress } from './login-context.js'

const LOGIN = 'v2/auth/login'
const REGISTER = 'auth/register'
const REFUSAL = '4xx with an "error" text, no tokens'

/** The rows of Google login and registration: forged tokens refused, a real one (when given) accepted. */
export async function googleRows (probe: Probe): Promise<Row[]> {
  const out: Row[] = []
  const email = probe.account?.email ?? unknownAddress()
  const clientId = probe.options.googleClientId ?? PLACEHOLDER_CLIENT_ID
  const loginBody = (nonceSecret: string | null): Record<string, unknown> =>
    ({ email, login_method: 'GOOGLE', ...(nonceSecret === null ? {} : { google_nonce_secret: nonceSecret }), ...NO_CONTEXT })

  const forged = forgedGoogleToken(email, clientId)
  out.push((await checkCall(probe, { path: LOGIN, body: loginBody(forged.nonceSecret), bearer: forged.token },
    `a Google ID token signed by a key that is not Google's is refused (token names ${probe.account === null ? 'an unknown address' : 'the test account'})`, REFUSAL, notRefusal)).row)
  const unsigned = unsignedGoogleToken(email, clientId)
  out.push((await checkCall(probe, { path: LOGIN, body: loginBody(unsigned.nonceSecret), bearer: unsigned.token },
    'an unsigned Google ID token (alg "none") is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, { path: LOGIN, body: loginBody(null) }, 'a Google login without a token is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, { path: LOGIN, body: { email, login_method: 'PASSWORD', ...NO_CONTEXT } },
    'an unknown login_method is refused', REFUSAL, notRefusal)).row)

  const real = 'a real Google ID token signs in'
  const expected = '2xx with non-empty "auth" and "refresh"'
  const { googleToken, googleNonceSecret } = probe.options
  if (googleToken === null) {
    out.push(rowsFor(`POST ${LOGIN}`).skip(real, expected, 'needs --google-token (an ID token for an account the backend knows, with --google-email and --google-nonce-secret)'))
  } else {
    const tokenEmail = probe.options.googleEmail ?? email
    out.push((await checkCall(probe, { path: LOGIN, body: { ...loginBody(googleNonceSecret), email: tokenEmail }, bearer: googleToken }, real, expected, notTokens)).row)
  }
  const forgedRegistration = forgedGoogleToken(unknownAddress(), clientId)
  out.push((await checkCall(probe, { path: REGISTER, body: { register_method: 'GOOGLE', google_nonce_secret: forgedRegistration.nonceSecret }, bearer: forgedRegistration.token },
    'a Google registration with a forged ID token is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, { path: REGISTER, body: { register_method: 'GOOGLE' } }, 'a Google registration without a token is refused', REFUSAL, notRefusal)).row)

  return out
}
