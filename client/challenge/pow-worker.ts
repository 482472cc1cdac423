// The proof-of-work Web Worker, a script of its own (worker-asset.mjs): altcha-lib's worker protocol
// (a `work` message with the challenge and where to count from; the solution, null, or `{ error }`
// back) over WebCrypto. altcha-lib's own `workers/pbkdf2` derives with node:crypto, for Node.
import { handler } from 'altcha-lib/workers/shared'
import { deriveKey } from './derive-key.js'

handler({ deriveKey })
