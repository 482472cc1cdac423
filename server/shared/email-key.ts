import { domainToASCII } from 'node:url'

/**
 * The form of an email address used to find accounts. Two addresses that a
 * person cannot tell apart must find one account, or a stranger could register
 * a look-alike beside the real one (`n3x@ｂ.co` beside `n3x@b.co`):
 * - Unicode compatibility normalisation (NFKC) folds full-width and other
 *   compatibility characters, and composes accents (é and e + ◌́);
 * - the domain is compared in its IDNA (punycode) form, so `bücher.example`
 *   and `xn--bcher-kva.example` are one domain;
 * - case does not count, in the local part either (every provider people use
 *   treats it so).
 * Shared because the edge's challenge counts failed logins per account
 * (server/edge/challenge/risk.ts) and must name an account exactly as the
 * reference service finds it: a look-alike spelling would otherwise reach the
 * account with a fresh count. Changing this changes stored keys: the
 * reference's stores re-key their accounts in a migration
 * (server/reference/store/email-key.ts).
 */
export function emailKey (email: string): string {
  const folded = email.trim().normalize('NFKC').toLowerCase()
  const at = folded.lastIndexOf('@')
  if (at === -1) return folded
  const domain = folded.slice(at + 1)
  // Not a domain IDNA accepts (the service validates addresses before this): compare it as it is.
  const asciiDomain = domainToASCII(domain) || domain
  return `${folded.slice(0, at)}@${asciiDomain}`
}
