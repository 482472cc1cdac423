import type { JsonAnswer } from '../../common/http/accounts-answers.js'
import { pageLanguageHeaders } from '../languages/page-language.js'
import { loadChunk } from '../page/load-chunk.js'

/** One JSON POST, as every accounts call is (docs/accounts-api.md, "How a call travels"); the answer's type is shared with the edge. */

export interface PostOptions {
  /** A bearer credential for the Authorization header (the Google ID token). */
  readonly bearer?: string
  /** `include` for the SSO calls, whose state cookie must travel. */
  readonly credentials?: RequestCredentials
  readonly mode?: RequestMode
  /** Headers of a call made again with a challenge's solution (client/challenge/); such a call's 428 is its caller's. */
  readonly headers?: Readonly<Record<string, string>>
}

export async function postJson (url: string, body: unknown, options: PostOptions = {}): Promise<JsonAnswer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...pageLanguageHeaders(),
        ...(options.bearer === undefined ? {} : { authorization: `Bearer ${options.bearer}` }),
        ...options.headers
      },
      body: JSON.stringify(body),
      credentials: options.credentials ?? 'same-origin',
      mode: options.mode ?? 'same-origin',
      cache: 'no-store',
      redirect: 'error',
      // The page's address can hold a reset token or an email: send only the
      // origin, so that it never lands in a backend's access log.
      referrerPolicy: 'strict-origin'
    })
    const parsed: unknown = await response.json()
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { kind: 'unreadable' }
    const answer = { kind: 'json', status: response.status, body: parsed as Record<string, unknown> } as const
    // The edge asks for a challenge (common/challenge/challenge.ts): solved by a chunk loaded only then, and the call made again.
    return answer.status === 428 && !options.headers
      ? (await loadChunk(() => import('../challenge/answer-challenge.js'))).answerChallenge(answer, (headers) => postJson(url, body, { ...options, headers }))
      : answer
  } catch {
    return { kind: 'unreadable' }
  }
}
