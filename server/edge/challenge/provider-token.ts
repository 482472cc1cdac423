import { CHALLENGE_HEADER_MAX_LENGTH } from '../../../common/challenge/challenge.js'
import { postOnce } from '../upstream/outbound-post.js'
import type { ProviderSettings } from './challenge-config.js'

/** How long the edge waits for the provider's siteverify. */
const PROVIDER_VERIFY_TIMEOUT_MS = 5_000

/** The largest siteverify answer read: both providers answer a few hundred bytes; a larger one is not theirs. */
export const PROVIDER_ANSWER_LIMIT_BYTES = 16 * 1024

/**
 * Turnstile's and hCaptcha's check of a widget's token, the one call both
 * document alike: a form POST of `secret`, `response` and `remoteip` to
 * siteverify, answered `{ success: boolean, hostname: string, … }`. Kept thin
 * on purpose: the provider decides; the tokens are single-use at the provider.
 * Resolves `passed`; `refused` (the provider said no, or the token is not
 * one); `mismatch` (a token solved on a page of another host: a widget on an
 * attacker's site with the operator's public site key, which Cloudflare asks
 * servers to refuse by the answer's `hostname`); or `unverified` (the provider
 * could not be asked, or its answer is not one: a refusal too, since the
 * challenge is only asked for when risk is high; logged by the caller).
 */
export async function verifyProviderToken (
  provider: ProviderSettings,
  token: string,
  remoteAddress: string | null,
  isServedHost: (hostname: string) => boolean
): Promise<'passed' | 'refused' | 'mismatch' | 'unverified'> {
  if (token.length === 0 || token.length > CHALLENGE_HEADER_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(token)) return 'refused'
  const form = new URLSearchParams({ secret: provider.secret, response: token })
  if (remoteAddress !== null) form.set('remoteip', remoteAddress)
  if (provider.kind === 'hcaptcha') form.set('sitekey', provider.siteKey)
  let body: unknown
  try {
    // postOnce: no redirect followed, TLS verified, the answer's size bounded.
    const answer = await postOnce(provider.verifyUrl, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'accept-encoding': 'identity' },
      body: Buffer.from(form.toString()),
      timeoutMs: PROVIDER_VERIFY_TIMEOUT_MS,
      limitBytes: PROVIDER_ANSWER_LIMIT_BYTES
    })
    if (answer.status < 200 || answer.status > 299) return 'unverified'
    body = JSON.parse(answer.body.toString('utf8'))
  } catch {
    return 'unverified'
  }
  if (body === null || typeof body !== 'object' || typeof (body as { success?: unknown }).success !== 'boolean') return 'unverified'
  const { success, hostname } = body as { success: boolean, hostname?: unknown }
  if (!success) return 'refused'
  return typeof hostname === 'string' && isServedHost(hostname) ? 'passed' : 'mismatch'
}
