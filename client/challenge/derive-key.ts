import { deriveKey as pbkdf2 } from 'altcha-lib/algorithms/web/pbkdf2'
import { deriveKey as sha } from 'altcha-lib/algorithms/web/sha'
import type { DeriveKeyFunction } from 'altcha-lib/types'

/**
 * The key derivation an ALTCHA v2 challenge names, with the browser's
 * WebCrypto: PBKDF2/SHA-* (what the edge asks for, docs/challenge.md) or the
 * plain SHA-* chain. Any other algorithm throws (altcha-lib checks), and the
 * page refuses the challenge as one it cannot solve.
 */
export const deriveKey: DeriveKeyFunction = async (parameters, salt, password) =>
  (parameters.algorithm.startsWith('PBKDF2/') ? pbkdf2 : sha)(parameters, salt, password)
